// The round's clock (templates/clock/_clock.html): counts down to the moment the server says the
// time is up, against the server's now. The page (or the clock element) carries the server's now
// in milliseconds as it was rendered (data-server-now); the difference to this device's clock at
// load is the offset, so every screen shows the same time left whatever its own clock says. A clock
// with data-clock-src asks the server again now and then (a pause or an extension made elsewhere).
(function () {
  "use strict";
  const loaded = Date.now();
  const pageNow = Number(document.body.dataset.serverNow) || null;
  const pageOffset = pageNow ? pageNow - loaded : 0;
  const offsets = new WeakMap();

  function offsetOf(element) {
    if (!offsets.has(element)) {
      const own = Number(element.dataset.serverNow) || null;
      offsets.set(element, own ? own - Date.now() : pageOffset);
    }
    return offsets.get(element);
  }

  function text(seconds) {
    const s = Math.max(0, seconds);
    const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    const two = (n) => String(n).padStart(2, "0");
    return h ? `${h}:${two(m)}:${two(r)}` : `${m}:${two(r)}`;
  }

  function word(element, name) {
    const template = element.querySelector("template[data-clock-words]");
    const found = template && template.content.querySelector(`[data-word="${name}"]`);
    return found ? found.textContent : "";
  }

  function show(element) {
    const state = element.dataset.state;
    const face = element.querySelector(".clock-time");
    const over = element.querySelector("[data-clock-over]");
    const note = element.querySelector("[data-clock-note]");
    let left = element.dataset.left === undefined ? null : Number(element.dataset.left);
    if (state === "running" && element.dataset.endsAt) {
      left = Math.ceil((Number(element.dataset.endsAt) - (Date.now() + offsetOf(element))) / 1000);
    }
    const up = state === "over" || (state === "running" && left !== null && left <= 0);
    if (face && left !== null) {
      const shown = text(up ? 0 : left);
      if (face.textContent !== shown) face.textContent = shown;
    }
    if (over) over.hidden = !up;
    if (note) {
      const wanted = state === "paused" || state === "ready" ? word(element, state) : "";
      if (state !== "unset" && note.textContent !== wanted) note.textContent = wanted;
    }
    element.classList.toggle("state-over", up);
  }

  async function refresh(element) {
    try {
      const response = await fetch(element.dataset.clockSrc, { credentials: "same-origin",
                                                                headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const clock = await response.json();
      const now = Date.parse(clock.now);
      offsets.set(element, now - Date.now());
      element.dataset.state = clock.state;
      if (clock.left === null) delete element.dataset.left; else element.dataset.left = clock.left;
      if (clock.ends_at) element.dataset.endsAt = Date.parse(clock.ends_at); else delete element.dataset.endsAt;
      show(element);
    } catch (error) {
      // offline: the clock counts on from what it knew
    }
  }

  function tick() {
    document.querySelectorAll("[data-clock]").forEach(show);
  }

  tick();
  setInterval(tick, 500);
  setInterval(() => document.querySelectorAll("[data-clock][data-clock-src]").forEach(refresh), 15000);
})();
