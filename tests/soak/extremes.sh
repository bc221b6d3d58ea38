#!/usr/bin/env bash
# Every parameter of a scene at each end of its range, one at a time: two headless steps each,
# under a time limit. A value the registry accepts must give an answer a student can wait for:
# refused at once with a reason (status 2), or run (0), or fail naming the step (1); never hang.
#   tests/soak/extremes.sh [PROGRAM] [SECONDS] SCENE...   (defaults: build/fluid-sandbox 60, one scene a solver)
# Prints a line a run (status, seconds, parameter=value, the first line of any message) and the
# runs that hit the limit.
set -uo pipefail
program=${1:-build/fluid-sandbox}
limit=${2:-60}
shift 2 2>/dev/null || shift $#
scenes=("$@")
[ ${#scenes[@]} -eq 0 ] && scenes=(default sph_hydrostatic flip_hydrostatic ot_drop vortex_ring)
slow=()
for scene in "${scenes[@]}"; do
    # name, kind (number/integer), low, high, components: from --list-params, settable ones only.
    while read -r name comps lo hi; do
        for v in "$lo" "$hi"; do
            value=$v
            if [ "$comps" -gt 1 ]; then value=$(for _ in $(seq "$comps"); do printf '%s,' "$v"; done); value=${value%,}; fi
            t0=$(date +%s.%N)
            out=$(timeout "$limit" "$program" "$scene" --headless --steps 2 --set "$name=$value" 2>&1)
            status=$?
            t=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
            msg=$(printf '%s\n' "$out" | grep -m1 'fluid-sandbox: ' | cut -c1-140)
            printf '%-3s %6ss  %s %s=%s  %s\n' "$status" "$t" "$scene" "$name" "$value" "$msg"
            [ "$status" -eq 124 ] && slow+=("$scene $name=$value")
        done
    done < <("$program" "$scene" --list-params | awk '
        / = / && !/read-only/ && !/diagnostic/ {
            name = $1
            comps = 1
            if (match($0, /an array of [0-9]+/)) comps = substr($0, RSTART + 12, RLENGTH - 12)
            if (match($0, /(finite number|integer)s? in \[[^]]*\]/)) {
                r = substr($0, RSTART, RLENGTH); sub(/.*\[/, "", r); sub(/\]/, "", r); split(r, b, ", ")
                print name, comps, b[1], b[2]
            }
        }')
done
echo "runs over ${limit} s: ${#slow[@]}"
for s in "${slow[@]}"; do echo "  $s"; done
