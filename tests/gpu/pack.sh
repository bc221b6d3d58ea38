#!/usr/bin/env bash
# Builds here, for a GPU machine, everything tests/gpu/lease.sh runs there, and packs it into one
# archive that travels with the working tree (docs/gpu.md, "Fifteen minutes of GPU time"):
#   tests/gpu/pack.sh [BUILD_DIR] [PACK_DIR]        (defaults: build .gpu-pack)
# BUILD_DIR: a build with the window and CUDA for the GPU's architecture (make build CUDA_ARCHS=90
# for an H100 or H200); it is brought up to date. BUILD_DIR-demo: the parity demonstration's
# build (-DFS_PARITY_DEMO=ON: two kernels one part in a million off on the GPU), configured and
# built here if need be. PACK_DIR gets gpu.tar.xz (the programs, the test binaries and ctest's
# files of both builds, and the window's libraries from window_bundle.sh) and root (the absolute
# path of this checkout, which the builds name in their paths).
# Building on the GPU machine costs about 3 of the 15 minutes a session may hold one (the build
# and the demonstration's); the archive is about 20 MB, under the 64 MiB that travel.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here"
build=${1:-build}
pack=${2:-.gpu-pack}
demo=$build-demo
cache="$build/CMakeCache.txt"
[ -f "$cache" ] || { echo "pack.sh: $cache not found (make build CUDA_ARCHS=90 first)" >&2; exit 2; }
arch=$(sed -n 's/^CMAKE_CUDA_ARCHITECTURES:[A-Z]*=//p' "$cache")
grep -q '^FS_BUILD_APP:BOOL=ON' "$cache" || { echo "pack.sh: $build has no window (FS_BUILD_APP=OFF)" >&2; exit 2; }
case "$arch" in
    90|90a|90-real|90a-real) ;;
    *) echo "pack.sh: $build is built for CUDA architectures '$arch'; a GPU machine needs 90 alone" \
            "(make build CUDA_ARCHS=90)" >&2; exit 2 ;;
esac
[ -f "$build/build.ninja" ] || { echo "pack.sh: $build is not a Ninja build" >&2; exit 2; }

launcher=()
if command -v ccache >/dev/null 2>&1; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
echo "pack.sh: bringing $build up to date"
cmake --build "$build"
if [ ! -f "$demo/build.ninja" ]; then
    cmake -S . -B "$demo" -G Ninja -DFS_BUILD_APP=OFF -DFS_BUILD_PYTHON=OFF -DCMAKE_BUILD_TYPE=Release \
        -DFS_PARITY_DEMO=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" "${launcher[@]}"
fi
echo "pack.sh: building the parity demonstration in $demo"
cmake --build "$demo" --target test_euler test_sph fluid-sandbox

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
tests/gpu/window_bundle.sh "$build" "$stage/build-window"
rm "$stage/build-window/fluid-sandbox"   # the build's own travels below; lease.sh links it back
# The build's programs and ctest's files (the test binaries name themselves by absolute path).
{
    find "$build" -maxdepth 1 -name fluid-sandbox
    find "$build" "$build/tests" -maxdepth 1 -type f -name 'CTestTestfile.cmake'
    find "$build/tests" -maxdepth 1 -type f \( -perm -u+x -o -name '*_tests.cmake' -o -name '*_include.cmake' \)
    echo "$demo/fluid-sandbox"
    echo "$demo/tests/test_euler"
    echo "$demo/tests/test_sph"
} | sort -u >"$stage/files"
mkdir -p "$pack"
tar -cf - -T "$stage/files" -C "$stage" build-window | xz -9 -T2 >"$pack/gpu.tar.xz.part"
mv "$pack/gpu.tar.xz.part" "$pack/gpu.tar.xz"
echo "$here" >"$pack/root"
{ git rev-parse HEAD; git status --porcelain | head -20; } >"$pack/commit"
size=$(du -m "$pack/gpu.tar.xz" | cut -f1)
echo "pack.sh: $pack/gpu.tar.xz, ${size} MB ($(wc -l <"$stage/files") files and the window's libraries)" \
    "at $(git rev-parse --short HEAD)$( [ -n "$(git status --porcelain)" ] && echo ', with changes not committed')"
if [ "$size" -gt 40 ]; then
    echo "pack.sh: over 40 MB: with the working tree it may not fit the 64 MiB that travel" >&2
    exit 1
fi
