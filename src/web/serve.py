#!/usr/bin/env python3
"""Serves the browser build's page (make serve-web), as any static web server would, plus the
headers that make the page cross-origin isolated (COOP/COEP), which the threaded program needs and
a course site can set likewise (where it cannot, the page's service worker adds them).
    python3 src/web/serve.py [--port 8000] [--dir build-web] [--no-isolation]
then open http://localhost:8000/ (add ?scene=NAME&set=NAME=VALUE)."""
import argparse
import functools
import http.server
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      '.wasm': 'application/wasm', '.js': 'text/javascript', '.data': 'application/octet-stream'}

    def end_headers(self):
        if self.server.isolate:
            self.send_header('Cross-Origin-Opener-Policy', 'same-origin')
            self.send_header('Cross-Origin-Embedder-Policy', 'require-corp')
        self.send_header('Cache-Control', 'no-cache')
        super().end_headers()

    def log_message(self, fmt, *args):
        if self.server.verbose:
            super().log_message(fmt, *args)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--port', type=int, default=8000)
    ap.add_argument('--dir', default='build-web')
    ap.add_argument('--bind', default='127.0.0.1')
    ap.add_argument('--no-isolation', action='store_true',
                    help='no COOP/COEP headers, as a plain static host (the tests of the service worker)')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    server = http.server.ThreadingHTTPServer((a.bind, a.port), functools.partial(Handler, directory=a.dir))
    server.verbose = a.verbose
    server.isolate = not a.no_isolation
    print(f'serving {a.dir} at http://{a.bind}:{server.server_address[1]}/', flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == '__main__':
    main()
