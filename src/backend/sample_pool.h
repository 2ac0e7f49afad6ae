/* The megakernels' scheduler, shared by the CPU's and the GPU's: paths
 * drawn from a pool of samples, each run bounce after bounce through the
 * stages (integrator/path.h), with path regeneration, the GPU's streams
 * of tiles and the warp-level dealing of shadow rays. What a path does is
 * the stages'; this file only decides which path runs where and when. */
#ifndef PW_SAMPLE_POOL_H
#define PW_SAMPLE_POOL_H

#include "integrator/path.h"

/* A shadow ray handed from lane to lane (pw_trace_shadows). 28 bytes, so
 * that 32 lanes reading one each touch 32 different banks. */
typedef struct pw_shadow_slot {
    pw_ray ray;
    float tmax;
} pw_shadow_slot;
PW_SIZE_CHECK(pw_shadow_slot, 28);

/* A pool of path samples that the lanes of one worker draw from: every
 * sample of a rectangle of pixels, 2^w_log2 wide and 2^n_log2 pixels in
 * all, item i being sample first + (i >> n_log2) of pixel i mod 2^n_log2
 * (row-major in the rectangle), so items go out sample by sample; items of
 * pixels outside the image are skipped. Each finished item's radiance goes
 * to radiance[i]; whoever owns a pixel adds its samples up afterwards, in
 * sample order. (Powers of two: integer division is a long instruction
 * sequence on the GPU, and it was a notable share of toy-small's
 * instructions; docs/PERFORMANCE.md.)
 *
 * Why: a GPU warp used to give each lane one pixel's samples, so it ran
 * until the lane with the longest paths was done; a profile found
 * toy-small's warps tracing far more rays than their average lane
 * (docs/PERFORMANCE.md). With a pool a lane whose path ends takes the
 * warp's next unstarted sample, of whichever pixel, and the warp waits
 * only for the last paths begun. On the CPU a pool is one pixel and the
 * same code runs (pw_path_trace_pixel). */
typedef struct pw_sample_pool {
    uint32_t x0, y0, w_log2, n_log2; /* the pixels */
    uint32_t first, spp;             /* the samples of each */
    uint32_t *next;                  /* items handed out (GPU: shared by the warp, or the block) */
    pw_vec3 *radiance;               /* per item (a stream: per sample of the launch, or NULL) */
    pw_shadow_slot *shadow_slots;    /* GPU: 32 a warp, for pw_trace_shadows; host: NULL */
    /* GPU only, a stream of tiles (NULL ring: the one tile above). */
    uint32_t *ring;      /* the warp's last four tiles' origins (x | y << 16), in shared memory */
    uint32_t *next_tile; /* tiles of the frame handed out so far, in device memory */
    uint32_t n_tiles, tiles_x, items_log2;
    float *sum;          /* the image, where one sample a pixel a launch is added at once */
    /* 1 where every pixel of the rectangle lies inside the image, so that
     * items need no test (GPU tiles: on toy-small the test cost each new
     * path about 17 instructions); 0 tests each item. */
    uint32_t whole;
} pw_sample_pool;

/* What pw_pool_next returns when the pool is empty. */
#define PW_POOL_DONE 0xffffffffu

/* Traces a lane's shadow rays sh[0 .. n) and adds the contributions of
 * the unoccluded ones to *L, in order. On the GPU, given slots (32 in the
 * warp's shared memory), every lane of the warp must call it together: the
 * warp's shadow rays are dealt out one a lane, 32 at a time, so that a
 * warp where 12 lanes made 2 rays each traces once at 24 lanes instead of
 * twice at 12 (toy's estimator casts a ray to each sphere light at each
 * Lambert hit, and a metal or glass hit casts none). Each lane then adds
 * its own rays' contributions in its own order, so the sums are the same
 * as ray by ray. Without slots (the host; a pool without them) each lane
 * traces its own. The CUDA megakernel gives slots to its toy kernels over
 * the sphere list and the BVH only: the estimators that cast at most one
 * shadow ray a hit have nothing to deal out, and over the sphere groups
 * (the toy scene) shadow rays are cheap through their lights' direction
 * maps (accel/sphere_dirmap.h), where dealing them, a gain on toy before
 * the maps, became a loss (docs/PERFORMANCE.md). The loops stay rolled:
 * unrolled, they pushed the kernel past the instruction cache and lost
 * what the dealing gained. */
