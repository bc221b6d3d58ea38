#!/usr/bin/env python3
"""The SPH pressure solvers side by side: each scene with WCSPH, DFSPH and IISPH for the same
simulated time (to the first step past it), and what a simulated second costs.
    python3 tests/bench/sph_solvers.py build/fluid-sandbox [--seconds 1.0] [--threads 2]
                                       [--scenes sph_dam_break,sph_barrier,sph_hydrostatic]
                                       [--set NAME=VALUE ...] [--backend cpu|cuda] [--json F]
Per run: the steps taken, the mean dt, the mean ms a step (every step, --stats), the wall time a
simulated second (the steps' own time, no start-up), the density solve's mean iterations, the mean
and largest density error over the steps, and the scene's --compare headline where it has one.
The scenes' own settings apply, with `pressure_solver` set and each --set after them.
Never a test: the figures depend on the machine (docs/benchmarks.md names it)."""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

SOLVERS = ('wcsph', 'dfsph', 'iisph')


def run(binary, scene, solver, seconds, threads, backend, extra):
    with tempfile.TemporaryDirectory() as d:
        stats, compare = os.path.join(d, 's.jsonl'), os.path.join(d, 'c.json')
        # A first guess of the steps from each solver's usual dt, then the rest: the run ends at
        # the first step past `seconds`.
        steps = int(seconds / (1.8e-4 if solver == 'wcsph' else 1.1e-3)) + 1
        while True:
            subprocess.run([binary, scene, '--headless', '--steps', str(steps), '--threads', str(threads),
                            '--backend', backend, '--set', f'pressure_solver={solver}', *extra, '--stats', stats,
                            '--compare', compare],
                           check=True, stdout=subprocess.DEVNULL)
            with open(stats) as f:
                lines = [json.loads(l) for l in f if l.strip()][1:]
            if lines[-1]['t'] >= seconds:
                break
            steps = int(steps * seconds / lines[-1]['t'] * 1.02) + 1
        with open(compare) as f:
            found = {item['name']: item for item in json.load(f)}
        # The scene's own comparison: the surge front where there is one (a dam break's pressure
        # is not hydrostatic), else the pressure at rest.
        item = found.get('surge_front') or found.get('hydrostatic')
        # A run too short for the comparison's first mark has no figure yet (deviation null).
        headline = (f"{item['name']} {100 * item['deviation']:.2f}% (worst {100 * item['worst']:.1f}%)"
                    if item and item.get('deviation') is not None else '')
    t = lines[-1]['t']
    wall = sum(l['step_ms'] for l in lines) / 1000.0
    iterations = [l['density_iterations'] for l in lines if 'density_iterations' in l]
    return {
        't': t,
        'steps': len(lines),
        'dt_ms': 1000.0 * t / len(lines),
        'ms': statistics.mean(l['step_ms'] for l in lines),
        'wall_per_s': wall / t,
        'iterations': statistics.mean(iterations) if iterations else None,
        'error_mean': statistics.mean(l['density_error_mean'] for l in lines),
        'error_max': max(l['density_max_error'] for l in lines),
        'compare': headline,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('binary')
    ap.add_argument('--seconds', type=float, default=1.0)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--scenes', default='sph_dam_break,sph_barrier,sph_hydrostatic')
    ap.add_argument('--set', action='append', default=[], help='NAME=VALUE for every run')
    ap.add_argument('--backend', default='cpu', choices=['cpu', 'cuda'])
    ap.add_argument('--json', help='also write the rows here')
    a = ap.parse_args()
    rows = []
    extra = [x for kv in a.set for x in ('--set', kv)]
    print('| scene | solver | simulated s | steps | mean dt (ms) | ms a step | iterations | wall s / simulated s '
          '| density error mean / max | comparison |')
    print('| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |')
    for scene in a.scenes.split(','):
        for solver in SOLVERS:
            r = run(a.binary, scene, solver, a.seconds, a.threads, a.backend, extra)
            rows.append(dict(r, scene=scene, solver=solver, backend=a.backend))
            its = f"{r['iterations']:.1f}" if r['iterations'] is not None else '–'
            print(f"| `{scene}` | {solver} | {r['t']:.2f} | {r['steps']} | {r['dt_ms']:.3f} | {r['ms']:.3f} | {its} | "
                  f"{r['wall_per_s']:.2f} | {100 * r['error_mean']:.3f}% / {100 * r['error_max']:.1f}% | "
                  f"{r['compare']} |", flush=True)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(rows, f, indent=1)


if __name__ == '__main__':
    main()
