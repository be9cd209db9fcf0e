// The table's score sheet: enter a hand by tapping, see the engine's answer before sending, and
// send every hand exactly once, also after a lost connection.
//
// Each entered hand gets its Idempotency-Key when it is entered and waits in localStorage (it
// survives a reload or a closed tab) until the server has it. Hands go out one at a time, in
// order, with ?hand=N: a retry of a hand the server already stored answers the same receipt, and
// a hand whose slot someone else took is refused instead of stored twice.
//
// The sheet never jams: a hand the server refuses (4xx) is shown with the reason and the field, to
// fix or discard; a server error (5xx, 429) or a lost connection is retried with a growing pause
// (RETRY_FIRST doubling to RETRY_MOST, or the server's Retry-After), and the sheet says so. Later
// hands wait behind it, each saying for which hand.
import * as forms from "./sheet-forms.js";

const cfg = JSON.parse(document.getElementById("sheet-config").textContent);
const text = JSON.parse(document.getElementById("sheet-text").textContent || "{}");
const form = document.getElementById("hand-form");
const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));

const format = (template, values) => String(template).replace(/%\((\w+)\)s/g, (_, key) => values[key] ?? "");
const names = cfg.names;
// The engine's refusals come in the page's language with the players named (stich/errors.py):
// Accept-Language says which, ?name= gives the names the sheet shows, seat by seat.
const namesQuery = names.map((name) => `name=${encodeURIComponent(name)}`).join("&");
const ctx = { game: cfg.game, players: cfg.players, points: cfg.points, names, text, format };

// --- the queue on this phone -------------------------------------------------------------------------

function load() {
  try {
    return JSON.parse(localStorage.getItem(cfg.storage) || "[]");
  } catch {
    return [];
  }
}

const RETRY_FIRST = 2000; // ms
const RETRY_MOST = 60000;

/** The pause before the ``attempts``-th retry: doubling from RETRY_FIRST, at most RETRY_MOST. */
function backOff(attempts, retryAfterSeconds) {
  const grown = Math.min(RETRY_MOST, RETRY_FIRST * 2 ** Math.max(0, attempts - 1));
  return Math.max(grown, (retryAfterSeconds || 0) * 1000);
}

let queue = load();
let editing = null; // the key of the rejected hand being fixed
let flushing = false;

function save() {
  // Sent hands stay a little while to show their state; the running sheet lists them anyway.
  const sent = queue.filter((entry) => entry.state === "sent");
  const drop = new Set(sent.slice(0, Math.max(0, sent.length - 3)).map((entry) => entry.key));
  queue = queue.filter((entry) => !drop.has(entry.key));
  localStorage.setItem(cfg.storage, JSON.stringify(queue));
}

function newKey() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  // Plain http on a club's network has no randomUUID: a version-4 UUID from getRandomValues.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// --- where the session stands ------------------------------------------------------------------------

function server() {
  const running = $("#running");
  const dealer = running.dataset.nextDealer;
  return {
    session: running.dataset.session, status: running.dataset.status,
    hand: Number(running.dataset.nextHand) || null, dealer: dealer === "" ? null : Number(dealer),
    lastDealer: (() => {
      const rows = $$("#running tr[data-hand]");
      return rows.length ? Number(rows[rows.length - 1].dataset.dealer) : null;
    })(),
  };
}

/** The next hand to enter: after the server's hands and the hands waiting on this phone. */
function slot() {
  if (editing) {
    const entry = queue.find((e) => e.key === editing);
    if (entry) return { hand: entry.hand, dealer: entry.dealer, free: cfg.game === "maumau" };
  }
  const now = server();
  const ahead = queue.filter((entry) => now.hand === null || entry.hand >= now.hand);
  if (ahead.length) {
    const last = ahead.reduce((a, b) => (b.hand > a.hand ? b : a));
    const dealer = (last.dealer + 1) % cfg.players;
    return { hand: last.hand + 1, dealer, free: cfg.game === "maumau" };
  }
  if (now.dealer !== null) return { hand: now.hand, dealer: now.dealer, free: false };
  // Who deals is the table's choice: the first hand without a drawn dealer, a Maumau game after
  // a summary (the rules' next dealer is not on a paper sheet). Suggest the next seat.
  const suggested = now.lastDealer === null ? 0 : (now.lastDealer + 1) % cfg.players;
  return { hand: now.hand || 1, dealer: suggested, free: true };
}

