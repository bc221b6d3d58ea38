#!/usr/bin/env python3
"""The browser build in a real browser: headless Chromium (WebGL2 through SwiftShader) opens the
built page (make web) on each solver's scene and checks what a student would:
  - the page loads and its first frames draw the domain and the particles (a screenshot of the
    scene's middle holds the colour map's colours, not one flat background);
  - TimeStep (Space) advances exactly one step; W and S turn gravity (where the solver has it);
  - a parameter from the URL (?set=NAME=VALUE) applies;
  - no console error, no uncaught exception, no OpenGL error;
  - after 50 steps the stats agree with the native build's (--headless --threads 1) under the
    parity contract (docs/web.md): the same bits, but where the solver calls the C library's
    transcendental functions or FFTW, whose WebAssembly builds round differently (then 1e-9
    relative, compounded over 50 steps by the flow's own growth of differences).
Both programs: the threaded one (index-threads.js) where the page is cross-origin isolated, its
status line saying so, at --threads 1 and 2 the same stats as the native build; the single-threaded
one (index.js) chosen where the page is not isolated and may not use the service worker (coi=0),
with the same stats; and from a host that sends no COOP/COEP, the service worker (coi-sw.js)
isolates the page, which reloads once and runs the threaded program.
And the page's ways: an unknown scene in the URL shows a message and opens the default scene;
F12 offers the screenshot as a download, V a video the browser recorded from the canvas; the
canvas follows the window's size and device pixel ratio; without WebGL2 the page says so.
    python3 tests/web/test_page.py BUILD_WEB_DIR NATIVE_BINARY [-k NAME] [-v]
Exits 0 when every check holds, 1 otherwise; skips (exit 0, saying so) without chromium or
without the built page."""
import argparse
import base64
import json
import math
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chrome  # noqa: E402

# Each solver's scene, a parameter the URL sets, and whether the solver's arithmetic is the same
# in both builds (no libm transcendental or FFT on its path): then the stats must match exactly.
SCENES = [
    # scene, solver, --set, exact (the threaded page at its default thread count, the default
    # scene at --threads 1: test_programs runs FLIP at 2 and on the single-threaded page)
    ('default', 'euler', 'seed=11', True),
    ('flip_dam_break', 'flip', 'flip_ratio=0.9', True),
    ('sph_barrier', 'sph', 'viscosity_alpha=0.5', False),
    ('vortex_ring', 'vortex', 'core_radius=0.12', False),
    ('ot_tutorial', 'ot', 'seed=3', False),
]
STEPS = 50
# Where the two builds' C libraries (glibc, musl) round a sine or an exponential differently, or
# FFTW's codelets differ, the runs part by an ulp and the flow's own sensitivity grows that: after
# 50 steps the continuous stats agree to 1e-6, and a count that thresholds a distance (SPH's
# neighbours within the support radius) by a few in thousands (measured: sph_barrier's
# neighbors_mean 9.33651 against 9.33460, 2e-4). docs/web.md states the contract.
TOLERANCE = 1e-6
COUNT_TOLERANCE = 1e-3
COUNTS = ('neighbors', 'contacts', 'pair_tests', 'collisions', 'iterations', 'passes', 'halvings', 'restarts')
LOAD_SECONDS = 90  # SwiftShader compiles the shaders on the CPU; the OT scene's set-up solves first


class Checks:
    def __init__(self, verbose):
        self.failures, self.verbose = [], verbose

    def check(self, ok, what):
        if self.verbose or not ok:
            print(('ok    ' if ok else 'FAIL  ') + what, flush=True)
        if not ok:
            self.failures.append(what)
        return ok


def native_stats(binary, scene, sets):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 'stats.jsonl')
        cmd = [binary, scene, '--headless', '--steps', str(STEPS), '--threads', '1', '--stats', path]
        for s in sets:
            cmd += ['--set', s]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with open(path) as f:
            return json.loads(f.read().splitlines()[-1])


