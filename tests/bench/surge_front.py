#!/usr/bin/env python3
"""The dam break's surge front against Martin & Moyce 1952 (Phil. Trans. R. Soc. A 244, 312):
a column twice as high as wide (n^2 = 2), the front Z = x/a at T = t sqrt(2g/a), as their table
is reproduced throughout the SPH and MPS literature. Reads a stats file (front_x per step) and
prints one Markdown row: T when the front reaches Z = 4 (three widths run; the experiment: 3.22),
the mean and largest |Z_sim - Z_exp| / Z_exp over the experiment's marks, Z's error at the last
mark (T = 3.33), and the last step's density_max_error.
    surge_front.py STATS.jsonl COLUMN_WIDTH LABEL"""
import json
import math
import sys

T_EXP = [0.41, 0.84, 1.19, 1.43, 1.63, 1.83, 1.98, 2.20, 2.32, 2.51, 2.65, 2.83, 2.98, 3.11, 3.33]
Z_EXP = [1.11, 1.22, 1.44, 1.67, 1.89, 2.11, 2.33, 2.56, 2.78, 3.00, 3.22, 3.44, 3.67, 3.89, 4.11]
G = 9.81

path, a, label = sys.argv[1], float(sys.argv[2]), sys.argv[3]
rows = [json.loads(line) for line in open(path)]
T = [r["t"] * math.sqrt(2 * G / a) for r in rows]
Z = [r["front_x"] / a for r in rows]


def z_at(tq):
    for k in range(1, len(T)):
        if T[k] >= tq:
            w = (tq - T[k - 1]) / (T[k] - T[k - 1])
            return Z[k - 1] + w * (Z[k] - Z[k - 1])
    sys.exit(f"{path}: the run ends at T = {T[-1]:.2f}, before {tq}")


def t_at(zq):
    for k in range(1, len(Z)):
        if Z[k] >= zq:
            return T[k]
    return float("nan")


errors = [(z_at(t) - z) / z for t, z in zip(T_EXP, Z_EXP)]
print(f"| {label} | {t_at(4.0):.3f} ({100 * (t_at(4.0) / 3.22 - 1):+.1f}%) | "
      f"{100 * sum(abs(e) for e in errors) / len(errors):.1f}% | {100 * max(abs(e) for e in errors):.1f}% | "
      f"{100 * errors[-1]:+.1f}% | {100 * rows[-1]['density_max_error']:.1f}% |")
