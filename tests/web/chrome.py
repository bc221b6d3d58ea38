"""Headless Chromium driven over the DevTools protocol, for the browser build's tests and benchmarks.

No outside library: Chromium speaks the protocol over a pipe (--remote-debugging-pipe, file
descriptors 3 and 4, one JSON message per NUL-terminated record), and the page's screenshots are
decoded here (PNG: zlib and the five row filters). Also a local server with the same headers as
src/web/serve.py, on a free port, in a thread of this process."""
import base64
import functools
import http.server
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'src', 'web'))
import serve  # noqa: E402  (the page's own server: its headers and MIME types)


def find_chromium():
    for name in ('chromium', 'chromium-browser', 'google-chrome'):
        path = shutil.which(name)
        if path:
            return path
    return None


class Server:
    """The built page on http://127.0.0.1:PORT/, cross-origin isolated as serve.py serves it, or
    (isolate=False) as a plain static host serves it, without COOP/COEP."""

    def __init__(self, directory, isolate=True):
        handler = functools.partial(serve.Handler, directory=directory)
        self.httpd = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
        self.httpd.verbose = False
        self.httpd.isolate = isolate
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, query=''):
        return f'http://127.0.0.1:{self.port}/index.html' + (('?' + query) if query else '')

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class Browser:
    """One headless Chromium with WebGL2 through SwiftShader (the CPU rasterizer)."""

    def __init__(self, width=1280, height=800, extra_flags=()):
        exe = find_chromium()
        if not exe:
            raise RuntimeError('no chromium on PATH (Debian package chromium)')
        self.profile = tempfile.mkdtemp(prefix='fs-chromium-')
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        # The child's fd 3 reads our commands and fd 4 writes its answers: moved above 4 first,
        # so that placing one cannot close the other.
        hi_r, hi_w = os.dup2(to_child_r, 100, inheritable=True), os.dup2(from_child_w, 101, inheritable=True)

        def place_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        flags = ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
                 '--disable-background-networking', '--disable-component-update', '--no-first-run',
                 '--disable-sync', '--disable-quic', '--no-default-browser-check', '--mute-audio',
                 '--disable-dev-shm-usage',
                 '--remote-debugging-pipe', f'--user-data-dir={self.profile}', f'--window-size={width},{height}',
                 *extra_flags, 'about:blank']
        self.proc = subprocess.Popen([exe, *flags], pass_fds=(3, 4, hi_r, hi_w), preexec_fn=place_fds,
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for fd in (to_child_r, from_child_w, hi_r, hi_w):
            os.close(fd)
        self.next_id = 0
        self.buffer = b''
        self.events = []
        self.session = None

    # -- the protocol --
    def _read_message(self, timeout):
        import select
        deadline = time.monotonic() + timeout
        while b'\0' not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('no answer from chromium')
            ready, _, _ = select.select([self.from_child], [], [], left)
            if ready:
                chunk = os.read(self.from_child, 1 << 20)
                if not chunk:
                    raise RuntimeError('chromium closed the DevTools pipe (did it crash?)')
                self.buffer += chunk
        record, self.buffer = self.buffer.split(b'\0', 1)
        return json.loads(record)

    def send(self, method, params=None, session=True, timeout=60):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self.to_child, json.dumps(msg).encode() + b'\0')
        while True:
            answer = self._read_message(timeout)
            if answer.get('id') == self.next_id:
                if 'error' in answer:
                    raise RuntimeError(f'{method}: {answer["error"]}')
                return answer.get('result', {})
            if 'method' in answer:
                self.events.append(answer)

    def pump(self, seconds):
        """Lets the page run, collecting its events."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.events.append(self._read_message(max(0.0, end - time.monotonic())))
            except TimeoutError:
                break

    def open_page(self):
        targets = self.send('Target.getTargets', session=False)['targetInfos']
        page = next(t for t in targets if t['type'] == 'page')
        self.session = self.send('Target.attachToTarget', {'targetId': page['targetId'], 'flatten': True},
                                 session=False)['sessionId']
        for domain in ('Page', 'Runtime', 'Log', 'Performance'):
            self.send(f'{domain}.enable')

    def navigate(self, url):
        self.events.clear()
        self.send('Page.navigate', {'url': url})

    def evaluate(self, expression):
        r = self.send('Runtime.evaluate', {'expression': expression, 'returnByValue': True})
        if 'exceptionDetails' in r:
            raise RuntimeError(f'{expression}: {r["exceptionDetails"]}')
        return r['result'].get('value')

    def state(self):
        return self.evaluate('window.fluidSandbox && window.fluidSandbox.state')

    def wait_for(self, predicate, timeout, what):
        """Polls the page's state until predicate(state) holds; returns that state."""
        end = time.monotonic() + timeout
        state = None
        while time.monotonic() < end:
            state = self.state()
            if state and predicate(state):
                return state
            self.pump(0.05)
        raise TimeoutError(f'{what}: not within {timeout} s (last state: {json.dumps(state)[:300]})')

    def key(self, name):
        """A key press as the page sees one: 'Space', 'F12', or a letter."""
        if name == 'Space':
            key, code, vk = ' ', 'Space', 32
        elif name.startswith('F') and name[1:].isdigit():
            key, code, vk = name, name, 111 + int(name[1:])
        else:
            key, code, vk = name.lower(), 'Key' + name.upper(), ord(name.upper())
        base = {'key': key, 'code': code, 'windowsVirtualKeyCode': vk, 'nativeVirtualKeyCode': vk}
        self.send('Input.dispatchKeyEvent', {'type': 'keyDown', **base, **({'text': key} if len(key) == 1 else {})})
        self.send('Input.dispatchKeyEvent', {'type': 'keyUp', **base})

    def screenshot(self):
        data = self.send('Page.captureScreenshot', {'format': 'png'})['data']
        return base64.b64decode(data)

    def metrics(self):
        return {m['name']: m['value'] for m in self.send('Performance.getMetrics')['metrics']}

    def console_errors(self):
        """The page's console errors and uncaught exceptions, as text."""
        out = []
        for e in self.events:
            m, p = e.get('method'), e.get('params', {})
            if m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert'):
                out.append(' '.join(str(a.get('value', a.get('description', ''))) for a in p.get('args', [])))
            elif m == 'Runtime.exceptionThrown':
                d = p.get('exceptionDetails', {})
                out.append(d.get('exception', {}).get('description') or d.get('text', 'exception'))
            elif m == 'Log.entryAdded' and p.get('entry', {}).get('level') == 'error':
                out.append(p['entry'].get('text', ''))
        return out

    def console_lines(self):
        out = []
        for e in self.events:
            if e.get('method') == 'Runtime.consoleAPICalled':
                out.append(' '.join(str(a.get('value', '')) for a in e['params'].get('args', [])))
        return out

    def close(self):
        try:
            self.send('Browser.close', session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.to_child, self.from_child):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


def decode_png(data):
    """(width, height, channels, rows) of an 8-bit non-interlaced PNG (what Chromium writes)."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, width = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, colour, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and interlace == 0 and colour in (2, 6), 'unexpected PNG format'
            channels = 3 if colour == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows
