#!/usr/bin/env bash
# The vortex benchmark report.
#   tests/bench/vortex_bench.sh [PROGRAM] [BACKEND] [OUT_DIR]     (defaults: build/fluid-sandbox cpu .)
# 1. scenes/vortex_plate_flames.json once it runs full (about 1000 vortons and 49 000 tracers,
#    after 150 warm-up steps), the document's timing table's scenario (vortex particles part 13, Table 2).
# 2. On a GPU: 1e5 vortons and 1e7 tracers (a block of quiet vortons and a block of tracers), by
#    the direct sum and by vortex-in-cell (the 16 ms goal); then the direct sum's pair rate alone
#    with 1e5 and 3e5 vortons.
set -euo pipefail
program=${1:-build/fluid-sandbox}
backend=${2:-cpu}
out=${3:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
steps=${FS_BENCH_STEPS:-100}
"$program" "$here/scenes/vortex_plate_flames.json" --bench --backend "$backend" --steps "$steps" --warmup 150 \
    --bench-json "$out/bench-vortex-plate-flames-$backend.json"
if [ "$backend" = cuda ]; then
    # 46^3 = 97 336 vortons on a lattice, 1e7 tracers.
    "$program" "$here/scenes/vortex_moving_plate.json" --bench --backend cuda --steps "${FS_BENCH_GPU_STEPS:-20}" \
        --warmup 3 --set velocity_method=direct --set vorton_box=-2.3,-2.3,-2.3,2.3,2.3,2.3 \
        --set vorton_spacing=0.1 --set max_vortons=200000 --set tracer_box=-2,-2,-2,2,2,2 \
        --set tracers=10000000 --set max_tracers=10000000 \
        --bench-json "$out/bench-vortex-1e5-direct-1e7-tracers-cuda.json"
    # The same by vortex-in-cell (vortons and tracers from the grid): the issue's 16 ms goal.
    "$program" "$here/scenes/vortex_moving_plate.json" --bench --backend cuda --steps "${FS_BENCH_GPU_STEPS:-20}" \
        --warmup 3 --set velocity_method=grid --set tracer_velocity=grid \
        --set vorton_box=-2.3,-2.3,-2.3,2.3,2.3,2.3 \
        --set vorton_spacing=0.1 --set max_vortons=200000 --set tracer_box=-2,-2,-2,2,2,2 \
        --set tracers=10000000 --set max_tracers=10000000 \
        --bench-json "$out/bench-vortex-1e5-grid-1e7-tracers-cuda.json"
    # The direct sum's pair rate (the goal: 5e11 pair interactions a second with 1e5-1e6
    # vortons): no tracers, one velocity evaluation a step (integrator euler), pairs a second =
    # N^2 over the velocity stage's median time (tests/gpu/report.py). 46^3 = 97 336 and 67^3 =
    # 300 763 vortons on a lattice of spacing 0.1.
    for n in 46 67; do
        h=$(awk -v n="$n" 'BEGIN { printf "%.4g", n * 0.05 }')
        "$program" "$here/scenes/vortex_moving_plate.json" --bench --backend cuda --steps "${FS_BENCH_DIRECT_STEPS:-5}" \
            --warmup 2 --set velocity_method=direct --set tracers=0 --set integrator=euler \
            --set vorton_box=-$h,-$h,-$h,$h,$h,$h --set vorton_spacing=0.1 --set max_vortons=$((n * n * n + 10000)) \
            --bench-json "$out/bench-vortex-$((n * n * n))-direct-cuda.json"
    done
fi

# 3. On the CPU: the direct sum's pair rate (pairs/s = N^2 / the velocity stage's time; stages
#    in the report): 30^3 = 27 000 vortons by the direct sum (the most the CPU's check allows,
#    1e9 pairs a step, is 31 622), then 1000 vortons and 49 000 tracers, both by the direct sum.
#    FS_BENCH_DIRECT=0 skips it.
if [ "${FS_BENCH_DIRECT:-1}" = 1 ] && [ "$backend" = cpu ]; then
    "$program" "$here/scenes/vortex_moving_plate.json" --bench --steps 2 --warmup 1 \
        --set velocity_method=direct --set tracers=0 --set vorton_box=-1.22,-1.22,-1.22,1.22,1.22,1.22 \
        --set vorton_spacing=0.08 --set max_vortons=31622 --set integrator=euler \
        --bench-json "$out/bench-vortex-27000-direct-cpu.json"
    "$program" "$here/scenes/vortex_moving_plate.json" --bench --steps 3 --warmup 1 \
        --set velocity_method=direct --set tracer_velocity=direct \
        --set vorton_box=-0.45,-0.45,-0.45,0.45,0.45,0.45 --set vorton_spacing=0.1 \
        --set tracer_box=-1,-1,-1,1,1,1 --set tracers=49000 --set max_tracers=49000 --set integrator=euler \
        --bench-json "$out/bench-vortex-1000-direct-49000-tracers-cpu.json"
fi

# The same on a busy machine (tests/bench/loaded.sh): 1 thread against 2 (governed, and pinned),
# idle and with a busy loop per core, interleaved. FS_BENCH_LOADED=0 skips it.
if [ "${FS_BENCH_LOADED:-1}" = 1 ] && [ "$backend" = cpu ]; then
    FS_BENCH_OUT="$out" "$here/tests/bench/loaded.sh" vortex-plate-flames "$program" \
        "$here/scenes/vortex_plate_flames.json" --bench --steps "$steps" --warmup 150
fi
