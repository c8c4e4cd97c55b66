// Deadlines in the reader's own time zone with a countdown, the New game form's options
// for the chosen ruleset only, and game pages that take news in place (see below).
(function () {
  "use strict";

  function pad(n) { return String(n).padStart(2, "0"); }

  // Countdowns: the text inside each <time data-countdown> (the server wrote it too, for
  // readers without scripts), and a polite word when an hour, ten minutes and a minute are
  // left (never every second).
  var warned = {};
  function tick() {
    document.querySelectorAll("time[data-countdown]").forEach(function (out) {
      var left = Math.max(0, Math.floor((new Date(out.getAttribute("datetime")) - new Date()) / 1000));
      if (left === 0 && out.dataset.done) { out.textContent = out.dataset.done; return; }
      var d = Math.floor(left / 86400), h = Math.floor(left / 3600) % 24, m = Math.floor(left / 60) % 60, s = left % 60;
      out.textContent = (d ? d + (out.dataset.days || "d") + " " : "") + pad(h) + ":" + pad(m) + ":" + pad(s);
      [3600, 600, 60].forEach(function (mark) {
        var key = out.getAttribute("datetime") + "/" + mark;
        var word = out.getAttribute("data-warn-" + mark);
        if (word && left <= mark && left > mark - 30 && !warned[key]) {
          warned[key] = true;
          announce([word]);
        }
      });
    });
  }

  tick();
  setInterval(tick, 1000);

  // A form that asks before it acts (resolving a phase now, ending a game): its question is
  // in data-confirm, as the page's policy runs no script written into the page.
  // A link to copy (a seat's private link on the dashboard) is selected whole on focus.
  document.addEventListener("focusin", function (event) {
    if (event.target.hasAttribute && event.target.hasAttribute("data-select-on-focus")) { event.target.select(); }
  });
  document.addEventListener("submit", function (event) {
    var question = event.target.getAttribute && event.target.getAttribute("data-confirm");
    if (question && !window.confirm(question)) { event.preventDefault(); }
  });

  // A page of steps (a game's replay): the arrow keys follow its links marked data-key
  // (the step before and after), unless the reader is typing, holds a modifier, or is in
  // a region that scrolls sideways (a wide table: the arrows scroll it). The links work
  // without this.
  document.addEventListener("keydown", function (event) {
    if (!/^Arrow(Left|Right)$/.test(event.key) || event.defaultPrevented) { return; }
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    var target = event.target;
    if (target && target.closest && target.closest("input, textarea, select, [contenteditable]")) { return; }
    var region = target && target.closest && target.closest("[role=region]");
    if (region && region.scrollWidth > region.clientWidth) { return; }
    var link = document.querySelector('a[data-key="' + event.key + '"]');
    if (link) {
      event.preventDefault();
      window.location.assign(link.href);
    }
  });

  // The New game form: only the chosen ruleset's options show (without scripts, all do,
  // each under its ruleset's name).
  var chooser = document.querySelector("select[name=ruleset]");
  if (chooser) {
    var showChosen = function () {
      document.querySelectorAll("fieldset[data-ruleset]").forEach(function (set) {
        set.hidden = set.getAttribute("data-ruleset").split(" ").indexOf(chooser.value || "classic") < 0;
      });
    };
    chooser.addEventListener("change", showChosen);
    showChosen();
  }

  // Live pages: when the game has news, the parts of the page marked data-live are
  // updated in place from the same page fetched again (so a seat still sees only what its
  // seat may see), keeping focus and the reader's place; what is new is read out in a
  // polite live region. A card form the reader has started, or is in, is never replaced
  // under them: if its phase has ended they are told, with a button to show the new one.
  var dirty = [];
  document.addEventListener("input", function (event) { markDirty(event.target); });
  document.addEventListener("change", function (event) { markDirty(event.target); });
  function markDirty(target) {
    var region = target.closest && target.closest("[data-live-form]");
    if (region && dirty.indexOf(region) < 0) { dirty.push(region); }
  }

  function normal(element) {
    // What a region shows, without what changes by itself (countdowns, local times) or
    // per request (the CSRF token).
    var copy = element.cloneNode(true);
    copy.querySelectorAll(".countdown, .local-time").forEach(function (el) { el.textContent = ""; });
    copy.querySelectorAll("input[name=csrfmiddlewaretoken]").forEach(function (el) { el.removeAttribute("value"); });
    copy.querySelectorAll("[data-live-notice]").forEach(function (el) { el.remove(); });
    return copy.innerHTML.replace(/\s+/g, " ").trim();
  }

  function sayings(element) {
    var said = [];
    element.querySelectorAll("[data-live-say], [data-live-say-items] > li").forEach(function (el) {
      said.push(el.textContent.replace(/\s+/g, " ").trim());
    });
    return said;
  }

  // The reader's own time, written as the server writes a date (SHORT_DATETIME_FORMAT,
  // "Ven 27 nov, 18:00" / "Fri 27 Nov, 18:00") in the page's language, whatever the
  // browser's: the weekday capitalised, the month as the language writes it, the 24-hour
  // clock; then the reader's time zone.
  var localWords = null;
  function localTime(moment) {
    if (localWords === null) {
      localWords = new Intl.DateTimeFormat(document.documentElement.lang || [], {
        weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit",
        hourCycle: "h23", timeZoneName: "short"
      });
    }
    var part = {};
    localWords.formatToParts(moment).forEach(function (piece) { part[piece.type] = piece.value; });
    var weekday = part.weekday.replace(/\.$/, "");
    weekday = weekday.charAt(0).toUpperCase() + weekday.slice(1);
    var month = part.month.replace(/\.$/, "");
    return weekday + " " + part.day + " " + month + ", " + part.hour + ":" + part.minute + " " + part.timeZoneName;
  }

  function showLocalTimes(root) {
    root.querySelectorAll("time[data-local]").forEach(function (el) {
      el.textContent = localTime(new Date(el.getAttribute("datetime")));
    });
  }

  function replace(region, fresh) {
    var open = [];
    region.querySelectorAll("details").forEach(function (el, index) { if (el.open) { open.push(index); } });
    region.innerHTML = fresh.innerHTML;
    if (fresh.hasAttribute("data-live-phase")) { region.setAttribute("data-live-phase", fresh.getAttribute("data-live-phase")); }
    region.querySelectorAll("details").forEach(function (el, index) { if (open.indexOf(index) >= 0) { el.open = true; } });
    showLocalTimes(region);
    tick();
    var at = dirty.indexOf(region);
    if (at >= 0) { dirty.splice(at, 1); }
  }

  function announce(lines) {
    var news = document.getElementById("live-news");
    if (news && lines.length) {
      news.textContent = "";
      window.setTimeout(function () { news.textContent = lines.join(" "); }, 50);
      // Once read out, the news leaves the hidden region: the page itself already shows
      // it, and left there it would be on the page twice ("Your deck is ready." twice).
      window.clearTimeout(announce.clearing);
      announce.clearing = window.setTimeout(function () { news.textContent = ""; }, 3000);
    }
  }

  function anchorOf(regions) {
    // The first region still on screen: the page is scrolled so that it stays put.
    for (var i = 0; i < regions.length; i++) {
      var box = regions[i].getBoundingClientRect();
      if (box.bottom > 0) { return { region: regions[i], top: box.top }; }
    }
    return null;
  }

  function update(doc) {
    var regions = Array.prototype.slice.call(document.querySelectorAll("[data-live]"));
    var anchor = anchorOf(regions);
    var lines = [];
    var held = false;
    regions.forEach(function (region) {
      var fresh = doc.querySelector('[data-live="' + region.getAttribute("data-live") + '"]');
      if (!fresh || normal(region) === normal(fresh)) { return; }
      var focused = document.activeElement && document.activeElement !== document.body && region.contains(document.activeElement);
      var kept = region.hasAttribute("data-live-form") && (dirty.indexOf(region) >= 0 || region.querySelector("[role=alert]"));
      if (focused || kept) {
        held = true;
        var moved = region.getAttribute("data-live-phase") !== fresh.getAttribute("data-live-phase");
        if (region.hasAttribute("data-live-form") && moved && !region.querySelector("[data-live-notice]")) {
          var template = document.getElementById("live-moved");
          if (template) {
            var notice = template.content.firstElementChild.cloneNode(true);
            notice.querySelector("[data-live-show]").addEventListener("click", function () {
              replace(region, fresh);
              var heading = region.querySelector("h2, h3");
              if (heading) { heading.setAttribute("tabindex", "-1"); heading.focus(); }
            });
            region.insertBefore(notice, region.firstChild);
            lines.push(notice.querySelector("span").textContent);
          }
        }
        return;
      }
      var before = sayings(region);
      replace(region, fresh);
      sayings(region).forEach(function (line) { if (before.indexOf(line) < 0) { lines.push(line); } });
    });
    if (anchor) { window.scrollBy(0, anchor.region.getBoundingClientRect().top - anchor.top); }
    announce(lines.slice(0, 6));
    return !held;
  }

  showLocalTimes(document);

  // After a refusal, the keyboard and the screen reader start at its message (or at the
  // first field refused).
  var refusal = document.querySelector("main [role=alert]");
  var taken = document.querySelector("#handed [role=status]");
  if (refusal) {
    refusal.setAttribute("tabindex", "-1");
    refusal.focus();
  } else if (document.querySelector("main .is-invalid")) {
    document.querySelector("main .is-invalid").focus();
  } else if (taken) {
    // A card just handed in: its answer is where the keyboard and the reader start.
    taken.setAttribute("tabindex", "-1");
    taken.focus();
  }

  var watch = document.querySelector("[data-version-url]");
  if (watch) {
    var url = watch.getAttribute("data-version-url");
    var version = watch.getAttribute("data-version");
    var every = parseInt(watch.getAttribute("data-version-every"), 10) || 15000;
    var busy = false;
    var poll = function () {
      if (busy || document.hidden) { return; }
      busy = true;
      fetch(url, { credentials: "same-origin" }).then(function (r) { return r.json(); }).then(function (body) {
        if (!body.version || body.version === version) { return null; }
        return fetch(window.location.pathname, { credentials: "same-origin" }).then(function (r) {
          if (!r.ok) { throw new Error(String(r.status)); }
          return r.text();
        }).then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          var next = doc.querySelector("[data-version-url]");
          var title = doc.querySelector("title");
          if (title) { document.title = title.textContent; }
          if (update(doc) && next) { version = next.getAttribute("data-version"); }
        });
      }).catch(function () {}).then(function () { busy = false; });
    };
    setInterval(poll, every);
    document.addEventListener("visibilitychange", function () { if (!document.hidden) { poll(); } });
  }
})();
