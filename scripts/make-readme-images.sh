#!/bin/sh
# Renders the README's picture of each built-in scene into docs/images/.
# PATHWAVE=path/to/pathwave picks the program (default build/pathwave);
# BACKEND=cuda-mega renders them on a GPU in seconds (the committed images
# were made so); on 2 CPU cores they take an hour, SPP_SCALE=16 divides
# every sample count by 16 for a quick look.
set -eu
cd "$(dirname "$0")/.."
PW=${PATHWAVE:-build/pathwave}
BACKEND=${BACKEND:-auto}
DEST=${DEST:-docs/images}
S=${SPP_SCALE:-1}
mkdir -p "$DEST"
$PW render cornell        --backend "$BACKEND" --width 512 --height 512 --spp $((4096 / S)) -q -o "$DEST/cornell.png"
$PW render toy            --backend "$BACKEND" --width 960 --height 540 --spp $((1024 / S)) -q -o "$DEST/toy.png"
$PW render toy-small      --backend "$BACKEND" --width 960 --height 540 --spp $((1024 / S)) -q -o "$DEST/toy-small.png"
$PW render rtiow          --backend "$BACKEND" --width 960 --height 640 --spp $((512 / S)) -q -o "$DEST/rtiow.png"
$PW render terrain:100000 --backend "$BACKEND" --width 960 --height 540 --spp $((256 / S)) -q -o "$DEST/terrain.png"
$PW render bunnies-mixed:9 --backend "$BACKEND" --width 960 --height 540 --spp $((512 / S)) -q -o "$DEST/bunnies-mixed.png"
ls -l "$DEST"
