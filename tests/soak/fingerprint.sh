#!/usr/bin/env bash
# A refactor's proof of no behaviour change: every bundled scene run STEPS steps headless, its
# stats lines without the timings, one file per scene in OUT_DIR. Compare two runs with diff -r.
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
        d.pop("step_ms", None); d.pop("stages_ms", None)
        g.write(json.dumps(d) + "\n")
PY
    rm "$out/$name.raw"
done
