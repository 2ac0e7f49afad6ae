/* CUDA wavefront: one kernel per stage of backend/wavefront/wavefront.h, over
 * queues in device memory. Stage kernels are launched with the grid each
 * holds at once and read their item count from a device counter the
 * previous stage wrote, so no bounce waits for the host. A wave's
 * sequence is one CUDA graph, built once and replayed per wave: generate
 * and bounce 0 (extend, shade, connect where shadow rays can occur,
 * k_advance, and the tail), then a conditional WHILE node whose body is
 * one bounce, repeated for as long as k_advance finds paths left and
 * max_depth not reached (camera paths are made where bounce 0 needs them,
 * not stored: k_generate);
 * gather follows outside the graph, after the previous wave's gather. Up
 * to two waves run at once, each in a wave slot with its own buffers,
 * stream and graph (wave_slot). The bounce index lives on the device (params[4]), so one
 * body serves every bounce. The host never waits inside a frame, and no
 * kernel is launched for bounces that have no paths (a graph with every
 * bounce up to max_depth unrolled spent about 5 us a bounce launching
 * empty kernels: 1.2 ms of a Cornell box frame at max depth 64). A wave
 * takes several samples of every pixel when they fit (pw_wave_plan), so
 * small images do not pay a wave's fixed costs per sample. Once a
 * bounce's queue is short enough that stages would leave the GPU waiting
 * on a few long paths (tail_max), k_finish_tail runs those paths to their
 * ends (pw_path_step); the stage statistics show it as a stage of its own
 * (PW_STAGE_TAIL). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_state.h"
#include "integrator/features.h"
#include "backend/wavefront/wavefront_layout.h"

#define WAVE_BLOCK 128
/* Most path slots the waves in flight take together when they can hold
 * several samples a pixel (4M a wave slot): 8M paths are 1.6-1.9 GB of
 * state (1-2 shadow records a path), and 0.2 GB more for the shading
 * lists where shade sorts by material. */
#define WAVE_MAX_PATHS (1u << 23)

typedef void (*extend_kernel_fn)(pw_wave, pw_scene_view, const uint32_t *, uint32_t *, uint32_t);
typedef void (*extend_camera_kernel_fn)(pw_wave, pw_scene_view, pw_render_params, const uint32_t *, uint32_t);
typedef void (*connect_kernel_fn)(pw_wave, pw_scene_view, uint32_t);
typedef void (*shade_kernel_fn)(pw_wave, pw_scene_view, pw_render_params, const uint32_t *, uint32_t *);
typedef void (*tail_kernel_fn)(pw_wave, pw_scene_view, pw_render_params, const uint32_t *, unsigned long long *);

/* One wave in flight: its path state and queues, its parameters, the
 * stream it runs on and its graph. Two slots let one wave's last bounces
 * and tail, which leave most of the GPU idle, run beside the next wave's
 * first bounces (wave_setup says when). */
typedef struct wave_slot {
    pw_wave w;                    /* device pointers */
    void *mem;
    uint32_t *d_params;           /* the wave: first pixel, first sample, pixels, samples; the bounce */
    uint32_t *d_sorted;           /* shading in key order: PW_WF_N_KEYS lists of cap positions (NULL: off) */
    cudaStream_t stream;
    cudaGraphExec_t graph;        /* the wave's generate and bounces, built once */
    cudaGraphConditionalHandle loop_handle; /* the bounce loop's condition */
} wave_slot;

#define WAVE_SLOTS 2

typedef struct cuda_wave {
    wave_slot slot[WAVE_SLOTS];
    int n_slots;                  /* slots in use: 1 or 2 */
    int halve;                    /* a frame's last round, one wave on the first slot, runs as two halves (run_waves) */
    unsigned long long *d_totals; /* [0] camera + bounce rays, [1] shadow rays (all slots) */
    uint32_t *d_log;              /* per bounce: rays, shadow rays, paths the tail took (stage statistics) */
    cudaEvent_t started;          /* the frame's counters cleared (slot 0), for the other slot to wait on */
    cudaEvent_t gathered;         /* the last wave's gather, which the next wave's gather waits for */
    cudaEvent_t done;             /* the other slot's last wave, for slot 0 to wait on at the frame's end */
    int connects;                 /* whether any path can have work for connect */
    uint32_t fetch;               /* k_extend's and k_connect's warps take rays 32 at a time as they finish (meshes) */
    /* Blocks of WAVE_BLOCK threads that fill the GPU, for each stage
     * kernel: as many as can be resident at once (its registers and
     * shared memory decide). A grid-stride kernel launched with more
     * blocks than fit runs its last ones in a second, partly empty round. */
    int g_extend, g_extend_camera, g_shade, g_connect, g_tail, g_gather;
    uint32_t tail_max;            /* a queue this short is finished by k_finish_tail (0: never) */
    /* The stage kernels for this render (pick_wave_kernels): the general
     * ones or their variants for the basic materials or for spheres. */
    extend_kernel_fn extend;      /* k_extend or k_extend_spheres */
    extend_camera_kernel_fn extend_camera; /* k_extend_camera or k_extend_spheres_camera */
    shade_kernel_fn shade;        /* k_shade, k_shade_basic, k_shade_toy or k_shade_nolight */
    connect_kernel_fn connect;    /* k_connect or k_connect_spheres */
    tail_kernel_fn tail;          /* k_finish_tail, _basic, _toy or _nolight */
    cudaEvent_t *ev;              /* stage statistics: PW_STAGE_COUNT + 1 events per bounce */
    int n_ev;
} cuda_wave;

#define GRID_STRIDE(i, n) for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += gridDim.x * blockDim.x)

/* The wave's parameters live in device memory so one graph serves every
 * wave and every bounce. */
#define P_BOUNCE 4
#define N_PARAMS 5
__global__ void k_set_wave(uint32_t *params, uint32_t first, uint32_t sample, uint32_t pixels, uint32_t samples)
{
    params[0] = first;
    params[1] = sample;
    params[2] = pixels;
    params[3] = samples;
}

/* Starts a wave's counters. Camera paths are not stored: bounce 0's
 * extend and shade make each where they need it (pw_wf_extend_camera,
 * pw_wf_shade_camera), which saves writing 52 bytes a path here and
 * reading them back twice. One block (launch_generate). */
__global__ void k_generate(pw_wave w, uint32_t *params)
{
    uint32_t n = params[2] * params[3];
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        w.counters[PW_WF_RAYS] = n;
        w.counters[PW_WF_NEXT] = 0;
        w.counters[PW_WF_SHADOWS] = 0;
        w.counters[PW_WF_TO_CONNECT] = 0;
        w.counters[PW_WF_TAIL] = 0;
        w.counters[PW_WF_FETCH] = 0;
        w.counters[PW_WF_FETCH_CONNECT] = 0;
        w.counters[PW_WF_FETCH_TAIL] = 0;
        for (int k = 0; k < PW_WF_N_KEYS; k++)
            w.counters[PW_WF_KEYS + k] = 0;
        params[P_BOUNCE] = 0;
    }
}

/* This bounce's ray queue: 0 or 1 (the next one is the other). */
#define QUEUE(params) ((params)[P_BOUNCE] & 1u)

/* Shading in key order. A warp whose lanes hold different materials runs
 * each material's code in turn with the others idle; at the first bounce
 * neighbouring pixels mostly see one material, but after it a warp's hits
 * are scattered over the scene. So extend files each position under its
 * hit's shading key (pw_wf_shade_key), one list per key (the lanes of a
 * warp with one key take their entries with one atomic), and shade walks
 * the lists one after the other: item k of the queue is entry k - first(t)
 * of list t. Camera rays keep their order: a warp's camera rays (an 8x4
 * tile) mostly hit one material. */
