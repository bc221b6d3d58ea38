#!/usr/bin/env bash
# Memory check (not in CI: valgrind makes each run 20 to 100 times slower). Each solver's default
# scene runs headless for STEPS steps on the CPU backend under valgrind --leak-check=full; a run
# fails when valgrind finds an invalid access or a definite or indirect leak. Prints one line per
# scene with valgrind's leak summary; exits 1 when any run failed (the logs stay in LOG_DIR).
#   tests/soak/leak_check.sh [PROGRAM] [STEPS] [LOG_DIR]   (defaults: build/fluid-sandbox 5 /tmp)
#   FS_LEAK_SCENES="flip_drop sph_barrier" tests/soak/leak_check.sh     (other scenes)
# One OpenMP thread: libgomp's worker threads would otherwise show as "possibly lost" stacks.
set -uo pipefail
program=${1:-build/fluid-sandbox}
steps=${2:-5}
logs=${3:-/tmp}
here=$(cd "$(dirname "$0")/../.." && pwd)
scenes=${FS_LEAK_SCENES:-"default sph_barrier flip_dam_break vortex_plate_flames"}
command -v valgrind > /dev/null || { echo "valgrind is not installed (third_party/install-deps.sh check)"; exit 2; }

failed=0
printf '%-22s %6s %8s  %s\n' scene status seconds "valgrind: errors; definitely / indirectly / possibly lost; still reachable"
for scene in $scenes; do
    log="$logs/leak-check-$scene.log"
    start=$(date +%s)
    valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect --error-exitcode=3 --log-file="$log" \
        "$program" "$here/scenes/$scene.json" --headless --steps "$steps" --threads 1 > /dev/null 2>&1
    status=$?
    secs=$(( $(date +%s) - start ))
    [ "$status" -ne 0 ] && failed=1
    summary=$(awk '/ERROR SUMMARY/ { e = $4 }
                   /definitely lost:/ { d = $4 " " $5 } /indirectly lost:/ { i = $4 " " $5 }
                   /possibly lost:/ { p = $4 " " $5 } /still reachable:/ { r = $4 " " $5 }
                   /All heap blocks were freed/ { d = i = p = r = "0 bytes" }
                   END { printf "%s errors; %s / %s / %s; %s", e, d, i, p, r }' "$log")
    printf '%-22s %6s %8s  %s\n' "$scene" "$status" "$secs" "$summary"
done
exit $failed
