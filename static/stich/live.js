/* Live regions: an element with data-live="URL" and data-live-event="ID" is replaced by the HTML
   that URL returns whenever the server says the event's results changed (a WebSocket message on
   /ws/events/ID/), without reloading the page; with data-live-series="ID" instead, whenever one of
   the series' events changed (/ws/series/ID/). When the socket is down, the regions are fetched
   every 20 seconds instead, and the socket reconnects after a pause that doubles up to 30 s, with
   a random part (a room's screens that lost the server together do not come back together). Each
   time the socket opens again the regions are fetched at once: changes made while it was down
   (a server or Redis restarting) sent no message to this page. <body data-live-state> says
   "connected" or "polling". */
(function () {
  "use strict";
  var regions = Array.prototype.slice.call(
    document.querySelectorAll("[data-live][data-live-event], [data-live][data-live-series]"));
  if (!regions.length) return;
  var series = regions[0].getAttribute("data-live-series");
  var socketPath = series ? "/ws/series/" + series + "/" : "/ws/events/" + regions[0].getAttribute("data-live-event") + "/";
  var timer = null, poller = null, retry = 1000, opened = false;

  var asked = 0;  // refreshes asked for: a slower, older answer never replaces a newer one

  function refresh() {
    var turn = ++asked;
    regions.forEach(function (region) {
      fetch(region.getAttribute("data-live"), {credentials: "same-origin", headers: {"X-Requested-With": "fetch"}})
        .then(function (response) { return response.ok ? response.text() : null; })
        .then(function (html) {
          if (html === null || turn < (region.liveTurn || 0)) return;
          region.liveTurn = turn;
          region.innerHTML = html;
          region.setAttribute("data-live-updated", String(Date.now()));
          region.dispatchEvent(new CustomEvent("live:updated", {bubbles: true}));
        })
        .catch(function () { /* the next message or poll tries again */ });
    });
  }

  function soon() {
    // Several hands stored at once (a burst of messages) are fetched once.
    if (timer) return;
    timer = setTimeout(function () { timer = null; refresh(); }, 100);
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
    socket.onmessage = soon;
    socket.onclose = function () {
      poll(true);
      setTimeout(connect, retry * (0.5 + Math.random()));
      retry = Math.min(retry * 2, 30000);
    };
  }

  poll(true);
  connect();
})();
