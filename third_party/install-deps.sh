#!/usr/bin/env bash
# Installs the Debian packages of third_party/packages.txt that are missing.
#   third_party/install-deps.sh           core, app and python packages
#   third_party/install-deps.sh core      only what FS_BUILD_APP=OFF needs
# Works as root or as a user with sudo; does nothing when everything is present.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
groups=${1:-core app python}

missing=()
while read -r name group _; do
    case "$name" in ''|'#'*) continue ;; esac
    case " $groups " in *" $group "*) ;; *) continue ;; esac
    status=$(dpkg-query -W -f='${Status}' "$name" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$name")
done < "$here/packages.txt"

[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
else
    echo "install-deps: missing packages (${missing[*]}) and neither root nor sudo is available" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