__device__ static void file_by_key(pw_wave *w, uint32_t *sorted, uint32_t key, uint32_t i)
{
    unsigned mask = __activemask(), peers = __match_any_sync(mask, key);
    unsigned lane = threadIdx.x % 32u, leader = (unsigned)__ffs(peers) - 1u;
    uint32_t base = 0;
    if (lane == leader)
        base = atomicAdd(&w->counters[PW_WF_KEYS + key], (uint32_t)__popc(peers));
    base = __shfl_sync(peers, base, (int)leader);
    sorted[key * w->cap + base + (uint32_t)__popc(peers & ((1u << lane) - 1u))] = i;
}

/* The shading lists of this bounce: none for camera rays, which keep their
 * order (an 8x4 tile mostly sees one material), so extend files nothing
 * and shade takes the queue as it is. */
__device__ __forceinline__ static uint32_t *lists_at(uint32_t *sorted, uint32_t bounce)
{
    return bounce == 0 ? NULL : sorted;
}

/* One bounce ray of the queue (camera rays are k_extend_camera's) takes its
 * walk (pw_trace_extend), and its hit is filed by shading key where the
 * bounce has lists. */
__device__ __forceinline__ static void extend_item(pw_wave *w, const pw_scene_view *v, uint32_t q, uint32_t bounce,
                                                   uint32_t *sorted, uint32_t i)
{
    uint32_t prim = pw_wf_extend(w, v, q, i);
    if (lists_at(sorted, bounce))
        file_by_key(w, sorted, pw_wf_shade_key(v, prim), i);
}

/* The first of the next 32 items of a queue counted by *taken, for the
 * calling warp (one atomic a warp; every lane calls it). */
__device__ static uint32_t take32(uint32_t *taken)
{
    uint32_t base = 0;
    if (threadIdx.x % 32u == 0u)
        base = atomicAdd(taken, 32u);
    return __shfl_sync(0xffffffffu, base, 0);
}

/* Items i < n, each warp taking the next 32 (counted by *taken) as soon as
 * its last 32 are done; GRID_STRIDE's counterpart, for work whose cost
 * varies from item to item. Every lane of the warp must enter it. */
#define FETCH_32(i, n, taken)                                                                                      \
    for (uint32_t base_ = take32(taken), i = base_ + threadIdx.x % 32u; base_ < (n);                               \
         base_ = take32(taken), i = base_ + threadIdx.x % 32u)                                                     \
        if (i >= (n)) {                                                                                            \
        } else

/* A stage kernel's compile-time arguments from its feature mask
 * (integrator/features.h): without triangles, their code is left out; with
 * one light mode, it is compiled in; without every material kind, the
 * microfacet code is left out. */
#define WAVE_SPHERES(F) (((F) & PW_FEAT_TRIANGLES) == 0u)
#define WAVE_LIGHT(F) PW_FEAT_LIGHT_MODE(F, LIGHT_ANY)
#define F_EVERY PW_FEAT_EVERY
#define F_NO_TRI (F_EVERY & ~PW_FEAT_TRIANGLES)
#define F_SPH_BASIC (F_NO_TRI & ~PW_FEAT_ALL_KINDS & ~PW_FEAT_LIGHTS)

/* Each stage's kernels, in the order they are tried: a render runs the
 * first whose mask covers its features (pick_wave_kernels). X(name,
 * features, blocks an SM). The sphere-only kernels, for the basic kinds
 * with the toy light mode or none compiled in, shade blockwise (one
 * atomic a block for the queue places, shade_blockwise) and split no rays,
 * so a split render takes the next shade kernel; their tail, past the
 * first hit, splits nothing either. */
#define WAVE_EXTEND_KERNELS(X) X(k_extend_spheres, F_NO_TRI, SPHERES_EXTEND_BLOCKS) X(k_extend, F_EVERY, 8)
#define WAVE_CONNECT_KERNELS(X) X(k_connect_spheres, F_NO_TRI, SPHERES_CONNECT_BLOCKS) X(k_connect, F_EVERY, 0)
#define WAVE_SHADE_KERNELS(X)                                                                                      \
    X(k_shade_toy, (F_SPH_BASIC | PW_FEAT_LIGHT_TOY) & ~PW_FEAT_SPLIT, SPHERES_SHADE_BLOCKS)                       \
    X(k_shade_nolight, (F_SPH_BASIC | PW_FEAT_LIGHT_NONE) & ~PW_FEAT_SPLIT, SPHERES_SHADE_BLOCKS)                  \
    X(k_shade_basic, F_EVERY & ~PW_FEAT_ALL_KINDS, 5)                                                              \
    X(k_shade, F_EVERY, 4)
#define WAVE_TAIL_KERNELS(X)                                                                                       \
    X(k_finish_tail_toy, F_SPH_BASIC | PW_FEAT_LIGHT_TOY, SPHERES_TAIL_BLOCKS)                                     \
    X(k_finish_tail_nolight, F_SPH_BASIC | PW_FEAT_LIGHT_NONE, SPHERES_TAIL_BLOCKS)                                \
    X(k_finish_tail_basic, F_EVERY & ~PW_FEAT_ALL_KINDS, 6)                                                        \
    X(k_finish_tail, F_EVERY, 4)
#define SPHERES_CONNECT_BLOCKS 12

/* Held to 64 registers (8 blocks of 128 an SM, at the cost of a few
 * spills): faster on bunnies-mixed and the bunny than the uncapped kernel
 * at 7 blocks (docs/PERFORMANCE.md). fetch: the warps
 * take their rays from the queue 32 at a time as they finish (wave_setup
 * says when), else a grid-stride loop deals them out. Camera rays, which
 * generate no longer stores, take k_extend_camera at bounce 0 (a kernel
 * of their own for stored camera rays, launched every bounce, measured
 * slower on bunnies-mixed; this one runs once, before the graph's loop:
 * docs/PERFORMANCE.md). */
#define EXTEND_KERNEL(name, F, min_blocks) EXTEND_KERNEL_AS(name, WAVE_SPHERES(F), min_blocks)
#define EXTEND_KERNEL_AS(name, spheres, min_blocks)                                                                    \
    __global__ void __launch_bounds__(WAVE_BLOCK, min_blocks)                                                      \
        name(pw_wave w, pw_scene_view v, const uint32_t *params, uint32_t *sorted, uint32_t fetch)                 \
    {                                                                                                              \
        if (spheres)                                                                                               \
            v.n_tris = 0;                                                                                          \
        uint32_t q = QUEUE(params), bounce = params[P_BOUNCE], n = w.counters[PW_WF_RAYS];                         \
        pw_cuda_spheres_to_shared(&v);                                                                             \
        if (fetch) {                                                                                               \
            FETCH_32(i, n, &w.counters[PW_WF_FETCH])                                                               \
            extend_item(&w, &v, q, bounce, sorted, i);                                                             \
        } else {                                                                                                   \
            GRID_STRIDE(i, n)                                                                                      \
            extend_item(&w, &v, q, bounce, sorted, i);                                                             \
        }                                                                                                          \
    }
/* Extend and connect for sphere-only scenes: a zero triangle count
 * compiled in leaves the triangles' tests out (pick_wave_kernels), and
 * the smaller kernels run 12 blocks of 128 an SM (at 40 registers, which
 * spills a little). Against the general kernels at 8 blocks they were
 * faster on toy, toy-small and rtiow; the same kernels held to 8 blocks
 * (no spills) or 10 gained less than at 12 (docs/PERFORMANCE.md). */
#define SPHERES_EXTEND_BLOCKS 12
WAVE_EXTEND_KERNELS(EXTEND_KERNEL)

/* Bounce 0's extend where generate stores no camera paths (k_generate):
 * each ray is made here. A kernel of its own, launched for bounce 0 only
 * (the graph runs that bounce before its loop), because the camera's code
 * in k_extend raised its spills several-fold, which every later
 * bounce's walk would pay. Camera rays keep their order, so nothing is
 * filed by shading key (lists_at). */
