/* The sphere list's megakernel path loop with camera rays in batches.
 *
 * Why: in the loop every scene shares (pw_path_trace_pool), a lane whose
 * path ends begins the next one at once, and its camera ray is traced in
 * the next pass beside the other lanes' bounce rays, through all of the
 * list's spheres; in most of toy-small's passes the new paths' set-up ran
 * at about half a warp's width. Here a warp takes 32 samples at a time,
 * makes their camera rays together and traces them through only the
 * spheres that rays through the block's pixels can hit (most blocks see
 * the ground and one sphere or none); a camera ray that misses is its
 * sample's whole path, and the hits wait in a ring in shared memory. A
 * lane whose path ends takes a waiting hit and shades it in the same
 * pass, so every pass traces the lanes' own rays only. Toy-small ran
 * clearly faster, images equal to the bit; rtiow through the BVH (no list
 * to cut) ran slower, so it keeps the shared loop (docs/PERFORMANCE.md). */
#ifndef PW_CUDA_CAMERA_BATCH_H
#define PW_CUDA_CAMERA_BATCH_H

#include "backend/cuda/cuda_state.h"
#include "backend/sample_pool.h"

/* Camera hits waiting to be shaded: a warp's ring of MEGA_RING entries in
 * shared memory, one array a field so that 32 lanes touch 32 banks. A
 * batch is taken while fewer than 32 wait and adds at most 32, so at most
 * 63 wait. */
#define MEGA_RING 64
typedef struct mega_ring {
    float ox[MEGA_RING], oy[MEGA_RING], oz[MEGA_RING], dx[MEGA_RING], dy[MEGA_RING], dz[MEGA_RING], t[MEGA_RING];
    uint32_t prim[MEGA_RING], item[MEGA_RING], key[MEGA_RING];
} mega_ring;

/* The spheres that camera rays through a block's pixels may hit, in scene
 * order (so that a tie goes to the sphere the whole list would report),
 * with their ids. Lists of at most MEGA_CAMERA_LIST spheres, one a lane of
 * a warp: the default list's (PW_CUDA_FLAT_MAX); pick_kernel gives longer
 * ones (PATHWAVE_CUDA_FLAT) the shared loop. */
#define MEGA_CAMERA_LIST 32
static_assert(PW_CUDA_FLAT_MAX <= MEGA_CAMERA_LIST, "the default sphere list fits one warp");
typedef struct mega_camera_list {
    const pw_sphere *spheres;
    const uint32_t *ids;
    uint32_t n;
} mega_camera_list;

/* The spheres of view's list (at most MEGA_CAMERA_LIST) that camera rays
 * through the block's pixels [x0, x1) x [y0, y1) may hit. Every thread of
 * the block calls it together. */
__device__ static mega_camera_list mega_camera_cull(const pw_scene_view *view, uint32_t x0, uint32_t y0, uint32_t x1,
                                                    uint32_t y1)
{
    __shared__ pw_sphere spheres[MEGA_CAMERA_LIST];
    __shared__ uint32_t ids[MEGA_CAMERA_LIST], n;
    uint32_t lane = threadIdx.x % 32u;
    if (threadIdx.x < 32u) {
        int keep = 0;
        pw_sphere sp;
        if (lane < view->n_spheres) {
            sp = view->spheres[lane];
            keep = pw_camera_region_may_hit(&view->cam, (float)x0, (float)y0, (float)x1, (float)y1, sp.c, sp.r);
        }
        uint32_t kept = __ballot_sync(0xffffffffu, keep), k = __popc(kept & ((1u << lane) - 1u));
        if (keep) {
            spheres[k] = sp;
            ids[k] = lane;
        }
        if (lane == 0)
            n = __popc(kept);
    }
    __syncthreads();
    mega_camera_list l = {spheres, ids, n};
    return l;
}

/* The warp's next 32 items' camera rays, traced together through list:
 * a ray that misses is its sample's whole path; the hits go to the ring,
 * in lane order, after the *waiting there from head on. Returns 0 once the
 * pool is empty. */
