// The score sheet's service worker: the sheet's pages and files from the network when there is
// one, else the last copy, so that a reload at a table without a connection still opens the
// sheet and its queued hands (they live in localStorage). Everything else passes untouched.
const CACHE = "stich-sheet-v1";
const SHEET = /^\/(t\/[^/]+\/|my-table\/|me\/tables\/)/;
const FILES = /^\/static\/stich\/(sheet[\w-]*\.(js|css))$/;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (!SHEET.test(url.pathname) && !FILES.test(url.pathname)) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(() => caches.match(request, { ignoreVary: true }).then((cached) => cached || Response.error())),
  );
});