#define EXTEND_CAMERA_KERNEL(name, F, min_blocks) EXTEND_CAMERA_KERNEL_AS(name##_camera, WAVE_SPHERES(F), min_blocks)
#define EXTEND_CAMERA_KERNEL_AS(name, spheres, min_blocks)                                                             \
    __global__ void __launch_bounds__(WAVE_BLOCK, min_blocks)                                                      \
        name(pw_wave w, pw_scene_view v, pw_render_params prm, const uint32_t *params, uint32_t fetch)             \
    {                                                                                                              \
        if (spheres)                                                                                               \
            v.n_tris = 0;                                                                                          \
        uint32_t n = w.counters[PW_WF_RAYS];                                                                       \
        pw_cuda_spheres_to_shared(&v);                                                                             \
        if (fetch) {                                                                                               \
            FETCH_32(i, n, &w.counters[PW_WF_FETCH])                                                               \
            pw_wf_extend_camera(&w, &v, &prm, i, params[0], params[2], params[1]);                                 \
        } else {                                                                                                   \
            GRID_STRIDE(i, n)                                                                                      \
            pw_wf_extend_camera(&w, &v, &prm, i, params[0], params[2], params[1]);                                 \
        }                                                                                                          \
    }
WAVE_EXTEND_KERNELS(EXTEND_CAMERA_KERNEL)

/* Shade and tail variants for sphere-only scenes with the basic materials
 * and the toy light sampling or none (toy, toy-small, rtiow): the light
 * mode and a zero triangle count become literals, so the other modes' and
 * the triangles' code compiles away, as in the megakernel's toy variants
 * (pick_wave_kernels). Smaller, they take more blocks an SM: shade at
 * least 6 of 128 threads (fewer registers than the general basic kernel,
 * without spills), the tail 8 (64 registers, where the general one
 * spills far more at 80), and the tail's queue limit grows with its
 * resident threads (tail_max). Shade is bound by the latency of its loads
 * at these occupancies (the profiler showed toy well short of the DRAM's
 * bandwidth, with few eligible warps a scheduler), so more warps pay.
 * Against the general kernels they were faster on toy, rtiow and
 * toy-small; at the general kernels' bounds the variants gained less, and
 * with shade at 8 blocks as well rtiow gained a little more but toy less
 * (docs/PERFORMANCE.md). Their shade takes its queue places
 * blockwise and splits no rays: split renders take k_shade_basic (see
 * SHADE_KERNEL). LIGHT_ANY: the general kernels. */
#define LIGHT_ANY (-1)
#define SPHERES_SHADE_BLOCKS 6
#define SPHERES_TAIL_BLOCKS 8

__device__ __forceinline__ static void specialise(pw_scene_view *v, pw_render_params *prm, int light_mode,
                                                  int spheres)
{
    if (light_mode != LIGHT_ANY)
        prm->light_mode = (uint32_t)light_mode;
    if (spheres)
        v->n_tris = 0;
}

/* The first item of each key's list in the queue's order, in shared memory. */
__device__ static void key_starts(const pw_wave *w, uint32_t first[PW_WF_N_KEYS + 1])
{
    if (threadIdx.x == 0) {
        first[0] = 0;
        for (int k = 0; k < PW_WF_N_KEYS; k++)
            first[k + 1] = first[k] + w->counters[PW_WF_KEYS + k];
    }
    __syncthreads();
}

/* The queue position shade takes as its item k. */
__device__ __forceinline__ static uint32_t sorted_item(const pw_wave *w, const uint32_t *sorted,
                                                       const uint32_t first[PW_WF_N_KEYS + 1], uint32_t k)
{
    uint32_t t = 0;
    while (k >= first[t + 1])
        t++;
    return sorted[t * w->cap + k - first[t]];
}

/* The entries in the connect list and the positions in the next ray
 * queue of the paths the block's threads shaded (a: the path visits
 * connect, b: it goes on), with one atomic for the whole block, where
 * pw_wf_alloc_pair takes one a warp. Every warp's atomic goes to the same
 * address, and on toy the waits for them were a large share of shade's
 * stalls (profiled). Every thread of a block of WAVE_BLOCK threads
 * must call it. The two counts ride in one 64-bit word, as in
 * pw_wf_alloc_pair (a call adds at most WAVE_BLOCK to the low one, which
 * stays below 2^32, so it never carries into the high one). */
PW_STATIC_ASSERT(WAVE_BLOCK % 32 == 0, "blocks of whole warps");
__device__ static void alloc_pair_block(uint32_t *pair, int a, int b, uint32_t *a_at, uint32_t *b_at)
{
    __shared__ unsigned long long warp_base[WAVE_BLOCK / 32];
    uint32_t lane = threadIdx.x % 32u, warp = threadIdx.x / 32u, below = (1u << lane) - 1u;
    unsigned wa = __ballot_sync(0xffffffffu, a), wb = __ballot_sync(0xffffffffu, b);
    /* Every lane has read the warp's entry of the previous call before
     * lane 0 writes this one's (a ballot waits for the lanes but orders
     * no memory; __syncwarp does). */
    __syncwarp();
    if (lane == 0)
        warp_base[warp] = (unsigned long long)__popc(wa) | (unsigned long long)__popc(wb) << 32;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long total = 0;
        for (uint32_t k = 0; k < WAVE_BLOCK / 32u; k++) {
            unsigned long long c = warp_base[k];
            warp_base[k] = total;
            total += c;
        }
        unsigned long long base = total ? atomicAdd((unsigned long long *)pair, total) : 0ull;
        for (uint32_t k = 0; k < WAVE_BLOCK / 32u; k++)
            warp_base[k] += base;
    }
    __syncthreads();
    unsigned long long base = warp_base[warp];
    *a_at = (uint32_t)base + (uint32_t)__popc(wa & below);
    *b_at = (uint32_t)(base >> 32) + (uint32_t)__popc(wb & below);
}

/* Shade without ray splitting (the sphere kernels, below): the block's
 * threads take the queue's items together, a block's worth at a time,
 * each shades its path (pw_wf_shade_hit), the block takes their places at
 * once (alloc_pair_block) and each puts its path there
 * (pw_wf_shade_commit). The loop's bounds are the same for every thread
 * of a block, so all of them reach alloc_pair_block's barriers together,
 * those past the queue's end with nothing shaded. Returns the thread's
 * shadow rays. */
__device__ __forceinline__ static uint32_t shade_blockwise(pw_wave *w, const pw_scene_view *v,
                                                           const pw_render_params *prm, const uint32_t *params,
                                                           const uint32_t *sorted, const uint32_t *first,
                                                           uint32_t kinds)
{
    uint32_t q = QUEUE(params), n = w->counters[PW_WF_RAYS], bounce = params[P_BOUNCE], shadows = 0;
    for (uint32_t base = blockIdx.x * blockDim.x; base < n; base += gridDim.x * blockDim.x) {
        uint32_t k = base + threadIdx.x;
        pw_wf_shaded r = pw_wf_shaded_none();
        if (k < n && bounce == 0)
            r = pw_wf_shade_hit_camera(w, v, prm, k, params[0], params[2], params[1], kinds);
        else if (k < n)
            r = pw_wf_shade_hit_at(w, v, prm, q, sorted ? sorted_item(w, sorted, first, k) : k, kinds);
        uint32_t listed, next;
        alloc_pair_block(&w->counters[PW_WF_TO_CONNECT], r.visit, r.alive, &listed, &next);
        if (k < n)
            pw_wf_shade_commit(w, q, &r, listed, next);
        shadows += r.n;
    }
    return shadows;
}

/* Shade and the tail are compiled for every material kind, for the basic
 * ones only (a literal `kinds`, as in the megakernel's variants), which
 * leaves the microfacet code out and needs fewer registers: a little
 * faster on the Cornell box, Sponza, the bunny and rtiow, a little slower
 * on toy (docs/PERFORMANCE.md); and for sphere scenes by light mode
 * (above). The general k_shade is held to 128 registers (4 blocks an SM;
 * no spills), a little under what it would take: faster on bunnies-mixed.
 * Capping it at 64 or 80 spilled and measured clearly slower.
 *   The sphere kernels shade blockwise (shade_blockwise) and are compiled
 * without ray splitting (a literal split of 1; pick_wave_kernels gives
 * split renders k_shade_basic). Against a warp's atomic, blockwise was
 * faster on toy, toy-small and rtiow (docs/PERFORMANCE.md). The others
 * keep the warp's atomic (pw_wf_shade_one's pw_wf_alloc_pair): blockwise,
 * the Cornell box, the bunny, bunnies-mixed:6 and Sponza lost speed,
 * whose shading takes fewer of a frame's atomics and whose warps,
 * waiting at the block's barriers for its slowest, lost more than the
 * atomics cost. */
#define SHADE_KERNEL(name, F, min_blocks)                                                                          \
    SHADE_KERNEL_AS(name, PW_FEAT_KINDS(F), WAVE_LIGHT(F), WAVE_SPHERES(F), min_blocks, WAVE_SPHERES(F))
#define SHADE_KERNEL_AS(name, kinds, light_mode, spheres, min_blocks, blockwise)                                      \
    __global__ void __launch_bounds__(WAVE_BLOCK, min_blocks)                                                      \
        name(pw_wave w, pw_scene_view v, pw_render_params prm, const uint32_t *params, uint32_t *sorted)           \
    {                                                                                                              \
        specialise(&v, &prm, light_mode, spheres);                                                                 \
        if (blockwise)                                                                                             \
            prm.split = 1;                                                                                         \
        pw_cuda_spheres_to_shared(&v);                                                                             \
        __shared__ uint32_t first[PW_WF_N_KEYS + 1];                                                               \
        sorted = lists_at(sorted, params[P_BOUNCE]);                                                               \
        if (sorted)                                                                                                \
            key_starts(&w, first);                                                                                 \
        uint32_t q = QUEUE(params), n = w.counters[PW_WF_RAYS], shadows = 0;                                       \
        if (blockwise) {                                                                                           \
            shadows = shade_blockwise(&w, &v, &prm, params, sorted, first, kinds);                                 \
        } else if (params[P_BOUNCE] == 0) {                                                                        \
            GRID_STRIDE(i, n)                                                                                      \
            shadows += pw_wf_shade_camera(&w, &v, &prm, i, params[0], params[2], params[1], kinds);               \
        } else {                                                                                                   \
            GRID_STRIDE(i, n)                                                                                      \
            shadows += pw_wf_shade(&w, &v, &prm, q, sorted ? sorted_item(&w, sorted, first, i) : i, kinds);        \
        }                                                                                                          \
        pw_wf_count(&w.counters[PW_WF_SHADOWS], shadows);                                                          \
    }
WAVE_SHADE_KERNELS(SHADE_KERNEL)

/* The connect list's paths (those with shadow rays), taken as extend
 * takes its rays (fetch). */
#define CONNECT_BODY(spheres)                                                                                      \
    {                                                                                                              \
        if (spheres)                                                                                               \
            v.n_tris = 0;                                                                                          \
        pw_cuda_spheres_to_shared(&v);                                                                             \
        uint32_t n = w.counters[PW_WF_TO_CONNECT];                                                                 \
        if (fetch) {                                                                                               \
            FETCH_32(i, n, &w.counters[PW_WF_FETCH_CONNECT])                                                       \
            pw_wf_connect(&w, &v, i);                                                                              \
        } else {                                                                                                   \
            GRID_STRIDE(i, n)                                                                                      \
            pw_wf_connect(&w, &v, i);                                                                              \
        }                                                                                                          \
    }
#define CONNECT_KERNEL(name, F, min_blocks)                                                                        \
    __global__ void __launch_bounds__(WAVE_BLOCK, min_blocks) name(pw_wave w, pw_scene_view v, uint32_t fetch)   \
        CONNECT_BODY(WAVE_SPHERES(F))
WAVE_CONNECT_KERNELS(CONNECT_KERNEL)

__global__ void k_gather(pw_wave w, pw_render_params prm, const uint32_t *params, float *sum)
{
    GRID_STRIDE(i, params[2])
    pw_wf_gather(&w, &prm, i, params[0], params[2], params[3], sum);
}

/* Gather for a split render: each pixel's children in child order
 * (pw_wf_gather_split), a kernel of its own so that k_gather stays as it
 * is without splitting. */
__global__ void k_gather_split(pw_wave w, pw_render_params prm, const uint32_t *params, float *sum)
{
    GRID_STRIDE(i, params[2])
    pw_wf_gather_split(&w, &prm, i, params[0], params[2], sum);
}

/* The last paths of a wave, run to their ends the megakernel's way: each
 * lane takes the next path of the tail's queue (one atomic a lane) and
 * runs it one bounce a pass (pw_path_step); a lane whose path ends takes
 * the next, so a warp does not idle while its last lanes finish (with a
 * path a thread, the tail's warps ran few of their 32 lanes on
 * bunnies-mixed:6, profiled). Every pass waits for all the warp's lanes,
 * so they
 * trace together, as in pw_path_trace_pool. */
__device__ static void finish_tail(const pw_wave *w, const pw_scene_view *v, const pw_render_params *prm, uint32_t q,
                                   uint32_t n, uint32_t *taken, uint32_t *ext, uint32_t *shadow, uint32_t kinds)
{
    uint32_t i = atomicAdd(taken, 1u);
    int active = i < n;
    pw_path p = active ? pw_wf_tail_begin(w, q, i) : pw_path_none();
    for (;;) {
        if (!__any_sync(0xffffffffu, active))
            return;
        if (!active || pw_path_step(v, prm, &p, kinds, ext, shadow))
            continue;
        pw_wf_tail_end(w, q, i, &p);
        i = atomicAdd(taken, 1u);
        active = i < n;
        if (active)
            p = pw_wf_tail_begin(w, q, i);
    }
}

/* Runs after k_advance (the bounce index already moved on), not after the
 * last bounce. Two variants, as for shade. The tail's paths are its
 * scene's longest, so fewer spills count for more than more warps: the
 * basic kernel is capped at 80 registers (6 blocks of 128 an SM), where
 * the megakernel takes 64 (against 64: faster on bunnies-mixed, the bunny
 * and cornell, the others within the noise; against 64 with the lanes
 * taking paths as theirs end: faster on cornell, the bunny and Sponza,
 * but slower on toy); the kernel for every kind at 128 (4 blocks; at 80
 * it spills heavily): faster on bunnies-mixed:6 and Veach, a little
 * slower on bunnies-mixed:16 and :64 (docs/PERFORMANCE.md). */
#define TAIL_KERNEL(name, F, min_blocks) TAIL_KERNEL_AS(name, PW_FEAT_KINDS(F), WAVE_LIGHT(F), WAVE_SPHERES(F), min_blocks)
#define TAIL_KERNEL_AS(name, kinds, light_mode, spheres, min_blocks)                                                  \
    __global__ void __launch_bounds__(WAVE_BLOCK, min_blocks)                                                      \
        name(pw_wave w, pw_scene_view v, pw_render_params prm, const uint32_t *params, unsigned long long *totals) \
    {                                                                                                              \
        specialise(&v, &prm, light_mode, spheres);                                                                 \
        uint32_t n = w.counters[PW_WF_TAIL];                                                                       \
        if (params[P_BOUNCE] > prm.max_depth || n == 0)                                                            \
            return;                                                                                                \
        pw_cuda_spheres_to_shared(&v);                                                                             \
        uint32_t ext = 0, shadow = 0;                                                                              \
        finish_tail(&w, &v, &prm, QUEUE(params), n, &w.counters[PW_WF_FETCH_TAIL], &ext, &shadow, kinds);          \
        uint32_t e = __reduce_add_sync(0xffffffffu, ext), s = __reduce_add_sync(0xffffffffu, shadow);            \
        if (threadIdx.x % 32u == 0u && (e || s)) {                                                                 \
            atomicAdd(&totals[0], (unsigned long long)e);                                                          \
            atomicAdd(&totals[1], (unsigned long long)s);                                                          \
        }                                                                                                          \
    }