PW_HD void pw_trace_shadows(const pw_scene_view *s, const pw_shadow_ray *sh, int n, pw_vec3 *L,
                            pw_shadow_slot *slots)
{
#if PW_DEVICE_CODE
    if (slots) {
        uint32_t lane = pw_lane_id();
        int total = (int)__reduce_add_sync(0xffffffffu, (unsigned)n), first = n;
        for (uint32_t d = 1; d < 32u; d <<= 1) { /* inclusive scan of n over the lanes */
            int below = __shfl_up_sync(0xffffffffu, first, d);
            if (lane >= d)
                first += below;
        }
        first -= n; /* this lane's rays are first .. first + n - 1 of the warp's */
        PW_NO_UNROLL
        for (int base = 0; base < total; base += 32) {
            PW_NO_UNROLL
            for (int k = 0; k < n; k++) {
                uint32_t g = (uint32_t)(first + k - base);
                if (g < 32u) {
                    slots[g].ray = sh[k].ray;
                    slots[g].tmax = sh[k].tmax;
                }
            }
            __syncwarp();
            int blocked = 0;
            if (base + (int)lane < total) {
                pw_shadow_slot q = slots[lane];
                pw_hit h;
                blocked = pw_trace(s, q.ray, s->t_min, q.tmax, 1, &h);
            }
            uint32_t verdicts = __ballot_sync(0xffffffffu, blocked);
            PW_NO_UNROLL
            for (int k = 0; k < n; k++) {
                uint32_t g = (uint32_t)(first + k - base);
                if (g < 32u && !(verdicts >> g & 1u))
                    *L = v3_add_rn(*L, sh[k].contrib);
            }
            __syncwarp();
        }
        return;
    }
#endif
    (void)slots;
    pw_path_connect(s, sh, n, L);
}

/* The most items one tile's pool holds (callers go through longer runs of
 * samples in pieces; a GPU block pool holds its warps' tiles together). */
#define PW_POOL_ITEMS 512

PW_HD uint32_t pw_pool_take(const pw_sample_pool *pool)
{
#if PW_DEVICE_CODE
    return atomicAdd(pool->next, 1u);
#else
    return (*pool->next)++;
#endif
}

/* The pixel of item i. */
PW_HD uint32_t pw_pool_x(const pw_sample_pool *pool, uint32_t i)
{
    return pool->x0 + (i & ((1u << pool->w_log2) - 1u));
}

PW_HD uint32_t pw_pool_y(const pw_sample_pool *pool, uint32_t i)
{
    return pool->y0 + ((i & ((1u << pool->n_log2) - 1u)) >> pool->w_log2);
}

/* The path of item i. */
PW_HD pw_path pw_pool_begin(const pw_scene_view *s, const pw_render_params *prm, const pw_sample_pool *pool,
                            uint32_t i)
{
#if PW_DEVICE_CODE
    if (pool->ring)
        return pw_path_begin(s, prm, i & 0x7fffu, i >> 15 & 0x7fffu, pool->first + (i >> 30));
#endif
    return pw_path_begin(s, prm, pw_pool_x(pool, i), pw_pool_y(pool, i), pool->first + (i >> pool->n_log2));
}

#ifdef __CUDACC__
/* A stream of tiles: persistent warps take the frame's tiles one after
 * another (one global atomic a tile), and a lane whose path ends takes the
 * next sample of its warp's current tile or, that one given out, of the
 * next: the warp never waits for a tile's last paths. Its items count on
 * across its tiles: item i is item i mod 2^items_log2 of the warp's tile
 * i >> items_log2, whose origin the lane that took the 32nd item from the
 * end of the tile before fetched. A warp takes at most 32 items a pass (its
 * lanes one each: the image is whole tiles, none is skipped) and a tile
 * has at least 32, so that fetch is a pass ahead of any use of it, and the
 * four-entry ring is not overwritten while read. Fetched at a tile's first
 * item, tiles waited reserved while their warps finished the one before,
 * and at the end of a frame SMs idled while others ran them
 * (docs/PERFORMANCE.md). */
