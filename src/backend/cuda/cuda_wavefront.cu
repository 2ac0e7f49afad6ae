/* CUDA wavefront: one kernel per stage of integrator/wavefront.h, over
 * queues in device memory. Stage kernels are launched with a fixed,
 * occupancy-filling grid and read their item count from a device counter
 * the previous stage wrote, so no bounce waits for the host. A wave's whole
 * sequence (generate, then max_depth + 1 bounces of five kernels) is
 * captured once in a CUDA graph and replayed per wave: the host never waits
 * inside a frame, and kernels of bounces whose queues are empty return at
 * once. A wave takes several samples of every pixel when they fit
 * (pw_wave_plan), so small images do not pay a wave's fixed costs per
 * sample. Once a bounce's queue is shorter than the threads the GPU holds
 * at once, k_finish_tail runs those paths to their end (pw_wf_finish_tail):
 * their rays are counted but no longer appear in the per-bounce stage
 * statistics. */
#include <stdlib.h>
#include <string.h>

#include "api/renderer.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_state.h"
#include "integrator/wavefront_layout.h"

#define WAVE_BLOCK 128
/* Most path slots a wave takes when it can hold several samples a pixel:
 * 8M paths are 0.9-1.6 GB of state (1-2 shadow records a path). */
#define WAVE_MAX_PATHS (1u << 23)

typedef struct cuda_wave {
    pw_wave w;                    /* device pointers */
    void *mem;
    unsigned long long *d_totals; /* [0] camera + bounce rays, [1] shadow rays */
    uint32_t *d_log;              /* per bounce: rays, shadow rays, shaded paths (stage statistics) */
    uint32_t *d_params;           /* the wave: first pixel, first sample, pixels, samples */
    cudaStream_t stream;
    cudaGraphExec_t graph;        /* a whole wave, captured once */
    int grid;                     /* blocks of WAVE_BLOCK threads that fill the GPU */
    uint32_t tail_max;            /* a queue this short is finished by k_finish_tail (0: never) */
    cudaEvent_t *ev;              /* stage statistics: (PW_STAGE_COUNT + 1) events per bounce */
    int n_ev;
} cuda_wave;

#define GRID_STRIDE(i, n) for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

/* The wave's parameters live in device memory so one captured graph serves
 * every wave. */
__global__ void k_set_wave(uint32_t *params, uint32_t first, uint32_t sample, uint32_t pixels, uint32_t samples)
{
    params[0] = first;
    params[1] = sample;
    params[2] = pixels;
    params[3] = samples;
}

__global__ void k_generate(pw_wave w, pw_scene_view v, pw_render_params prm, const uint32_t *params)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x, n = params[2] * params[3];
    if (i < n)
        pw_wf_generate(&w, &v, &prm, i, params[0], params[2], params[1]);
    if (i == 0) {
        w.counters[PW_WF_RAYS] = n;
        w.counters[PW_WF_NEXT] = 0;
        w.counters[PW_WF_SHADOWS] = 0;
        w.counters[PW_WF_SHADED] = 0;
        w.counters[PW_WF_SLOTS] = n;
        w.counters[PW_WF_TAIL] = 0;
    }
}

__global__ void k_extend(pw_wave w, pw_scene_view v, const uint32_t *queue)
{
    pw_cuda_spheres_to_shared(&v);
    GRID_STRIDE(i, w.counters[PW_WF_RAYS])
    pw_wf_extend(&w, &v, queue, i);
}

/* k_shade keeps its 128 registers: capping it at 64 or 80 spilled and
 * measured 10-20% slower (docs/PERFORMANCE.md). */
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

__global__ void k_gather(pw_wave w, const uint32_t *params, float *sum)
{
    GRID_STRIDE(i, params[2])
    pw_wf_gather(&w, i, params[0], params[2], params[3], sum);
}

/* The last paths of a wave, each run to its end by one thread; capped at
 * 64 registers like the megakernel, whose loop it is. */
