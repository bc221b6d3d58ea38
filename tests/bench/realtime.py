#!/usr/bin/env python3
"""Every bundled scene's real-time factor: simulated seconds per wall-clock second.
  headless: the scene's dt against the median ms per step (--headless --stats, the steps after
            the first WARMUP, on --threads T);
  window:   under Xvfb for --seconds S in real time: the simulated time reached over S, and the
            frames a second the window drew (its closing summary); on the window's own choice of
            threads (a core left for the drawing), as `make run` opens it, unless --window-threads.
            --display direct opens the window on whatever the environment gives (a GPU machine's
            SDL offscreen driver over EGL: tests/gpu/lease.sh) instead of under xvfb-run.
    python3 tests/bench/realtime.py build/fluid-sandbox [--steps 40] [--warmup 10] [--seconds 10]
                                    [--threads 2] [--window-threads N] [--scenes a,b]
                                    [--backend cpu|cuda] [--display xvfb|direct]
                                    [--no-window] [--json F]
Never a test: the figures depend on the machine (docs/benchmarks.md names the machine)."""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, '..', '..', 'scenes')
FPS = re.compile(r'window: (\d+) frames in ([0-9.]+) s \(([0-9.]+) frames/s')


def stats_lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def headless(binary, scene, steps, warmup, threads, backend):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 's.jsonl')
        subprocess.run([binary, scene, '--headless', '--steps', str(steps), '--threads', str(threads),
                        '--backend', backend, '--stats', path], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
        lines = [l for l in stats_lines(path) if l.get('step', 0) > warmup]
    dt = statistics.median(l['dt'] for l in lines)
    ms = statistics.median(l['step_ms'] for l in lines)
    return dt, ms, dt / (1e-3 * ms)


def window(binary, scene, seconds, threads, backend, display):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, 's.jsonl')
        prefix = ['xvfb-run', '-a', '-s', '-screen 0 1600x1000x24'] if display == 'xvfb' else []
        size = [] if display == 'xvfb' else ['--size', '1600x1000']
        out = subprocess.run([*prefix, binary, scene, '--seconds', str(seconds), *size, '--backend', backend,
                              *(['--threads', str(threads)] if threads else []), '--stats', path],
                             check=True, capture_output=True, text=True).stdout
        lines = stats_lines(path)
    m = FPS.search(out)
    fps = float(m.group(3)) if m else float('nan')
    wall = float(m.group(2)) if m else seconds
    return fps, lines[-1]['t'] / wall if lines else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('binary')
    ap.add_argument('--steps', type=int, default=40)
    ap.add_argument('--warmup', type=int, default=10)
    ap.add_argument('--seconds', type=float, default=10.0)
    ap.add_argument('--threads', type=int, default=2, help='headless')
    ap.add_argument('--window-threads', type=int, default=0, help="the window's (default: its own choice)")
    ap.add_argument('--scenes', help='comma-separated (default: every bundled scene)')
    ap.add_argument('--backend', default='cpu', choices=['cpu', 'cuda'])
    ap.add_argument('--display', default='xvfb', choices=['xvfb', 'direct'],
                    help='direct: no xvfb-run, the environment gives the display (default xvfb)')
    ap.add_argument('--no-window', action='store_true')
    ap.add_argument('--json')
    a = ap.parse_args()
    scenes = a.scenes.split(',') if a.scenes else sorted(f[:-5] for f in os.listdir(SCENES) if f.endswith('.json'))
    show_window = not a.no_window and (a.display == 'direct' or shutil.which('xvfb-run'))
    report = {}
    print(f'{"scene":22s} {"dt (ms)":>9s} {"ms/step":>9s} {"headless":>9s}' +
          (f' {"window":>9s} {"frames/s":>9s}' if show_window else ''), flush=True)
    failed = 0
    for scene in scenes:
        try:
            dt, ms, factor = headless(a.binary, scene, a.steps, a.warmup, a.threads, a.backend)
            row = {'dt_ms': 1e3 * dt, 'step_ms': ms, 'headless': factor}
            line = f'{scene:22s} {1e3 * dt:9.3g} {ms:9.3g} {factor:8.2f}x'
            if show_window:
                fps, wfactor = window(a.binary, scene, a.seconds, a.window_threads, a.backend, a.display)
                row.update(window=wfactor, fps=fps)
                line += f' {wfactor:8.2f}x {fps:9.1f}'
        except subprocess.CalledProcessError as e:
            # One scene's failure is reported with what the program said, and the others still run.
            failed += 1
            said = (e.stderr or e.stdout or '').strip().splitlines()
            row = {'error': f'exit {e.returncode}: {said[-1] if said else ""}'}
            line = f'{scene:22s} failed, {row["error"]}'
        report[scene] = row
        print(line, flush=True)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(report, f, indent=1)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
