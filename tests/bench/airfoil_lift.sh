#!/usr/bin/env bash
# Lift and drag of the bundled airfoil against the lifting-line estimate.
#   tests/bench/airfoil_lift.sh [PROGRAM] [OUT_DIR] [ANGLES...]   (defaults: build/fluid-sandbox . 0 4 8 12)
# Runs scenes/vortex_airfoil.json at each angle of attack (body1_rotation z = -angle: nose up
# while it moves nose first along -x), without tracers, at the scene's settings (its lattice of
# vortons 0.1 m apart, remeshed every fifth step on a grid of two core radii); FS_LIFT_SETS adds
# parameters (e.g. "grid_spacing=1" for the grid at one core radius), FS_LIFT_SPACING sets the
# lattice's spacing, and prints the mean force from
# t = 0.5 s (the start's impulse over) to the end of the run: lift, drag and their coefficients
# over (1/2) rho U^2 c b, beside the lifting-line estimate C_L = 2 pi alpha / (1 + 2 / AR) for the
# wing's aspect ratio AR = b / c (Anderson, "Fundamentals of Aerodynamics", 5.3: Prandtl's
# elliptic wing; Helmbold's low-aspect-ratio form is within 10% of it at AR = 1.33).
# The means are of every step's impulse over the run's time (not of the smoothed stats), and the
# spread is the standard deviation of the means over 0.5 s windows.
set -euo pipefail
program=${1:-build/fluid-sandbox}
out=${2:-.}
shift $(( $# < 2 ? $# : 2 ))
angles=${*:-0 4 8 12}
here=$(cd "$(dirname "$0")/../.." && pwd)
steps=${FS_LIFT_STEPS:-230}
extra=()
[ -n "${FS_LIFT_SPACING:-}" ] && extra+=(--set vorton_spacing="$FS_LIFT_SPACING")
for kv in ${FS_LIFT_SETS:-}; do extra+=(--set "$kv"); done
printf '| angle | lift (N) | drag (N) | C_L | C_D | C_L lifting line | spread of C_L over 0.5 s windows |\n'
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
for a in $angles; do
    stats="$out/airfoil-lift-$a.jsonl"
    "$program" "$here/scenes/vortex_airfoil.json" --headless --steps "$steps" --set tracers=0 \
        --set max_vortons=200000 --set body1_rotation=0,0,-"$a" "${extra[@]}" \
        --stats "$stats" > /dev/null
    python3 - "$stats" "$a" <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])][1:]
angle = float(sys.argv[2])
chord, span, rho, speed = 0.6, 0.8, 1.2, 1.0   # scenes/vortex_airfoil.json
q = 0.5 * rho * speed ** 2 * chord * span
def mean(rs):
    t = sum(r['dt'] for r in rs)
    return [sum(r['body1_impulse'][c] for r in rs) / t for c in range(2)]
kept = [r for r in rows if r['t'] >= 0.5]
fx, fy = mean(kept)
# The wing moves along -x with its upper surface up: drag along +x, lift along +y.
windows, cur = [], []
for r in kept:
    cur.append(r)
    if sum(s['dt'] for s in cur) >= 0.5:
        windows.append(mean(cur)[1] / q)
        cur = []
m = sum(windows) / len(windows)
sd = math.sqrt(sum((w - m) ** 2 for w in windows) / max(1, len(windows) - 1))
ar = span / chord
ll = 2 * math.pi * math.radians(angle) / (1 + 2 / ar)
print(f"| {angle:g} deg | {fy:.3f} | {fx:.3f} | {fy / q:.3f} | {fx / q:.3f} | {ll:.3f} | {sd:.3f} |")
PY
done
