#!/usr/bin/env bash
# The Euler benchmark report: the hard-disk gas (scenes/euler_gas.json) at N = 1e4, 1e5, 1e6
# with the grid detector, and brute force at N = 1e4, at constant area fraction 0.1 (collision
# distance and time step scale as 1/sqrt(N), so every N sees the same collision statistics).
#   tests/bench/euler_scaling.sh [PROGRAM] [BACKEND] [OUT_DIR]     (defaults: build/fluid-sandbox cpu .)
# Prints each run's summary and writes bench-euler-<detector>-<N>-<backend>.json into OUT_DIR.
set -euo pipefail
program=${1:-build/fluid-sandbox}
backend=${2:-cpu}
out=${3:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
sizes=${FS_BENCH_SIZES:-"10000 100000 1000000"}
steps=${FS_BENCH_STEPS:-50}

run() {  # detector N
    local d tau
    d=$(awk -v n="$2" 'BEGIN { printf "%.6g", sqrt(4 * 0.1 / (3.14159265358979 * n)) }')
    tau=$(awk -v n="$2" 'BEGIN { printf "%.6g", 0.0002 * sqrt(100000 / n) }')
    "$program" "$here/scenes/euler_gas.json" --bench --backend "$backend" --steps "$steps" --warmup 5 \
        --set detector="$1" --set n_particles="$2" --set collision_distance="$d" --set tau="$tau" \
        --bench-json "$out/bench-euler-$1-$2-$backend.json"
}

for n in $sizes; do run grid "$n"; done
run brute_force "${FS_BENCH_BRUTE_N:-10000}"

# The same on a busy machine (tests/bench/loaded.sh): 1 thread against 2 (governed, and pinned),
# idle and with a busy loop per core, interleaved. FS_BENCH_LOADED=0 skips it.
if [ "${FS_BENCH_LOADED:-1}" = 1 ] && [ "$backend" = cpu ]; then
    n=100000
    FS_BENCH_OUT="$out" "$here/tests/bench/loaded.sh" euler-1e5 "$program" "$here/scenes/euler_gas.json" --bench \
        --steps "$steps" --warmup 5 --set n_particles=$n \
        --set collision_distance="$(awk -v n=$n 'BEGIN { printf "%.6g", sqrt(4 * 0.1 / (3.14159265358979 * n)) }')"
fi
