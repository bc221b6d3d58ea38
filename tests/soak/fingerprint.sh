#!/usr/bin/env bash
# A refactor's proof of no behaviour change: every bundled scene run STEPS steps headless, its
# stats lines without the timings, one file per scene in OUT_DIR; and four scenes' USD exports
# (every 10th step; the header's line naming the scene file's path left out), as their SHA-256 in
# OUT_DIR/usd.sha256. Compare two runs with diff -r: nothing may differ.
#   tests/soak/fingerprint.sh BIN OUT_DIR [STEPS] [extra fluid-sandbox options...]
set -euo pipefail
bin=$1 out=$2 steps=${3:-30}
shift $(( $# < 3 ? $# : 3 ))
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
for scene in "$here"/scenes/*.json; do
    name=$(basename "$scene" .json)
    "$bin" "$scene" --headless --steps "$steps" --threads 2 --stats "$out/$name.raw" "$@" >/dev/null
    # Timings differ from run to run; everything else is the simulation's and must not.
    python3 - "$out/$name.raw" "$out/$name.jsonl" <<'PY'
import json, sys
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as g:
    for line in f:
        d = json.loads(line)
        for key in [k for k in d if k.endswith("_ms")]:  # step_ms, stages_ms, ot's cells_ms, ...
            del d[key]
        g.write(json.dumps(d) + "\n")
PY
    rm "$out/$name.raw"
done
: > "$out/usd.sha256"
for name in default flip_dam_break sph_barrier vortex_ring; do
    "$bin" "$here/scenes/$name.json" --headless --steps "$steps" --threads 2 --export "$out/$name.usda" \
        --export-every 10 "$@" >/dev/null
    echo "$(grep -v '^    doc = ' "$out/$name.usda" | sha256sum | cut -d' ' -f1)  $name.usda" >> "$out/usd.sha256"
    rm "$out/$name.usda"
done
