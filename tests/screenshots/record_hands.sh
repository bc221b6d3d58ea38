#!/bin/sh
# Records the docs' GIFs of the hands (issue: the mouse in the fluid) with the sandbox's own
# recorder, each driven by a mouse script: ./tests/screenshots/record_hands.sh [BUILD_DIR]
# (a build with the window; default build). Needs xvfb-run and ffmpeg (make deps).
set -e
B=${1:-build}/fluid-sandbox
out=$(dirname "$0")/../../docs/img
run() { xvfb-run -a -s '-screen 0 1600x1000x24' "$B" "$@" --size 720x450; }
# Drag: the SPH barrier pulled up through the water (2 m/s at most).
run sph_barrier --set drag_speed=2 --mouse 'wait 10; drag 0.7,0.3 to 0.3,0.55 over 130; wait 20' \
    --record "$out/hands-drag.gif"
# Push, then pull: a hole pushed into the column, then the water pulled towards the cursor.
run sph_dam_break --mouse 'wait 20; push 0.2,0.7 for 50; wait 10; pull 0.7,0.35 for 70; wait 10' \
    --record "$out/hands-push-pull.gif"
# Pour: into the tank at rest.
run sph_hydrostatic --set pour_rate=4000 --set pour_speed=2 --mouse 'wait 10; pour 0.3,0.62 for 200; wait 30' \
    --record "$out/hands-pour.gif"
# Drag in 3D: the FLIP obstacle box picked by the ray from the eye and moved into the surge.
run flip_obstacle --mouse 'wait 10; drag 0.6,0.1,0.2 to 0.25,0.1,0.2 over 100; wait 20' \
    --record "$out/hands-drag-3d.gif"
