#!/bin/bash
# The CPU benchmark table of docs/PERFORMANCE.md: every CPU backend on the
# benchmark scenes, median of 5 frames after a warm-up. Needs a Release
# build (make) and ../shared for the mesh scenes.
set -eu
cd "$(dirname "$0")/.."
PW=${PATHWAVE:-build/pathwave}
SHARED=${PATHWAVE_SHARED:-../shared}
row() { # row LABEL args...
    local label=$1; shift
    printf '%-22s %s\n' "$label" "$($PW bench "$@" --frames 5 | tail -1 | awk '{print $5, $6, $7}')"
}
printf '%-22s %s\n' "run" "rays/px-sample Mray/s ms/frame"
for b in cpu cpu-wave; do
    row "toy $b" toy --backend $b
    row "toy-small $b" toy-small --backend $b
    row "rtiow $b" rtiow --backend $b --spp-per-frame 10
    row "cornell 1080p $b" cornell --backend $b --width 1920 --height 1080
    row "sponza 1080p $b" "$SHARED/scenes/sponza-dabrovic/sponza.obj" --backend $b --width 1920 --height 1080 --max-depth 8
    row "bunny 1080p $b" "$SHARED/scenes/stanford-bunny/bunny.ply" --backend $b --width 1920 --height 1080 --max-depth 8
done
# The CPU megakernel through the GPU's trees instead of its 8-wide BVH.
PATHWAVE_CPU_BVH=2 row "toy cpu bvh2" toy --backend cpu
PATHWAVE_CPU_BVH=2 row "cornell 1080p cpu bvh2" cornell --backend cpu --width 1920 --height 1080
PATHWAVE_CPU_BVH=2 row "sponza 1080p cpu bvh2" "$SHARED/scenes/sponza-dabrovic/sponza.obj" --backend cpu --width 1920 --height 1080 --max-depth 8