function chosenDealer(current) {
  const checked = $('input[name="dealer"]:checked', form);
  return current.free && checked ? Number(checked.value) : current.dealer;
}

let suggested = null; // the dealer the picker was ticked with for the table (not one it ticked itself)

function renderSlot() {
  const current = slot();
  const picker = $("#dealer-pick");
  picker.hidden = !current.free;
  const ticked = $('input[name="dealer"]:checked', form);
  // The suggestion follows the slot (after a discard the next hand moves up one); a dealer the
  // table ticked itself stays.
  if (current.free && (!ticked || (Number(ticked.value) === suggested && suggested !== current.dealer))) {
    const input = $(`input[name="dealer"][value="${current.dealer}"]`, form);
    if (input) {
      input.checked = true;
      suggested = current.dealer;
    }
  }
  const dealer = chosenDealer(current);
  $("#entry-hand").textContent = format(editing ? text.fixing : text.hand, { number: current.hand });
  $("#dealer-line").textContent = format(text.deals, { name: names[dealer] });
  // The running sheet's "Next" line says the same as the heading: the server's next hand comes
  // after the hands waiting on this phone too (after a reload offline its copy is older).
  const nextLine = $("#next-dealer");
  if (nextLine && text.next && !editing) nextLine.textContent = format(text.next, { number: current.hand, name: names[dealer] });
  $$("[data-seat] .dealer-mark, [data-path] .dealer-mark", form).forEach((mark) => { mark.hidden = true; });
  $$(".dealer-mark", form).forEach((mark) => {
    const row = mark.closest("[data-seat], tr[data-path], .player-row");
    const seat = row && (row.dataset.seat ?? (row.dataset.path || "").split("/").pop());
    mark.hidden = Number(seat) !== dealer;
  });
  const over = server().status !== "open" && !queue.some((e) => e.state !== "sent");
  $("#entry").hidden = over && !editing;
}

// --- live checking --------------------------------------------------------------------------------------

function headers() {
  const result = { "Content-Type": "application/json", Accept: "application/json", "Accept-Language": document.documentElement.lang || "en" };
  const csrf = $('input[name="csrfmiddlewaretoken"]');
  if (csrf) result["X-CSRFToken"] = csrf.value;
  if (cfg.token) result["X-Scorer-Token"] = cfg.token;
  return result;
}

const { clearMessages, showAt } = forms;

function showScores(box, result) {
  const parts = result.scores.map((score, seat) => `${names[seat]} ${score > 0 ? "+" : ""}${score}`);
  const extra = result.outcome === "eklat" ? " · Eklat" : result.outcome === "void" ? ` · ${text.voidDeal}` : "";
  box.innerHTML = "";
  const line = document.createElement("p");
  line.className = "scores";
  line.textContent = `${text.scores}: ${parts.join(" · ")}${extra}`;
  box.append(line);
  box.dataset.ok = "true";
}

let checkTimer = null;
let checkSerial = 0;
// The live check's verdict on the form's record: "ok" (the engine took it), "refused" (422, its
// reason shown at its field) or "unknown" (offline, throttled, another answer); ``pending`` while
// its answer is awaited. Enter asks it before queueing the hand (``verdictFor``).
let verdict = { key: null, state: "unknown", pending: null };

async function check(root, box, record) {
  const serial = ++checkSerial;
  const key = JSON.stringify(record);
  const mine = root === form;
  let settle = () => {};
  if (mine) verdict = { key, state: "unknown", pending: new Promise((resolve) => { settle = resolve; }) };
  const decide = (state) => {
    if (mine && verdict.key === key) verdict = { key, state, pending: null };
    settle(state);
    return state;
  };
  box.dataset.ok = "false";
  box.textContent = text.checking;
  let response;
  try {
    response = await fetch(`${cfg.validate}?${namesQuery}`, { method: "POST", headers: headers(), body: JSON.stringify(record), credentials: "same-origin" });
  } catch {
    box.textContent = text.checkOffline;
    return decide("unknown");
  }
  if (serial !== checkSerial) return decide(response.status === 200 ? "ok" : response.status === 422 ? "refused" : "unknown"); // an older answer: the form has changed since
  clearMessages(root);
  if (response.status === 200) {
    showScores(box, await response.json());
    return decide("ok");
  } else if (response.status === 422) {
    const error = await response.json();
    box.textContent = "";
    showAt(root, error.path, error.message);
    return decide("refused");
  } else if (response.status === 429) {
    box.textContent = text.paused;
  } else {
    box.textContent = "";
  }
  return decide("unknown");
}

