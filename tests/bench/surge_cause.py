#!/usr/bin/env python3
"""The dam break's surge front, with and without the wall friction: the worst and mean signed
deviation of Z = x/a over T = t sqrt(2g/a) in [1, 3] against two experiments,
  Martin & Moyce 1952 (Phil. Trans. R. Soc. A 244, 312), their table as compare.cpp holds it;
  Koshizuka & Oka 1996 (Nucl. Sci. Eng. 123, 421), their experiment's marks read off their figure
  (the digitisation PySPH's examples carry, pysph/examples/db_exp_data.py),
and the ΔT by which the simulated curve, run later, fits Martin & Moyce's marks best (the release).
Reads the JSON of `fluid-sandbox --compare` and prints one Markdown row.
    surge_cause.py COMPARE.json LABEL"""
import json
import sys

MM = ([0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20, 2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33],
      [1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56, 2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11])
KO = ([0.381, 0.769, 1.153, 1.537, 1.935, 2.323, 2.719, 3.096],
      [1.111, 1.252, 1.505, 1.892, 2.241, 2.615, 3.003, 3.624])

path, label = sys.argv[1], sys.argv[2]
c = next(c for c in json.load(open(path)) if c["name"] == "surge_front")
T, Z = c["simulation"]["x"], c["simulation"]["y"]


def z_at(tq):
    for k in range(1, len(T)):
        if T[k] >= tq:
            w = (tq - T[k - 1]) / (T[k] - T[k - 1])
            return Z[k - 1] + w * (Z[k] - Z[k - 1])
    sys.exit(f"{path}: the run ends at T = {T[-1]:.2f}, before {tq}")


def offs(ref, shift=0.0):
    return [(z_at(t - shift) - z) / z for t, z in zip(*ref) if 1.0 <= t <= 3.0]


def worst(e):
    return max(e, key=abs)


shifts = [k * 0.01 for k in range(0, 41)]
best = min(shifts, key=lambda s: sum(abs(e) for e in offs(MM, s)))
mm, ko = offs(MM), offs(KO)
print(f"| {label} | {100 * worst(mm):+.1f}% | {100 * sum(mm) / len(mm):+.1f}% | {100 * worst(ko):+.1f}% | "
      f"{100 * sum(ko) / len(ko):+.1f}% | {best:.2f} ({100 * worst(offs(MM, best)):+.1f}%) |")