def compare_stats(web, native, exact):
    """The stats both builds report, but for timings: (names compared, [(name, web, native)] that differ)."""
    skip = {'step_ms', 'stages_ms', 'step', 't', 'dt'}
    names, differ = [], []
    for name, n in native.items():
        if name in skip or name not in web or name.endswith('_ms'):
            continue
        names.append(name)
        a, b = web[name], n
        a = a if isinstance(a, list) else [a]
        b = b if isinstance(b, list) else [b]
        for x, y in zip(a, b):
            if x is None or y is None:
                ok = x is None and y is None
            elif exact:
                ok = x == y
            elif any(c in name for c in COUNTS):
                ok = math.isclose(x, y, rel_tol=COUNT_TOLERANCE)
            else:
                ok = math.isclose(x, y, rel_tol=TOLERANCE, abs_tol=1e-12)
            if not ok:
                differ.append((name, a, b))
                break
    return names, differ


def scene_pixels(browser, state):
    """RGB pixels of the middle of the page (where the scene is drawn), at half size."""
    w, h = state['drawable']
    dpr = browser.evaluate('window.devicePixelRatio') or 1
    cw, ch = w / dpr, h / dpr
    clip = {'x': cw * 0.3, 'y': ch * 0.2, 'width': cw * 0.4, 'height': ch * 0.6, 'scale': 0.5}
    data = browser.send('Page.captureScreenshot', {'format': 'png', 'clip': clip})['data']
    width, height, channels, rows = chrome.decode_png(base64.b64decode(data))
    px = []
    for row in rows:
        for i in range(0, width * channels, channels):
            px.append((row[i], row[i + 1], row[i + 2]))
    return px


def check_scene(c, browser, server, native, scene, solver, setting, exact, args='', query=''):
    name, value = setting.split('=', 1)
    browser.navigate(server.url(f'scene={scene}&set={setting}&args=--paused{args}{query}'))
    start = time.monotonic()
    try:
        st = browser.wait_for(lambda s: s['frame'] >= 3, LOAD_SECONDS, f'{scene}: three frames')
    except TimeoutError as e:
        c.check(False, str(e))
        return None
    first_frame_s = time.monotonic() - start
    c.check(st['solver'] == solver and st['scene'].endswith(scene + '.json'),
            f'{scene}: the page opened the scene ({st["scene"]}, solver {st["solver"]})')
    c.check(st['steps'] == 0 and not st['running'], f'{scene}: --paused from the URL holds it at step 0')
    got = st['params'].get(name)
    c.check(got is not None and abs(float(got) - float(value)) < 1e-12,
            f'{scene}: the URL\'s {setting} applies (the parameter reads {got})')

    px = scene_pixels(browser, st)
    colours = set(px)
    # The particles are coloured by the colour map (saturated); the background and panels are grey.
    saturated = sum(1 for r, g, b in px if max(r, g, b) - min(r, g, b) > 60)
    c.check(len(colours) > 50 and saturated > 0.01 * len(px),
            f'{scene}: the first frames draw the particles ({len(colours)} colours, '
            f'{100.0 * saturated / len(px):.1f}% of the scene\'s pixels coloured by the map)')

    browser.key('Space')
    st = browser.wait_for(lambda s: s['steps'] >= 1, 30, f'{scene}: TimeStep')
    browser.pump(0.3)
    st = browser.state()
    c.check(st['steps'] == 1 and not st['running'], f'{scene}: TimeStep advanced exactly one step ({st["steps"]})')

    g0 = st['params'].get('gravity_direction')
    if g0 is not None:
        browser.key('W')
        st = browser.wait_for(lambda s: s['params']['gravity_direction'] != g0, 10, f'{scene}: W')
        g_up = st['params']['gravity_direction']
        c.check(g_up[1] > 0.99 and abs(g_up[0]) < 1e-12, f'{scene}: W turns gravity up ({g_up})')
        browser.key('S')
        st = browser.wait_for(lambda s: s['params']['gravity_direction'] == g0, 10, f'{scene}: S')
        c.check(True, f'{scene}: S turns it back down ({st["params"]["gravity_direction"]})')
    else:
        c.check(True, f'{scene}: no gravity to turn ({solver})')

    for _ in range(STEPS - 1):
        browser.key('Space')
    st = browser.wait_for(lambda s: s['steps'] >= STEPS, 120, f'{scene}: {STEPS} steps')
    browser.pump(0.3)
    st = browser.state()
    c.check(st['steps'] == STEPS, f'{scene}: {STEPS} TimeSteps, {st["steps"]} steps')
    if native:
        ref = native_stats(native, scene, [setting])
        names, differ = compare_stats(st['stats'], ref, exact)
        c.check(len(names) >= 2 and not differ,
                f'{scene}: after {STEPS} steps the stats agree with the native build\'s '
                f'({"bit for bit" if exact else "to 1e-6, counts to 1e-3"}: {", ".join(names)})' +
                ''.join(f'\n      {n}: browser {a} native {b}' for n, a, b in differ))
    c.check(st['gl_errors'] == 0, f'{scene}: no OpenGL error ({st["gl_errors"]}, first 0x{st["first_gl_error"]:04x})')
    errors = browser.console_errors()
    c.check(not errors, f'{scene}: no console error' + ''.join(f'\n      {e}' for e in errors[:5]))
    return first_frame_s


