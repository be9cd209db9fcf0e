// The console's correction of a hand, through the score sheet's own form for the game
// (sheet-forms.js): filled with the stored hand, or with what was entered when the server refused
// it, the refusal shown at the field its JSON Pointer names. The record goes in a hidden field and
// the form is posted as any other; the engine's check is the server's.
import * as forms from "./sheet-forms.js";

const read = (id) => JSON.parse(document.getElementById(id).textContent);
const cfg = read("correct-config");
const text = read("correct-text");
const stored = read("correct-record");
const error = read("correct-error");
const form = document.getElementById("correct-form");
const format = (template, values) => String(template).replace(/%\((\w+)\)s/g, (_, key) => values[key] ?? "");
const ctx = { game: cfg.game, players: cfg.players, points: cfg.points, names: cfg.names, text, format };
const check = document.getElementById("check");

forms.setup(form, ctx);
forms.fill(form, ctx, stored);
if (error) {
  const note = forms.showAt(form, error.path, error.message);
  note.scrollIntoView({ block: "center" });
}

form.addEventListener("input", () => {
  forms.update(form, ctx);
  check.textContent = "";
});
form.addEventListener("change", () => forms.update(form, ctx));

form.addEventListener("submit", (event) => {
  const { record, missing } = forms.read(form, ctx, stored.dealer);
  forms.clearMessages(form);
  if (missing.length) {
    event.preventDefault();
    check.textContent = format(text.missing, { what: missing.join(", ") });
    return;
  }
  // The stored hand's head (game, players, dealer) with the form's summary.
  document.getElementById("record-json").value = JSON.stringify(record);
});
