#!/usr/bin/env python3
"""The browser build's speed, measured in one run beside the native build (docs/web.md):
  1. each bundled scene's median ms per step in headless Chromium (the page's --bench: the same
     code path as the native --bench) against the native build on one thread;
  2. for the 2D scenes the students open first, the page at work in the window: frames per second,
     and the page's own work per frame (script and WebAssembly time on the main thread, from the
     browser's performance metrics), beside an empty WebGL2 page of the same size;
  3. the time from opening the page to its first frame, and the page's download, compressed.
    python3 tests/web/bench.py BUILD_WEB_DIR NATIVE_BINARY [--steps N] [--scenes a,b] [--threads T]
        [--single] [--json F]
The page is the threaded program (the test server isolates it) unless --single; both builds step
on --threads T (default 1).
Never a test: the figures depend on the machine."""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chrome  # noqa: E402

WINDOW_SCENES = ['default', 'euler_tutorial', 'sph_barrier', 'ot_tutorial', 'ot_rayleigh_taylor']
MEDIAN = re.compile(r'median ([0-9.]+) ms/step')


def native_bench(binary, scene, steps, warmup, threads=1):
    out = subprocess.run([binary, scene, '--bench', '--threads', str(threads), '--pin-threads', '--steps', str(steps),
                          '--warmup', str(warmup)], check=True, capture_output=True, text=True).stdout
    m = MEDIAN.search(out)
    return float(m.group(1)) if m else None


def page_bench(browser, server, scene, steps, warmup, threads=1, single=False, timeout=300):
    browser.navigate(server.url(f'scene={scene}&args=--bench --steps {steps} --warmup {warmup} '
                                f'--threads {threads} --pin-threads' + ('&threads=0' if single else '')))
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        browser.pump(0.5)
        for line in browser.console_lines():
            m = MEDIAN.search(line)
            if m:
                return float(m.group(1))
        if browser.console_errors():
            raise RuntimeError(f'{scene}: {browser.console_errors()[:2]}')
    raise TimeoutError(f'{scene}: no benchmark line within {timeout} s')


# WebGL calls that wait for the GPU process to answer, which with SwiftShader means waiting for
# the rasterizer to finish the frames queued before: the profiler puts that wait in their own time.
SYNC_GL = ('getParameter', 'getError', 'readPixels', 'checkFramebufferStatus', 'getBufferSubData',
           'clientWaitSync', 'finish')


def page_window(browser, server, scene, seconds):
    """The scene running in the window: frames/s, the page's own work a frame (ms; JavaScript and
    WebAssembly from the browser's sampling profiler, less the time inside WebGL calls that wait
    for the rasterizer), the program's account of a frame (steps, panels, OpenGL calls), and the
    seconds from opening the page to its first frame."""
    start = time.monotonic()
    browser.navigate(server.url(f'scene={scene}'))
    browser.wait_for(lambda s: s['frame'] >= 1, 120, f'{scene}: first frame')
    first = time.monotonic() - start
    browser.wait_for(lambda s: s['frame'] >= 10, 120, f'{scene}: ten frames')
    browser.send('Profiler.enable')
    browser.send('Profiler.setSamplingInterval', {'interval': 250})
    f0, t0 = browser.state()['frame'], time.monotonic()
    browser.send('Profiler.start')
    seen = {}  # the program's own account, frame by frame (app.cpp publish_page_state)
    while time.monotonic() - t0 < seconds:
        st = browser.state()
        seen[st['frame']] = st['work_ms']
        browser.pump(0.02)
    profile = browser.send('Profiler.stop')['profile']
    f1, t1 = browser.state()['frame'], time.monotonic()
    frames = max(1, f1 - f0)
    names = {n['id']: n['callFrame']['functionName'] for n in profile['nodes']}
    by_name = {}
    for node, dt in zip(profile['samples'], profile['timeDeltas']):
        by_name[names[node]] = by_name.get(names[node], 0.0) + dt / 1e3
    idle = sum(by_name.get(k, 0.0) for k in ('(idle)', '(program)'))
    waits = sum(by_name.get(k, 0.0) for k in SYNC_GL)
    busy = sum(by_name.values()) - idle
    parts = {k: sum(w[k] for w in seen.values()) / max(1, len(seen)) for k in ('steps', 'panels', 'gl')}
    return {'fps': frames / (t1 - t0), 'page_ms': (busy - waits) / frames, 'waits_ms': waits / frames,
            'work_ms': parts, 'first_frame_s': first}


