/* Wavefront path tracing: paths advance one bounce at a time through
 * queues, stage by stage (Laine, Karras and Aila, "Megakernels Considered
 * Harmful", HPG 2013). The stage bodies below act on one queue item each and
 * are shared by the CPU wavefront (a parallel loop per stage) and the CUDA
 * wavefront (a kernel per stage); they call the same path functions as the
 * megakernels, so every backend traces the same paths.
 *
 * A bounce is: extend (closest hit for every queued path) -> shade
 * (emission, light sampling into the shadow queue, next direction into the
 * next ray queue) -> connect (any hit for every shadow ray) -> resolve (each
 * shaded path adds its unoccluded shadow contributions, in order; a finished
 * path keeps its radiance in its slot). A wave may hold several samples of
 * each pixel (sample k of pixel p in slot k * pixels + p); when the wave is
 * done, gather adds each pixel's samples in sample order, so the pixel sum
 * needs no atomics and the image is the megakernel's to the last bit,
 * whatever order items ran in. With ray splitting a wave holds one sample a
 * pixel, and a pixel's children, finishing independently, add with atomics
 * when they finish: the image is then the same up to the rounding of the
 * order of those additions. */
#ifndef PW_WAVEFRONT_H
#define PW_WAVEFRONT_H

#include "integrator/path.h"

/* Device-side counters, read by the next stage instead of the host. */
enum {
    PW_WF_RAYS = 0,    /* items in the current ray queue */
    PW_WF_NEXT = 1,    /* items appended to the next ray queue */
    PW_WF_SHADOWS = 2, /* items in the shadow queue */
    PW_WF_SHADED = 3,  /* paths shaded this bounce (ray splitting adds children) */
    PW_WF_SLOTS = 4,   /* path slots in use */
    PW_WF_TAIL = 5,    /* paths of the current queue left to pw_wf_finish_tail (GPU) */
    PW_WF_COUNTERS = 8
};

/* Path state in structure-of-arrays form, 108 bytes a path:
 *   ray origin and direction 6 x 4, throughput 3 x 4, radiance 3 x 4,
 *   BSDF pdf 4, depth 4, flags 4, RNG key 4, pixel 4, alive 4,
 *   hit (t, prim, u, v) 16, shadow range (first, count) 8,
 *   entries in the two ray queues and the shaded list 12.
 * Directions and throughputs are kept as full floats: packing them would
 * change the paths against the megakernel. Shadow records are 44 bytes:
 *   origin, direction, contribution 3 x 12, distance 4, visible 4.
 * Queues are arrays of path indices, 4 bytes an entry. */
typedef struct pw_wave {
    uint32_t cap;         /* path slots */
    uint32_t shadow_cap;  /* shadow records: cap * shadows a path can make per bounce */
    float *ox, *oy, *oz, *dx, *dy, *dz;
    float *bx, *by, *bz, *lx, *ly, *lz;
    float *prev_pdf;
    uint32_t *depth, *flags, *key, *pixel, *alive;
    float *hit_t, *hit_u, *hit_v;
    uint32_t *hit_prim;
    uint32_t *sh_first, *sh_count;
    uint32_t *queue[2];   /* current and next ray queue (swapped each bounce) */
    uint32_t *shaded;     /* paths shaded this bounce, children of a split included */
    float *s_ox, *s_oy, *s_oz, *s_dx, *s_dy, *s_dz, *s_tmax, *s_cx, *s_cy, *s_cz;
    uint32_t *s_visible;
    uint32_t *counters;   /* PW_WF_COUNTERS words */
} pw_wave;

/* Appends n items to the queue counted by *counter; returns the first slot.
 * On the GPU the active lanes of a warp (any subset of them) sum their
 * requests and the lowest one does a single atomic for all. Requests of 0 or
 * 1 item, the common case, are ranked with one ballot; larger ones gather
 * every active lane's request by shuffles. */
PW_HD uint32_t pw_wf_alloc(uint32_t *counter, uint32_t n)
{
#if PW_DEVICE_CODE
    unsigned mask = __activemask();
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    unsigned below = mask & ((1u << lane) - 1u);
    uint32_t prefix = 0, total = 0;
    if (__all_sync(mask, n <= 1u)) {
        unsigned want = __ballot_sync(mask, n == 1u);
        prefix = (uint32_t)__popc(want & below);
        total = (uint32_t)__popc(want);
    } else {
        for (unsigned m = mask; m; m &= m - 1u) {
            unsigned src = (unsigned)__ffs(m) - 1u;
            uint32_t v = __shfl_sync(mask, n, (int)src);
            prefix += src < lane ? v : 0u;
            total += v;
        }
    }
    unsigned leader = (unsigned)__ffs(mask) - 1u;
    uint32_t base = 0;
    if (lane == leader && total)
        base = atomicAdd(counter, total);
    base = __shfl_sync(mask, base, (int)leader);
    return base + prefix;
#else
    return __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
#endif
}

