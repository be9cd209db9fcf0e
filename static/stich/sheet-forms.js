// The score sheet's forms, one per game: read a summary record (records.md) from the controls,
// show what follows from them (Chef, Eklat, Vize, the last card points), and fill them back in to
// fix a rejected hand. No network here: sheet.js checks and sends.

const $ = (root, selector) => root.querySelector(selector);
const $$ = (root, selector) => Array.from(root.querySelectorAll(selector));

function radio(form, name) {
  const checked = form.querySelector(`input[name="${name}"]:checked`);
  return checked ? checked.value : null;
}

function setRadio(form, name, value) {
  for (const input of $$(form, `input[name="${name}"]`)) input.checked = value !== null && value !== undefined && input.value === String(value);
}

function int(input) {
  if (!input || input.value.trim() === "") return null;
  const value = Number(input.value);
  return Number.isInteger(value) ? value : NaN;
}

function show(element, visible) {
  if (element) element.hidden = !visible;
}

// --- Mü --------------------------------------------------------------------------------------------

function muBids(form, players) {
  const bids = [];
  for (let seat = 0; seat < players; seat++) {
    const value = radio(form, `bid-${seat}`);
    bids.push(value === null ? null : Number(value));
  }
  return bids;
}

function muState(form, ctx) {
  const bids = muBids(form, ctx.players);
  const complete = bids.every((bid) => bid !== null);
  const state = { bids, complete, kind: null, chef: null, top: [], seconds: [] };
  if (!complete) return state;
  const top = Math.max(...bids);
  state.top = bids.map((bid, seat) => (bid === top ? seat : -1)).filter((seat) => seat >= 0);
  if (top === 0) state.kind = "void";
  else if (state.top.length > 1) state.kind = "eklat";
  else {
    state.kind = "played";
    state.chef = state.top[0];
    const others = bids.map((bid, seat) => (seat === state.chef ? -1 : bid));
    const second = Math.max(...others);
    if (second > 0 && ctx.players > 3) state.seconds = others.map((bid, seat) => (bid === second ? seat : -1)).filter((s) => s >= 0);
  }
  return state;
}

function muUpdate(form, ctx) {
  const state = muState(form, ctx);
  const out = $(form, "#chef-out");
  out.textContent = !state.complete ? "–" : state.kind === "void" ? ctx.text.voidDeal
    : state.kind === "eklat" ? "Eklat" : ctx.names[state.chef];
  show($(form, "#provocateur"), state.kind === "eklat");
  for (const label of $$(form, "#provocateur label")) show(label, state.top.includes(Number(label.dataset.seat)));
  show($(form, "#mu-played"), state.kind === "played");
  const vice = $(form, "#vice");
  if (vice) {
    show(vice, state.kind !== "played" || state.seconds.length > 0);
    for (const label of $$(vice, "label")) {
      const seat = Number(label.dataset.seat);
      const allowed = state.kind !== "played" || state.seconds.includes(seat);
      show(label, allowed);
      if (!allowed) label.querySelector("input").checked = false;
    }
    if (state.seconds.length === 1) setRadio(form, "vice", state.seconds[0]);
    const hint = $(form, "#vice-hint");
    hint.textContent = state.seconds.length === 1 ? ctx.text.viceDerived : state.seconds.length > 1 ? ctx.text.viceTied : "";
    show($(form, "#vice-trump"), radio(form, "vice") !== null);
  }
  const partner = $(form, "#partner");
  if (partner) {
    const vice = radio(form, "vice");
    for (const label of $$(partner, "label")) {
      const seat = Number(label.dataset.seat);
      const allowed = seat !== state.chef && String(seat) !== vice;
      show(label, allowed);
      if (!allowed) label.querySelector("input").checked = false;
    }
  }
  // The last card points are what is left of 60 (36 with three players): one tap.
  const inputs = $$(form, "#card-points input");
  const empty = inputs.filter((input) => input.value.trim() === "");
  for (const button of $$(form, "#card-points .remainder")) show(button, false);
  if (empty.length === 1) {
    const sum = inputs.reduce((total, input) => total + (int(input) || 0), 0);
    const rest = ctx.points - sum;
    if (rest >= 0) {
      const button = empty[0].parentElement.querySelector(".remainder");
      button.textContent = ctx.format(ctx.text.rest, { points: rest });
      button.dataset.value = String(rest);
      show(button, true);
    }
  }
  return state;
}