__device__ static int mega_camera_batch(const pw_scene_view *s, const pw_render_params *prm,
                                        const pw_sample_pool *pool, mega_camera_list list, mega_ring *ring,
                                        uint32_t head, uint32_t *waiting, uint32_t *ext_rays)
{
    const uint32_t lane = threadIdx.x % 32u, n_items = pool->spp << pool->n_log2;
    uint32_t base = 0;
    if (lane == 0)
        base = atomicAdd(pool->next, 32u);
    base = __shfl_sync(0xffffffffu, base, 0);
    uint32_t i = base + lane;
    int go = i < n_items, hit = 0;
    if (go && !pool->whole)
        go = pw_pool_x(pool, i) < prm->width && pw_pool_y(pool, i) < prm->height;
    pw_path c;
    pw_hit h;
    if (go) {
        c = pw_pool_begin(s, prm, pool, i);
        (*ext_rays)++;
        hit = pw_sphere_list_walk(list.spheres, list.n, c.ray, s->t_min, PW_INF, 0, &h);
        if (!hit) {
            pw_path_miss(s, prm, &c, PW_KINDS_BASIC);
            pw_pool_store(pool, prm, i, c.L);
        }
    }
    uint32_t put = __ballot_sync(0xffffffffu, go && hit);
    if (go && hit) {
        uint32_t k = (head + *waiting + __popc(put & ((1u << lane) - 1u))) & (MEGA_RING - 1u);
        ring->ox[k] = c.ray.o.x, ring->oy[k] = c.ray.o.y, ring->oz[k] = c.ray.o.z;
        ring->dx[k] = c.ray.d.x, ring->dy[k] = c.ray.d.y, ring->dz[k] = c.ray.d.z;
        ring->t[k] = h.t, ring->prim[k] = list.ids[h.prim], ring->item[k] = i, ring->key[k] = c.key;
    }
    *waiting += __popc(put);
    return base + 32u < n_items;
}

/* The waiting camera hit k as the path it begins, and the hit. */
__device__ static pw_path mega_ring_take(const mega_ring *ring, uint32_t k, pw_hit *h, uint32_t *item)
{
    pw_ray r;
    r.o = v3(ring->ox[k], ring->oy[k], ring->oz[k]);
    r.d = v3(ring->dx[k], ring->dy[k], ring->dz[k]);
    h->t = ring->t[k];
    h->prim = ring->prim[k];
    h->u = h->v = 0.0f;
    *item = ring->item[k];
    return pw_path_start(r, ring->key[k]);
}

/* Draws the block pool's items until it is empty and traces their paths
 * (as pw_path_trace_pool, without light sampling or splitting), every lane
 * of the warp together. Each pass: camera batches until 32 hits wait
 * (or the pool is empty); each lane's trace of its path's next ray; the
 * lanes without a path then take the waiting hits in lane order; every
 * lane with a hit shades it. */
__device__ static void mega_pool_batched(const pw_scene_view *s, const pw_render_params *prm,
                                         const pw_sample_pool *pool, mega_camera_list list, mega_ring *ring,
                                         uint32_t kinds, uint32_t *ext_rays)
{
    const uint32_t below = (1u << (threadIdx.x % 32u)) - 1u;
    uint32_t waiting = 0, head = 0, item = 0; /* waiting and head: the same in every lane */
    int pool_open = 1, tracing = 0;
    pw_path p = pw_path_none();
    pw_hit h;
    for (;;) {
        /* The last pass's reads of the ring before this one's writes. */
        __syncwarp();
        while (pool_open && waiting < 32u)
            pool_open = mega_camera_batch(s, prm, pool, list, ring, head, &waiting, ext_rays);
        if (waiting == 0u && !__any_sync(0xffffffffu, tracing))
            return;
        int shade = 0;
        if (tracing) {
            (*ext_rays)++;
            shade = pw_path_intersect(s, &p, &h) == PW_NEXT_SHADE_SURFACE;
            if (!shade) {
                pw_path_miss(s, prm, &p, kinds);
                pw_pool_store(pool, prm, item, p.L);
                tracing = 0;
            }
        }
        uint32_t want = __ballot_sync(0xffffffffu, !tracing), rank = __popc(want & below);
        __syncwarp(); /* the batches' writes before these reads */
        if (!tracing && rank < waiting) {
            p = mega_ring_take(ring, (head + rank) & (MEGA_RING - 1u), &h, &item);
            shade = 1;
        }
        uint32_t taken = min((uint32_t)__popc(want), waiting);
        head += taken;
        waiting -= taken;
        if (shade) {
            pw_shadow_ray sh[PW_MAX_SHADOW];
            pw_shadow_sink sink = pw_sink_array(sh);
            int n;
            tracing = pw_path_shade(s, prm, &p, &h, &sink, &n, kinds);
            if (!tracing)
                pw_pool_store(pool, prm, item, p.L);
        }
    }
}

#endif