WAVE_TAIL_KERNELS(TAIL_KERNEL)

/* Closes a bounce: counts its rays, makes the next queue current, or hands
 * it to k_finish_tail when it holds at most tail_max paths. In the graph it
 * also decides whether the WHILE node runs another bounce (loop is set). */
__global__ void k_advance(pw_wave w, unsigned long long *totals, uint32_t *log, uint32_t *params, uint32_t tail_max,
                          uint32_t max_depth, cudaGraphConditionalHandle loop_handle, int loop)
{
    uint32_t bounce = params[P_BOUNCE];
    uint32_t rays = w.counters[PW_WF_RAYS], shadows = w.counters[PW_WF_SHADOWS];
    /* Atomics: the waves of both slots add to these. */
    atomicAdd(&totals[0], (unsigned long long)rays);
    atomicAdd(&totals[1], (unsigned long long)shadows);
    if (bounce < PW_STATS_BOUNCES) {
        atomicAdd(&log[3 * bounce], rays);
        atomicAdd(&log[3 * bounce + 1], shadows);
    }
    uint32_t next = w.counters[PW_WF_NEXT];
    int tail = next <= tail_max;
    if (tail && bounce + 1u < PW_STATS_BOUNCES)
        atomicAdd(&log[3 * (bounce + 1u) + 2], next);
    w.counters[PW_WF_RAYS] = tail ? 0u : next;
    w.counters[PW_WF_TAIL] = tail ? next : 0u;
    w.counters[PW_WF_NEXT] = 0;
    w.counters[PW_WF_SHADOWS] = 0;
    w.counters[PW_WF_TO_CONNECT] = 0;
    w.counters[PW_WF_FETCH] = 0;
    w.counters[PW_WF_FETCH_CONNECT] = 0;
    for (int k = 0; k < PW_WF_N_KEYS; k++)
        w.counters[PW_WF_KEYS + k] = 0;
    params[P_BOUNCE] = bounce + 1u;
    if (loop)
        cudaGraphSetConditional(loop_handle, !tail && bounce + 1u <= max_depth);
}

/* Each stage's first kernel, in its list's order, whose mask covers the
 * render's features (the last of each list covers every render). */
#define WAVE_ENTRY(name, F, blocks) {(const void *)name, (uint32_t)(F)},
typedef struct wave_kernel {
    const void *fn;
    uint32_t features;
} wave_kernel;
static const void *wave_pick(const wave_kernel *list, size_t n, uint32_t need)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (pw_features_cover(list[i].features, need))
            return list[i].fn;
    return list[n - 1].fn;
}
#define WAVE_CAMERA_ENTRY(name, F, blocks) {(const void *)name##_camera, (uint32_t)(F)},

static void pick_wave_kernels(const pw_render_job *r, cuda_wave *cw)
{
    uint32_t need = pw_features_of(&r->view, &r->params);
    static const wave_kernel extend[] = {WAVE_EXTEND_KERNELS(WAVE_ENTRY)};
    static const wave_kernel extend_camera[] = {WAVE_EXTEND_KERNELS(WAVE_CAMERA_ENTRY)};
    static const wave_kernel shade[] = {WAVE_SHADE_KERNELS(WAVE_ENTRY)};
    static const wave_kernel connect[] = {WAVE_CONNECT_KERNELS(WAVE_ENTRY)};
    static const wave_kernel tail[] = {WAVE_TAIL_KERNELS(WAVE_ENTRY)};
#define WAVE_N(a) (sizeof a / sizeof a[0])
    cw->extend = (extend_kernel_fn)wave_pick(extend, WAVE_N(extend), need);
    cw->extend_camera = (extend_camera_kernel_fn)wave_pick(extend_camera, WAVE_N(extend_camera), need);
    cw->shade = (shade_kernel_fn)wave_pick(shade, WAVE_N(shade), need);
    cw->connect = (connect_kernel_fn)wave_pick(connect, WAVE_N(connect), need);
    cw->tail = (tail_kernel_fn)wave_pick(tail, WAVE_N(tail), need);
#undef WAVE_N
}

/* The blocks of `block` threads of kernel fn that the GPU holds at once. */
static pw_status resident_grid(const void *fn, int block, size_t smem, int sms, int *grid)
{
    int per_sm = 0;
    PW_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, smem));
    *grid = sms * (per_sm > 0 ? per_sm : 1);
    return PW_OK;
}

/* Whether shade takes its items in key order: when the scene's materials
 * are of more than one type and their shading differs enough in cost to
 * pay for the lists, that is, microfacet materials. Measured
 * (docs/PERFORMANCE.md): faster on bunnies-mixed (:6, :16, :64) and the
 * Veach MIS scene; but slower on toy (it gained before shading put its
 * shadow rays straight into the paths' records), and on toy-small (by
 * far) and rtiow, whose Lambert, metal and glass take a few instructions
 * each. */
static int shade_sorted(const pw_render_job *r)
{
    if (r->params.kinds != PW_KINDS_ALL)
        return 0;
    for (uint32_t i = 1; i < r->view.n_mats; i++)
        if (r->view.mats[i].type != r->view.mats[0].type)
            return 1;
    return 0;
}

/* How many waves run at once. Two, each with half the path slots: a
 * wave's late bounces and its tail run a few long paths on a GPU that is
 * mostly idle, and the other slot's wave fills it. Frames of several
 * waves, measured against one slot: faster on toy-small and rtiow; at
 * 4 spp a frame at 1080p, faster on the Cornell box, Veach and the bunny,
 * Sponza and bunnies-mixed:6 within the noise, bunnies-mixed:16 slower
 * (docs/PERFORMANCE.md). One where the stage
 * statistics time each stage (their events would time both waves'
 * kernels), where half of cap (the paths in flight) would not hold a
 * split path's children or would be under 1,024, and with
 * PATHWAVE_WAVE_SLOTS=1 (for comparisons). */
static int wave_slots(const pw_render_job *r, uint32_t cap)
{
    if (r->tuning.wave_slots == 1 || r->settings.stage_stats || cap / 2u < r->params.split || cap < 2048u)
        return 1;
    return WAVE_SLOTS;
}

/* Whether a frame that one wave would hold runs as two half waves, one a
 * slot, that overlap. Measured (docs/PERFORMANCE.md, frames of one wave:
 * toy's 4 spp, 1080p at 1 spp): faster on toy and the Cornell box; but
 * slower on bunnies-mixed (:6, :16, :64), Veach and the bunny, Sponza
 * within the noise. A half wave costs a whole one's latency (its
 * late bounces wait on their slowest walks, its tail on its longest
 * chain: two halves one after the other measured far slower on
 * bunnies-mixed:6 and the bunny), and the overlap did not win that back
 * on any scene
 * measured with microfacet materials or with more than 60K triangles. So:
 * the basic material kinds and at most 4,096 triangles.
 * PATHWAVE_WAVE_HALVE=0 or 1 decides instead, for comparisons. */
static int halve_frames(const pw_render_job *r)
{
    if (r->tuning.wave_halve != PW_TUNING_AUTO)
        return r->tuning.wave_halve;
    return r->params.kinds == PW_KINDS_BASIC && r->view.n_tris <= 4096u;
}

/* A slot's path state for cap paths, its shading lists where shade sorts,
 * its parameters and its stream. */
static pw_status slot_setup(pw_render_job *r, wave_slot *s, uint32_t cap, uint32_t per, int sort)
{
    size_t bytes = pw_wave_bytes(cap, per);
    cudaError_t e = cudaMalloc(&s->mem, bytes);
    if (e != cudaSuccess)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "CUDA: cannot allocate %.0f MiB of device memory for %u wavefront paths: %s",
                       bytes / 1048576.0, cap, cudaGetErrorString(e));
    pw_wave_carve(&s->w, s->mem, cap, per);
    if (sort) {
        e = cudaMalloc((void **)&s->d_sorted, (size_t)PW_WF_N_KEYS * cap * sizeof(uint32_t));
        if (e != cudaSuccess)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "CUDA: cannot allocate %.0f MiB of device memory for the shading lists: %s",
                           PW_WF_N_KEYS * cap * 4.0 / 1048576.0, cudaGetErrorString(e));
        bytes += (size_t)PW_WF_N_KEYS * cap * sizeof(uint32_t);
    }
    PW_CUDA_TRY(cudaMemset(s->w.counters, 0, PW_WF_COUNTERS * sizeof(uint32_t)));
    PW_CUDA_TRY(cudaMalloc((void **)&s->d_params, N_PARAMS * sizeof(uint32_t)));
    r->stats.device_bytes += bytes + N_PARAMS * sizeof(uint32_t);
    PW_CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    return PW_OK;
}

static pw_status wave_setup(pw_render_job *r, cuda_state *c)
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
    int sort = shade_sorted(r);
    size_t fit = free_b / 2 / (pw_wave_bytes_per_path(per) + (sort ? PW_WF_N_KEYS * sizeof(uint32_t) : 0));
    uint32_t want = pw_wave_wanted_paths(npix, split, WAVE_MAX_PATHS);
    uint32_t cap = want < fit ? want : (uint32_t)fit;
    if (fit < 1024)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "CUDA: too little device memory for the wavefront's path state (%.0f MiB free)",
                       free_b / 1048576.0);
    uint32_t limit = (uint32_t)r->settings.wave_paths; /* paths in flight, both slots together */
    if (limit > 0 && limit < cap)
        cap = limit;
    if (cap < split)
        cap = split;
    cw->n_slots = wave_slots(r, cap);
    cw->halve = cw->n_slots > 1 && halve_frames(r);
    cap /= (uint32_t)cw->n_slots;
    for (int k = 0; k < cw->n_slots; k++) {
        pw_status st = slot_setup(r, &cw->slot[k], cap, per, sort);
        if (st != PW_OK)
            return st;
    }
    PW_CUDA_TRY(cudaMalloc((void **)&cw->d_totals, 2 * sizeof(unsigned long long)));
    PW_CUDA_TRY(cudaMalloc((void **)&cw->d_log, 3 * PW_STATS_BOUNCES * sizeof(uint32_t)));
    PW_CUDA_TRY(cudaMemset(cw->d_log, 0, 3 * PW_STATS_BOUNCES * sizeof(uint32_t)));
    r->stats.device_bytes += 2 * sizeof(unsigned long long) + 3 * PW_STATS_BOUNCES * sizeof(uint32_t);
    PW_CUDA_TRY(cudaEventCreateWithFlags(&cw->started, cudaEventDisableTiming));
    PW_CUDA_TRY(cudaEventCreateWithFlags(&cw->gathered, cudaEventDisableTiming));
    PW_CUDA_TRY(cudaEventCreateWithFlags(&cw->done, cudaEventDisableTiming));
    int dev, sms;
    PW_CUDA_TRY(cudaGetDevice(&dev));
    PW_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t smem = pw_cuda_flat_bytes(&c->scene.view);
    pick_wave_kernels(r, cw);
    /* Without light sampling there is never a shadow ray to trace:
     * connect is not launched at all (bunnies-mixed, lit by an unsampled
     * sky, launched eight empty grids a frame). */
    cw->connects = pw_wave_casts_shadows(&r->view, r->params.light_mode);
    /* Rays through a mesh's BVH differ in cost from ray to ray, so a
     * grid-stride loop, which deals every warp the same share, waits on
     * the warps whose rays were dear; k_extend's (and k_connect's) warps
     * instead take the next 32 rays as soon as their last 32 are done (one
     * atomic a warp), measured for extend: faster on bunnies-mixed:16,
     * a little on cornell and sponza, the bunny unchanged. Rays through
     * spheres in shared memory cost alike (slower on toy: not used). */
    cw->fetch = r->view.n_tris > 0;
    pw_status st;
    if ((st = resident_grid((const void *)cw->extend, WAVE_BLOCK, smem, sms, &cw->g_extend)) != PW_OK ||
        (st = resident_grid((const void *)cw->extend_camera, WAVE_BLOCK, smem, sms, &cw->g_extend_camera)) != PW_OK ||
        (st = resident_grid((const void *)cw->shade, WAVE_BLOCK, smem, sms, &cw->g_shade)) != PW_OK ||
        (st = resident_grid((const void *)cw->connect, WAVE_BLOCK, smem, sms, &cw->g_connect)) != PW_OK ||
        (st = resident_grid((const void *)cw->tail, WAVE_BLOCK, smem, sms, &cw->g_tail)) != PW_OK ||
        (st = resident_grid(r->params.split > 1 ? (const void *)k_gather_split : (const void *)k_gather, WAVE_BLOCK,
                            0, sms, &cw->g_gather)) != PW_OK)
        return st;
    /* A queue that holds few paths for each thread the GPU holds at once
     * cannot hide a stage's latency, and each bounce waits for its
     * slowest paths, so from there on paths are finished in one kernel,
     * each lane taking the queue's next path as its last one ends
     * (finish_tail). The tail takes queues of up to 5 paths for each of
     * its resident threads, measured against 1, 2, 3,
     * 7.5, 10 and 15 (docs/PERFORMANCE.md). Against the tail before (a
     * path a thread, queues of up to 1 path a thread): faster on every
     * scene but Veach (a little slower), most on Sponza, toy and the
     * bunny. Larger tails

     * gained more on the sphere scenes and the Cornell box but lost on the
     * Veach scene and bunnies-mixed:64. PATHWAVE_WAVE_TAIL=N sets the
     * largest queue so finished (0: never), for comparisons. */
    cw->tail_max = r->tuning.wave_tail != PW_TUNING_AUTO ? (uint32_t)r->tuning.wave_tail
                                                         : 5u * (uint32_t)cw->g_tail * WAVE_BLOCK;

    if (r->settings.stage_stats) {
        cw->n_ev = (PW_STAGE_COUNT + 1) * (int)(r->params.max_depth + 2);
        cw->ev = (cudaEvent_t *)calloc((size_t)cw->n_ev, sizeof *cw->ev);
        if (!cw->ev)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
        for (int i = 0; i < cw->n_ev; i++)
            PW_CUDA_TRY(cudaEventCreate(&cw->ev[i]));
    }
    /* The slots' streams do not wait for the legacy default stream, where
     * the image and these buffers were cleared: let those finish first. */
    PW_CUDA_TRY(cudaDeviceSynchronize());
    return PW_OK;
}

/* Event k of bounce b, when stage statistics are on. */
#define EV(b, k) (cw->ev[(b) * (PW_STAGE_COUNT + 1) + (k)])

/* Adds the stage times of a wave's bounces to the statistics: event k of a
 * bounce is recorded just before stage k (event 4 before the kernel that
 * closes the bounce and the tail kernel's launch), event 5 after them
 * (and event 0 of bounce 0 before generate). The tail's time goes to the
 * bounce whose queue it takes, the next one. */