/** The live check's verdict on ``record`` (the form's): the one it gave, the one it is waiting
 * for, or, when the typing pause has not run out yet, a check made now. */
async function verdictFor(record) {
  const key = JSON.stringify(record);
  if (verdict.key === key) return verdict.pending ? verdict.pending : verdict.state;
  clearTimeout(checkTimer);
  return check(form, $("#check"), record);
}

function liveCheck() {
  forms.update(form, ctx);
  renderSlot();
  clearTimeout(checkTimer);
  const box = $("#check");
  clearMessages(form);
  const { record, missing } = forms.read(form, ctx, chosenDealer(slot()));
  if (missing.length) {
    box.dataset.ok = "false";
    box.textContent = format(text.missing, { what: missing.join(", ") });
    return;
  }
  // Debounced: the dry run is throttled per client, and a number is typed digit by digit.
  checkTimer = setTimeout(() => check(form, box, record), 350);
}

// --- entering and sending ---------------------------------------------------------------------------

function enteringSeat() {
  if (cfg.seat !== null && cfg.seat !== undefined) return cfg.seat;
  const checked = $('input[name="entered_by"]:checked', form);
  return checked ? Number(checked.value) : null;
}

function enter(record) {
  const current = slot();
  const seat = enteringSeat();
  if (cfg.confirm_hands && seat === null) {
    clearMessages(form);
    showAt(form, "/entered_by", text.whoEnters);
    return false;
  }
  // ``chosen``: the table named this dealer itself (a Maumau game after a summary, a full record's
  // own dealer) rather than taking the one its slot gives; a discard moves only the others.
  const chosen = cfg.game === "maumau" && (!record.summary || (current.free && record.dealer !== current.dealer));
  const entry = { key: newKey(), hand: current.hand, dealer: record.dealer, chosen, record, seat, state: "waiting", enteredAt: Date.now() };
  const index = editing ? queue.findIndex((e) => e.key === editing) : -1;
  if (index >= 0) queue[index] = entry;
  else queue.push(entry);
  editing = null;
  save();
  renderQueue();
  flush();
  return true;
}

let submitting = false;

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (submitting) return;
  const { record, missing } = forms.read(form, ctx, chosenDealer(slot()));
  if (missing.length) {
    liveCheck();
    return;
  }
  // A hand the live check found wrong stays on the form, its reason at its field: the server
  // would refuse it just the same. Offline or unchecked, the hand is queued and the server decides.
  submitting = true;
  let state;
  try {
    state = await verdictFor(record);
  } finally {
    submitting = false;
  }
  if (state === "refused") {
    const note = $(".field-error", form);
    if (note) note.scrollIntoView({ block: "center" });
    return;
  }
  if (JSON.stringify(forms.read(form, ctx, chosenDealer(slot())).record) !== JSON.stringify(record)) return; // changed meanwhile
  if (enter(record)) {
    forms.clear(form, ctx);
    $$('input[name="dealer"], input[name="entered_by"]', form).forEach((input) => { input.checked = false; });
    $("#check").textContent = "";
    renderSlot();
    window.scrollTo({ top: 0 });
  }
});

/** The server's reason for a refusal, and the field it concerns (a JSON Pointer, or the form's fields). */
function describe(error) {
  if (!error) return "";
  const reason = error.message || error.detail || `HTTP ${error.status}`;
  const fields = Object.entries(error.fields || {}).map(([name, problems]) => `${name}: ${[].concat(problems).join(" ")}`);
  return [reason, ...fields].join(" · ");
}

async function sendOne(entry) {
  const url = `${cfg.submit}?hand=${entry.hand}&${namesQuery}`;
  const extra = { "Idempotency-Key": entry.key };
  if (cfg.token && entry.seat !== null && entry.seat !== undefined) extra["X-Scorer-Seat"] = String(entry.seat);
  const response = await fetch(url, {
    method: "POST", headers: { ...headers(), ...extra }, body: JSON.stringify(entry.record), credentials: "same-origin",
  });
  if (response.status === 201) return { sent: true };
  let body = {};
  try {
    body = await response.json();
  } catch {
    body = {}; // a proxy's page, not the API's JSON
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) body = { message: String(body) };
  const error = { ...body, status: response.status };
  if (!error.message && !error.detail) error.message = `HTTP ${response.status} ${response.statusText}`.trim();
  if (response.status === 429 || response.status >= 500) {
    return { retry: true, error, retryAfter: Number(response.headers.get("Retry-After")) || 0 };
  }
  return { error };
}