__global__ void __launch_bounds__(WAVE_BLOCK, 8) k_finish_tail(pw_wave w, pw_scene_view v, pw_render_params prm,
                                                               const uint32_t *queue, float *sum,
                                                               unsigned long long *totals)
{
    pw_cuda_spheres_to_shared(&v);
    uint32_t ext = 0, shadow = 0;
    GRID_STRIDE(i, w.counters[PW_WF_TAIL])
    pw_wf_finish_tail(&w, &v, &prm, queue, i, sum, &ext, &shadow);
    uint32_t e = __reduce_add_sync(0xffffffffu, ext), s = __reduce_add_sync(0xffffffffu, shadow);
    if (threadIdx.x % 32u == 0u && (e || s)) {
        atomicAdd(&totals[0], (unsigned long long)e);
        atomicAdd(&totals[1], (unsigned long long)s);
    }
}

/* Closes a bounce: counts its rays, makes the next queue current, or hands
 * it to k_finish_tail when it holds at most tail_max paths. */
__global__ void k_advance(pw_wave w, unsigned long long *totals, uint32_t *log, uint32_t bounce, uint32_t tail_max)
{
    uint32_t rays = w.counters[PW_WF_RAYS], shadows = w.counters[PW_WF_SHADOWS];
    totals[0] += rays;
    totals[1] += shadows;
    if (bounce < PW_STATS_BOUNCES) {
        log[3 * bounce] += rays;
        log[3 * bounce + 1] += shadows;
        log[3 * bounce + 2] += w.counters[PW_WF_SHADED];
    }
    uint32_t next = w.counters[PW_WF_NEXT];
    int tail = next <= tail_max;
    w.counters[PW_WF_RAYS] = tail ? 0u : next;
    w.counters[PW_WF_TAIL] = tail ? next : 0u;
    w.counters[PW_WF_NEXT] = 0;
    w.counters[PW_WF_SHADOWS] = 0;
    w.counters[PW_WF_SHADED] = 0;
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
    uint32_t want = pw_wave_wanted_paths(npix, split, WAVE_MAX_PATHS);
    uint32_t cap = want < fit ? want : (uint32_t)fit;
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
    PW_CUDA_TRY(cudaMalloc((void **)&cw->d_log, 3 * PW_STATS_BOUNCES * sizeof(uint32_t)));
    PW_CUDA_TRY(cudaMemset(cw->d_log, 0, 3 * PW_STATS_BOUNCES * sizeof(uint32_t)));
    PW_CUDA_TRY(cudaMalloc((void **)&cw->d_params, 4 * sizeof(uint32_t)));
    r->stats.device_bytes += bytes + 2 * sizeof(unsigned long long) + (3 * PW_STATS_BOUNCES + 4) * sizeof(uint32_t);
    PW_CUDA_TRY(cudaStreamCreateWithFlags(&cw->stream, cudaStreamNonBlocking));
    int dev, sms, per_sm = 0;
    PW_CUDA_TRY(cudaGetDevice(&dev));
    PW_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t smem = c->scene.view.flat_spheres ? c->scene.view.n_spheres * sizeof(pw_sphere) : 0;
    PW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_extend, WAVE_BLOCK, smem));
    cw->grid = sms * (per_sm > 0 ? per_sm : 4);
    /* A queue shorter than the threads the GPU holds at once cannot hide a
     * stage's latency, so from there on paths are finished in one kernel
     * (measured: docs/PERFORMANCE.md). PATHWAVE_WAVE_TAIL=N sets the
     * largest queue so finished (0: never), for comparisons. */
    int threads_per_sm = 0;
    PW_CUDA_TRY(cudaDeviceGetAttribute(&threads_per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, dev));
    const char *tail = getenv("PATHWAVE_WAVE_TAIL");
    cw->tail_max = tail && *tail ? (uint32_t)strtoul(tail, NULL, 10) : (uint32_t)(sms * threads_per_sm);

    if (r->settings.stage_stats) {
        cw->n_ev = (PW_STAGE_COUNT + 1) * (int)(r->params.max_depth + 2);
        cw->ev = (cudaEvent_t *)calloc((size_t)cw->n_ev, sizeof *cw->ev);
        if (!cw->ev)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; i < cw->n_ev; i++)
            PW_CUDA_TRY(cudaEventCreate(&cw->ev[i]));
    }
    /* The wave's stream does not wait for the legacy default stream, where
     * the image and these buffers were cleared: let those finish first. */
    PW_CUDA_TRY(cudaDeviceSynchronize());
    return PW_OK;
}