PW_HD pw_path pw_wf_load(const pw_wave *w, uint32_t i)
{
    pw_path p;
    p.ray.o = v3(w->ox[i], w->oy[i], w->oz[i]);
    p.ray.d = v3(w->dx[i], w->dy[i], w->dz[i]);
    p.beta = v3(w->bx[i], w->by[i], w->bz[i]);
    p.L = v3(w->lx[i], w->ly[i], w->lz[i]);
    p.prev_pdf = w->prev_pdf[i];
    p.depth = w->depth[i];
    p.key = w->key[i];
    p.flags = w->flags[i];
    return p;
}

PW_HD void pw_wf_store(const pw_wave *w, uint32_t i, const pw_path *p)
{
    w->ox[i] = p->ray.o.x, w->oy[i] = p->ray.o.y, w->oz[i] = p->ray.o.z;
    w->dx[i] = p->ray.d.x, w->dy[i] = p->ray.d.y, w->dz[i] = p->ray.d.z;
    w->bx[i] = p->beta.x, w->by[i] = p->beta.y, w->bz[i] = p->beta.z;
    w->lx[i] = p->L.x, w->ly[i] = p->L.y, w->lz[i] = p->L.z;
    w->prev_pdf[i] = p->prev_pdf;
    w->depth[i] = p->depth;
    w->key[i] = p->key;
    w->flags[i] = p->flags;
}

/* generate: item i starts, in slot i, sample first_sample + i / pixels of
 * pixel first_pixel + i % pixels. */
PW_HD void pw_wf_generate(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, uint32_t i,
                          uint32_t first_pixel, uint32_t pixels, uint32_t first_sample)
{
    uint32_t pixel = first_pixel + i % pixels;
    pw_path p = pw_path_begin(s, prm, pixel % prm->width, pixel / prm->width, first_sample + i / pixels);
    pw_wf_store(w, i, &p);
    w->pixel[i] = pixel;
    w->alive[i] = 1;
    w->sh_count[i] = 0;
    w->queue[0][i] = i;
}

/* extend: the closest hit of the path in queue slot i. */
PW_HD void pw_wf_extend(const pw_wave *w, const pw_scene_view *s, const uint32_t *queue, uint32_t i)
{
    uint32_t pi = queue[i];
    pw_ray r;
    r.o = v3(w->ox[pi], w->oy[pi], w->oz[pi]);
    r.d = v3(w->dx[pi], w->dy[pi], w->dz[pi]);
    pw_hit h;
    pw_trace(s, r, s->t_min, PW_INF, 0, &h);
    w->hit_t[pi] = h.t;
    w->hit_prim[pi] = h.prim;
    w->hit_u[pi] = h.u;
    w->hit_v[pi] = h.v;
}

/* Shades path p (hit h) in slot pi: emission, shadow rays into the shadow
 * queue, the next segment into the next ray queue. */
PW_HD void pw_wf_shade_one(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, uint32_t *next_queue,
                           uint32_t pi, pw_path p, const pw_hit *h)
{
    pw_shadow_ray sh[PW_MAX_SHADOW];
    int n = 0, alive = 0;
    if (h->prim == PW_NO_HIT)
        pw_path_miss(s, prm, &p);
    else
        alive = pw_path_shade(s, prm, &p, h, sh, &n, PW_KINDS_ALL);
    uint32_t first = pw_wf_alloc(&w->counters[PW_WF_SHADOWS], (uint32_t)n);
    for (int k = 0; k < n; k++) {
        uint32_t j = first + (uint32_t)k;
        w->s_ox[j] = sh[k].ray.o.x, w->s_oy[j] = sh[k].ray.o.y, w->s_oz[j] = sh[k].ray.o.z;
        w->s_dx[j] = sh[k].ray.d.x, w->s_dy[j] = sh[k].ray.d.y, w->s_dz[j] = sh[k].ray.d.z;
        w->s_tmax[j] = sh[k].tmax;
        w->s_cx[j] = sh[k].contrib.x, w->s_cy[j] = sh[k].contrib.y, w->s_cz[j] = sh[k].contrib.z;
    }
    w->sh_first[pi] = first;
    w->sh_count[pi] = (uint32_t)n;
    w->alive[pi] = (uint32_t)alive;
    pw_wf_store(w, pi, &p);
    w->shaded[pw_wf_alloc(&w->counters[PW_WF_SHADED], 1u)] = pi;
    uint32_t slot = pw_wf_alloc(&w->counters[PW_WF_NEXT], alive ? 1u : 0u);
    if (alive)
        next_queue[slot] = pi;
}

/* shade: the path in queue slot i. At the first hit with ray splitting on,
 * it spawns prm->split children in new slots (one atomic per warp), each
 * shading the hit with 1/split of the throughput (pw_path_child). */