function muRead(form, ctx) {
  const state = muState(form, ctx);
  const missing = [];
  const summary = { bids: state.bids };
  if (!state.complete) missing.push(ctx.text.missingBids);
  if (state.kind === "eklat") {
    summary.chef = null;
    summary.provocateur = radio(form, "provocateur") === null ? null : Number(radio(form, "provocateur"));
    if (summary.provocateur === null) missing.push(ctx.text.missingProvocateur);
  } else if (state.kind === "played") {
    summary.chef = state.chef;
    const vice = radio(form, "vice");
    summary.vice = vice === null ? null : Number(vice);
    if (summary.vice !== null) {
      summary.vice_trump = radio(form, "vice_trump");
      if (summary.vice_trump === null) missing.push(ctx.text.missingViceTrump);
    }
    summary.chef_trump = radio(form, "chef_trump");
    if (summary.chef_trump === null) missing.push(ctx.text.missingChefTrump);
    if (ctx.players > 3) {
      const partner = radio(form, "partner");
      summary.partner = partner === null ? null : Number(partner);
      if (summary.partner === null) missing.push(ctx.text.missingPartner);
    }
    summary.card_points = $$(form, "#card-points input").map(int);
    if (summary.card_points.some((value) => value === null)) missing.push(ctx.text.missingPoints);
  }
  return { summary, missing };
}

function muFill(form, summary) {
  (summary.bids || []).forEach((bid, seat) => setRadio(form, `bid-${seat}`, bid));
  setRadio(form, "provocateur", summary.provocateur);
  setRadio(form, "vice", summary.vice);
  setRadio(form, "vice_trump", summary.vice_trump);
  setRadio(form, "chef_trump", summary.chef_trump);
  setRadio(form, "partner", summary.partner);
  $$(form, "#card-points input").forEach((input, seat) => {
    input.value = summary.card_points && summary.card_points[seat] !== undefined && summary.card_points[seat] !== null ? summary.card_points[seat] : "";
  });
}

// --- Maumau ----------------------------------------------------------------------------------------

function picked(form, seat) {
  const chosen = $(form, `[data-chosen="${seat}"]`);
  return chosen.dataset.cards ? chosen.dataset.cards.split(" ").filter(Boolean) : [];
}

function setPicked(form, seat, cards, ctx) {
  const chosen = $(form, `[data-chosen="${seat}"]`);
  chosen.dataset.cards = cards.join(" ");
  chosen.textContent = cards.length ? cards.map(cardLabel).join(" ") : ctx.text.none;
}

const SUIT_SYMBOLS = { C: "♣", S: "♠", H: "♥", D: "♦" };

function cardLabel(card) {
  return (card[0] === "T" ? "10" : card[0]) + SUIT_SYMBOLS[card[1]];
}

function maumauUpdate(form) {
  const cards = radio(form, "mode") === "cards";
  show($(form, "#minus"), !cards);
  show($(form, "#remaining"), cards);
}

function maumauRead(form, ctx) {
  const summary = { wish: radio(form, "wish") || null };
  const missing = [];
  if (radio(form, "mode") === "cards") {
    summary.remaining = Array.from({ length: ctx.players }, (_, seat) => picked(form, seat));
  } else {
    summary.minus = $$(form, "#minus input").map(int);
    if (summary.minus.some((value) => value === null)) missing.push(ctx.text.missingMinus);
  }
  return { summary, missing };
}

function maumauFill(form, summary, ctx) {
  const cards = Array.isArray(summary.remaining);
  setRadio(form, "mode", cards ? "cards" : "minus");
  $$(form, "#minus input").forEach((input, seat) => { input.value = summary.minus ? summary.minus[seat] ?? "" : ""; });
  for (let seat = 0; seat < ctx.players; seat++) setPicked(form, seat, cards ? summary.remaining[seat] || [] : [], ctx);
  setRadio(form, "wish", summary.wish || "");
}

// --- Mit List und Tücke ----------------------------------------------------------------------------

const LUT_COLOURS = ["B", "G", "R", "Y"];

function lutRead(form, ctx) {
  const stacks = [];
  for (let seat = 0; seat < ctx.players; seat++) {
    const stack = {};
    for (const colour of LUT_COLOURS) {
      const value = int($(form, `input[name="stack-${seat}-${colour}"]`));
      if (value) stack[colour] = value;
    }
    stack.discarded = int($(form, `input[name="stack-${seat}-discarded"]`)) || 0;
    stacks.push(stack);
  }
  return { summary: { stacks }, missing: [] };
}

