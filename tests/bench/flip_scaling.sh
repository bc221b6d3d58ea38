#!/usr/bin/env bash
# The FLIP benchmark report: a dam break in a unit cube (the water a 0.4 x 0.6 x 1 block, 24% of
# the box, 8 particles per fluid cell) at 32^3, 64^3 and 128^3 cells, MGPCG at 1e-5.
#   tests/bench/flip_scaling.sh [PROGRAM] [BACKEND] [OUT_DIR]     (defaults: build/fluid-sandbox cpu .)
set -euo pipefail
program=${1:-build/fluid-sandbox}
backend=${2:-cpu}
out=${3:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
sizes=${FS_BENCH_SIZES:-"32 64 128"}
steps=${FS_BENCH_STEPS:-10}
for n in $sizes; do
    "$program" "$here/scenes/flip_dam_break.json" --bench --backend "$backend" --steps "$steps" --warmup 3 \
        --set domain_size=1,1,1 --set resolution="$n" --set fluid_box=0,0,0,0.4,0.6,1 \
        --set pressure_solver=mgpcg --set mgpcg_tolerance=1e-5 \
        --bench-json "$out/bench-flip-$n-$backend.json"
done

# The same on a busy machine (tests/bench/loaded.sh): 1 thread against 2 (governed, and pinned),
# idle and with a busy loop per core, interleaved. FS_BENCH_LOADED=0 skips it.
if [ "${FS_BENCH_LOADED:-1}" = 1 ] && [ "$backend" = cpu ]; then
    FS_BENCH_OUT="$out" "$here/tests/bench/loaded.sh" flip-64 "$program" "$here/scenes/flip_dam_break.json" --bench \
        --steps "$steps" --warmup 3 --set domain_size=1,1,1 --set resolution=64 --set fluid_box=0,0,0,0.4,0.6,1 \
        --set pressure_solver=mgpcg --set mgpcg_tolerance=1e-5
fi
