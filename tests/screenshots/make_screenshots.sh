#!/usr/bin/env bash
# The manual's pictures of the bundled scenes, from the program itself under Xvfb (Mesa's software
# OpenGL): docs/img/scenes/SCENE.png for every scenes/*.json, the window at 960x600 after a number
# of frames chosen so each picture shows something happening.
#   tests/screenshots/make_screenshots.sh [BUILD_DIR]     (a build with the window; default build)
#   FS_SCREENSHOT_SCENES="sph_barrier flip_drop" ...      only these scenes
# Needs xvfb-run and ffmpeg (make deps). Each picture is a PNG under 300 KB (one over 250 KB is
# reduced to 256 colours).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}/fluid-sandbox
out=docs/img/scenes
mkdir -p "$out"

# Frames before the picture (the window runs in real time, so this is roughly how long the scene
# has run), and any extra options, per scene; the rest take the default.
frames_default=90
declare -A frames=(
    [euler_gas]=20 [sph_dam_break]=120 [sph_double_dam]=120 [flip_dam_break]=120
    [flip_obstacle]=120 [flip_drop]=90 [ot_rayleigh_taylor]=700 [ot_dam_break]=120 [ot_drop]=120
    [vortex_leapfrog]=150 [vortex_plate_flames]=150 [vortex_moving_plate]=150 [vortex_airfoil]=150
    [vortex_magnus]=150 [vortex_paddle]=150
)
declare -A extra=(
    [sph_barrier]="--keys +30,A"
)

scenes=${FS_SCREENSHOT_SCENES:-$(cd scenes && ls ./*.json | sed 's|^\./||; s|\.json$||')}
for scene in $scenes; do
    n=${frames[$scene]:-$frames_default}
    # shellcheck disable=SC2086  # the extra options, split as written
    xvfb-run -a -s '-screen 0 1600x1000x24' "$B" "$scene" --size 960x600 --frames "$n" \
        ${extra[$scene]:-} --screenshot "$out/$scene.png" > /dev/null
    if [ "$(stat -c %s "$out/$scene.png")" -ge 250000 ]; then
        # A crowded picture (the gas's 10^5 disks) in 256 colours, to keep the repository small.
        ffmpeg -loglevel error -y -i "$out/$scene.png" \
            -vf 'split[a][b];[a]palettegen=max_colors=256[p];[b][p]paletteuse=dither=none' "$out/$scene.8.png"
        mv "$out/$scene.8.png" "$out/$scene.png"
    fi
    size=$(stat -c %s "$out/$scene.png")
    echo "$out/$scene.png: $n frames, $((size / 1024)) KB"
    [ "$size" -lt 300000 ] || { echo "$out/$scene.png: over 300 KB" >&2; exit 1; }
done
