#!/bin/bash
# The BVH build table of docs/SCALE.md: each scene loaded and built RUNS
# times (default 5) in a fresh process, a 64x36 frame of 1 spp rendered so
# the build happens; prints the median of --stats-json's bvh_build_ms and
# load_ms. Needs a Release build and ../shared for the mesh scenes.
set -eu
cd "$(dirname "$0")/.."
PW=${PATHWAVE:-build/pathwave}
SHARED=${PATHWAVE_SHARED:-../shared}
RUNS=${RUNS:-5}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
row() { # row LABEL THREADS SCENE
    local label=$1 threads=$2 scene=$3 build="" load="" tris="" nodes="" i out
    for ((i = 0; i < RUNS; i++)); do
        out=$($PW render "$scene" --threads "$threads" --spp 1 --width 64 --height 36 -q -o /tmp/pathwave-bvh-scale.png \
            --stats-json -)
        build+="$(sed -n 's/.*"bvh_build_ms":[[:space:]]*\([0-9.eE+-]*\).*/\1/p' <<<"$out")"$'\n'
        load+="$(sed -n 's/.*"load_ms":[[:space:]]*\([0-9.eE+-]*\).*/\1/p' <<<"$out")"$'\n'
        tris=$(sed -n 's/.*"triangles":[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")
        nodes=$(sed -n 's/.*"bvh_nodes":[[:space:]]*\([0-9]*\).*/\1/p' <<<"$out")
    done
    printf '%-24s %7s %10s %10s %12s %12s\n' "$label" "$threads" "$tris" "$nodes" \
        "$(grep . <<<"$build" | median | xargs printf '%.1f')" "$(grep . <<<"$load" | median | xargs printf '%.1f')"
    rm -f /tmp/pathwave-bvh-scale.png
}
printf '%-24s %7s %10s %10s %12s %12s\n' scene threads triangles "BVH nodes" "build ms" "load ms"
row "sponza" 1 "$SHARED/scenes/sponza-dabrovic/sponza.obj"
row "sponza" 2 "$SHARED/scenes/sponza-dabrovic/sponza.obj"
row "bunny" 1 "$SHARED/scenes/stanford-bunny/bunny.ply"
for n in 100000 1000000 5000000; do
    row "terrain:$n" 1 "terrain:$n"
    row "terrain:$n" 2 "terrain:$n"
done
row "bunnies:16" 2 "bunnies:16"
