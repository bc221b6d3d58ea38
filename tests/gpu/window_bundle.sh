#!/usr/bin/env bash
# Packs the desktop window for a GPU machine that has CUDA and NVIDIA's driver but no Debian
# packages (tests/gpu/window.sh runs it there):
#   tests/gpu/window_bundle.sh BUILD_DIR BUNDLE_DIR
# BUILD_DIR holds a fluid-sandbox built here with the window and CUDA for the GPU's architecture
# (cmake -DCMAKE_CUDA_ARCHITECTURES=90 for an H100 or H200). BUNDLE_DIR gets the program and the
# shared libraries it loads that such a machine lacks: SDL2 and what it links, FFTW, stb, and
# glvnd's OpenGL and EGL dispatch libraries (the GPU machine has NVIDIA's EGL driver behind them,
# but not the dispatchers). Not packed: the C and C++ runtimes and CUDA's libraries, which a
# machine with CUDA has in newer versions. It fits the 64 MiB that travel with a device call
# (Mesa and Xvfb would not: Mesa's software rasteriser alone needs LLVM, over 100 MB).
set -euo pipefail
build=${1:?usage: window_bundle.sh BUILD_DIR BUNDLE_DIR}
dest=${2:?usage: window_bundle.sh BUILD_DIR BUNDLE_DIR}
program="$build/fluid-sandbox"
[ -x "$program" ] || { echo "window_bundle.sh: $program not found (build with the window first)" >&2; exit 2; }
if ! "$program" --help >/dev/null 2>&1; then
    echo "window_bundle.sh: $program does not run here" >&2; exit 2
fi
rm -rf "$dest"
mkdir -p "$dest/lib"
cp "$program" "$dest/"

# The program's libraries, less what the GPU machine brings.
keep() {
    case "$(basename "$1")" in
        linux-vdso*|ld-linux*|libc.so*|libm.so*|libdl.so*|libpthread.so*|librt.so*) return 1 ;;
        libstdc++.so*|libgcc_s.so*) return 1 ;;
        libcuda.so*|libcudart.so*|libcufft.so*|libnvidia*) return 1 ;;
    esac
    return 0
}
ldd "$program" | awk '/=> \// { print $3 }' | while read -r lib; do
    if keep "$lib"; then cp -L "$lib" "$dest/lib/"; fi
done

# glvnd's dispatchers: SDL's EGL path loads libEGL.so.1, then libOpenGL.so.0 (or libGL.so.1) for
# desktop OpenGL's entry points.
libdir=$(dirname "$(ldconfig -p | awk '/libEGL.so.1 .*x86-64/ { print $NF; exit }')")
for lib in libEGL.so.1 libGLdispatch.so.0 libOpenGL.so.0 libGL.so.1 libGLX.so.0; do
    [ -e "$libdir/$lib" ] || { echo "window_bundle.sh: $libdir/$lib not found (apt install libegl1 libopengl0 libgl1)" >&2; exit 2; }
    cp -L "$libdir/$lib" "$dest/lib/"
done
echo "window_bundle.sh: $(du -sh "$dest" | cut -f1) in $dest ($(ls "$dest/lib" | wc -l) libraries)"