static pw_status record_stage_times(pw_render_job *r, cuda_wave *cw, uint32_t bounces, uint32_t n)
{
    PW_CUDA_TRY(cudaEventSynchronize(EV(bounces - 1, PW_STAGE_COUNT)));
    float ms = 0.0f;
    PW_CUDA_TRY(cudaEventElapsedTime(&ms, EV(0, 0), EV(0, 1)));
    pw_stage_record(r, 0, PW_STAGE_GENERATE, ms * 1e-3, n);
    for (uint32_t b = 0; b < bounces; b++)
        for (int k = PW_STAGE_EXTEND; k < PW_STAGE_COUNT; k++) {
            PW_CUDA_TRY(cudaEventElapsedTime(&ms, EV(b, k), EV(b, k + 1)));
            pw_stage_record(r, k == PW_STAGE_TAIL ? b + 1 : b, k, ms * 1e-3, 0);
        }
    return PW_OK;
}

#define STEP(call)                    \
    do {                              \
        call;                         \
        if ((e = cudaGetLastError())) \
            return e;                 \
    } while (0)
/* A runtime call whose own result says whether it worked. */
#define CALL(call)                           \
    do {                                     \
        if ((e = (call)) != cudaSuccess)     \
            return e;                        \
    } while (0)

static cudaError_t launch_generate(wave_slot *s)
{
    cudaError_t e = cudaSuccess;
    STEP((k_generate<<<1, WAVE_BLOCK, 0, s->stream>>>(s->w, s->d_params)));
    return e;
}

/* One bounce's kernels on the slot's stream; with events, each stage is
 * marked (record_stage_times). In the graph, loop_handle is the WHILE
 * node's condition. */
static cudaError_t launch_bounce(pw_render_job *r, cuda_state *c, wave_slot *s, int events, uint32_t b,
                                 cudaGraphConditionalHandle loop_handle, int loop)
{
    cuda_wave *cw = c->wave;
    cudaStream_t st = s->stream;
    size_t smem = pw_cuda_flat_bytes(&c->scene.view);
    cudaError_t e = cudaSuccess;
#define MARK(k)                                      \
    do {                                             \
        if (events)                                  \
            STEP(cudaEventRecord(EV(b, k), st));     \
    } while (0)
    MARK(1);
    if (b == 0)
        STEP((cw->extend_camera<<<cw->g_extend_camera, WAVE_BLOCK, smem, st>>>(s->w, c->scene.view, r->params,
                                                                             s->d_params, cw->fetch)));
    else
        STEP((cw->extend<<<cw->g_extend, WAVE_BLOCK, smem, st>>>(s->w, c->scene.view, s->d_params, s->d_sorted,
                                                               cw->fetch)));
    MARK(2);
    STEP((cw->shade<<<cw->g_shade, WAVE_BLOCK, smem, st>>>(s->w, c->scene.view, r->params, s->d_params,
                                                           s->d_sorted)));
    MARK(3);
    if (cw->connects)
        STEP((cw->connect<<<cw->g_connect, WAVE_BLOCK, smem, st>>>(s->w, c->scene.view, cw->fetch)));
    MARK(4);
    STEP((k_advance<<<1, 1, 0, st>>>(s->w, cw->d_totals, cw->d_log, s->d_params, cw->tail_max, r->params.max_depth,
                                     loop_handle, loop)));
    if (cw->tail_max > 0)
        STEP((cw->tail<<<cw->g_tail, WAVE_BLOCK, smem, st>>>(s->w, c->scene.view, r->params, s->d_params,
                                                           cw->d_totals)));
    MARK(5);
#undef MARK
    return e;
}

/* Adds the wave's paths to the image, after the wave before it has (the
 * two slots' waves may hold samples of the same pixels), so that a
 * pixel's samples are added in sample order, split renders' too. */
static cudaError_t launch_gather(pw_render_job *r, cuda_state *c, wave_slot *s)
{
    cuda_wave *cw = c->wave;
    cudaError_t e = cudaSuccess;
    CALL(cudaStreamWaitEvent(s->stream, cw->gathered, 0));
    if (r->params.split > 1)
        STEP((k_gather_split<<<cw->g_gather, WAVE_BLOCK, 0, s->stream>>>(s->w, r->params, s->d_params, c->d_sum)));
    else
        STEP((k_gather<<<cw->g_gather, WAVE_BLOCK, 0, s->stream>>>(s->w, r->params, s->d_params, c->d_sum)));
    CALL(cudaEventRecord(cw->gathered, s->stream));
    return e;
}

/* One wave launched kernel by kernel, every bounce up to max_depth (those
 * without paths return at once): for stage statistics (with events), and
 * without the graph (PATHWAVE_WAVE_GRAPH=0: compute-sanitizer's racecheck
 * does not run graphs with conditional nodes, and it measures the graph's
 * gain). */
static cudaError_t launch_wave_unrolled(pw_render_job *r, cuda_state *c, wave_slot *s, int events)
{
    cuda_wave *cw = c->wave;
    cudaError_t e;
    if (events && (e = cudaEventRecord(EV(0, 0), s->stream)) != cudaSuccess)
        return e;
    if ((e = launch_generate(s)) != cudaSuccess)
        return e;
    for (uint32_t b = 0; b <= r->params.max_depth; b++)
        if ((e = launch_bounce(r, c, s, events, b, 0, 0)) != cudaSuccess)
            return e;
    return cudaSuccess;
}

typedef cudaError_t (*slot_launch_fn)(pw_render_job *, cuda_state *, wave_slot *);

/* Captures the slot's stream work into graph g after the node dep (none
 * when NULL); returns the last node added. */
static cudaError_t capture_into(wave_slot *s, cudaGraph_t g, const cudaGraphNode_t *dep, pw_render_job *r,
                                cuda_state *c, slot_launch_fn launch, cudaGraphNode_t *last)
{
    cudaStream_t st = s->stream;
    cudaError_t e = cudaStreamBeginCaptureToGraph(st, g, dep, NULL, dep ? 1 : 0, cudaStreamCaptureModeThreadLocal);
    if (e != cudaSuccess)
        return e;
    cudaError_t launched = launch(r, c, s);
    const cudaGraphNode_t *deps = NULL;
    size_t n = 0;
    cudaStreamCaptureStatus cs;
    if (launched == cudaSuccess)
        launched = cudaStreamGetCaptureInfo(st, &cs, NULL, NULL, &deps, NULL, &n);
    if (launched == cudaSuccess && last)
        *last = n ? deps[0] : NULL;
    e = cudaStreamEndCapture(st, &g);
    return launched != cudaSuccess ? launched : e;
}

/* What the graph runs before its loop: generate and bounce 0, whose
 * k_advance sets the loop's condition (k_extend_camera runs there only). */
static cudaError_t launch_first_bounce(pw_render_job *r, cuda_state *c, wave_slot *s)
{
    cudaError_t e = launch_generate(s);
    return e != cudaSuccess ? e : launch_bounce(r, c, s, 0, 0, s->loop_handle, 1);
}

/* The loop's body: any bounce after the first. */
static cudaError_t launch_next_bounce(pw_render_job *r, cuda_state *c, wave_slot *s)
{
    return launch_bounce(r, c, s, 0, 1, s->loop_handle, 1);
}

/* Builds the slot's graph: generate -> bounce 0 -> WHILE (one bounce).
 * Gather stays outside it, to wait for the other slot's gather. */
static pw_status build_graph(pw_render_job *r, cuda_state *c, wave_slot *s)
{
    cudaGraph_t g = NULL;
    cudaGraphNode_t first = NULL, loop = NULL;
    PW_CUDA_TRY(cudaGraphCreate(&g, 0));
    /* The handle comes first: bounce 0's k_advance sets it, and the WHILE
     * node then runs while the last bounce's k_advance left it set. */
    cudaError_t e = cudaGraphConditionalHandleCreate(&s->loop_handle, g, 0, cudaGraphCondAssignDefault);
    if (e == cudaSuccess)
        e = capture_into(s, g, NULL, r, c, launch_first_bounce, &first);
    cudaGraphNodeParams cp = {cudaGraphNodeTypeConditional, {0, 0, 0}, {{0}}, 0};
    cp.conditional.handle = s->loop_handle;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    if (e == cudaSuccess)
        e = cudaGraphAddNode(&loop, g, &first, NULL, 1, &cp);
    if (e == cudaSuccess)
        e = capture_into(s, cp.conditional.phGraph_out[0], NULL, r, c, launch_next_bounce, NULL);
    if (e == cudaSuccess)
        e = cudaGraphInstantiate(&s->graph, g, 0);
    cudaGraphDestroy(g);
    PW_CUDA_TRY(e);
    return PW_OK;
}
#undef STEP

