#!/bin/sh
# Run on the development machine (Debian, nvcc, no GPU needed): builds the
# CUDA-enabled program and tests for Hopper and gathers into carry/ what
# scripts/gpu-check.sh needs on a GPU machine that has no package registry:
# the binaries, the shared libraries they load, and the scenes they read.
set -eu
cd "$(dirname "$0")/.."
SHARED=${PATHWAVE_SHARED:-../shared}
# Without the scenes most GPU checks would skip, and a run would look clean.
if [ ! -d "$SHARED/scenes" ]; then
    echo "gpu-prepare: no scenes under $SHARED/scenes: set PATHWAVE_SHARED to the shared folder" >&2
    exit 1
fi
scripts/install-deps.sh
# The library is built shared so that the programs carry one copy of the
# kernels between them rather than one each: what travels to the GPU
# machine is capped at 64 MiB. They find it through $ORIGIN/../lib
# (carry/lib), so no folder of this machine is written into them.
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DBUILD_SHARED_LIBS=ON \
      -DCMAKE_BUILD_WITH_INSTALL_RPATH=ON -DCMAKE_INSTALL_RPATH='$ORIGIN/../lib' \
      -DCMAKE_CUDA_ARCHITECTURES="90-real;80-virtual" -DPW_SHARED_DIR=carry/shared >/dev/null
# The CUDA objects are always rebuilt, so that the log holds every kernel's
# ptxas report (registers, stack, spills) for carry/ptxas.txt.
find build-gpu -name '*.cu.o' -delete
cmake --build build-gpu -j "$(nproc)" 2>&1 | tee build-gpu/build.log | grep -E "error|warning|registers|spill" || true
rm -rf carry
mkdir -p carry/bin carry/lib carry/shared/scenes
cp build-gpu/pathwave build-gpu/tests/gpu/test_gpu build-gpu/tests/test_analytic build-gpu/tests/test_furnace \
   build-gpu/tests/test_texture build-gpu/tests/test_delta_lights build-gpu/tests/test_convergence \
   build-gpu/tests/test_pbrt_scenes build-gpu/tests/test_gltf_materials build-gpu/tests/test_scene_api carry/bin/
cp build-gpu/libpathwave.so carry/lib/
# Symbols off: the device's transfer limit is 64 MiB, working tree included.
strip carry/bin/* carry/lib/libpathwave.so
grep -E "Compiling entry function .* for 'sm_90'|registers|spill|stack" build-gpu/build.log |
    grep -A2 "for 'sm_90'" | grep -v '^--' > carry/ptxas.txt || true
# Every library the binaries load that is not part of a base Ubuntu system.
for lib in libstb.so.0 libassimp.so.5 libtinyexr.so.1d libcjson.so.1 libdraco.so.7 libminizip.so.1 libcmocka.so.0; do
    cp -L "$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')" carry/lib/
done
for d in stanford-bunny sponza-dabrovic bitterli-cornell-box bitterli-veach-mis hdri gltf-samples; do
    [ -d "$SHARED/scenes/$d" ] && cp -r "$SHARED/scenes/$d" carry/shared/scenes/
done
rm -rf carry/shared/scenes/stanford-bunny/bun_zipper_res* carry/shared/scenes/bitterli-cornell-box/reference/*.png \
       carry/shared/scenes/hdri/studio_small_03_1k.hdr
# Room is left for the working tree, which travels with the carry.
kib=$(du -sk carry | cut -f1)
echo "gpu-prepare: carry/ holds $((kib / 1024)) MiB (the limit for all that travels is 64 MiB)"
if [ "$kib" -gt $((56 * 1024)) ]; then
    echo "gpu-prepare: carry/ is over 56 MiB: it will not travel with the working tree" >&2
    exit 1
fi
