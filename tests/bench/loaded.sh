#!/usr/bin/env bash
# A benchmark on a busy machine: the same --bench run on 1 thread, on 2 threads (governed: a step
# takes fewer threads where fewer were measured faster, core/thread_governor.hpp) and on 2 threads
# pinned (--pin-threads, every step on both), on the idle machine and with a busy-loop process
# per core at normal priority (a student's browser, editor and call), interleaved round by round
# so that the machine's drift touches every case alike.
#   tests/bench/loaded.sh NAME PROGRAM ARGS...     (ARGS: a scene and --bench options; no --threads)
# Environment: FS_LOAD_ROUNDS (default 3), FS_BENCH_OUT (default .): each run's JSON goes there as
# bench-NAME-{idle,loaded}-t{1,2,2p}-rR.json. Prints the median of each case's median step, and
# whether 2 threads are no slower than 1 under load (within 5%: repeated loaded runs here spread by
# more than that).
# Sourced by the other scripts (FS_BENCH_LOADED=0 skips it there).
set -euo pipefail
name=$1
shift
program=$1
shift
rounds=${FS_LOAD_ROUNDS:-3}
out=${FS_BENCH_OUT:-.}
cores=$(nproc)
hogs=()
start_load() { for _ in $(seq "$cores"); do (while :; do :; done) & hogs+=($!); done; }
stop_load() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done; wait "${hogs[@]}" 2>/dev/null || true; hogs=(); }
trap stop_load EXIT
median_of() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : 0.5 * (v[NR / 2] + v[NR / 2 + 1]) }'; }
step_ms() { sed -n 's/.*"median_step_ms": *\([0-9.eE+-]*\).*/\1/p' "$1"; }
for r in $(seq "$rounds"); do
    for load in idle loaded; do
        [ "$load" = loaded ] && start_load
        for t in 1 2 2p; do
            pin=()
            [ "$t" = 2p ] && pin=(--pin-threads)
            "$program" "$@" --threads "${t%p}" "${pin[@]}" --bench-json "$out/bench-$name-$load-t$t-r$r.json" > /dev/null
        done
        [ "$load" = loaded ] && stop_load
    done
done
printf '%s (%d rounds, %d busy loops when loaded), median ms/step:\n' "$name" "$rounds" "$cores"
declare -A med
for load in idle loaded; do
    for t in 1 2 2p; do
        med[$load$t]=$(for r in $(seq "$rounds"); do step_ms "$out/bench-$name-$load-t$t-r$r.json"; done | median_of)
    done
    printf '  %-6s 1 thread %9.4g   2 threads %9.4g (%.2f of 1)   2 pinned %9.4g (%.2f of 1)\n' "$load" \
        "${med[${load}1]}" "${med[${load}2]}" "$(awk -v a="${med[${load}2]}" -v b="${med[${load}1]}" 'BEGIN { print a / b }')" \
        "${med[${load}2p]}" "$(awk -v a="${med[${load}2p]}" -v b="${med[${load}1]}" 'BEGIN { print a / b }')"
done
awk -v a="${med[loaded2]}" -v b="${med[loaded1]}" \
    'BEGIN { print (a <= 1.05 * b ? "  under load 2 threads are no slower than 1" : "  under load 2 threads are SLOWER than 1") }'