/* Event k of bounce b, when stage statistics are on. */
#define EV(b, k) (cw->ev[(b) * (PW_STAGE_COUNT + 1) + (k)])

/* Adds the stage times of a wave's bounces to the statistics: event k of a
 * bounce is recorded just before stage k, event 5 after the last stage
 * (and event 0 of bounce 0 before generate). */
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

/* Queues one wave's kernels on cw->stream: generate, then every bounce up
 * to max_depth. With events, marks each stage. Returns the first error. */
static cudaError_t launch_wave(pw_renderer *r, cuda_state *c, int events)
{
    cuda_wave *cw = c->wave;
    pw_wave *w = &cw->w;
    cudaStream_t st = cw->stream;
    size_t smem = c->scene.view.flat_spheres ? c->scene.view.n_spheres * sizeof(pw_sphere) : 0;
    cudaError_t e = cudaSuccess;
#define STEP(call)                       \
    do {                                 \
        call;                            \
        if ((e = cudaGetLastError()))    \
            return e;                    \
    } while (0)
#define MARK(b, k)                                         \
    do {                                                   \
        if (events)                                        \
            STEP(cudaEventRecord(EV(b, k), st));           \
    } while (0)
    MARK(0, 0);
    STEP((k_generate<<<(w->cap + WAVE_BLOCK - 1) / WAVE_BLOCK, WAVE_BLOCK, 0, st>>>(
        *w, c->scene.view, r->params, cw->d_params)));
    for (uint32_t b = 0; b <= r->params.max_depth; b++) {
        const uint32_t *q = w->queue[b & 1];
        uint32_t *next = w->queue[(b + 1) & 1];
        MARK(b, 1);
        STEP((k_extend<<<cw->grid, WAVE_BLOCK, smem, st>>>(*w, c->scene.view, q)));
        MARK(b, 2);
        STEP((k_shade<<<cw->grid, WAVE_BLOCK, smem, st>>>(*w, c->scene.view, r->params, q, next)));
        MARK(b, 3);
        STEP((k_connect<<<cw->grid, WAVE_BLOCK, smem, st>>>(*w, c->scene.view)));
        MARK(b, 4);
        STEP((k_resolve<<<cw->grid, WAVE_BLOCK, 0, st>>>(*w, r->params, c->d_sum)));
        MARK(b, 5);
        STEP((k_advance<<<1, 1, 0, st>>>(*w, cw->d_totals, cw->d_log, b, cw->tail_max)));
        if (cw->tail_max > 0 && b < r->params.max_depth)
            STEP((k_finish_tail<<<cw->grid, WAVE_BLOCK, smem, st>>>(*w, c->scene.view, r->params, next, c->d_sum,
                                                                    cw->d_totals)));
    }
    if (r->params.split <= 1)
        STEP((k_gather<<<cw->grid, WAVE_BLOCK, 0, st>>>(*w, cw->d_params, c->d_sum)));
#undef MARK
#undef STEP
    return e;
}

/* Captures one wave into cw->graph. */
static pw_status capture_graph(pw_renderer *r, cuda_state *c)
{
    cuda_wave *cw = c->wave;
    cudaGraph_t g = NULL;
    PW_CUDA_TRY(cudaStreamBeginCapture(cw->stream, cudaStreamCaptureModeThreadLocal));
    cudaError_t launched = launch_wave(r, c, 0);
    cudaError_t ended = cudaStreamEndCapture(cw->stream, &g);
    if (launched != cudaSuccess && g)
        cudaGraphDestroy(g);
    PW_CUDA_TRY(launched);
    PW_CUDA_TRY(ended);
    cudaError_t inst = cudaGraphInstantiate(&cw->graph, g, 0);
    cudaGraphDestroy(g);
    PW_CUDA_TRY(inst);
    return PW_OK;
}

