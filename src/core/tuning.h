/* Tuning knobs: choices that exist to measure one way of running a render
 * against another (docs/GPU.md lists them), never to change the image.
 * They are read from PATHWAVE_* environment variables in one place,
 * tuning.c, when a renderer is created; what users choose lives in
 * pw_settings instead. */
#ifndef PW_TUNING_H
#define PW_TUNING_H

#include <stdint.h>

#include "pathwave.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PW_TUNING_AUTO: the knob is unset and the backend chooses. */
#define PW_TUNING_AUTO (-1)

typedef struct pw_tuning {
    int cpu_bvh_width;   /* PATHWAVE_CPU_BVH: 8 (the CPU's AVX2 8-wide BVH), 2 (the GPU's trees) or AUTO */
    int cpu_wave_camera; /* PATHWAVE_CPU_WAVE_CAMERA: 0 makes the CPU wavefront remake camera paths as the GPU's does */
    int cuda_flat_max;   /* PATHWAVE_CUDA_FLAT: most spheres traced as a list in shared memory, 0..1024, or AUTO */
    int mega_tile_w, mega_tile_h; /* PATHWAVE_MEGA_TILE=WxH: a warp's tile, powers of two, 8..512 pixels; 0: chosen */
    int mega_batch;      /* PATHWAVE_MEGA_BATCH: 0 runs the sphere list's unlit kernel through the shared loop */
    int mega_stream;     /* PATHWAVE_MEGA_STREAM: 0 runs every megakernel launch tile by tile */
    int64_t wave_tail;   /* PATHWAVE_WAVE_TAIL: largest queue the GPU wavefront's tail finishes (0: never), or AUTO */
    int wave_graph;      /* PATHWAVE_WAVE_GRAPH: 0 launches a wave kernel by kernel instead of as one CUDA graph */
    int wave_slots;      /* PATHWAVE_WAVE_SLOTS: most waves in flight, 1 or 2 */
    int wave_halve;      /* PATHWAVE_WAVE_HALVE: 0 or 1 decides whether a one-wave frame is cut in two, or AUTO */
} pw_tuning;

/* Reads every knob. A value that is set but malformed or out of range
 * fails with PW_ERR_INVALID_ARGUMENT and a message naming the variable,
 * its value and what it takes, so that a mistyped knob never passes for a
 * measurement; *t then holds the defaults. */
pw_status pw_tuning_read(pw_tuning *t);

#ifdef __cplusplus
}
#endif
#endif