def page_mode(browser):
    return browser.evaluate('({threaded: window.fluidSandbox.threaded, program: window.fluidSandbox.program, '
                            'isolated: window.crossOriginIsolated, '
                            'line: document.getElementById("mode").textContent})')


def check_programs(c, browser, server, plain, native):
    """The threaded program on an isolated page at --threads 2, the single-threaded one where the
    page is not isolated, and the service worker's isolation from a host without the headers."""
    scene, solver, setting, exact = 'flip_dam_break', 'flip', 'flip_ratio=0.9', True
    check_scene(c, browser, server, native, scene, solver, setting, exact, args='+--threads+2')
    browser.pump(1.0)
    m = page_mode(browser)
    st = browser.state()
    c.check(m['isolated'] and m['threaded'] and m['program'] == 'index-threads.js' and st['threaded']
            and st['threads'] == 2 and 'threaded: 2 threads' in m['line'],
            f'an isolated page runs the threaded program at --threads 2 and says so ({m}, threads {st["threads"]})')
    # A plain host, the service worker not allowed: the single-threaded program, the same stats.
    check_scene(c, browser, plain, native, scene, solver, setting, exact, query='&coi=0')
    browser.pump(1.0)
    m = page_mode(browser)
    c.check(not m['isolated'] and not m['threaded'] and m['program'] == 'index.js' and not browser.state()['threaded']
            and 'one thread' in m['line'],
            f'a page that is not isolated runs the single-threaded program and says so ({m})')
    # The same host, the service worker allowed: it isolates the page, which reloads once.
    browser.navigate(plain.url('scene=sph_barrier&args=--paused'))
    try:
        browser.wait_for(lambda s: s['frame'] >= 3, LOAD_SECONDS, 'the service worker\'s page: three frames')
        browser.pump(1.0)
        m = page_mode(browser)
        c.check(m['isolated'] and m['threaded'] and browser.state()['threaded'],
                f'from a host without COOP/COEP the service worker isolates the page: threaded ({m})')
    except TimeoutError as e:
        c.check(False, str(e))


