#!/usr/bin/env python3
"""The cost of a step() call from Python beyond the step itself (docs/python.md).

    PYTHONPATH=build/python /usr/bin/python3 tests/bench/python_overhead.py [--scene euler_tutorial] [--steps 20000]

It times the same steps two ways on one small scene, alternating, several rounds: one Python
call a step (`for _ in range(n): sim.step()`) and one call for them all (`sim.step(n)`, the loop
in C++). The difference per step is what a call costs: pybind11's dispatch, the GIL given up and
taken back, and the Ctrl-C check. Prints the median over the rounds, and a property read for
scale. A benchmark, not a test: nothing is asserted.
"""
import argparse
import statistics
import time

import fluid_sandbox as fsb


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scene", default="euler_tutorial")
    ap.add_argument("--set", action="append", default=["n_particles=16"], help="NAME=VALUE (a small state: "
                    "the step itself should be short beside the call)")
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=7)
    a = ap.parse_args()
    settings = dict(s.split("=", 1) for s in a.set)
    sim = fsb.Simulation(a.scene, threads=1, set=settings)
    sim.step(1000)  # warm up
    per_call, in_cpp, loop = [], [], []
    for _ in range(a.rounds):
        t0 = time.perf_counter()
        for _ in range(a.steps):
            sim.step()
        t1 = time.perf_counter()
        sim.step(a.steps)
        t2 = time.perf_counter()
        for _ in range(a.steps):
            pass
        t3 = time.perf_counter()
        per_call.append((t1 - t0) / a.steps)
        in_cpp.append((t2 - t1) / a.steps)
        loop.append((t3 - t2) / a.steps)
    t0 = time.perf_counter()
    for _ in range(a.steps):
        sim.time
    prop = (time.perf_counter() - t0) / a.steps
    overhead = [c - s - l for c, s, l in zip(per_call, in_cpp, loop)]
    us = 1e6
    print(f"{a.scene} ({', '.join(a.set)}), {sim.particle_count} particles, {a.steps} steps x {a.rounds} rounds:")
    print(f"  a step inside step(n):        {statistics.median(in_cpp) * us:.2f} us")
    print(f"  a step as one step() call:    {statistics.median(per_call) * us:.2f} us")
    print(f"  Python's empty loop, a turn:  {statistics.median(loop) * us:.3f} us")
    print(f"  step() call overhead:         {statistics.median(overhead) * us:.2f} us (median; "
          f"min {min(overhead) * us:.2f}, max {max(overhead) * us:.2f})")
    print(f"  a property read (sim.time):   {prop * us:.2f} us")


if __name__ == "__main__":
    main()
