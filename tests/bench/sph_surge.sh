#!/usr/bin/env bash
# The SPH dam break's surge front against Martin & Moyce's experiment (tests/bench/surge_front.py)
# for the assignment's alpha and for kinematic viscosities from water's up, at two or three
# spacings: the table in docs/validation.md.
#   tests/bench/sph_surge.sh [PROGRAM] [OUT_DIR]        (defaults: build/fluid-sandbox .)
set -euo pipefail
program=${1:-build/fluid-sandbox}
out=${2:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
run() {  # label spacing settings...
    local label=$1 spacing=$2
    shift 2
    local args=() name
    for s in "$@"; do args+=(--set "$s"); done
    name=$(echo "$label" | tr -c 'A-Za-z0-9.' '_')
    # The experiment's last mark is at 0.47 s for a = 0.4 m: steps for 0.5 s at the CFL step
    # 0.8 spacing / 40 m/s (the front's speed makes the steps a little shorter still).
    local steps
    steps=$(awk -v s="$spacing" 'BEGIN { printf "%d", 0.5 / (0.8 * s / 40) * 1.2 }')
    "$program" "$here/scenes/sph_dam_break.json" --headless --steps "$steps" --set spacing="$spacing" \
        "${args[@]}" --stats "$out/surge-$name.jsonl" > /dev/null
    python3 "$here/tests/bench/surge_front.py" "$out/surge-$name.jsonl" 0.4 "$label"
}
echo "| viscosity, spacing | T at Z = 4 (experiment 3.22) | mean \|ΔZ\|/Z | max \|ΔZ\|/Z | ΔZ/Z at T = 3.33 | density error at the end |"
echo "| --- | --- | --- | --- | --- | --- |"
run "alpha 0.8 (the assignment), 0.01 m" 0.01 viscosity_alpha=0.8 kinematic_viscosity=0
run "nu 1e-6 m²/s (water), 0.02 m" 0.02 kinematic_viscosity=1e-6
run "nu 1e-6 m²/s (water), 0.01 m" 0.01 kinematic_viscosity=1e-6
run "nu 1e-3 m²/s, 0.01 m" 0.01 kinematic_viscosity=1e-3
run "nu 3e-3 m²/s, 0.01 m" 0.01 kinematic_viscosity=3e-3
run "nu 0.01 m²/s (the scenes'), 0.04 m" 0.04 kinematic_viscosity=0.01
run "nu 0.01 m²/s (the scenes'), 0.02 m" 0.02 kinematic_viscosity=0.01
run "nu 0.01 m²/s (the scenes'), 0.01 m" 0.01 kinematic_viscosity=0.01
run "nu 0.01 m²/s (the scenes'), 0.005 m" 0.005 kinematic_viscosity=0.01