let retryTimer = null;
let tickTimer = null;

/** The next try of a hand the server could not take now (its pause grows with each attempt). */
function postpone(entry, outcome) {
  entry.attempts = (entry.attempts || 0) + 1;
  entry.state = "retrying";
  entry.error = outcome.error || null; // null: no connection
  entry.retryAt = Date.now() + backOff(entry.attempts, outcome.retryAfter);
}

function schedule() {
  clearTimeout(retryTimer);
  clearInterval(tickTimer);
  // Hands go in order: only the first one not yet sent decides when to try again.
  const first = queue.find((entry) => entry.state !== "sent");
  if (!first || first.state === "rejected") return; // it waits for the table: fix or discard
  const next = first.retryAt || Date.now() + 5000;
  retryTimer = setTimeout(flush, Math.max(0, next - Date.now()));
  if (first.state === "retrying") tickTimer = setInterval(renderQueue, 1000); // its countdown
}

async function flush() {
  if (flushing) return;
  if (navigator.onLine === false) {
    // No connection: the hands wait on the phone; the browser's "online" event sends them.
    setConnection(false);
    renderQueue();
    return;
  }
  flushing = true;
  let changed = false;
  try {
    for (const entry of queue) {
      if (entry.state === "sent") continue;
      // Hands entered while this loop runs join it: once the browser says it is offline, they wait
      // for its "online" event like the others (a send now would fail, or leave the phone unseen).
      if (navigator.onLine === false) {
        setConnection(false);
        break;
      }
      if (entry.state === "rejected") break; // later hands wait until this one is fixed
      if (entry.retryAt && entry.retryAt > Date.now()) break; // its pause is not over; later hands wait
      entry.state = "sending";
      renderQueue();
      let outcome;
      try {
        outcome = await sendOne(entry);
      } catch {
        outcome = { retry: true, error: null }; // no connection
      }
      if (outcome.sent) {
        entry.state = "sent";
        delete entry.error;
        delete entry.retryAt;
        changed = true;
      } else if (outcome.retry) {
        postpone(entry, outcome);
        if (!outcome.error) setConnection(false);
        break;
      } else {
        entry.state = "rejected";
        entry.error = outcome.error;
        delete entry.retryAt;
        break;
      }
      save();
      setConnection(true);
    }
  } finally {
    queue.forEach((entry) => { if (entry.state === "sending") entry.state = "waiting"; });
    save();
    flushing = false;
    renderQueue();
  }
  if (changed) await refreshRunning();
  schedule();
}

function setConnection(online) {
  const badge = $("#connection");
  badge.dataset.state = online ? "online" : "offline";
  badge.textContent = online ? "" : text.offline;
}

function renderQueue() {
  const list = $("#queue");
  list.innerHTML = "";
  const now = server();
  const shown = queue.filter((entry) => entry.state !== "sent" || now.hand === null || entry.hand >= now.hand - 3);
  $("#queue-section").hidden = shown.length === 0;
  // the first hand that holds up the others: refused, or waiting for its next try
  const blocker = queue.find((entry) => entry.state === "rejected" || entry.state === "retrying");
  let behind = false;
  for (const entry of shown) {
    const item = document.createElement("li");
    item.className = `entry state-${entry.state}`;
    item.dataset.hand = entry.hand;
    item.dataset.state = entry.state;
    item.dataset.key = entry.key;
    const label = document.createElement("span");
    label.textContent = `${format(text.hand, { number: entry.hand })} · ${format(text.deals, { name: names[entry.dealer] ?? "?" })} `;
    const state = document.createElement("strong");
    state.className = "state";
    state.textContent = text[entry.state] || entry.state;
    item.append(label, state);
    if (entry.state === "retrying") {
      const note = document.createElement("p");
      note.className = "reason";
      const seconds = Math.max(0, Math.ceil(((entry.retryAt || Date.now()) - Date.now()) / 1000));
      const why = entry.error ? format(text.serverError, { status: entry.error.status }) : text.offline;
      note.textContent = `${why} ${format(text.retryIn, { seconds, attempt: entry.attempts || 1 })}`;
      item.append(note);
    }
    if (behind && entry.state !== "sent") {
      const note = document.createElement("p");
      note.className = "reason waits";
      note.textContent = format(text.waitsFor, { hand: format(text.hand, { number: blocker.hand }) });
      item.append(note);
    }
    if (entry === blocker) behind = true;
    if (entry.state === "rejected") {
      const reason = document.createElement("p");
      reason.className = "reason";
      if (entry.error && entry.error.path !== undefined) reason.dataset.path = entry.error.path;
      reason.textContent = describe(entry.error);
      const fix = button(text.fix, () => startFix(entry));
      fix.className = "fix";
      const discard = button(text.discard, () => discardEntry(entry));
      discard.className = "secondary";
      item.append(reason, fix, discard);
    }
    list.append(item);
  }
  renderSlot();
}

