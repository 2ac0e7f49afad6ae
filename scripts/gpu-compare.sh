#!/bin/bash
# Two builds side by side on the GPU machine: every benchmark row of
# scripts/gpu-check.sh, each build in turn, ROUNDS rounds (default 3), so
# that both meet the same clocks and neighbours; prints each build's median
# Mray/s and the change (docs/PERFORMANCE.md asks for comparisons made
# so). Usage, from the repository root after scripts/gpu-prepare.sh:
#   scripts/gpu-compare.sh OLD_DIR [NEW_DIR]
# where a build dir holds bin/pathwave and lib/libpathwave.so (NEW_DIR
# defaults to carry/). The scenes and other libraries come from carry/.
# ROUNDS, BACKENDS (default "cuda-mega cuda-wave") and ONLY (one row's
# name) narrow a run.
set -u
cd "$(dirname "$0")/.."
OLD=${1:?usage: scripts/gpu-compare.sh OLD_DIR [NEW_DIR]}
NEW=${2:-carry}
ROUNDS=${ROUNDS:-3}
BACKENDS=${BACKENDS:-cuda-mega cuda-wave}
ONLY=${ONLY:-} # a row name to run alone, e.g. ONLY=toy
for d in "$OLD" "$NEW"; do
    [ -x "$d/bin/pathwave" ] || { echo "gpu-compare: $d/bin/pathwave is missing" >&2; exit 2; }
done
export PATHWAVE_SHARED="$PWD/carry/shared"
S=carry/shared/scenes
rows=(
    "toy|toy"
    "toy-small|toy-small --spp-per-frame 32"
    "rtiow|rtiow --spp-per-frame 10"
    "cornell 1080p|cornell --width 1920 --height 1080"
    "sponza 1080p|$S/sponza-dabrovic/sponza.obj --width 1920 --height 1080 --max-depth 8"
    "bunny 1080p|$S/stanford-bunny/bunny.ply --width 1920 --height 1080 --max-depth 8"
    "bunnies-mixed:16|bunnies-mixed:16 --width 1920 --height 1080 --max-depth 8"
)
# mrays DIR ARGS...: one benchmark's median Mray/s (5 frames after a warm-up).
mrays() {
    local d=$1; shift
    LD_LIBRARY_PATH="$PWD/$d/lib:$PWD/carry/lib" "$d/bin/pathwave" bench "$@" --frames 5 --json 2>/dev/null |
        sed -n 's/.*"mrays_per_s_median":[[:space:]]*\([0-9.]*\).*/\1/p'
}
median() { tr ' ' '\n' | grep . | sort -g | awk '{v[NR]=$1} END {print NR ? v[int((NR + 1) / 2)] : "nan"}'; }
printf '%-24s %-10s %10s %10s %8s\n' "row" "backend" "old" "new" "change"
for row in "${rows[@]}"; do
    name=${row%%|*}
    [ -n "$ONLY" ] && [ "$name" != "$ONLY" ] && continue
    read -r -a args <<<"${row#*|}"
    for b in $BACKENDS; do
        o="" n=""
        for ((k = 0; k < ROUNDS; k++)); do
            o="$o $(mrays "$OLD" "${args[@]}" --backend $b)"
            n="$n $(mrays "$NEW" "${args[@]}" --backend $b)"
        done
        mo=$(echo "$o" | median) mn=$(echo "$n" | median)
        printf '%-24s %-10s %10.0f %10.0f %8s   old:%s new:%s\n' "$name" "$b" "$mo" "$mn" \
            "$(awk -v a="$mo" -v b="$mn" 'BEGIN {if (a > 0) printf "%+.1f%%", 100 * (b - a) / a; else print "?"}')" "$o" "$n"
    done
done
