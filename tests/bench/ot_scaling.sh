#!/usr/bin/env bash
# The optimal-transport liquid's benchmark: scenes/ot_rayleigh_taylor.json with about 1e4 and 1e5
# cells (1e6 too on a GPU: FS_BENCH_SIZES="10000 100000 1000000"). The box is 1 x 2 m on a
# hexagonal lattice, about 2.31 resolution^2 cells; eps follows the spacing h as eps^2 g / h = 0.09
# (the scene's rule, docs/validation.md), without viscosity (its explicit bound tightens as h^2). Prints each run's summary (ms a step, by stage)
# and, from its stats, the medians of what a step's transport did: Newton iterations, cell passes
# (one, then one a trial step), CG iterations, and the time in cells and in the linear solves.
#   tests/bench/ot_scaling.sh [PROGRAM] [BACKEND] [OUT_DIR]     (defaults: build/fluid-sandbox cpu .)
set -euo pipefail
program=${1:-build/fluid-sandbox}
backend=${2:-cpu}
out=${3:-.}
here=$(cd "$(dirname "$0")/../.." && pwd)
sizes=${FS_BENCH_SIZES:-"10000 100000"}
steps=${FS_BENCH_STEPS:-20}
for n in $sizes; do
    res=$(awk -v n="$n" 'BEGIN { printf "%d", sqrt(n / 2.3094) + 0.5 }')
    eps=$(awk -v r="$res" 'BEGIN { printf "%.4g", sqrt(0.09 / r / 9.81) }')
    set_args=(--set resolution="$res" --set epsilon="$eps" --set viscosity=0)
    "$program" "$here/scenes/ot_rayleigh_taylor.json" --bench --backend "$backend" --steps "$steps" --warmup 3 \
        "${set_args[@]}" --bench-json "$out/bench-ot-$n-$backend.json"
    "$program" "$here/scenes/ot_rayleigh_taylor.json" --headless --backend "$backend" --steps "$steps" \
        "${set_args[@]}" --stats "$out/bench-ot-$n-$backend.jsonl" > /dev/null
    python3 - "$out/bench-ot-$n-$backend.jsonl" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])][2:]
med = lambda k: statistics.median(r[k] for r in rows)
print("  %d cells: newton %g, cell passes %g, cg %g; cells %.2f ms, linear solves %.2f ms (medians a step)"
      % (rows[0]["n_particles"], med("newton_iterations"), med("cell_passes"), med("cg_iterations"),
         med("cells_ms"), med("solve_ms")))
PY
done

# The same on a busy machine (tests/bench/loaded.sh): 1 thread against 2 (governed, and pinned),
# idle and with a busy loop per core, interleaved. FS_BENCH_LOADED=0 skips it.
if [ "${FS_BENCH_LOADED:-1}" = 1 ] && [ "$backend" = cpu ]; then
    res=$(awk 'BEGIN { printf "%d", sqrt(10000 / 2.3094) + 0.5 }')
    FS_BENCH_OUT="$out" "$here/tests/bench/loaded.sh" ot-1e4 "$program" "$here/scenes/ot_rayleigh_taylor.json" --bench \
        --steps "$steps" --warmup 3 --set resolution="$res" --set viscosity=0 \
        --set epsilon="$(awk -v r="$res" 'BEGIN { printf "%.4g", sqrt(0.09 / r / 9.81) }')"
fi
