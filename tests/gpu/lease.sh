#!/usr/bin/env bash
# The GPU check on a borrowed GPU machine, from builds made here (docs/gpu.md, "Fifteen minutes of
# GPU time"):
#   tests/gpu/lease.sh OUT_DIR [PART ...]          (on the GPU machine, in the checkout)
# .gpu-pack must travel with the checkout (tests/gpu/pack.sh made it here). Parts, in the order
# given (default: check realtime window), each under its own time limit:
#   check     tests/gpu/run.sh on the carried builds: every test, parity on every scene,
#             compute-sanitizer, the parity demonstration, the benchmarks       (about 5 minutes)
#   realtime  every bundled scene's real-time factor on CUDA, headless and in the window
#             (tests/bench/realtime.py --display direct)                         (about 3 minutes)
#   window    tests/gpu/window.sh: FLIP 64^3 and 128^3 in the window, 128^3 at 30 frames/s, and
#             the liquid's surface                                               (about 1 minute)
# A device call may run 10 minutes and a session may hold a GPU for 15, the machine's start
# included: run `check` in one call and `realtime window` in a second.
# Writes into OUT_DIR no more than 8 files, as a device call brings back: PART.md for each part
# (check.md is run.sh's report.md), check.json, realtime.json, and results-PARTS.tar.gz with all
# the logs, stats and screenshots. Without a GPU it unpacks, says so and runs what runs on the CPU:
# a rehearsal of the commands. Environment: FS_GPU_PARTS (run.sh's parts for `check`), FS_LEASE_SCENES
# (the scenes for `realtime`, comma-separated; default all), FS_LEASE_CHECK_SECONDS,
# FS_LEASE_REALTIME_SECONDS, FS_LEASE_WINDOW_SECONDS (each part's limit: 540, 300, 240).
set -uo pipefail
out=${1:?usage: tests/gpu/lease.sh OUT_DIR [check] [realtime] [window]}
shift
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(check realtime window)
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
mkdir -p "$out"
out=$(cd "$out" && pwd)
pack=.gpu-pack
[ -f "$pack/gpu.tar.xz" ] && [ -f "$pack/root" ] ||
    { echo "lease.sh: $pack/gpu.tar.xz not found: run tests/gpu/pack.sh here first and carry $pack" >&2; exit 2; }
work=$(mktemp -d)
t0=$(date +%s)
log() { echo "lease.sh: $* ($(( $(date +%s) - t0 )) s)" | tee -a "$work/lease.log"; }

# 1. The builds, at the path they were made at: their tests name themselves and the scenes by
#    absolute path, so where this checkout lies elsewhere that path becomes a link to it.
root=$(cat "$pack/root")
if [ "$root" != "$here" ]; then
    if [ -e "$root" ] || [ -L "$root" ]; then
        [ "$(cd "$root" && pwd -P)" = "$(pwd -P)" ] ||
            { echo "lease.sh: the builds were made at $root, which is another folder here" >&2; exit 2; }
    else
        mkdir -p "$(dirname "$root")" && ln -s "$here" "$root" ||
            { echo "lease.sh: cannot link $root to this checkout" >&2; exit 2; }
    fi
    log "the builds' path $root leads here"
fi
stamp=$(cksum <"$pack/gpu.tar.xz")
if [ "$(cat build/.gpu-pack-stamp 2>/dev/null)" != "$stamp" ]; then
    if command -v xz >/dev/null 2>&1; then
        tar -xJf "$pack/gpu.tar.xz"
    else
        python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(".", filter="fully_trusted")' \
            "$pack/gpu.tar.xz"
    fi || { echo "lease.sh: $pack/gpu.tar.xz did not unpack" >&2; exit 2; }
    ln -sf ../build/fluid-sandbox build-window/fluid-sandbox
    echo "$stamp" >build/.gpu-pack-stamp
    log "unpacked $(du -sh build build-demo build-window | awk '{ printf "%s %s  ", $2, $1 }')(made at $(head -1 "$pack/commit" | cut -c1-10))"
fi
# The libraries the builds load that a GPU machine lacks (FFTW, OpenMP's, SDL, glvnd), and the
# window's offscreen display over NVIDIA's EGL.
bundle=$here/build-window
egl_dir=$work
. tests/gpu/window_env.sh >>"$work/lease.log" 2>&1
tail -1 "$work/lease.log"
export PATH=$PATH:/usr/local/cuda/bin

status=0
for part in "${parts[@]}"; do
    s=$(date +%s)
    case $part in
    check)
        # The tests that need the desktop the build was made on (Xvfb, Mesa, its Python, MkDocs)
        # do not run here; CI runs them on every landing.
        FS_GPU_NO_BUILD=1 FS_GPU_BUILD=build \
            FS_GPU_CTEST_EXCLUDE="${FS_GPU_CTEST_EXCLUDE-^(Window\.|Shaders\.|Docs$|Python\.|Lesson\.)}" \
            timeout "${FS_LEASE_CHECK_SECONDS:-540}" tests/gpu/run.sh "$work/check" >"$work/check.log" 2>&1
        rc=$?
        cp "$work/check/report.md" "$out/check.md" 2>/dev/null
        cp "$work/check/report.json" "$out/check.json" 2>/dev/null
        ;;
    realtime)
        timeout "${FS_LEASE_REALTIME_SECONDS:-300}" python3 tests/bench/realtime.py build/fluid-sandbox \
            ${FS_LEASE_SCENES:+--scenes "$FS_LEASE_SCENES"} \
            --backend "$backend" --display direct --steps 200 --warmup 100 --seconds 4 \
            --json "$out/realtime.json" >"$work/realtime.txt" 2>&1
        rc=$?
        { echo "# Real-time factors on $(nvidia-smi -L 2>/dev/null | head -1 | sed 's/ (UUID.*//' || echo 'no GPU')"
          echo
          echo "tests/bench/realtime.py build/fluid-sandbox --backend $backend --display direct --steps 200"
          echo "--warmup 100 --seconds 4: headless, the scene's dt over the median ms a step of"
          echo "steps 101-200; the window (SDL offscreen over EGL, 1600x1000) in real time for 4 s."
          echo
          echo '```'; cat "$work/realtime.txt"; echo '```'; } >"$out/realtime.md"
        ;;
    window)
        timeout "${FS_LEASE_WINDOW_SECONDS:-240}" tests/gpu/window.sh "$bundle" "$work/window" 10 \
            >"$work/window.log" 2>&1
        rc=$?
        cp "$work/window/window.md" "$out/window.md" 2>/dev/null
        ;;
    *)
        echo "lease.sh: no part '$part' (allowed: check, realtime, window)" >&2
        rc=2
        ;;
    esac
    log "$part: exit $rc in $(( $(date +%s) - s )) s"
    [ $rc -eq 0 ] || status=1
done
tar -czf "$out/results-$(IFS=-; echo "${parts[*]}").tar.gz" -C "$work" .
rm -rf "$work"
exit $status
