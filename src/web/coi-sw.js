// fluid-sandbox's service worker (registered by index.html where the page is not cross-origin
// isolated): it serves this folder's files again with the two headers that isolate a page,
// Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp, so that
// a host that cannot send them (GitHub Pages, most course sites) still gets the threaded program,
// which needs SharedArrayBuffer. Requests to other origins pass through untouched.
'use strict';

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', event => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', event => {
  const request = event.request;
  if (new URL(request.url).origin !== self.location.origin) return;
  // A fetch the browser makes for its own cache only cannot be repeated from here.
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(fetch(request).then(response => {
    if (response.status === 0) return response;  // opaque: nothing to add to
    const headers = new Headers(response.headers);
    headers.set('Cross-Origin-Opener-Policy', 'same-origin');
    headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
    headers.set('Cross-Origin-Resource-Policy', 'same-origin');
    return new Response(response.body, {status: response.status, statusText: response.statusText, headers});
  }));
});
