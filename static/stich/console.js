/* The console's small scripts. A print button (the schedule). The swap by tapping: tap a player of
   the draw, then another; the two are swapped (the form's selects are filled and it is sent).
   Without JavaScript the selects do the same. */
(function () {
  "use strict";
  // no inline handler: the Content-Security-Policy allows none
  document.querySelectorAll("button[data-print]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });
  var form = document.querySelector("form[data-swap]");
  if (!form) return;
  var chosen = null;
  form.addEventListener("click", function (event) {
    var button = event.target.closest("button.seat");
    if (!button) return;
    if (chosen === button) {
      button.setAttribute("aria-pressed", "false");
      chosen = null;
      return;
    }
    if (!chosen) {
      chosen = button;
      button.setAttribute("aria-pressed", "true");
      return;
    }
    form.querySelector("[name=a]").value = chosen.getAttribute("data-player");
    form.querySelector("[name=b]").value = button.getAttribute("data-player");
    button.setAttribute("aria-pressed", "true");
    form.submit();
  });
})();
