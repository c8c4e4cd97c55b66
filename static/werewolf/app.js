// Deadlines in the reader's own time zone with a countdown, the New game form's options
// for the chosen ruleset only, and a quiet reload when the game moves on (unless the
// reader is in the middle of filling in a form).
(function () {
  "use strict";

  function pad(n) { return String(n).padStart(2, "0"); }

  function tick() {
    document.querySelectorAll("time[data-countdown]").forEach(function (el) {
      var left = Math.max(0, Math.floor((new Date(el.getAttribute("datetime")) - new Date()) / 1000));
      var out = el.parentElement.querySelector(".countdown");
      if (!out) { return; }
      if (left === 0 && out.dataset.done) { out.textContent = out.dataset.done; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left / 3600) % 24, m = Math.floor(left / 60) % 60, s = left % 60;
      out.textContent = (d ? d + "d " : "") + pad(h) + ":" + pad(m) + ":" + pad(s);
    });
  }

  document.querySelectorAll("time[data-local]").forEach(function (el) {
    var local = el.parentElement.querySelector(".local-time");
    if (local) {
      local.textContent = new Date(el.getAttribute("datetime")).toLocaleString([], {
        weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", timeZoneName: "short"
      });
    }
  });
  tick();
  setInterval(tick, 1000);

  // The New game form: only the chosen ruleset's options show (without scripts, all do,
  // each under its ruleset's name).
  var chooser = document.querySelector("select[name=ruleset]");
  if (chooser) {
    var showChosen = function () {
      document.querySelectorAll("fieldset[data-ruleset]").forEach(function (set) {
        set.hidden = set.getAttribute("data-ruleset") !== (chooser.value || "classic");
      });
    };
    chooser.addEventListener("change", showChosen);
    showChosen();
  }

  var dirty = false;
  document.querySelectorAll("form").forEach(function (form) {
    form.addEventListener("input", function () { dirty = true; });
    form.addEventListener("change", function () { dirty = true; });
  });
  var watch = document.querySelector("[data-version-url]");
  if (watch) {
    var url = watch.getAttribute("data-version-url");
    var version = watch.getAttribute("data-version");
    setInterval(function () {
      if (dirty || document.hidden) { return; }
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (body) {
        if (body.version && body.version !== version) { window.location.replace(window.location.pathname); }
      }).catch(function () {});
    }, 15000);
  }
})();
