#!/usr/bin/env bash
# The soak test (not in CI: it runs for hours). Each solver's default scene headless for STEPS
# steps, then the window under Xvfb with a random key sequence for GUI_SECONDS. Reports, per
# run: steps done, wall time, peak memory (the largest resident set, sampled every second), the
# growth from the sample at 10% of the run to the last one, and the exit status with its last line.
#   tests/soak/soak.sh [PROGRAM] [STEPS] [GUI_SECONDS]     (defaults: build/fluid-sandbox 10000 600)
#   FS_SOAK_SCENES="vortex_plate_flames" tests/soak/soak.sh build/fluid-sandbox 10000 0   (one scene, no window)
set -uo pipefail
program=${1:-build/fluid-sandbox}
steps=${2:-10000}
gui_seconds=${3:-600}
here=$(cd "$(dirname "$0")/../.." && pwd)
scenes=${FS_SOAK_SCENES:-"default sph_barrier flip_dam_break vortex_plate_flames"}

# Runs "$@", sampling its resident memory every second; prints "peak_kib growth_kib seconds status".
watch() {
    local samples=() start end status pid rss
    start=$(date +%s.%N)
    "$@" > /tmp/soak.out 2>&1 &
    pid=$!
    while kill -0 "$pid" 2> /dev/null; do
        # the largest resident set in the process tree (the program under timeout/xvfb-run)
        rss=$(ps -eo pid=,ppid=,rss= | awk -v root="$pid" '
            { parent[$1] = $2; mem[$1] = $3 }
            END { best = 0
                  for (p in parent) { q = p; while (q != "" && q != root && q in parent && q != 1) q = parent[q]
                                      if ((q == root || p == root) && mem[p] > best) best = mem[p] }
                  print best }')
        [ -n "$rss" ] && samples+=("$rss")
        sleep 1
    done
    wait "$pid"
    status=$?
    end=$(date +%s.%N)
    local n=${#samples[@]} peak=0 first=0 last=0
    for s in "${samples[@]}"; do [ "$s" -gt "$peak" ] && peak=$s; done
    if [ "$n" -gt 0 ]; then
        first=${samples[$((n / 10))]}
        last=${samples[$((n - 1))]}
    fi
    echo "$peak $((last - first)) $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }') $status"
}

mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

printf '%-22s %8s %10s %12s %10s %s\n' run steps seconds "peak MiB" "growth MiB" "status / last line"
for scene in $scenes; do
    read -r peak growth secs status < <(watch "$program" "$here/scenes/$scene.json" --headless --steps "$steps" \
        --stats /tmp/soak-$scene.jsonl)
    done_steps=$(($(wc -l < /tmp/soak-$scene.jsonl) - 1))  # the first line is step 0
    printf '%-22s %8s %10s %12s %10s %s / %s\n' "$scene" "$done_steps" "$secs" "$(mib "$peak")" \
        "$(mib "$growth")" "$status" "$(tail -1 /tmp/soak.out)"
done

[ "$gui_seconds" -gt 0 ] || exit 0
# The window: random keys (every binding but V/Esc/F12, which record), one every 15 frames, for
# gui_seconds of wall time (--seconds; the script is long enough for 60 frames a second).
keys=(Space P R W A S D Q E F G B Space P)
script=""
for ((k = 0; k < gui_seconds * 4; ++k)); do script+="${keys[RANDOM % ${#keys[@]}]} +14 "; done
read -r peak growth secs status < <(watch timeout $((gui_seconds + 120)) xvfb-run -a -s "-screen 0 1280x800x24" \
    "$program" "$here/scenes/sph_barrier.json" --seconds "$gui_seconds" --keys "$script" --screenshot /tmp/soak-gui.png)
frames=$(grep -o '^window: [0-9]* frames' /tmp/soak.out | grep -o '[0-9]*')
printf '%-22s %8s %10s %12s %10s %s / %s\n' "window (sph_barrier)" "${frames:-?} fr" "$secs" \
    "$(mib "$peak")" "$(mib "$growth")" "$status" "$(tail -1 /tmp/soak.out)"
