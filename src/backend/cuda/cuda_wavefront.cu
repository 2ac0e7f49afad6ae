/* CUDA wavefront: one kernel per stage of integrator/wavefront.h, over
 * queues in device memory. Stage kernels are launched with a fixed,
 * occupancy-filling grid and read their item count from a device counter
 * the previous stage wrote, so no bounce waits for the host; the host looks
 * at the live-path count only every few bounces, to stop early. */
#include <stdlib.h>
#include <string.h>

#include "api/renderer.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_state.h"
#include "integrator/wavefront_layout.h"

#define WAVE_BLOCK 128
#define CHECK_EVERY 4 /* bounces between looks at the live-path count */

typedef struct cuda_wave {
    pw_wave w;                    /* device pointers */
    void *mem;
    unsigned long long *d_totals; /* [0] camera + bounce rays, [1] shadow rays */
    uint32_t *d_log;              /* per bounce: rays, shadow rays (stage statistics) */
    uint32_t *h_live;             /* pinned: live paths after the last bounce looked at */
    int grid;                     /* blocks of WAVE_BLOCK threads that fill the GPU */
    cudaEvent_t *ev;              /* stage statistics: (PW_STAGE_COUNT + 1) events per bounce */
    int n_ev;
} cuda_wave;

#define GRID_STRIDE(i, n) for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

__global__ void k_generate(pw_wave w, pw_scene_view v, pw_render_params prm, uint32_t n, uint32_t first,
                           uint32_t sample)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        pw_wf_generate(&w, &v, &prm, i, first, sample);
    if (i == 0) {
        w.counters[PW_WF_RAYS] = n;
        w.counters[PW_WF_NEXT] = 0;
        w.counters[PW_WF_SHADOWS] = 0;
        w.counters[PW_WF_SHADED] = 0;
        w.counters[PW_WF_SLOTS] = n;
    }
}

__global__ void k_extend(pw_wave w, pw_scene_view v, const uint32_t *queue)
{
    pw_cuda_spheres_to_shared(&v);
    GRID_STRIDE(i, w.counters[PW_WF_RAYS])
    pw_wf_extend(&w, &v, queue, i);
}

__global__ void k_shade(pw_wave w, pw_scene_view v, pw_render_params prm, const uint32_t *queue, uint32_t *next)
{
    pw_cuda_spheres_to_shared(&v);
    GRID_STRIDE(i, w.counters[PW_WF_RAYS])
    pw_wf_shade(&w, &v, &prm, queue, next, i);
}

__global__ void k_connect(pw_wave w, pw_scene_view v)
{
    pw_cuda_spheres_to_shared(&v);
    GRID_STRIDE(i, w.counters[PW_WF_SHADOWS])
    pw_wf_connect(&w, &v, i);
}

__global__ void k_resolve(pw_wave w, pw_render_params prm, float *sum)
{
    GRID_STRIDE(i, w.counters[PW_WF_SHADED])
    pw_wf_resolve(&w, &prm, i, sum);
}

/* Closes a bounce: counts its rays, makes the next queue current. */
__global__ void k_advance(pw_wave w, unsigned long long *totals, uint32_t *log, uint32_t bounce, uint32_t *live)
{
    uint32_t rays = w.counters[PW_WF_RAYS], shadows = w.counters[PW_WF_SHADOWS];
    totals[0] += rays;
    totals[1] += shadows;
    if (bounce < PW_STATS_BOUNCES) {
        log[2 * bounce] += rays;
        log[2 * bounce + 1] += shadows;
    }
    w.counters[PW_WF_RAYS] = w.counters[PW_WF_NEXT];
    w.counters[PW_WF_NEXT] = 0;
    w.counters[PW_WF_SHADOWS] = 0;
    w.counters[PW_WF_SHADED] = 0;
    *live = w.counters[PW_WF_RAYS];
}

