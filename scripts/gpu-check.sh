#!/bin/bash
# The GPU check: run on a machine with an NVIDIA GPU from the repository
# root, after scripts/gpu-prepare.sh filled carry/ on the development machine
# (see docs/GPU.md). Runs the GPU tests, compute-sanitizer on small renders,
# the GPU bad-input cases and the benchmarks, and prints a table last.
# Logs go to $LOGS (default /tmp/pathwave-gpu-logs); $OUT (default
# /tmp/pathwave-gpu) receives three files: table.txt, summary.txt and
# logs.tgz with every log, image and benchmark JSON.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/pathwave-gpu}
FINAL_OUT=$OUT
OUT=${LOGS:-/tmp/pathwave-gpu-logs}
rm -rf "$OUT"
mkdir -p "$OUT" "$FINAL_OUT"
export LD_LIBRARY_PATH="$PWD/carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATHWAVE_SHARED="$PWD/carry/shared"
BIN=carry/bin
PW=$BIN/pathwave
[ -x "$PW" ] || { echo "gpu-check: $PW is missing: run scripts/gpu-prepare.sh first and carry carry/" >&2; exit 2; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$OUT/gpu.txt"
cp carry/ptxas.txt "$OUT/" 2>/dev/null
STATUS=0
: > "$OUT/summary.txt"
step() { # step NAME command...: runs it, logs it, records PASS/FAIL
    local name=$1; shift
    local t0=$SECONDS
    if "$@" > "$OUT/$name.log" 2>&1; then r=PASS; else r=FAIL; STATUS=1; fi
    printf '%-22s %s (%ds)\n' "$name" "$r" $((SECONDS - t0)) | tee -a "$OUT/summary.txt"
}
fails_with() { # fails_with PATTERN command...: must exit non-zero and print PATTERN
    local pat=$1; shift
    local msg
    msg=$("$@" 2>&1) && { echo "expected failure, got success: $*"; return 1; }
    echo "$msg"
    echo "$msg" | grep -q -- "$pat"
}
BUNNY=carry/shared/scenes/stanford-bunny/bunny.ply
SPONZA=carry/shared/scenes/sponza-dabrovic/sponza.obj

step gpu-tests $BIN/test_gpu
# Again with every wavefront bounce run stage by stage (no tail kernel),
# and with every bounce after the first left to the tail kernel, whose
# lanes then take many paths each.
step gpu-tests-no-tail env PATHWAVE_WAVE_TAIL=0 $BIN/test_gpu
step gpu-tests-all-tail env PATHWAVE_WAVE_TAIL=1000000000 $BIN/test_gpu
# And with the wave launched kernel by kernel instead of as one graph.
step gpu-tests-no-graph env PATHWAVE_WAVE_GRAPH=0 $BIN/test_gpu
# The analytic and furnace tests of the CPU suite, rendered on each GPU backend.
for b in cuda-mega cuda-wave; do
    step "analytic-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_analytic
    step "furnace-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_furnace
    step "texture-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_texture
    step "delta-lights-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_delta_lights
    # Bitterli's Cornell box: the built-in scene and the .pbrt file against the reference render.
    step "convergence-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_convergence
    step "pbrt-scenes-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_pbrt_scenes
    step "gltf-materials-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_gltf_materials
    # Scenes built through the public API, lit by point, distant and spot lights.
    step "scene-api-$b" env PATHWAVE_TEST_BACKEND=$b $BIN/test_scene_api
done
step memcheck-toy compute-sanitizer --tool memcheck --error-exitcode 1 \
    $PW render toy --backend cuda-mega --width 64 --height 36 --spp 2 -q -o "$OUT/memcheck-toy.png"
step memcheck-mesh compute-sanitizer --tool memcheck --error-exitcode 1 \
    $PW render "$BUNNY" --backend cuda-mega --width 64 --height 48 --spp 2 -q -o "$OUT/memcheck-mesh.png"
step memcheck-texture compute-sanitizer --tool memcheck --error-exitcode 1 \
    $PW render carry/shared/scenes/gltf-samples/Duck.glb --backend cuda-mega --width 64 --height 48 --spp 2 -q \
    -o "$OUT/memcheck-texture.png"
step memcheck-wave compute-sanitizer --tool memcheck --error-exitcode 1 \
    $PW render cornell --backend cuda-wave --width 64 --height 48 --spp 2 -q -o "$OUT/memcheck-wave.png"
# racecheck does not run graphs with conditional nodes: the wave unrolled.
PATHWAVE_WAVE_GRAPH=0 step racecheck-wave compute-sanitizer --tool racecheck --error-exitcode 1 \
    $PW render toy --backend cuda-wave --width 32 --height 18 --spp 1 -q -o "$OUT/racecheck-wave.png"
# The sphere scenes' shade takes its queue places blockwise, between two
# barriers (cuda_wavefront.cu's alloc_pair_block). Without a tail every
# bounce runs the stages. 32x18 is cut into waves of 384 and 192 paths
# (the last block part empty); 256x256 at 2 samples in one wave holds
# more paths than the shade kernel has threads, so blocks call it again
# and again. synccheck, like racecheck, runs the wave unrolled.
PATHWAVE_WAVE_TAIL=0 PATHWAVE_WAVE_GRAPH=0 step synccheck-wave compute-sanitizer --tool synccheck --error-exitcode 1 \
    $PW render toy --backend cuda-wave --width 32 --height 18 --spp 1 -q -o "$OUT/synccheck-wave.png"
PATHWAVE_WAVE_TAIL=0 step memcheck-wave-toy compute-sanitizer --tool memcheck --error-exitcode 1 \
    $PW render toy --backend cuda-wave --width 64 --height 36 --spp 2 -q -o "$OUT/memcheck-wave-toy.png"
for tool in racecheck synccheck; do
    PATHWAVE_WAVE_TAIL=0 PATHWAVE_WAVE_GRAPH=0 PATHWAVE_WAVE_SLOTS=1 PATHWAVE_WAVE_HALVE=0 \
        step $tool-wave-loop compute-sanitizer --tool $tool --error-exitcode 1 \
        $PW render toy --backend cuda-wave --width 256 --height 256 --spp 2 --max-depth 3 -q -o "$OUT/$tool-wave-loop.png"
done
# The megakernel's warps share a sample pool and its radiance in shared
# memory (a warp's, or in the sphere-only kernels a block's): racecheck
# and synccheck on renders that hand samples out: 4 a pixel in one launch
# through the sphere groups as a stream of tiles (toy) and tile by tile
# (toy-tiles), and 40 a pixel through the list (toy-small: camera rays in
# batches, their hits waiting in each warp's ring in shared memory; 4x2
# tiles, pools of 32 and 8 samples, blocks cut by the image's edges), which
# memcheck also runs.
for s in toy toy-tiles toy-small; do
    case $s in
    toy) args="toy --width 32 --height 16 --spp-per-frame 4" env="" ;;
    toy-tiles) args="toy --width 32 --height 16 --spp-per-frame 4" env="PATHWAVE_MEGA_STREAM=0" ;;
    toy-small) args="toy-small --width 18 --height 12 --spp-per-frame 40" env="" ;;
    esac
    for tool in racecheck synccheck; do
        step $tool-$s env $env compute-sanitizer --tool $tool --error-exitcode 1 \
            $PW bench $args --backend cuda-mega --frames 1
    done
