/* What the API asks of a backend, and the render job it works on. The
 * API (api/renderer.c) fills a pw_render_job, picks the backend's table of
 * operations and calls it; backends include nothing from api/. */
#ifndef PW_BACKEND_H
#define PW_BACKEND_H

#include <signal.h>

#include "pathwave.h"
#include "accel/bvh8_cpu.h"
#include "core/tuning.h"
#include "integrator/render_params.h"
#include "scene/scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A render as a backend sees it. */
typedef struct pw_render_job {
    pw_scene *scene;
    pw_settings settings;
    pw_tuning tuning;       /* the PATHWAVE_* knobs, read when the renderer was made */
    pw_render_params params;
    pw_scene_view view;     /* host view; backends with device memory keep their own */
    pw_backend backend;
    pw_bvh8 bvh8;           /* CPU backends: the 8-wide BVH the view points to */
    float *sum;             /* 3 floats per pixel: summed radiance */
    uint32_t *count;        /* samples per pixel; Ctrl-C can leave a pass half done */
    pw_render_stats stats;
    volatile sig_atomic_t cancel;
    void *cuda;             /* CUDA backends: device buffers (backend/cuda) */
    void *cpu_wave;         /* CPU wavefront: path state and queues */
    pw_stage_stats stage[PW_STATS_BOUNCES];
    int stage_rows;
    /* CUDA backends' scheduling, for their tests: megakernel launches run
     * as a stream of tiles, and waves run on each of the wavefront's two
     * slots (the second idle where one slot is used). */
    uint32_t gpu_stream_launches, gpu_waves[2];
} pw_render_job;

/* A backend. create runs once the job is filled (sums zeroed); render adds
 * spp samples to every pixel; download, where set, brings the device's sums
 * and counts into job->sum and job->count; destroy frees what create made,
 * also after a create that failed half way. host_timed: the render's wall
 * time is its device time (the CPU backends). */
typedef struct pw_backend_ops {
    pw_status (*create)(pw_render_job *j);
    pw_status (*render)(pw_render_job *j, int spp);
    pw_status (*download)(pw_render_job *j);
    void (*destroy)(pw_render_job *j);
    int host_timed;
} pw_backend_ops;

/* The operations of backend b (not PW_BACKEND_AUTO). */
const pw_backend_ops *pw_backend_ops_of(pw_backend b);

extern const pw_backend_ops pw_cpu_mega_ops, pw_cpu_wave_ops; /* backend/cpu/cpu_backend.c */
extern const pw_backend_ops pw_cuda_mega_ops, pw_cuda_wave_ops; /* backend/cuda (or cuda_absent.c) */

/* 1 when this build has the CUDA backends. */
int pw_cuda_compiled(void);
/* 1 when a usable GPU is present; otherwise 0 and why in pw_last_error(). */
int pw_cuda_usable(void);

double pw_now_seconds(void);
/* Adds seconds and items of one stage at one bounce to the statistics. */
void pw_stage_record(pw_render_job *j, uint32_t bounce, int stage, double seconds, uint64_t items);

/* The CPU backends' operations (backend/cpu). */
pw_status pw_cpu_render(pw_render_job *j, int spp);
pw_status pw_cpu_wave_render(pw_render_job *j, int spp);
void pw_cpu_wave_free(pw_render_job *j);

#ifdef __cplusplus
}
#endif
#endif