PW_HD void pw_wf_shade(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, const uint32_t *queue,
                       uint32_t *next_queue, uint32_t i)
{
    uint32_t pi = queue[i];
    pw_path p = pw_wf_load(w, pi);
    pw_hit h;
    h.t = w->hit_t[pi];
    h.prim = w->hit_prim[pi];
    h.u = w->hit_u[pi];
    h.v = w->hit_v[pi];
    uint32_t split = p.depth == 0 && h.prim != PW_NO_HIT && prm->split > 1 ? prm->split : 1u;
    uint32_t base = pw_wf_alloc(&w->counters[PW_WF_SLOTS], split - 1);
    for (uint32_t k = 0; k < split; k++) {
        uint32_t ci = k == 0 ? pi : base + k - 1;
        if (k > 0)
            w->pixel[ci] = w->pixel[pi];
        pw_wf_shade_one(w, s, prm, next_queue, ci, split > 1 ? pw_path_child(&p, k, split) : p, &h);
    }
}

/* connect: is shadow ray j unoccluded? */
PW_HD void pw_wf_connect(const pw_wave *w, const pw_scene_view *s, uint32_t j)
{
    pw_ray r;
    r.o = v3(w->s_ox[j], w->s_oy[j], w->s_oz[j]);
    r.d = v3(w->s_dx[j], w->s_dy[j], w->s_dz[j]);
    pw_hit h;
    w->s_visible[j] = !pw_trace(s, r, s->t_min, w->s_tmax[j], 1, &h);
}

/* Adds v to *p from any thread. */
PW_HD void pw_atomic_add_float(float *p, float v)
{
#if PW_DEVICE_CODE
    atomicAdd(p, v);
#else
    uint32_t old = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), want;
    do {
        want = (uint32_t)pw_float_as_int(pw_int_as_float((int32_t)old) + v);
    } while (!__atomic_compare_exchange_n((uint32_t *)p, &old, want, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
#endif
}

/* resolve: the path in slot i of the shaded list adds its unoccluded shadow
 * contributions in the order they were made (the megakernel's order, so
 * images match it). A finished split child adds its radiance to its pixel
 * with atomics; other paths leave theirs in the slot for gather. */
PW_HD void pw_wf_resolve(const pw_wave *w, const pw_render_params *prm, uint32_t i, float *sum)
{
    uint32_t pi = w->shaded[i];
    pw_vec3 L = v3(w->lx[pi], w->ly[pi], w->lz[pi]);
    for (uint32_t k = 0; k < w->sh_count[pi]; k++) {
        uint32_t j = w->sh_first[pi] + k;
        if (w->s_visible[j])
            L = v3_add(L, v3(w->s_cx[j], w->s_cy[j], w->s_cz[j]));
    }
    w->lx[pi] = L.x, w->ly[pi] = L.y, w->lz[pi] = L.z;
    if (w->alive[pi] || prm->split <= 1)
        return;
    if (!(isfinite(L.x) && isfinite(L.y) && isfinite(L.z)))
        return;
    float *dst = sum + 3 * (size_t)w->pixel[pi];
    pw_atomic_add_float(dst + 0, L.x);
    pw_atomic_add_float(dst + 1, L.y);
    pw_atomic_add_float(dst + 2, L.z);
}

/* The tail of a wave: when few paths are left, a bounce per stage leaves
 * the GPU nearly idle while each kernel waits on a few long traversals.
 * The path in queue slot i is then run to its end in one go
 * (pw_path_finish), and its radiance goes where resolve would have put
 * it. Rays cast are added to *ext_rays and *shadow_rays. */
PW_HD void pw_wf_finish_tail(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm,
                             const uint32_t *queue, uint32_t i, float *sum, uint32_t *ext_rays,
                             uint32_t *shadow_rays)
{
    uint32_t pi = queue[i];
    pw_path p = pw_wf_load(w, pi);
    pw_path_finish(s, prm, &p, PW_KINDS_ALL, ext_rays, shadow_rays);
    w->alive[pi] = 0;
    w->lx[pi] = p.L.x, w->ly[pi] = p.L.y, w->lz[pi] = p.L.z;
    if (prm->split <= 1 || !(isfinite(p.L.x) && isfinite(p.L.y) && isfinite(p.L.z)))
        return;
    float *dst = sum + 3 * (size_t)w->pixel[pi];
    pw_atomic_add_float(dst + 0, p.L.x);
    pw_atomic_add_float(dst + 1, p.L.y);
    pw_atomic_add_float(dst + 2, p.L.z);
}

/* gather, once a wave without splitting is done: pixel first_pixel + i adds
 * the radiance of its samples, slots i, i + pixels, ..., in sample order. */
PW_HD void pw_wf_gather(const pw_wave *w, uint32_t i, uint32_t first_pixel, uint32_t pixels, uint32_t samples,
                        float *sum)
{
    float *dst = sum + 3 * ((size_t)first_pixel + i);
    pw_vec3 acc = v3(dst[0], dst[1], dst[2]);
    for (uint32_t k = 0; k < samples; k++) {
        uint32_t pi = k * pixels + i;
        pw_path_accumulate(&acc, v3(w->lx[pi], w->ly[pi], w->lz[pi]));
    }
    dst[0] = acc.x, dst[1] = acc.y, dst[2] = acc.z;
}

#endif
