#!/usr/bin/env bash
# For a machine without Debian's packages (the lent GPU machine): downloads the header-only and
# test libraries that a FS_BUILD_APP=OFF build needs, and FFTW (libfftw3-dev: header, pkg-config
# file and the libfftw3.so link; libfftw3-double3: the shared library, which needs only libc and
# libgomp, both there with the compiler), as .deb files and unpacks them into DIR.
#   third_party/unpack-debs.sh DIR        (run here, where apt works; DIR travels with the tree)
#   cmake -S . -B build -DFS_BUILD_APP=OFF -DCMAKE_PREFIX_PATH=$PWD/DIR/usr ...   (run there)
set -euo pipefail
dir=${1:?usage: third_party/unpack-debs.sh DIR}
mkdir -p "$dir/debs"
dir=$(cd "$dir" && pwd)
(cd "$dir/debs" && apt-get download nlohmann-json3-dev libglm-dev libcli11-dev libgtest-dev googletest \
    libfftw3-dev libfftw3-double3)
for f in "$dir"/debs/*.deb; do dpkg -x "$f" "$dir"; done
rm -rf "$dir/debs"
# The static archives (FFTW's four precisions, 15 MB) are not linked, and the tree that travels to
# the GPU machine, the window's bundle with it (tests/gpu/window_bundle.sh), must fit 64 MiB.
find "$dir" -name 'libfftw3*.a' -delete
find "$dir/usr/share/doc" -mindepth 1 -delete 2>/dev/null || true
echo "unpacked into $dir (use -DCMAKE_PREFIX_PATH=$dir/usr)"