done
step memcheck-toy-small compute-sanitizer --tool memcheck --error-exitcode 1 \
    $PW bench toy-small --width 18 --height 12 --spp-per-frame 40 --backend cuda-mega --frames 1
step bad-input-missing fails_with "no-such.obj" $PW render no-such.obj --backend cuda-mega -o "$OUT/x.png"
step bad-input-size fails_with "40000" $PW render toy --backend cuda-mega --width 40000 -o "$OUT/x.png"
step render-cornell $PW render cornell --backend cuda-mega --spp 256 -q -o "$OUT/cornell-gpu.png"

bench() { # bench NAME args...: median of 5 frames after a warm-up, as JSON
    local name=$1; shift
    step "bench-$name" $PW bench "$@" --frames 5 --json
    cp "$OUT/bench-$name.log" "$OUT/bench-$name.json"
}
BUNNY_ARGS=("$BUNNY" --width 1920 --height 1080 --max-depth 8)
for b in mega wave; do
    bench toy-$b toy --backend cuda-$b
    bench toy-small-$b toy-small --backend cuda-$b --spp-per-frame 32
    bench rtiow-$b rtiow --backend cuda-$b --spp-per-frame 10
    bench cornell-$b cornell --backend cuda-$b --width 1920 --height 1080
    bench sponza-$b "$SPONZA" --backend cuda-$b --width 1920 --height 1080 --max-depth 8
    bench bunny-$b "${BUNNY_ARGS[@]}" --backend cuda-$b
    bench mixed-$b bunnies-mixed:16 --width 1920 --height 1080 --max-depth 8 --backend cuda-$b
done
$PW bench toy --backend cuda-wave --frames 3 --stats > "$OUT/stages-toy.txt" 2>&1
$PW bench toy --backend cuda-wave --split 4 --frames 5 > "$OUT/split-toy.txt" 2>&1
$PW bench cornell --backend cuda-wave --width 1920 --height 1080 --frames 3 --stats > "$OUT/stages-cornell.txt" 2>&1

echo
printf '%-16s %14s %12s %14s\n' scene Mray/s ms/frame rays/px-sample | tee "$OUT/table.txt"
for n in toy toy-small rtiow cornell sponza bunny mixed; do for b in mega wave; do
    f="$OUT/bench-$n-$b.json"
    python3 - "$f" "$n-$b" <<'PY' | tee -a "$OUT/table.txt"
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    print("%-16s %14.1f %12.3f %14.3f" % (sys.argv[2], j["mrays_per_s_median"], j["ms_per_frame_median"], j["rays_per_pixel_sample"]))
except Exception as e:
    print("%-16s %14s" % (sys.argv[2], "failed"))
PY
done; done
echo
cat "$OUT/summary.txt"
cp "$OUT/table.txt" "$OUT/summary.txt" "$FINAL_OUT/"
tar -C "$OUT" -czf "$FINAL_OUT/logs.tgz" .
exit $STATUS
