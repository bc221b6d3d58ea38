#!/usr/bin/env bash
# grid_build on a clamped pile: the default scene's 3000 particles seeded into a strip 0.002 high
# along the floor, at rest, so that every particle lies in the bottom row of cells (about 60 to a
# cell), as after the pile of the tutorial's contact model has collapsed.
#   tests/bench/euler_pile.sh [PROGRAM] [BACKEND] [OUT_DIR]     (defaults: build/fluid-sandbox cpu .)
# Prints the run's summary (the grid_build line is the figure) and writes
# bench-euler-pile-<backend>.json into OUT_DIR.
set -euo pipefail
program=${1:-build/fluid-sandbox}
backend=${2:-cpu}
out=${3:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
steps=${FS_BENCH_STEPS:-50}

"$program" "$here/scenes/default.json" --bench --set contact=impulse --backend "$backend" --steps "$steps" --warmup 5 \
    --set spawn_min=0,0 --set spawn_max=1,0.002 --set initial_speed=0 \
    --bench-json "$out/bench-euler-pile-$backend.json"
