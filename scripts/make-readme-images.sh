#!/bin/sh
# Renders the README's picture of each built-in scene into docs/images/.
# PATHWAVE=path/to/pathwave picks the program (default build/pathwave);
# BACKEND=cuda-mega renders them on a GPU in seconds.
set -eu
cd "$(dirname "$0")/.."
PW=${PATHWAVE:-build/pathwave}
BACKEND=${BACKEND:-auto}
DEST=${DEST:-docs/images}
mkdir -p "$DEST"
$PW render cornell   --backend "$BACKEND" --width 512 --height 512 --spp 4096 -q -o "$DEST/cornell.png"
$PW render toy       --backend "$BACKEND" --width 960 --height 540 --spp 1024 -q -o "$DEST/toy.png"
$PW render toy-small --backend "$BACKEND" --width 960 --height 540 --spp 1024 -q -o "$DEST/toy-small.png"
$PW render rtiow     --backend "$BACKEND" --width 960 --height 640 --spp 512 -q -o "$DEST/rtiow.png"
ls -l "$DEST"
