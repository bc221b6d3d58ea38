#!/usr/bin/env bash
# Fetches and unpacks the Debian source packages the browser build compiles with Emscripten:
# SDL2 (libsdl2 2.26), Dear ImGui (imgui 1.86, as the desktop's libimgui-dev) and FFTW (fftw3
# 3.3.10). Emscripten's own ports download from the internet; these come from the machine's
# Debian mirror, with Debian's patches applied (apt-get source runs dpkg-source -x).
#   third_party/web/fetch-sources.sh DIR     unpacks into DIR/<package>-<version>; does nothing
#                                            for a package already there (a cache in the build tree)
# The machine's apt configuration is left alone: apt reads a copy of its Debian sources with
# deb-src added, and keeps the lists it downloads under DIR/apt.
set -euo pipefail
dest=${1:?usage: fetch-sources.sh DIR}
packages=(libsdl2 imgui fftw3)
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

have_all=1
for p in "${packages[@]}"; do [ -f "$dest/$p.done" ] || have_all=0; done
[ "$have_all" = 1 ] && exit 0

apt_dir="$dest/apt"
mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial"
found=0
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    sed -E 's/^Types:[[:space:]]*deb[[:space:]]*$/Types: deb deb-src/' "$f" > "$apt_dir/sources/$(basename "$f")"
    found=1
done
if [ -f /etc/apt/sources.list ]; then
    sed -n -E 's/^deb[[:space:]]+/deb-src /p' /etc/apt/sources.list > "$apt_dir/sources.list"
    grep -q . "$apt_dir/sources.list" && found=1
fi
touch "$apt_dir/sources.list"
if [ "$found" = 0 ]; then
    echo "fetch-sources: no Debian sources found in /etc/apt (sources.list.d/*.sources or sources.list)" >&2
    exit 2
fi
apt_opts=(-o "Dir::Etc::sourceparts=$apt_dir/sources" -o "Dir::Etc::sourcelist=$apt_dir/sources.list"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
echo "fetch-sources: reading the source package lists"
apt-get "${apt_opts[@]}" -q update > "$apt_dir/update.log" 2>&1 || { cat "$apt_dir/update.log" >&2; exit 1; }
cd "$dest"
for p in "${packages[@]}"; do
    [ -f "$p.done" ] && continue
    echo "fetch-sources: $p"
    apt-get "${apt_opts[@]}" -q source "$p" > "$p.log" 2>&1 || { cat "$p.log" >&2; exit 1; }
    touch "$p.done"
done