static pw_status wave_setup(pw_renderer *r, cuda_state *c)
{
    cuda_wave *cw = (cuda_wave *)calloc(1, sizeof *cw);
    if (!cw)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
    c->wave = cw;
    uint32_t npix = r->params.width * r->params.height, split = r->params.split;
    uint32_t per = pw_wave_shadows_per_path(&r->view, r->params.light_mode);
    size_t free_b, total_b;
    PW_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    /* Half of what is free, so that very large images and very high sample
     * counts run in waves instead of failing for memory. */
    size_t fit = free_b / 2 / pw_wave_bytes_per_path(per);
    uint32_t cap = (uint64_t)npix * split < fit ? npix * split : (uint32_t)fit;
    if (r->settings.wave_paths > 0 && (uint32_t)r->settings.wave_paths < cap)
        cap = (uint32_t)r->settings.wave_paths;
    if (cap < split)
        cap = split;
    if (fit < 1024)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "CUDA: too little device memory for the wavefront's path state (%.0f MiB free)",
                       free_b / 1048576.0);
    size_t bytes = pw_wave_bytes(cap, per);
    cudaError_t e = cudaMalloc(&cw->mem, bytes);
    if (e != cudaSuccess)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "CUDA: cannot allocate %.0f MiB of device memory for %u wavefront paths: %s",
                       bytes / 1048576.0, cap, cudaGetErrorString(e));
    pw_wave_carve(&cw->w, cw->mem, cap, per);
    PW_CUDA_TRY(cudaMemset(cw->w.counters, 0, PW_WF_COUNTERS * sizeof(uint32_t)));
    PW_CUDA_TRY(cudaMalloc((void **)&cw->d_totals, 2 * sizeof(unsigned long long)));
    PW_CUDA_TRY(cudaMalloc((void **)&cw->d_log, 2 * PW_STATS_BOUNCES * sizeof(uint32_t)));
    PW_CUDA_TRY(cudaMemset(cw->d_log, 0, 2 * PW_STATS_BOUNCES * sizeof(uint32_t)));
    PW_CUDA_TRY(cudaMallocHost((void **)&cw->h_live, sizeof(uint32_t)));
    int dev, sms, per_sm = 0;
    PW_CUDA_TRY(cudaGetDevice(&dev));
    PW_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    PW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_extend, WAVE_BLOCK,
                                                              c->scene.view.n_spheres * sizeof(pw_sphere)));
    cw->grid = sms * (per_sm > 0 ? per_sm : 4);
    if (r->settings.stage_stats) {
        cw->n_ev = (PW_STAGE_COUNT + 1) * (int)(r->params.max_depth + 2);
        cw->ev = (cudaEvent_t *)calloc((size_t)cw->n_ev, sizeof *cw->ev);
        if (!cw->ev)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; i < cw->n_ev; i++)
            PW_CUDA_TRY(cudaEventCreate(&cw->ev[i]));
    }
    return PW_OK;
}

/* Event k of bounce b, when stage statistics are on. */
#define EV(b, k) (cw->ev ? cw->ev[(b) * (PW_STAGE_COUNT + 1) + (k)] : 0)
#define MARK(b, k)                                      \
    do {                                                \
        if (cw->ev)                                     \
            PW_CUDA_TRY(cudaEventRecord(EV(b, k)));     \
    } while (0)

/* Adds the stage times of a wave's bounces [0, bounces) to the statistics:
 * event k of a bounce is recorded just before stage k, event 5 after the
 * last stage (and event 0 of bounce 0 before generate). */
static pw_status record_stage_times(pw_renderer *r, cuda_wave *cw, uint32_t bounces, uint32_t n)
{
    PW_CUDA_TRY(cudaEventSynchronize(EV(bounces - 1, PW_STAGE_COUNT)));
    float ms = 0.0f;
    PW_CUDA_TRY(cudaEventElapsedTime(&ms, EV(0, 0), EV(0, 1)));
    pw_stage_record(r, 0, PW_STAGE_GENERATE, ms * 1e-3, n);
    for (uint32_t b = 0; b < bounces; b++)
        for (int k = PW_STAGE_EXTEND; k < PW_STAGE_COUNT; k++) {
            PW_CUDA_TRY(cudaEventElapsedTime(&ms, EV(b, k), EV(b, k + 1)));
            pw_stage_record(r, b, k, ms * 1e-3, 0);
        }
    return PW_OK;
}

