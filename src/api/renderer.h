/* The renderer behind the public handle, shared by the backends. */
#ifndef PW_RENDERER_H
#define PW_RENDERER_H

#include <signal.h>

#include "pathwave.h"
#include "accel/bvh8_cpu.h"
#include "core/tuning.h"
#include "integrator/render_params.h"
#include "scene/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pw_renderer {
    pw_scene *scene;
    pw_settings settings;
    pw_tuning tuning;     /* the PATHWAVE_* knobs, read when the renderer was made */
    pw_render_params params;
    pw_scene_view view;   /* host view; backends with device memory keep their own */
    pw_backend backend;
    pw_bvh8 bvh8;         /* CPU backends: the 8-wide BVH the view points to */
    float *sum;           /* 3 floats per pixel: summed radiance */
    uint32_t *count;      /* samples per pixel; Ctrl-C can leave a pass half done */
    pw_render_stats stats;
    /* CUDA backends' scheduling, for their tests: megakernel launches run
     * as a stream of tiles, and waves run on each of the wavefront's two
     * slots (the second idle where one slot is used). */
    uint32_t gpu_stream_launches, gpu_waves[2];
    volatile sig_atomic_t cancel;
    void *cuda;           /* CUDA backends: device buffers (backend/cuda) */
    char backend_note[300]; /* why auto chose the backend it did, or "" */
    void *cpu_wave;         /* CPU wavefront: path state and queues */
    pw_stage_stats stage[PW_STATS_BOUNCES];
    int stage_rows;
    pw_progress_fn progress; /* pw_renderer_set_progress: called between passes, or NULL */
    void *progress_user;
    int rendering;           /* inside pw_renderer_render: a progress callback may not render again */
};

/* CPU megakernel: adds spp samples to every pixel with all threads. */
pw_status pw_cpu_render(pw_renderer *r, int spp);

double pw_now_seconds(void);

/* CPU wavefront (backend/cpu/cpu_wavefront.c). */
pw_status pw_cpu_wave_render(pw_renderer *r, int spp);
void pw_cpu_wave_free(pw_renderer *r);
/* Adds seconds and items of one stage at one bounce to the statistics. */
void pw_stage_record(pw_renderer *r, uint32_t bounce, int stage, double seconds, uint64_t items);

/* CUDA backends (backend/cuda); without CUDA in the build they report
 * PW_ERR_NO_DEVICE. */
int pw_cuda_compiled(void);
/* 1 when a usable GPU is present; otherwise 0 and why in pw_last_error(). */
int pw_cuda_usable(void);
pw_status pw_cuda_create(pw_renderer *r);
pw_status pw_cuda_render(pw_renderer *r, int spp);
pw_status pw_cuda_wave_render(pw_renderer *r, int spp);
/* Copies the device accumulation into r->sum and r->count. */
pw_status pw_cuda_download(pw_renderer *r);
void pw_cuda_destroy(pw_renderer *r);

#ifdef __cplusplus
}
#endif
#endif