function button(label, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  element.addEventListener("click", onClick);
  return element;
}

function startFix(entry) {
  editing = entry.key;
  if (entry.record && entry.record.summary) {
    forms.clear(form, ctx);
    forms.fill(form, ctx, entry.record);
    if (cfg.game === "maumau") {
      const input = $(`input[name="dealer"][value="${entry.dealer}"]`, form);
      if (input) input.checked = true;
      suggested = null; // the hand's own dealer, as it was entered
    }
    const seat = $(`input[name="entered_by"][value="${entry.seat}"]`, form);
    if (seat) seat.checked = true;
    renderSlot();
    clearMessages(form);
    if (entry.error) showAt(form, entry.error.path, entry.error.message);
    form.scrollIntoView();
  } else {
    $("#upload").open = true;
    $("#record-text").value = JSON.stringify(entry.record, null, 1);
    $("#record-text").dispatchEvent(new Event("input"));
  }
}

/** The dealer of the slot ``entry`` (at ``index`` of the queue) stood in: its own, unless the
 * table named it for that game; then the one the slot gives (``slot``'s rule). */
function slotDealer(entry, index) {
  if (!entry.chosen) return entry.dealer;
  const earlier = queue.slice(0, index).filter((other) => other.state !== "sent");
  if (earlier.length) return (earlier[earlier.length - 1].dealer + 1) % cfg.players;
  const now = server();
  if (now.dealer !== null) return now.dealer;
  return now.lastDealer === null ? 0 : (now.lastDealer + 1) % cfg.players;
}

/** Drop a refused hand; the hands after it move up one slot, and each takes the dealer of its new
 * slot: the first the discarded hand's, each next one the seat after the hand before it (the
 * rules' rotation in Mü and LuT, the sheet's suggestion in Maumau). A Maumau dealer the table
 * named itself stays, and the rotation goes on from it. */
function discardEntry(entry) {
  const index = queue.indexOf(entry);
  queue.splice(index, 1);
  let dealer = slotDealer(entry, index); // the dealer of the slot the next hand moves into
  for (const later of queue.slice(index)) {
    if (later.state === "sent") continue;
    later.hand -= 1;
    if (!later.chosen && later.dealer !== dealer) {
      later.dealer = dealer;
      later.record = { ...later.record, dealer };
    }
    dealer = (later.dealer + 1) % cfg.players;
    later.key = newKey(); // another record or slot: another submission
    later.state = "waiting";
    delete later.retryAt;
  }
  if (editing === entry.key) editing = null;
  save();
  renderQueue();
  flush();
}

// --- the running sheet --------------------------------------------------------------------------------

async function refreshRunning() {
  try {
    const response = await fetch(cfg.running, { credentials: "same-origin", headers: { Accept: "text/html" } });
    if (!response.ok) return;
    const html = await response.text();
    const holder = document.createElement("div");
    holder.innerHTML = html;
    const fresh = holder.querySelector("#running");
    if (fresh) $("#running").replaceWith(fresh);
    decorateRunning();
    renderQueue();
  } catch {
    setConnection(false);
  }
}

function decorateRunning() {
  // The logged-in player confirms for his own seat, never a hand he entered himself.
  if (cfg.seat === null || cfg.seat === undefined) return;
  $$('#running [data-action]').forEach((element) => {
    if (element.dataset.enteredBy === String(cfg.seat)) element.hidden = true;
  });
}

// --- confirmation ------------------------------------------------------------------------------------------

const dialog = $("#confirm-dialog");
let pending = null;

