# Sourced by tests/gpu/window.sh and tests/gpu/lease.sh: the environment in which the desktop
# window opens on a GPU machine without a display. SDL's offscreen video driver draws through EGL
# on NVIDIA's driver; the window's own libraries come from a bundle (tests/gpu/window_bundle.sh).
#   bundle=DIR here=REPO egl_dir=DIR; . tests/gpu/window_env.sh
# egl_dir: where an EGL vendor file is written if NVIDIA's driver brought none.
# Sets `backend` to cuda where nvidia-smi finds a GPU, else cpu (a rehearsal with this machine's
# EGL).
export LD_LIBRARY_PATH="$bundle/lib:/usr/local/nvidia/lib64:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export SDL_VIDEODRIVER=offscreen
export FLUID_SANDBOX_SHADERS="$here/shaders" FLUID_SANDBOX_SCENES="$here/scenes"

backend=cpu
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    backend=cuda
    # NVIDIA's EGL driver, for glvnd's dispatcher: its vendor file where the driver put one, else
    # one naming the library.
    vendor=""
    for d in /usr/local/nvidia/share/glvnd/egl_vendor.d /usr/share/glvnd/egl_vendor.d /etc/glvnd/egl_vendor.d; do
        for f in "$d"/*nvidia*.json; do [ -e "$f" ] && vendor=$f && break 2; done
    done
    if [ -z "$vendor" ]; then
        vendor="$egl_dir/10_nvidia.json"
        printf '{"file_format_version": "1.0.0", "ICD": {"library_path": "libEGL_nvidia.so.0"}}\n' >"$vendor"
    fi
    export __EGL_VENDOR_LIBRARY_FILENAMES="$vendor"
    echo "window_env.sh: $(nvidia-smi -L | head -1); EGL vendor $vendor"
else
    echo "window_env.sh: no GPU: the window draws with this machine's EGL, on the CPU backend"
fi
