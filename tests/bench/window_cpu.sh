#!/usr/bin/env bash
# The window's frame rate without a GPU: each scene in real time under Xvfb (Mesa's llvmpipe) on
# 2 cores, the simulation on one thread, for S seconds, as the window's own summary reports it
# (frames a second, the median frame). Several programs, or one program with different options,
# run interleaved round by round, so the machine's drift touches each alike.
#   tests/bench/window_cpu.sh ["PROGRAM [OPTIONS]"]...   (default: build/fluid-sandbox)
#   e.g. tests/bench/window_cpu.sh "build/fluid-sandbox --spheres exact" "build/fluid-sandbox"
# Environment: FS_WINDOW_SCENES (default: flip_dam_break vortex_plate_flames default
# sph_barrier), FS_WINDOW_SECONDS (default 10), FS_WINDOW_ROUNDS (default 3), FS_WINDOW_CORES
# (the cores taskset gives it, default 0,1). Prints one line a run and the medians.
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- build/fluid-sandbox
scenes=${FS_WINDOW_SCENES:-flip_dam_break vortex_plate_flames default sph_barrier}
seconds=${FS_WINDOW_SECONDS:-10}
rounds=${FS_WINDOW_ROUNDS:-3}
cores=${FS_WINDOW_CORES:-0,1}
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for r in $(seq "$rounds"); do
    for scene in $scenes; do
        for p in $(seq $#); do
            cmd=${!p}
            # shellcheck disable=SC2086  # the program and its options, split as written
            out=$(xvfb-run -a -s "-screen 0 1600x1000x24" taskset -c "$cores" $cmd "scenes/$scene.json" \
                --threads 1 --seconds "$seconds" 2>&1) || { echo "$cmd $scene: failed" >&2; echo "$out" >&2; exit 1; }
            fps=$(echo "$out" | sed -n 's/^window: .*(\([0-9.]*\) frames\/s.*/\1/p')
            median=$(echo "$out" | sed -n 's/^frames: median \([0-9.]*\) ms.*/\1/p')
            echo "round $r  $scene  [$cmd]  $fps frames/s, median frame $median ms"
            echo "$scene|$cmd|$fps|$median" >> "$results"
        done
    done
done
echo "medians over $rounds rounds:"
median_of() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : 0.5 * (v[NR / 2] + v[NR / 2 + 1]) }'; }
for scene in $scenes; do
    for p in $(seq $#); do
        cmd=${!p}
        fps=$(awk -F'|' -v s="$scene" -v c="$cmd" '$1 == s && $2 == c { print $3 }' "$results" | median_of)
        med=$(awk -F'|' -v s="$scene" -v c="$cmd" '$1 == s && $2 == c { print $4 }' "$results" | median_of)
        echo "  $scene  [$cmd]  $fps frames/s, median frame $med ms"
    done
done