EMPTY_PAGE = '''<!doctype html><html><body style="margin:0;overflow:hidden">
<canvas id="c" style="width:100vw;height:100vh;display:block"></canvas><script>
const c = document.getElementById('c'); c.width = innerWidth * devicePixelRatio; c.height = innerHeight * devicePixelRatio;
const gl = c.getContext('webgl2'); window.frames_drawn = 0;
(function frame() { gl.clearColor(0.09, 0.1, 0.12, 1); gl.clear(gl.COLOR_BUFFER_BIT); window.frames_drawn++;
  requestAnimationFrame(frame); })();
</script></body></html>'''


def empty_page_fps(browser, server, seconds):
    path = os.path.join(server.httpd.RequestHandlerClass.keywords['directory'], 'empty-webgl2.html')
    with open(path, 'w') as f:
        f.write(EMPTY_PAGE)
    try:
        browser.navigate(f'http://127.0.0.1:{server.port}/empty-webgl2.html')
        browser.pump(1.0)
        f0, t0 = browser.evaluate('window.frames_drawn'), time.monotonic()
        browser.pump(seconds)
        f1, t1 = browser.evaluate('window.frames_drawn'), time.monotonic()
        return (f1 - f0) / (t1 - t0)
    finally:
        os.remove(path)


def download_size(web_dir, program='index'):
    """What a browser fetches for one program (index, or index-threads with its worker script)."""
    total, raw = 0, 0
    files = ['index.html'] + [program + ext for ext in ('.js', '.wasm', '.data')]
    if program == 'index-threads':
        files += ['index-threads.worker.js', 'coi-sw.js']
    for name in files:
        with open(os.path.join(web_dir, name), 'rb') as f:
            data = f.read()
        raw += len(data)
        total += len(gzip.compress(data, 9))
    return raw, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('web_dir')
    ap.add_argument('native')
    ap.add_argument('--steps', type=int, default=20)
    ap.add_argument('--warmup', type=int, default=5)
    ap.add_argument('--seconds', type=float, default=8.0)
    ap.add_argument('--scenes', help='comma-separated (default: every bundled scene)')
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--single', action='store_true', help='the single-threaded program (index.js)')
    ap.add_argument('--json')
    a = ap.parse_args()
    scenes = a.scenes.split(',') if a.scenes else sorted(
        f[:-5] for f in os.listdir(os.path.join(os.path.dirname(__file__), '..', '..', 'scenes')) if f.endswith('.json'))
    report = {'steps': a.steps, 'warmup': a.warmup, 'scenes': {}, 'window': {}}
    server = chrome.Server(a.web_dir)
    browser = chrome.Browser(1280, 800)
    try:
        browser.open_page()
        native_head = f'native {a.threads} thread' + ('s' if a.threads > 1 else '')
        print(f'{"scene":22s} {"browser ms/step":>16s} {native_head:>16s} {"ratio":>6s}', flush=True)
        for scene in scenes:
            web = page_bench(browser, server, scene, a.steps, a.warmup, a.threads, a.single)
            native = native_bench(a.native, scene, a.steps, a.warmup, a.threads)
            ratio = web / native if native else float('nan')
            report['scenes'][scene] = {'browser_ms': web, 'native_ms': native, 'ratio': ratio}
            print(f'{scene:22s} {web:16.3f} {native:16.3f} {ratio:6.2f}', flush=True)
        empty = empty_page_fps(browser, server, a.seconds)
        report['empty_webgl2_fps'] = empty
        print(f'\nan empty WebGL2 page, 1280x800: {empty:.1f} frames/s', flush=True)
        for scene in WINDOW_SCENES:
            if a.scenes and scene not in scenes:
                continue
            w = page_window(browser, server, scene, a.seconds)
            report['window'][scene] = w
            print(f'{scene:22s} {w["fps"]:5.1f} frames/s; the page\'s own work {w["page_ms"]:5.1f} ms a frame '
                  f'(steps {w["work_ms"]["steps"]:.1f}, panels {w["work_ms"]["panels"]:.1f} ms), waiting for the '
                  f'rasterizer {w["waits_ms"]:.1f} ms; first frame {w["first_frame_s"]:.1f} s after opening',
                  flush=True)
    finally:
        browser.close()
        server.close()
    for program in ('index', 'index-threads'):
        if not os.path.isfile(os.path.join(a.web_dir, program + '.js')):
            continue
        raw, packed = download_size(a.web_dir, program)
        report.setdefault('download_bytes', {})[program] = raw
        report.setdefault('download_gzip_bytes', {})[program] = packed
        print(f'\n{program}: the page\'s download {raw / 1e6:.1f} MB, {packed / 1e6:.1f} MB compressed (gzip -9)')
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == '__main__':
    sys.exit(main())