function lutFill(form, summary) {
  (summary.stacks || []).forEach((stack, seat) => {
    for (const colour of [...LUT_COLOURS, "discarded"]) {
      const input = $(form, `input[name="stack-${seat}-${colour}"]`);
      input.value = stack[colour] ? stack[colour] : "";
    }
  });
}

// --- messages at the fields -------------------------------------------------------------------------

/** Remove the messages ``showAt`` put in ``root``. */
export function clearMessages(root) {
  $$(root, ".field-error-row, .field-error").forEach((element) => element.remove());
  $$(root, ".has-error").forEach((element) => element.classList.remove("has-error"));
}

/** Put ``message`` next to the field that the JSON Pointer ``path`` names (or its nearest parent). */
export function showAt(root, path, message) {
  let target = null;
  let pointer = path || "";
  while (target === null) {
    target = root.querySelector(`[data-path="${CSS.escape(pointer)}"]`);
    if (target || pointer === "") break;
    pointer = pointer.slice(0, pointer.lastIndexOf("/"));
  }
  target = target && !target.closest("[hidden]") ? target : root.querySelector(".check");
  const note = document.createElement("p");
  note.className = "field-error";
  note.setAttribute("role", "alert");
  note.dataset.for = path || "";
  note.textContent = message;
  target.classList.add("has-error");
  if (target.tagName === "TR") {
    // A row of a table: the message goes in a row of its own right below.
    const row = document.createElement("tr");
    row.className = "field-error-row";
    const cell = row.insertCell();
    cell.colSpan = target.cells.length;
    cell.append(note);
    target.after(row);
  } else {
    target.append(note);
  }
  return note;
}

// --- the sheet's interface -------------------------------------------------------------------------

export function setup(form, ctx) {
  if (ctx.game === "maumau") {
    form.addEventListener("click", (event) => {
      const card = event.target.closest("button.card");
      if (card) {
        const seat = Number(card.dataset.seat);
        setPicked(form, seat, [...picked(form, seat), card.dataset.card], ctx);
        form.dispatchEvent(new Event("input", { bubbles: true }));
      }
      const clear = event.target.closest("button.clear-cards");
      if (clear) {
        setPicked(form, Number(clear.dataset.seat), [], ctx);
        form.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
  }
  if (ctx.game === "mu") {
    form.addEventListener("click", (event) => {
      const button = event.target.closest("button.remainder");
      if (!button) return;
      const input = button.parentElement.querySelector("input");
      input.value = button.dataset.value;
      form.dispatchEvent(new Event("input", { bubbles: true }));
    });
  }
  // Enter moves to the next number field, as on paper from one box to the next.
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.target.type !== "number") return;
    event.preventDefault();
    const inputs = $$(form, 'input[type="number"]').filter((input) => input.offsetParent !== null);
    const next = inputs[inputs.indexOf(event.target) + 1];
    if (next) next.focus();
    else event.target.blur();
  });
}

export function update(form, ctx) {
  if (ctx.game === "mu") muUpdate(form, ctx);
  if (ctx.game === "maumau") maumauUpdate(form);
}

/** The record the controls describe ({record, missing}); ``missing`` lists what is not filled in. */
export function read(form, ctx, dealer) {
  const { summary, missing } = ctx.game === "mu" ? muRead(form, ctx) : ctx.game === "maumau" ? maumauRead(form, ctx) : lutRead(form, ctx);
  return { record: { game: ctx.game, players: ctx.players, dealer, summary }, missing };
}

export function fill(form, ctx, record) {
  const summary = record.summary || {};
  if (ctx.game === "mu") muFill(form, summary);
  else if (ctx.game === "maumau") maumauFill(form, summary, ctx);
  else lutFill(form, summary);
  update(form, ctx);
}

export function clear(form, ctx) {
  for (const input of $$(form, 'input[type="number"]')) input.value = "";
  for (const input of $$(form, 'input[type="radio"]')) {
    if (!["mode", "wish", "dealer"].includes(input.name)) input.checked = false;
  }
  if (ctx.game === "maumau") {
    for (let seat = 0; seat < ctx.players; seat++) setPicked(form, seat, [], ctx);
    setRadio(form, "wish", "");
    for (const details of $$(form, "details.card-picker")) details.open = false;
  }
  update(form, ctx);
}
