#!/usr/bin/env bash
# The desktop window on a GPU machine without a display (issue 12): SDL's offscreen video driver
# draws through EGL on NVIDIA's driver, so OpenGL runs on the same GPU as CUDA and the particles
# reach it through the CUDA-OpenGL interop, as on a desktop.
#   tests/gpu/window.sh BUNDLE_DIR OUT_DIR [SECONDS]
# BUNDLE_DIR comes from tests/gpu/window_bundle.sh (run where the window was built). Runs the FLIP
# dam break in the unit cube at 64^3 (the benchmark's, 5e5 particles) and at 128^3 (4e6, a step
# slower than a frame) on CUDA for SECONDS each (default 20), in real time: the simulation
# steps on its own thread and every frame draws its latest state. Writes each run's summary
# (frames per second, the frame times' median, 99th percentile and slowest, how the frames reached
# OpenGL and the longest hand-over) and a screenshot into OUT_DIR, and window.md beside them.
# Environment: FS_WINDOW_MAX_FPS (default 120), FS_WINDOW_RUNS (the runs to make, by name; default
# all: flip-64 flip-128 flip-128-30fps flip-64-surface).
# Without a GPU it rehearses the same on the CPU backend, drawing with this machine's EGL.
set -uo pipefail
bundle=$(cd "${1:?usage: window.sh BUNDLE_DIR OUT_DIR [SECONDS]}" && pwd)
out=${2:?usage: window.sh BUNDLE_DIR OUT_DIR [SECONDS]}
seconds=${3:-20}
# Frames are capped (--max-fps) above the 60 a display shows, so the figures show the headroom;
# uncapped, a window without vsync takes the GPU from CUDA (app.cpp, the frame-rate cap).
max_fps=${FS_WINDOW_MAX_FPS:-120}
here=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)

egl_dir=$out
. "$here/tests/gpu/window_env.sh"

report="$out/window.md"
{
    echo "# The window on $([ $backend = cuda ] && nvidia-smi -L | head -1 | sed 's/ (UUID.*//' || echo "this machine (no GPU: CPU backend)")"
    echo
    echo "SDL offscreen video driver (EGL), 1280x800, real time, at most $max_fps frames/s, $seconds s a run (tests/gpu/window.sh)."
    echo
} >"$report"

status=0
run() {  # NAME GRID [MAX_FPS] [KEYS]
    local name=$1 n=$2 cap=${3:-$max_fps} keys=${4:-}
    case " ${FS_WINDOW_RUNS:-$name} " in *" $name "*) ;; *) return ;; esac
    local log="$out/window-$name.log"
    echo "== $name"
    timeout $((seconds + 90)) "$bundle/fluid-sandbox" flip_dam_break --backend "$backend" --size 1280x800 \
        --seconds "$seconds" --max-fps "$cap" ${keys:+--keys "$keys"} \
        --set domain_size=1,1,1 --set resolution="$n" --set fluid_box=0,0,0,0.4,0.6,1 \
        --set pressure_solver=mgpcg --set mgpcg_tolerance=1e-5 \
        --screenshot "$out/window-$name.png" >"$log" 2>&1
    local rc=$?
    cat "$log"
    {
        echo "## FLIP dam break, $n^3, $backend, at most $cap frames/s${keys:+, keys \"$keys\"} (exit $rc)"
        echo
        grep -E "^(window|frames|drawn by|GPU time)" "$log" | sed 's/^/    /'
        grep -E "^fluid-sandbox:" "$log" | sed 's/^/    /'
        echo
    } >>"$report"
    [ $rc -eq 0 ] || status=1
}
run flip-64 64
run flip-128 128
# The same at a quarter of the frames: how much of a large simulation's slowdown in the window is
# the window's drawing taking the GPU in turns with CUDA.
run flip-128-30fps 128 30
# The liquid drawn as a surface (L; issue 15): screen-space fluid rendering on the GPU.
run flip-64-surface 64 "$max_fps" "+3 L"
echo "window.sh: wrote $report"
exit $status