__device__ static inline uint32_t pw_pool_fetch_tile(const pw_sample_pool *pool)
{
    uint32_t t = atomicAdd(pool->next_tile, 1u), h_log2 = pool->n_log2 - pool->w_log2;
    return t < pool->n_tiles ? (t % pool->tiles_x) << pool->w_log2 | (t / pool->tiles_x) << h_log2 << 16
                             : PW_POOL_DONE;
}

/* A stream's next item, as its pixel and sample: x | y << 15 | sample << 30
 * (a stream's image is whole tiles, so no item falls outside it). */
__device__ static inline uint32_t pw_pool_next_streamed(const pw_sample_pool *pool)
{
    uint32_t i = pw_pool_take(pool), t = i >> pool->items_log2, j = i & ((1u << pool->items_log2) - 1u);
    if (j == (1u << pool->items_log2) - 32u)
        pool->ring[(t + 1u) & 3u] = pw_pool_fetch_tile(pool);
    uint32_t o = pool->ring[t & 3u];
    if (o == PW_POOL_DONE)
        return PW_POOL_DONE;
    uint32_t x = (o & 0xffffu) + (j & ((1u << pool->w_log2) - 1u));
    uint32_t y = (o >> 16) + ((j & ((1u << pool->n_log2) - 1u)) >> pool->w_log2);
    return x | y << 15 | (j >> pool->n_log2) << 30;
}
#endif

/* The next item of a pixel inside the image, PW_POOL_DONE past the last item. */
PW_HD uint32_t pw_pool_next(const pw_sample_pool *pool, const pw_render_params *prm)
{
#if PW_DEVICE_CODE
    if (pool->ring)
        return pw_pool_next_streamed(pool);
#endif
    uint32_t n_items = pool->spp << pool->n_log2, i = pw_pool_take(pool);
    if (!pool->whole)
        while (i < n_items && (pw_pool_x(pool, i) >= prm->width || pw_pool_y(pool, i) >= prm->height))
            i = pw_pool_take(pool);
    return i < n_items ? i : PW_POOL_DONE;
}

/* Item i's radiance, where its pixel's owner will add it (a stream: the
 * launch's samples by sample and pixel, or with one sample a pixel the
 * image itself). */
PW_HD void pw_pool_store(const pw_sample_pool *pool, const pw_render_params *prm, uint32_t i, pw_vec3 L)
{
#if PW_DEVICE_CODE
    if (pool->ring) {
        uint32_t pixel = (i >> 15 & 0x7fffu) * prm->width + (i & 0x7fffu);
        if (pool->sum) /* the pixel's only sample this launch: one addition, as pw_path_accumulate's */
            pw_pixel_add_atomic(pool->sum, pixel, L);
        else
            pool->radiance[(i >> 30) * prm->width * prm->height + pixel] = L;
        return;
    }
#endif
    (void)prm;
    pool->radiance[i] = L;
}

/* Draws items from pool until it is empty and traces each sample's path,
 * each split into `split` children at its first hit (callers pass 1 or
 * prm->split: with a literal 1 the compiler drops the splitting code, which
 * otherwise costs registers on the GPU even when unused), with materials of
 * kinds (likewise a literal): what the CPU and CUDA megakernels run (but
 * the CUDA kernel of the sphere list without light sampling, which takes
 * the same steps in a loop of its own: backend/cuda/cuda_camera_batch.h).
 * On the GPU every lane of the warp (or of the block, for a block's pool)
 * calls it with the same pool.
 *
 * Path regeneration: when a path ends, the next pass of the loop begins
 * the next item, so on the GPU a lane whose path died early starts a new
 * one instead of idling until the longest path of its warp is done.
 *
 * Each pass is a closest hit, its shading, then the shadow rays shading
 * made (with the pool's shadow slots, those of the whole warp together:
 * pw_trace_shadows); every pass waits for all the warp's lanes before its
 * trace (PW_WARP_ANY), so they trace together: without that, lanes that
 * had taken different branches reached the trace at different times and
 * the warp traced the same pass twice at half width (so a profile of
 * toy-small's sphere loop showed; docs/PERFORMANCE.md). The loop has one
 * trace and one shade call site, children and new samples included:
 * inlined twice, the path code needed far more registers on the GPU (and
 * a single site for shadow rays too measured slower, as lanes then
 * interleave tracing with shading; docs/PERFORMANCE.md). Adds the rays
 * cast to *ext_rays (camera and bounce) and *shadow_rays. */
