/* The event form shows the options of the chosen game only (fieldset[data-game]); the server
   ignores the other games' fields whatever is sent. Without JavaScript the page shows the options
   of the game it was loaded with. */
(function () {
  "use strict";
  var form = document.getElementById("event-form");
  if (!form) return;
  var game = form.querySelector("[name=game]");
  if (!game) return;
  function show() {
    form.querySelectorAll("fieldset[data-game]").forEach(function (fieldset) {
      fieldset.hidden = fieldset.getAttribute("data-game") !== game.value;
    });
  }
  game.addEventListener("change", show);
  show();
})();
