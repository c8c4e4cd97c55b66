// The balance lab on the New game form (templates/games/lab_panel.html): once a ruleset, a
// number of players and options are chosen, the figures of that setup are fetched from the
// site and shown in place, and again as the setup changes; a lopsided setup's suggestion
// follows in a second request. Without scripts, the button posts the form to the lab's page.
// The player list never leaves the page: only how many lines it has.
(function () {
  "use strict";

  var panel = document.getElementById("lab");
  var form = document.getElementById("game-form");
  if (!panel || !form || !window.fetch) { return; }
  var out = document.getElementById("lab-result");
  var button = document.getElementById("lab-button");
  var asked = 0;
  var timer = null;

  function count() {
    var players = form.querySelector("[name=players]");
    var lines = players ? players.value.split("\n").filter(function (line) { return line.trim(); }).length : 0;
    var signup = form.querySelector("[name=signup]");
    var limit = form.querySelector("[name=signup_limit]");
    if (signup && signup.checked && limit && limit.value) { return limit.value; }
    return lines ? String(lines) : "";
  }

  function query() {
    var data = new FormData(form);
    ["players", "name", "csrfmiddlewaretoken"].forEach(function (name) { data.delete(name); });
    var params = new URLSearchParams();
    data.forEach(function (value, name) { if (typeof value === "string") { params.append(name, value); } });
    var players = count();
    if (players) { params.set("count", players); }
    return params.toString();
  }

  function fetchInto(url, place, number, then) {
    fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        // The lab answers its own words when it refuses (a setup it cannot study, its
        // limit); anything else (a session that ended, a server error) is a failure.
        if (response.redirected || (!response.ok && response.status !== 400 && response.status !== 429)) {
          throw new Error(String(response.status));
        }
        return response.text();
      })
      .then(function (html) {
        if (number !== asked) { return; }
        place.innerHTML = html;
        if (then) { then(); }
      })
      .catch(function () {
        if (number === asked) { out.textContent = panel.dataset.labFailed; }
      });
  }

  function suggest(number) {
    var box = out.querySelector("[data-lab-suggestion][data-url]");
    if (box) { fetchInto(box.getAttribute("data-url"), box, number, null); }
  }

  function ask() {
    asked += 1;
    var number = asked;
    out.textContent = panel.dataset.labBusy;
    fetchInto(panel.dataset.labUrl + "?" + query(), out, number, function () { suggest(number); });
  }

  function later() {
    clearTimeout(timer);
    timer = setTimeout(ask, 800);
  }

  // The form sent (the game created): nothing more to ask on this page.
  var leaving = false;
  form.addEventListener("submit", function () { leaving = true; clearTimeout(timer); });

  button.addEventListener("click", function (event) { event.preventDefault(); ask(); });
  form.addEventListener("change", function (event) {
    // Once there is a table to study (a player list, a sign-up limit) or the organiser asked.
    if (leaving || event.target.name === "name" || (!out.firstChild && !count())) { return; }
    later();
  });
})();
