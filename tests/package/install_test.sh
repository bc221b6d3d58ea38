#!/usr/bin/env bash
# The Debian package as a user meets it (make test-package; CI runs it after make test):
#   tests/package/install_test.sh BUILD_DIR [OUT_DIR]
# 1. Lintian on the .deb that make package wrote: any error fails; warnings are printed (the
#    kept ones and why: docs/getting-started.md).
# 2. apt-get install ./fluid-sandbox_VERSION_amd64.deb (apt resolves its Depends).
# 3. From another folder, with no variable pointing at the source tree: --version names the
#    package's version; --list-scenes lists the installed scenes; a bundled scene runs headless
#    with --stats; --backend cuda runs, or without a GPU is refused in one line with status 2;
#    /usr/bin/python3 imports fluid_sandbox with no PYTHONPATH and steps a scene; the window
#    opens under Xvfb and saves a screenshot (OUT_DIR/installed-window.png).
# 4. apt-get remove: every file dpkg -L listed is gone, and so are the package's own folders.
# Needs root or sudo (apt-get), as make deps does.
set -euo pipefail
build=$(cd "${1:?usage: install_test.sh BUILD_DIR [OUT_DIR]}" && pwd)
out=${2:-$build/package-test}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)

fail() { echo "install_test: FAIL: $*" >&2; exit 1; }
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

deb=$(ls -t "$build"/fluid-sandbox_*_amd64.deb 2>/dev/null | head -n 1)
[ -n "$deb" ] || fail "no fluid-sandbox_*_amd64.deb in $build (make package writes it)"
version=$(dpkg-deb -f "$deb" Version)
echo "install_test: $deb ($(du -k "$deb" | cut -f1) KiB, version $version)"
echo "install_test: Depends: $(dpkg-deb -f "$deb" Depends)"

# 1. Lintian: errors fail, warnings are listed.
lintian_out=$(lintian --tag-display-limit 0 "$deb" 2>&1 || true)
lintian_out=$(printf '%s\n' "$lintian_out" | grep -v '^running with root privileges' || true)
[ -z "$lintian_out" ] || printf '%s\n' "$lintian_out" | sed 's/^/install_test: lintian: /'
if printf '%s\n' "$lintian_out" | grep -q '^E: '; then fail "lintian reports errors"; fi

# 2. Install (a copy left by an earlier run goes first).
if dpkg-query -W -f='${Status}' fluid-sandbox 2>/dev/null | grep -q 'install ok installed'; then
    "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 remove -y -q fluid-sandbox >/dev/null
fi
t0=$(date +%s.%N)
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 install -y -q "$deb" >"$out/apt-install.log" 2>&1 ||
    { cat "$out/apt-install.log"; fail "apt-get install $deb"; }
t1=$(date +%s.%N)
listed=$(dpkg -L fluid-sandbox)

# 3. The installed program, from a folder that is neither the source nor the build tree.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
unset FLUID_SANDBOX_SCENES FLUID_SANDBOX_SHADERS PYTHONPATH
[ "$(command -v fluid-sandbox)" = /usr/bin/fluid-sandbox ] || fail "fluid-sandbox is not /usr/bin/fluid-sandbox"
/usr/bin/fluid-sandbox --version | tee "$out/version.txt"
grep -qx "fluid-sandbox $version" "$out/version.txt" || fail "--version does not name the package's version $version"
grep -q '^backends: cpu' "$out/version.txt" || fail "--version does not list the backends"
/usr/bin/fluid-sandbox --help | grep -q 'Scenes folder: /usr/share/fluid-sandbox/scenes' ||
    fail "the installed program does not read its scenes from /usr/share/fluid-sandbox/scenes"
/usr/bin/fluid-sandbox --list-scenes >"$out/scenes.txt"
n_listed=$(grep -c . "$out/scenes.txt")
n_bundled=$(ls "$src"/scenes/*.json | wc -l)
[ "$n_listed" -eq "$n_bundled" ] || fail "--list-scenes lists $n_listed scenes, the source has $n_bundled"
/usr/bin/fluid-sandbox sph_barrier --headless --steps 20 --stats stats.jsonl >/dev/null
t2=$(date +%s.%N)
# The stats file's first line is the state at step 0, then one line a step.
[ "$(grep -c '"step"' stats.jsonl)" -eq 21 ] && tail -n 1 stats.jsonl | grep -q '^{"step":20,' ||
    fail "sph_barrier --steps 20 wrote $(grep -c . stats.jsonl) stats lines (expected steps 0 to 20)"
set +e
cuda_msg=$(/usr/bin/fluid-sandbox euler_tutorial --headless --steps 2 --backend cuda 2>&1 >/dev/null)
cuda_rc=$?
set -e
if [ $cuda_rc -eq 0 ]; then
    echo "install_test: --backend cuda ran (a GPU is here)"
else
    [ $cuda_rc -eq 2 ] || fail "--backend cuda without a GPU exited $cuda_rc (expected 2): $cuda_msg"
    [ "$(printf '%s\n' "$cuda_msg" | grep -c .)" -eq 1 ] || fail "--backend cuda's refusal is not one line: $cuda_msg"
    echo "install_test: --backend cuda refused, as expected without a GPU: $cuda_msg"
fi
/usr/bin/python3 - <<'PY' | tee "$out/python.txt"
import fluid_sandbox as fs
assert fs.__file__.startswith("/usr/lib/python3/dist-packages/fluid_sandbox/"), fs.__file__
assert callable(fs.sweep)  # every module of the package is installed, not only __init__.py
sim = fs.Simulation("sph_barrier")
sim.step(5)
st = sim.stats()
assert sim.step_index == 5 and st["n_particles"] > 0, st
print(f"python: {fs.__file__}: sph_barrier stepped to t = {sim.time:.4f} s, {st['n_particles']} particles")
PY
if command -v xvfb-run >/dev/null 2>&1; then
    xvfb-run -a -s '-screen 0 1280x800x24' /usr/bin/fluid-sandbox sph_barrier --size 1280x800 --frames 30 \
        --screenshot "$out/installed-window.png" >"$out/window.log" 2>&1 || { cat "$out/window.log"; fail "the installed window"; }
    [ "$(head -c 8 "$out/installed-window.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        fail "the installed window's screenshot is not a PNG"
    [ "$(stat -c %s "$out/installed-window.png")" -gt 20000 ] || fail "the installed window's screenshot is nearly empty"
    echo "install_test: window under Xvfb: $out/installed-window.png"
fi
cd /

# 4. Remove, and nothing left behind.
"${sudo[@]}" apt-get -o DPkg::Lock::Timeout=300 remove -y -q fluid-sandbox >"$out/apt-remove.log" 2>&1 || { cat "$out/apt-remove.log"; fail "apt-get remove"; }
left=()
while IFS= read -r path; do
    [ -n "$path" ] || continue
    if [ -L "$path" ] || [ -f "$path" ]; then left+=("$path"); fi
done <<<"$listed"
for dir in /usr/share/fluid-sandbox /usr/share/doc/fluid-sandbox /usr/lib/python3/dist-packages/fluid_sandbox; do
    [ ! -e "$dir" ] || left+=("$dir")
done
[ ${#left[@]} -eq 0 ] || fail "left behind after removal: ${left[*]}"
awk -v n="$(printf '%s\n' "$listed" | wc -l)" -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {
    printf "install_test: passed: %d files installed and removed; apt-get install took %.1f s, to the end of the first headless run %.1f s\n", n, b - a, c - a }'
