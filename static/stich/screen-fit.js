/* The room screen fits its window: a projector cannot scroll. The standings keep every column
   (screen.css: the numbers keep their width, the names wrap), and when the page is taller than
   the window (long names wrapped, many tables), its type is made smaller in steps (--fit on
   <body>, down to 55 %) until it fits: on load, when the window changes and when a live region
   changes (live.js's "live:updated"). A phone's window is left alone: there the page scrolls. */
(function () {
  "use strict";
  var body = document.body, root = document.documentElement;
  if (!body || !body.classList.contains("screen")) return;
  var wide = window.matchMedia("(min-width: 60rem)");

  function fit() {
    var scale = 1;
    body.style.setProperty("--fit", "1");
    if (!wide.matches) return;
    while (root.scrollHeight > root.clientHeight && scale > 0.55) {
      scale = Math.round((scale - 0.05) * 100) / 100;
      body.style.setProperty("--fit", String(scale));
    }
    body.setAttribute("data-fit", String(scale));
  }

  window.addEventListener("resize", fit);
  document.addEventListener("live:updated", fit);
  fit();
})();