static pw_status run_wave(pw_renderer *r, cuda_state *c, uint32_t first, uint32_t n, uint32_t sample)
{
    cuda_wave *cw = c->wave;
    pw_wave *w = &cw->w;
    size_t smem = c->scene.view.flat_spheres ? c->scene.view.n_spheres * sizeof(pw_sphere) : 0;
    MARK(0, 0);
    k_generate<<<(n + WAVE_BLOCK - 1) / WAVE_BLOCK, WAVE_BLOCK>>>(*w, c->scene.view, r->params, n, first, sample);
    PW_CUDA_LAUNCH_CHECK("k_generate");
    MARK(0, 1);
    uint32_t b = 0;
    for (; b <= r->params.max_depth; b++) {
        const uint32_t *q = w->queue[b & 1];
        uint32_t *next = w->queue[(b + 1) & 1];
        if (b > 0)
            MARK(b, 1);
        k_extend<<<cw->grid, WAVE_BLOCK, smem>>>(*w, c->scene.view, q);
        PW_CUDA_LAUNCH_CHECK("k_extend");
        MARK(b, 2);
        k_shade<<<cw->grid, WAVE_BLOCK, smem>>>(*w, c->scene.view, r->params, q, next);
        PW_CUDA_LAUNCH_CHECK("k_shade");
        MARK(b, 3);
        k_connect<<<cw->grid, WAVE_BLOCK, smem>>>(*w, c->scene.view);
        PW_CUDA_LAUNCH_CHECK("k_connect");
        MARK(b, 4);
        k_resolve<<<cw->grid, WAVE_BLOCK>>>(*w, r->params, c->d_sum);
        PW_CUDA_LAUNCH_CHECK("k_resolve");
        MARK(b, 5);
        k_advance<<<1, 1>>>(*w, cw->d_totals, cw->d_log, b, cw->h_live);
        PW_CUDA_LAUNCH_CHECK("k_advance");
        if (b % CHECK_EVERY == CHECK_EVERY - 1) {
            PW_CUDA_TRY(cudaDeviceSynchronize());
            if (*cw->h_live == 0) {
                b++;
                break;
            }
        }
    }
    return cw->ev ? record_stage_times(r, cw, b, n) : PW_OK;
}

extern "C" pw_status pw_cuda_wave_render(pw_renderer *r, int spp)
{
    cuda_state *c = (cuda_state *)r->cuda;
    if (!c->wave) {
        pw_status st = wave_setup(r, c);
        if (st != PW_OK)
            return st;
    }
    cuda_wave *cw = c->wave;
    uint32_t npix = r->params.width * r->params.height;
    uint32_t per_wave = cw->w.cap / r->params.split; /* room for every child of a split */
    PW_CUDA_TRY(cudaMemset(cw->d_totals, 0, 2 * sizeof(unsigned long long)));
    PW_CUDA_TRY(cudaEventRecord(c->ev_start));
    for (int s = 0; s < spp; s++) {
        for (uint32_t first = 0; first < npix; first += per_wave) {
            uint32_t n = npix - first < per_wave ? npix - first : per_wave;
            pw_status st = run_wave(r, c, first, n, c->samples_done);
            if (st != PW_OK)
                return st;
        }
        c->samples_done++;
    }
    PW_CUDA_TRY(cudaEventRecord(c->ev_stop));
    PW_CUDA_TRY(cudaEventSynchronize(c->ev_stop));
    PW_CUDA_TRY(cudaGetLastError());
    float ms = 0.0f;
    PW_CUDA_TRY(cudaEventElapsedTime(&ms, c->ev_start, c->ev_stop));
    unsigned long long totals[2];
    PW_CUDA_TRY(cudaMemcpy(totals, cw->d_totals, sizeof totals, cudaMemcpyDeviceToHost));
    uint64_t samples = (uint64_t)npix * (uint64_t)spp;
    r->stats.camera_rays += samples;
    r->stats.bounce_rays += totals[0] - samples;
    r->stats.shadow_rays += totals[1];
    r->stats.samples += samples;
    r->stats.device_seconds += ms * 1e-3;
    if (cw->ev) {
        uint32_t log[2 * PW_STATS_BOUNCES];
        PW_CUDA_TRY(cudaMemcpy(log, cw->d_log, sizeof log, cudaMemcpyDeviceToHost));
        PW_CUDA_TRY(cudaMemset(cw->d_log, 0, sizeof log));
        for (uint32_t b = 0; b < PW_STATS_BOUNCES; b++) {
            pw_stage_record(r, b, PW_STAGE_EXTEND, 0.0, log[2 * b]);
            pw_stage_record(r, b, PW_STAGE_SHADE, 0.0, log[2 * b]);
            pw_stage_record(r, b, PW_STAGE_CONNECT, 0.0, log[2 * b + 1]);
            pw_stage_record(r, b, PW_STAGE_RESOLVE, 0.0, log[2 * b]);
        }
    }
    return PW_OK;
}

void pw_cuda_wave_free(cuda_state *c)
{
    cuda_wave *cw = c->wave;
    if (!cw)
        return;
    cudaFree(cw->mem);
    cudaFree(cw->d_totals);
    cudaFree(cw->d_log);
    cudaFreeHost(cw->h_live);
    for (int i = 0; i < cw->n_ev; i++)
        cudaEventDestroy(cw->ev[i]);
    free(cw->ev);
    free(cw);
    c->wave = NULL;
}