def check_page_ways(c, browser, server):
    browser.navigate(server.url('scene=no_such_scene'))
    st = browser.wait_for(lambda s: s['frame'] >= 3, LOAD_SECONDS, 'an unknown scene')
    messages = browser.evaluate('window.fluidSandbox.messages') or []
    c.check(st['scene'].endswith('default.json') and any('no_such_scene' in m for m in messages),
            f'an unknown scene in the URL opens the default scene ({st["scene"]}) with a message ({messages})')
    browser.key('F12')
    browser.pump(1.0)
    downloads = browser.evaluate('window.fluidSandbox.downloads') or []
    c.check(any(d.startswith('screenshot-') and d.endswith('.png') for d in downloads),
            f'F12 offers the screenshot as a download ({downloads})')
    # V records the canvas with the browser's MediaRecorder; V again offers the video.
    browser.key('V')
    st = browser.wait_for(lambda s: s['recording'], 10, 'V starts recording')
    browser.pump(2.0)
    browser.key('V')
    end = time.monotonic() + 15
    videos = []
    while time.monotonic() < end and not videos:
        browser.pump(0.3)
        videos = [d for d in browser.evaluate('window.fluidSandbox.downloads') or []
                  if d.startswith('recording-') and (d.endswith('.webm') or d.endswith('.mp4'))]
    c.check(bool(videos), f'V records the canvas and offers the video as a download ({videos})')
    # The canvas follows the window's size and its device pixel ratio.
    browser.send('Emulation.setDeviceMetricsOverride',
                 {'width': 900, 'height': 600, 'deviceScaleFactor': 2, 'mobile': False})
    st = browser.wait_for(lambda s: s['drawable'] == [1800, 1200], 20, 'the canvas at 900x600, ratio 2')
    c.check(True, f'the canvas follows the window at a device pixel ratio of 2 ({st["drawable"]} pixels)')
    browser.send('Emulation.clearDeviceMetricsOverride')
    others = [e for e in browser.console_errors() if 'no_such_scene' not in e]
    c.check(not others, 'no console error but the unknown scene\'s line' + ''.join(f'\n      {e}' for e in others))


def check_without_webgl2(c, server):
    """A browser without WebGL2 gets a line saying so, not a blank page."""
    browser = chrome.Browser(extra_flags=('--disable-webgl', '--disable-3d-apis'))
    try:
        browser.open_page()
        browser.navigate(server.url())
        browser.pump(2.0)
        text = browser.evaluate("document.getElementById('status').textContent") or ''
        c.check('WebGL2' in text and browser.state() is None,
                f'without WebGL2 the page says so instead of a blank page ("{text[:70]}...")')
    finally:
        browser.close()


def main():
    ap = argparse.ArgumentParser(description='The browser build in headless Chromium')
    ap.add_argument('web_dir')
    ap.add_argument('native', nargs='?', help='the native fluid-sandbox, for the stats\' parity')
    ap.add_argument('-k', help='only scenes whose name contains this')
    ap.add_argument('-v', '--verbose', action='store_true')
    a = ap.parse_args()
    if not chrome.find_chromium():
        print('SKIP: no chromium (the Debian package chromium runs these tests)')
        return 0
    if not os.path.exists(os.path.join(a.web_dir, 'index.wasm')):
        print(f'SKIP: no browser build in {a.web_dir} (make web builds it)')
        return 0
    c = Checks(a.verbose)
    server = chrome.Server(a.web_dir)
    plain = chrome.Server(a.web_dir, isolate=False)
    browser = chrome.Browser()
    try:
        browser.open_page()
        for scene, solver, setting, exact in SCENES:
            if a.k and a.k not in scene:
                continue
            t = check_scene(c, browser, server, a.native, scene, solver, setting, exact,
                            args='+--threads+1' if scene == 'default' else '')
            if t is not None and a.verbose:
                print(f'      {scene}: first frames within {t:.1f} s')
        if not a.k or a.k == 'programs':
            check_programs(c, browser, server, plain, a.native)
        if not a.k:
            check_page_ways(c, browser, server)
            check_without_webgl2(c, server)
    finally:
        browser.close()
        server.close()
        plain.close()
    print(f'{len(c.failures)} failed' if c.failures else 'all browser checks passed')
    return 1 if c.failures else 0


if __name__ == '__main__':
    sys.exit(main())
