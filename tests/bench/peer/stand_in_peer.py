#!/usr/bin/env python3
"""A stand-in for SPlisHSPlasH's SPHSimulator, for testing tests/bench/sph_peer.py without the
peer: it takes the peer's command line (--no-gui --no-cache --output-dir DIR SCENE.json), checks
the scene sph_peer.py wrote (valid JSON, no placeholder left, the stop time it was asked for, the
peer's DFSPH), and prints the lines of the peer's timing log that sph_peer.py reads, with the
counts of a run at the scene's largest time step. The times it prints are not a measurement."""
import argparse
import json
import sys


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--no-gui', action='store_true')
    ap.add_argument('--no-cache', action='store_true')
    ap.add_argument('--output-dir', required=True)
    ap.add_argument('scene')
    a = ap.parse_args()
    if not (a.no_gui and a.no_cache):
        sys.exit('stand_in_peer: sph_peer.py must run the peer with --no-gui --no-cache')
    with open(a.scene) as f:
        text = f.read()
    if '@PEER_DATA@' in text:
        sys.exit('stand_in_peer: the scene still has its @PEER_DATA@ placeholder')
    conf = json.loads(text)['Configuration']
    if conf.get('simulationMethod') != 4:
        sys.exit('stand_in_peer: the scene does not ask for DFSPH (simulationMethod 4)')
    t = float(conf['stopAt'])
    dt = float(conf['cflMaxTimeStepSize'])
    steps = max(1, round(t / dt))
    print(f'Time sum: SimStep: {steps * 1.0:.3f}')
    print(f'Total number: Time step size: {steps * dt:.6f}')
    print(f'Average number: Time step size: {dt:.6f}')
    print('Average number: DFSPH - iterations: 3.0')
    return 0


if __name__ == '__main__':
    sys.exit(main())
