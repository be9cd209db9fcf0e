/* Live regions: an element with data-live="URL" and data-live-event="ID" is kept up to date with
   the event over a WebSocket (/ws/events/ID/), without reloading the page; with
   data-live-series="ID" instead, whenever one of the series' events changed (/ws/series/ID/).
   A page with regions of both (an event's room screen and its series' top, pushed as
   series-NAME) has one socket, the event's: each message's version is of the event
   ("results_changed") or of the series ("series_changed"), and moves only the regions of that one.

   Fed, not refetched: a region with data-live-push="NAME" asks the socket for that fragment
   (?push=NAME&lang=LANG; NAME:PAGE for another page of it, the console's board board:ROUND); the
   server renders it once per change, audience and language for every screen and sends it in the
   message ({"type": "results_changed", "version": V, "fragments": {NAME: HTML}}; a series page's
   socket {"type": "series_changed", "series": ID, "version": V, ...} with the series' version),
   and the region's HTML is replaced with it, no request made. A region whose fragment the message
   does not carry is fetched from its URL (the server answers from the same cache of the version).
   data-live-version holds the version shown: an older answer never replaces a newer one.

   When the socket is down, the regions are fetched every 20 seconds instead (the same cached
   fragments), and the socket reconnects after a pause that doubles up to 30 s, with a random part
   (a room's screens that lost the server together do not come back together). Each time the
   socket opens again the regions are fetched at once: changes made while it was down (a server
   or Redis restarting) sent no message to this page. <body data-live-state> says "connected" or
   "polling". */
(function () {
  "use strict";
  var regions = Array.prototype.slice.call(
    document.querySelectorAll("[data-live][data-live-event], [data-live][data-live-series]"));
  if (!regions.length) return;
  var ofEvent = regions.filter(function (region) { return region.hasAttribute("data-live-event"); })[0];
  var series = ofEvent ? null : regions[0].getAttribute("data-live-series");
  var pushed = regions.map(function (region) { return region.getAttribute("data-live-push"); })
    .filter(function (name) { return name; });
  var query = "?lang=" + encodeURIComponent(document.documentElement.lang || "") +
    (pushed.length ? "&push=" + encodeURIComponent(pushed.join(",")) : "");
  var socketPath = (series ? "/ws/series/" + series + "/" : "/ws/events/" + ofEvent.getAttribute("data-live-event") + "/") + query;
  var timer = null, poller = null, retry = 1000, opened = false;

  var asked = 0;  // fetches asked for: a slower, older answer never replaces a newer one

  function shown(region) {
    var version = parseInt(region.getAttribute("data-live-version") || "", 10);
    return isNaN(version) ? 0 : version;
  }

  function apply(region, html, version) {
    if (version && version < shown(region)) return;  // a newer one is shown already
    region.innerHTML = html;
    if (version) region.setAttribute("data-live-version", String(version));
    region.setAttribute("data-live-updated", String(Date.now()));
    region.dispatchEvent(new CustomEvent("live:updated", {bubbles: true}));
  }

  function fetchRegion(region, version) {
    var turn = ++asked, url = region.getAttribute("data-live");
    if (version) url += (url.indexOf("?") < 0 ? "?" : "&") + "v=" + version;
    fetch(url, {credentials: "same-origin", headers: {"X-Requested-With": "fetch"}})
      .then(function (response) {
        if (!response.ok) return null;
        var answered = parseInt(response.headers.get("X-Live-Version") || "", 10);
        return response.text().then(function (html) { return {html: html, version: isNaN(answered) ? 0 : answered}; });
      })
      .then(function (answer) {
        if (answer === null || turn < (region.liveTurn || 0)) return;
        region.liveTurn = turn;
        apply(region, answer.html, answer.version);
      })
      .catch(function () { /* the next message or poll tries again */ });
  }

  function refresh() {
    regions.forEach(function (region) { fetchRegion(region, 0); });
  }

  function soon() {
    // Several messages without fragments at once (a burst) are fetched once.
    if (timer) return;
    timer = setTimeout(function () { timer = null; refresh(); }, 100);
  }

  function received(event) {
    var message;
    try { message = JSON.parse(event.data); } catch (error) { soon(); return; }
    // A series page's regions hold the series' version, which only its own messages carry: an
    // event's message to a series' socket says only that something changed.
    var fragments = message.fragments || {};
    var ofSeries = message.type === "series_changed";
    var version = series && !ofSeries ? 0 : message.version || 0;
    regions.forEach(function (region) {
      var name = region.getAttribute("data-live-push");
      // A version of the event says nothing of the series' region, and one of the series nothing
      // of the event's.
      if (version && !series && region.hasAttribute("data-live-series") !== ofSeries) return;
      if (name && typeof fragments[name] === "string") {
        apply(region, fragments[name], version);
      } else if (!version || version > shown(region)) {
        if (version) fetchRegion(region, version); else soon();
      }
    });
  }

  function poll(on) {
    if (on && !poller) poller = setInterval(refresh, 20000);
    if (!on && poller) { clearInterval(poller); poller = null; }
    document.body.setAttribute("data-live-state", on ? "polling" : "connected");
  }

  function connect() {
    if (!("WebSocket" in window)) { poll(true); return; }
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + socketPath);
    socket.onopen = function () {
      retry = 1000;
      poll(false);
      if (opened) soon();  // open again: what changed meanwhile was told to nobody
      opened = true;
    };
    socket.onmessage = received;
    socket.onclose = function () {
      poll(true);
      setTimeout(connect, retry * (0.5 + Math.random()));
      retry = Math.min(retry * 2, 30000);
    };
  }

  poll(true);
  connect();
})();