static pw_status run_wave(pw_render_job *r, cuda_state *c, wave_slot *s, uint32_t first, uint32_t pixels,
                          uint32_t sample, uint32_t samples)
{
    cuda_wave *cw = c->wave;
    k_set_wave<<<1, 1, 0, s->stream>>>(s->d_params, first, sample, pixels, samples);
    PW_CUDA_LAUNCH_CHECK("k_set_wave");
    if (s->graph)
        PW_CUDA_TRY(cudaGraphLaunch(s->graph, s->stream));
    else
        PW_CUDA_TRY(launch_wave_unrolled(r, c, s, cw->ev != NULL));
    PW_CUDA_TRY(launch_gather(r, c, s));
    r->gpu_waves[s - cw->slot]++;
    if (!cw->ev)
        return PW_OK;
    return record_stage_times(r, cw, r->params.max_depth + 1, pixels * samples);
}

/* Waits for every slot's stream after an error, so that nothing still
 * writes the image or the counters when the caller reads or frees them;
 * the error being returned already says what failed, so the runtime's
 * last error is cleared rather than left for the next call to report. */
static void sync_slots(cuda_wave *cw)
{
    for (int k = 0; k < cw->n_slots; k++)
        cudaStreamSynchronize(cw->slot[k].stream);
    (void)cudaGetLastError();
}

/* Slot 0's stream waits for the other slots' last waves: the frame ends
 * there. */
static pw_status join_slots(cuda_wave *cw)
{
    for (int k = 1; k < cw->n_slots; k++) {
        PW_CUDA_TRY(cudaEventRecord(cw->done, cw->slot[k].stream));
        PW_CUDA_TRY(cudaStreamWaitEvent(cw->slot[0].stream, cw->done, 0));
    }
    return PW_OK;
}

/* The frame's waves, taken by the slots in turn. Where cw->halve says so,
 * a frame's last round of samples, when it is one wave of every pixel
 * that would go to the first slot, is cut into two: a frame of one wave,
 * and the last round of an odd number of them (rtiow's 4 + 4 + 2 samples,
 * measured so). The cut falls on a multiple of 4 rows
 * (pw_wave_half_pixels), so both halves still send their camera rays out
 * in tiles (pw_wf_tiled). Ctrl-C is honoured between waves of whole
 * samples, so every pixel keeps the same sample count (the device keeps
 * one count for all). */
static pw_status run_waves(pw_render_job *r, cuda_state *c, int spp)
{
    cuda_wave *cw = c->wave;
    uint32_t npix = r->params.width * r->params.height;
    int next = 0;
    for (uint32_t s = 0; s < (uint32_t)spp && !r->cancel;) {
        uint32_t per_wave, samples;
        pw_wave_plan(cw->slot[0].w.cap, npix, r->params.split, (uint32_t)spp - s, &per_wave, &samples);
        /* Split children take fixed slots past their parents' (pw_wf_child_slot): a wave with no room
         * for them would write past the path state. */
        if (!pw_wf_split_fits(&cw->slot[0].w, r->params.split, per_wave)) {
            sync_slots(cw);
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "a wave of %u paths has no slots for their children (split %u)",
                           per_wave, r->params.split);
        }
        if (cw->halve && per_wave >= npix && s + samples >= (uint32_t)spp && next == 0)
            per_wave = pw_wave_half_pixels(r->params.width, r->params.height);
        for (uint32_t first = 0; first < npix; first += per_wave) {
            uint32_t n = npix - first < per_wave ? npix - first : per_wave;
            pw_status st = run_wave(r, c, &cw->slot[next], first, n, c->samples_done, samples);
            if (st != PW_OK) {
                sync_slots(cw);
                return st;
            }
            next = (next + 1) % cw->n_slots;
        }
        c->samples_done += samples;
        r->stats.samples += (uint64_t)npix * samples;
        r->stats.camera_rays += (uint64_t)npix * samples;
        s += samples;
    }
    return PW_OK;
}

extern "C" pw_status pw_cuda_wave_render(pw_render_job *r, int spp)
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
    for (int k = 0; k < cw->n_slots; k++)
        if (!cw->ev && !cw->slot[k].graph && r->tuning.wave_graph) {
            pw_status st = build_graph(r, c, &cw->slot[k]);
            if (st != PW_OK)
                return st;
        }
    cudaStream_t lead = cw->slot[0].stream; /* where the frame starts and ends */
    uint64_t camera_before = r->stats.camera_rays;
    PW_CUDA_TRY(cudaMemsetAsync(cw->d_totals, 0, 2 * sizeof(unsigned long long), lead));
    PW_CUDA_TRY(cudaEventRecord(c->ev_start, lead));
    PW_CUDA_TRY(cudaEventRecord(cw->started, lead));
    for (int k = 1; k < cw->n_slots; k++)
        PW_CUDA_TRY(cudaStreamWaitEvent(cw->slot[k].stream, cw->started, 0));
    unsigned long long totals[2];
    pw_status st = run_waves(r, c, spp);
    if (st == PW_OK)
        st = join_slots(cw);
    if (st == PW_OK)
        st = pw_cuda_finish_frame(r, c, lead, cw->d_totals, totals);
    if (st != PW_OK) {
        sync_slots(cw);
        return st;
    }
    r->stats.bounce_rays += totals[0] - (r->stats.camera_rays - camera_before);
    r->stats.shadow_rays += totals[1];
    if (cw->ev) {
        uint32_t log[3 * PW_STATS_BOUNCES];
        PW_CUDA_TRY(cudaMemcpy(log, cw->d_log, sizeof log, cudaMemcpyDeviceToHost));
        PW_CUDA_TRY(cudaMemsetAsync(cw->d_log, 0, sizeof log, lead));
        for (uint32_t b = 0; b < PW_STATS_BOUNCES; b++) {
            pw_stage_record(r, b, PW_STAGE_EXTEND, 0.0, log[3 * b]);
            pw_stage_record(r, b, PW_STAGE_SHADE, 0.0, log[3 * b]);
            pw_stage_record(r, b, PW_STAGE_CONNECT, 0.0, log[3 * b + 1]);
            pw_stage_record(r, b, PW_STAGE_TAIL, 0.0, log[3 * b + 2]);
        }
    }
    return r->cancel ? pw_fail(PW_ERR_INTERRUPTED, "render interrupted") : PW_OK;
}

void pw_cuda_wave_free(cuda_state *c)
{
    cuda_wave *cw = c->wave;
    if (!cw)
        return;
    for (int k = 0; k < WAVE_SLOTS; k++) {
        wave_slot *s = &cw->slot[k];
        cudaFree(s->mem);
        cudaFree(s->d_params);
        cudaFree(s->d_sorted);
        if (s->graph)
            cudaGraphExecDestroy(s->graph);
        if (s->stream)
            cudaStreamDestroy(s->stream);
    }
    cudaFree(cw->d_totals);
    cudaFree(cw->d_log);
    if (cw->started)
        cudaEventDestroy(cw->started);
    if (cw->gathered)
        cudaEventDestroy(cw->gathered);
    if (cw->done)
        cudaEventDestroy(cw->done);
    for (int i = 0; i < cw->n_ev; i++)
        cudaEventDestroy(cw->ev[i]);
    free(cw->ev);
    free(cw);
    c->wave = NULL;
}