static pw_status run_wave(pw_renderer *r, cuda_state *c, uint32_t first, uint32_t pixels, uint32_t sample,
                          uint32_t samples)
{
    cuda_wave *cw = c->wave;
    k_set_wave<<<1, 1, 0, cw->stream>>>(cw->d_params, first, sample, pixels, samples);
    PW_CUDA_LAUNCH_CHECK("k_set_wave");
    if (!cw->ev) {
        PW_CUDA_TRY(cudaGraphLaunch(cw->graph, cw->stream));
        return PW_OK;
    }
    PW_CUDA_TRY(launch_wave(r, c, 1));
    return record_stage_times(r, cw, r->params.max_depth + 1, pixels * samples);
}

extern "C" pw_status pw_cuda_wave_render(pw_renderer *r, int spp)
{
    cuda_state *c = (cuda_state *)r->cuda;
    if (!c->wave) {
        pw_status st = wave_setup(r, c);
        if (st != PW_OK) {
            pw_cuda_wave_free(c); /* the next call starts over, not from half a setup */
            return st;
        }
    }
    cuda_wave *cw = c->wave;
    if (!cw->ev && !cw->graph) {
        pw_status st = capture_graph(r, c);
        if (st != PW_OK)
            return st;
    }
    uint32_t npix = r->params.width * r->params.height;
    uint64_t camera_before = r->stats.camera_rays;
    PW_CUDA_TRY(cudaMemsetAsync(cw->d_totals, 0, 2 * sizeof(unsigned long long), cw->stream));
    PW_CUDA_TRY(cudaEventRecord(c->ev_start, cw->stream));
    /* Ctrl-C is honoured between waves of whole samples, so every pixel
     * keeps the same sample count (the device keeps one count for all). */
    for (uint32_t s = 0; s < (uint32_t)spp && !r->cancel;) {
        uint32_t per_wave, samples;
        pw_wave_plan(cw->w.cap, npix, r->params.split, (uint32_t)spp - s, &per_wave, &samples);
        for (uint32_t first = 0; first < npix; first += per_wave) {
            uint32_t n = npix - first < per_wave ? npix - first : per_wave;
            pw_status st = run_wave(r, c, first, n, c->samples_done, samples);
            if (st != PW_OK) {
                cudaStreamSynchronize(cw->stream); /* nothing may still write the image */
                return st;
            }
        }
        c->samples_done += samples;
        r->stats.samples += (uint64_t)npix * samples;
        r->stats.camera_rays += (uint64_t)npix * samples;
        s += samples;
    }
    unsigned long long totals[2];
    pw_status fin = pw_cuda_finish_frame(r, c, cw->stream, cw->d_totals, totals);
    if (fin != PW_OK)
        return fin;
    r->stats.bounce_rays += totals[0] - (r->stats.camera_rays - camera_before);
    r->stats.shadow_rays += totals[1];
    if (cw->ev) {
        uint32_t log[3 * PW_STATS_BOUNCES];
        PW_CUDA_TRY(cudaMemcpy(log, cw->d_log, sizeof log, cudaMemcpyDeviceToHost));
        PW_CUDA_TRY(cudaMemsetAsync(cw->d_log, 0, sizeof log, cw->stream));
        for (uint32_t b = 0; b < PW_STATS_BOUNCES; b++) {
            pw_stage_record(r, b, PW_STAGE_EXTEND, 0.0, log[3 * b]);
            pw_stage_record(r, b, PW_STAGE_SHADE, 0.0, log[3 * b]);
            pw_stage_record(r, b, PW_STAGE_CONNECT, 0.0, log[3 * b + 1]);
            pw_stage_record(r, b, PW_STAGE_RESOLVE, 0.0, log[3 * b + 2]);
        }
    }
    return r->cancel ? pw_fail(PW_ERR_INTERRUPTED, "render interrupted") : PW_OK;
}

void pw_cuda_wave_free(cuda_state *c)
{
    cuda_wave *cw = c->wave;
    if (!cw)
        return;
    cudaFree(cw->mem);
    cudaFree(cw->d_totals);
    cudaFree(cw->d_log);
    cudaFree(cw->d_params);
    if (cw->graph)
        cudaGraphExecDestroy(cw->graph);
    if (cw->stream)
        cudaStreamDestroy(cw->stream);
    for (int i = 0; i < cw->n_ev; i++)
        cudaEventDestroy(cw->ev[i]);
    free(cw->ev);
    free(cw);
    c->wave = NULL;
}
