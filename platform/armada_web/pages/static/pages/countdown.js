// Countdowns: every <time data-countdown datetime="ISO"> shows the time left, updated each second.
// The server renders the first text (no script needed to read it); this file only keeps it live.
(function () {
  "use strict";
  function pad(n) { return String(n).padStart(2, "0"); }
  function left(ms) {
    if (ms <= 0) { return "now"; }
    var s = Math.floor(ms / 1000);
    var d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
    return (d ? d + "d " : "") + pad(h) + ":" + pad(m) + ":" + pad(s % 60);
  }
  function tick() {
    var now = Date.now();
    document.querySelectorAll("time[data-countdown]").forEach(function (el) {
      var at = Date.parse(el.getAttribute("datetime"));
      if (!isNaN(at)) { el.textContent = left(at - now); el.dataset.left = String(Math.max(0, at - now)); }
    });
  }
  document.addEventListener("DOMContentLoaded", function () { tick(); window.setInterval(tick, 1000); });
}());