async function postAction(action, handId, body) {
  const url = cfg[action].replace("/0/", `/${handId}/`);
  const response = await fetch(url, { method: "POST", headers: headers(), body: JSON.stringify(body), credentials: "same-origin" });
  if (!response.ok) {
    const error = await response.json().catch(() => ({ message: response.statusText }));
    alertInRunning(handId, error.message || response.statusText);
    return;
  }
  await refreshRunning();
}

function alertInRunning(handId, message) {
  const row = $(`#running tr.confirm-row[data-hand-id="${handId}"] td`);
  if (!row) return;
  const note = document.createElement("p");
  note.className = "field-error";
  note.setAttribute("role", "alert");
  note.textContent = message;
  row.append(note);
}

document.addEventListener("click", (event) => {
  const trigger = event.target.closest("#running [data-action]");
  if (!trigger) return;
  const action = trigger.dataset.action;
  const handId = trigger.dataset.handId;
  if (cfg.seat !== null && cfg.seat !== undefined && action === "confirm") {
    postAction("confirm", handId, {});
    return;
  }
  // A shared phone: the confirming (or disputing) player names himself.
  pending = { action, handId };
  $("#confirm-question").textContent = action === "confirm" ? text.confirmWho : text.disputeWho;
  const dispute = action === "dispute";
  $("#dispute-label").hidden = !dispute;
  $("#dispute-reason").hidden = !dispute;
  $$("#confirm-picks button").forEach((pick) => {
    pick.hidden = cfg.seat !== null && cfg.seat !== undefined ? Number(pick.dataset.seat) !== cfg.seat
      : pick.dataset.seat === trigger.dataset.enteredBy && !dispute;
  });
  dialog.hidden = false;
  dialog.scrollIntoView();
});

$("#confirm-picks").addEventListener("click", (event) => {
  const pick = event.target.closest("button[data-seat]");
  if (!pick || !pending) return;
  const body = cfg.token ? { seat: Number(pick.dataset.seat) } : {};
  if (pending.action === "dispute") body.reason = $("#dispute-reason").value.trim() || "-";
  dialog.hidden = true;
  postAction(pending.action, pending.handId, body);
  pending = null;
});

$("#confirm-cancel").addEventListener("click", () => {
  dialog.hidden = true;
  pending = null;
});

// --- a full record, uploaded or pasted ---------------------------------------------------------------------

const upload = { text: $("#record-text"), box: $("#upload-check"), record: null };

function uploadCheck() {
  clearMessages($("#upload"));
  upload.record = null;
  const raw = upload.text.value.trim();
  if (!raw) {
    upload.box.textContent = "";
    return;
  }
  try {
    upload.record = JSON.parse(raw);
  } catch {
    upload.box.textContent = "";
    showAt($("#upload"), "", text.notJson);
    return;
  }
  clearTimeout(checkTimer);
  checkTimer = setTimeout(() => check($("#upload"), upload.box, upload.record), 350);
}

upload.text.addEventListener("input", uploadCheck);
$("#record-file").addEventListener("change", async (event) => {
  const file = event.target.files[0];
  if (!file) return;
  upload.text.value = await file.text();
  uploadCheck();
});
$("#record-enter").addEventListener("click", () => {
  if (!upload.record || upload.box.dataset.ok !== "true") {
    uploadCheck();
    return;
  }
  if (enter(upload.record)) {
    upload.text.value = "";
    upload.box.textContent = "";
    upload.record = null;
  }
});

// --- start ---------------------------------------------------------------------------------------------------

forms.setup(form, ctx);
form.addEventListener("input", liveCheck);
form.addEventListener("change", liveCheck);
window.addEventListener("online", () => {
  // the connection is back: the hands that waited for it go now
  queue.forEach((entry) => { if (entry.state === "retrying" && !entry.error) delete entry.retryAt; });
  setConnection(true);
  flush();
});
window.addEventListener("offline", () => setConnection(false));
setConnection(navigator.onLine);
decorateRunning();
forms.update(form, ctx);
renderQueue();
flush().then(() => { if (navigator.onLine) refreshRunning(); });

if ("serviceWorker" in navigator && window.caches) {
  // Keep this page and its files for a reload without a connection (the worker serves them then).
  const files = [location.href, ...$$('script[type="module"][src], link[rel="stylesheet"], link[rel="modulepreload"]')
    .map((element) => element.src || element.href)];
  navigator.serviceWorker.register("/sheet-sw.js")
    .then(() => caches.open("stich-sheet-v1"))
    .then((cache) => cache.addAll(files))
    .catch(() => {});
}
document.documentElement.dataset.ready = "true";
