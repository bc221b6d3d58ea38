#!/usr/bin/env bash
# The SPH benchmark report: scenes/sph_dam_break.json with about 1e4, 1e5 and 1e6 fluid
# particles (the spacing shrinks as 1/sqrt(N); the 0.4 m x 0.8 m block holds 0.32/spacing^2).
#   tests/bench/sph_scaling.sh [PROGRAM] [BACKEND] [OUT_DIR]     (defaults: build/fluid-sandbox cpu .)
set -euo pipefail
program=${1:-build/fluid-sandbox}
backend=${2:-cpu}
out=${3:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
sizes=${FS_BENCH_SIZES:-"10000 100000 1000000"}
steps=${FS_BENCH_STEPS:-30}
for n in $sizes; do
    dx=$(awk -v n="$n" 'BEGIN { printf "%.6g", sqrt(0.32 / n) }')
    "$program" "$here/scenes/sph_dam_break.json" --bench --backend "$backend" --steps "$steps" --warmup 5 \
        --set spacing="$dx" --bench-json "$out/bench-sph-$n-$backend.json"
done

# The same on a busy machine (tests/bench/loaded.sh): 1 thread against 2 (governed, and pinned),
# idle and with a busy loop per core, interleaved. FS_BENCH_LOADED=0 skips it.
if [ "${FS_BENCH_LOADED:-1}" = 1 ] && [ "$backend" = cpu ]; then
    FS_BENCH_OUT="$out" "$here/tests/bench/loaded.sh" sph-1e5 "$program" "$here/scenes/sph_dam_break.json" --bench \
        --steps "$steps" --warmup 5 --set spacing="$(awk 'BEGIN { printf "%.6g", sqrt(0.32 / 100000) }')"
fi
