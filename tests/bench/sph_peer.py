#!/usr/bin/env python3
"""The SPH dam break side by side with a peer, SPlisHSPlasH's DFSPH, in one run: each round runs
this project's `sph_dam_break` (DFSPH) and then the peer on the same set-up, for one simulated
second each, and prints the wall time a simulated second of each (the steps' own time: neither
counts its start-up) and the ratio.
    python3 tests/bench/sph_peer.py build/fluid-sandbox PEER/bin/SPHSimulator [--rounds 3]
                                    [--threads 2] [--seconds 1.0]
The peer is built outside the project (docs/benchmarks.md says how); its scene is
tests/bench/peer/splishsplash_dam_break_2d.json, written here for the same set-up: a 2 x 1 m
tank, a 0.4 x 0.8 m column, spacing 0.01 m (3 200 particles), 2D cubic spline with support
0.02 m, DFSPH at 0.1% mean density error and 0.1% divergence error, dt = 0.4 spacing / top
speed (its cflFactor 1: it scales 0.4 diameters), at most 5 ms, kinematic viscosity 0.01 m^2/s,
wall particles (Akinci 2012) one half spacing outside the fluid's first row.
Never a timed test: the figures depend on the machine and on a program the project does not ship.
The script itself is tested (CTest's Bench.sph_peer) against tests/bench/peer/stand_in_peer.py,
which answers as the peer does, so that a change to sph_solvers.py cannot break it unseen."""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import sph_solvers  # noqa: E402  (beside this file)

PEER_SCENE = os.path.join(HERE, 'peer', 'splishsplash_dam_break_2d.json')


def ours(binary, seconds, threads):
    """Wall seconds a simulated second of sph_dam_break on DFSPH: sph_solvers.py's run (the stats'
    step_ms summed over the run, which ends at the first step past `seconds`)."""
    r = sph_solvers.run(binary, scene='sph_dam_break', solver='dfsph', seconds=seconds, threads=threads,
                        backend='cpu', extra=[])
    return {'wall_per_s': r['wall_per_s'], 'steps': r['steps'], 'mean_dt': 1e-3 * r['dt_ms'],
            'density_iterations': r['iterations']}


def peer(binary, seconds, threads):
    """The same from the peer's own log: its summed "SimStep" timer over its simulated time."""
    data = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(binary))), 'data')
    with tempfile.TemporaryDirectory() as d:
        with open(PEER_SCENE) as f:
            scene = f.read().replace('@PEER_DATA@', data)
        scene = re.sub(r'"stopAt":\s*[0-9.eE+-]+', f'"stopAt": {seconds}', scene)
        path = os.path.join(d, 'scene.json')
        with open(path, 'w') as f:
            f.write(scene)
        env = dict(os.environ, OMP_NUM_THREADS=str(threads))
        log = subprocess.run([binary, '--no-gui', '--no-cache', '--output-dir', os.path.join(d, 'out'), path],
                             check=True, capture_output=True, text=True, env=env).stdout

    def number(pattern):
        m = re.search(pattern + r'\s*([0-9.eE+-]+)', log)
        if not m:
            sys.exit(f'sph_peer.py: the peer\'s log has no "{pattern}"')
        return float(m.group(1))
    step_ms = number(r'Time sum: SimStep:')
    t = number(r'Total number: Time step size:')
    dt = number(r'Average number: Time step size:')
    return {'wall_per_s': step_ms * 1e-3 / t, 'steps': round(t / dt), 'mean_dt': dt,
            'density_iterations': number(r'Average number: DFSPH - iterations:')}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('binary')
    ap.add_argument('peer')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--seconds', type=float, default=1.0)
    a = ap.parse_args()
    print(f'{"round":>5s} {"who":>14s} {"s / sim s":>10s} {"steps":>6s} {"mean dt ms":>11s} {"iterations":>11s}')
    ratios = []
    for r in range(1, a.rounds + 1):
        row = {}
        for who, run in (('fluid-sandbox', lambda: ours(a.binary, a.seconds, a.threads)),
                         ('SPlisHSPlasH', lambda: peer(a.peer, a.seconds, a.threads))):
            row[who] = x = run()
            print(f'{r:5d} {who:>14s} {x["wall_per_s"]:10.3f} {x["steps"]:6d} {1e3 * x["mean_dt"]:11.3f} '
                  f'{x["density_iterations"]:11.2f}', flush=True)
        ratios.append(row['SPlisHSPlasH']['wall_per_s'] / row['fluid-sandbox']['wall_per_s'])
    print('the peer takes ' + ', '.join(f'{x:.2f}' for x in ratios) + ' times as long a simulated second')
    return 0


if __name__ == '__main__':
    sys.exit(main())