PW_HD void pw_path_trace_pool(const pw_scene_view *s, const pw_render_params *prm, const pw_sample_pool *pool,
                              uint32_t split, uint32_t kinds, uint32_t *ext_rays, uint32_t *shadow_rays)
{
    uint32_t children = 1, k = 0;
    uint32_t item = pw_pool_next(pool, prm);
    int active = item != PW_POOL_DONE, need_trace = 1;
    pw_path p = active ? pw_pool_begin(s, prm, pool, item) : pw_path_none(), parent = p;
    pw_hit h, first_hit;
    pw_shadow_ray sh[PW_MAX_SHADOW];
    pw_vec3 L = v3s(0.0f);
    for (;;) {
        /* The warp's lanes meet here, right before the trace (and see the
         * tile a stream's lane fetched in the pass before). */
#if PW_DEVICE_CODE
        if (pool->ring)
            __syncwarp();
#endif
        if (!PW_WARP_ANY(active))
            return;
        /* Without shadow slots (a literal NULL in most kernels and on the
         * host) this is the plain loop: lanes without a path wait at the
         * top, and each lane traces its shadow rays after shading. With
         * slots, every lane goes on to trace the warp's shadow rays. */
        if (!active && !pool->shadow_slots)
            continue;
        int alive = active, n = 0;
        if (active) {
            if (need_trace) {
                (*ext_rays)++;
                alive = pw_path_intersect(s, &p, &h) == PW_NEXT_SHADE_SURFACE;
                if (!alive)
                    pw_path_miss(s, prm, &p, kinds);
            }
            need_trace = 1;
            if (alive) {
                if (p.depth == 0 && split > 1 && children == 1) {
                    children = split;
                    parent = p;
                    first_hit = h;
                    p = pw_path_child(&parent, 0, children);
                }
                pw_shadow_sink sink = pw_sink_array(sh);
                alive = pw_path_shade(s, prm, &p, &h, &sink, &n, kinds);
                *shadow_rays += (uint32_t)n;
                if (!pool->shadow_slots)
                    pw_trace_shadows(s, sh, n, &p.L, NULL);
            }
        }
        if (pool->shadow_slots)
            pw_trace_shadows(s, sh, n, &p.L, pool->shadow_slots);
        if (!active || alive)
            continue;
        /* Children's radiance is summed in L; without splitting L stays
         * unused, so that it takes no registers across the loop. */
        if (split > 1) {
            L = v3_add(L, p.L);
            if (++k < children) {
                p = pw_path_child(&parent, k, children);
                h = first_hit;
                need_trace = 0;
                continue;
            }
        }
        pw_pool_store(pool, prm, item, split > 1 ? L : p.L);
        item = pw_pool_next(pool, prm);
        active = item != PW_POOL_DONE;
        if (active) {
            p = pw_pool_begin(s, prm, pool, item);
            L = v3s(0.0f);
            children = 1;
            k = 0;
        }
    }
}

/* spp whole paths of pixel (px, py), samples first .. first + spp - 1,
 * added to *sum one by one in sample order, as on every backend, so that
 * the sums round alike (arguments as for pw_path_trace_pool). Host only
 * (no PW_HD): its pool counter lives on the stack, which the GPU's pools,
 * shared by a warp or a block through atomics, must not do. */
static inline void pw_path_trace_pixel(const pw_scene_view *s, const pw_render_params *prm, uint32_t px, uint32_t py,
                                       uint32_t first, uint32_t spp, uint32_t split, uint32_t kinds, pw_vec3 *sum,
                                       uint32_t *ext_rays, uint32_t *shadow_rays)
{
    pw_vec3 radiance[PW_POOL_ITEMS];
    for (uint32_t done = 0; done < spp; done += PW_POOL_ITEMS) {
        uint32_t next = 0, n = spp - done < PW_POOL_ITEMS ? spp - done : PW_POOL_ITEMS;
        pw_sample_pool pool = {px, py, 0, 0, first + done, n, &next, radiance, NULL, NULL, NULL, 0, 0, 0, NULL, 1};
        pw_path_trace_pool(s, prm, &pool, split, kinds, ext_rays, shadow_rays);
        for (uint32_t k = 0; k < n; k++)
            pw_path_accumulate(sum, radiance[k]);
    }
}

#endif
