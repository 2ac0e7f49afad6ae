/* The per-path steps of the unidirectional path tracer. They know nothing of
 * threads, warps or queues: a megakernel calls them in a loop, a wavefront
 * calls each from its own stage. */
#ifndef PW_PATH_H
#define PW_PATH_H

#include "accel/trace.h"
#include "shade/bsdf.h"
#include "shade/camera.h"
#include "shade/environment.h"
#include "shade/light_sample.h"
#include "shade/texture.h"
#include "integrator/render_params.h"
#include "integrator/wave_queue.h"

/* Path flags. */
#define PW_PATH_SPECULAR 1u        /* last vertex was the camera or a specular lobe: emission gets full weight */
#define PW_PATH_COUNT_EMISSION 2u  /* toy mode: emission is counted at the next hit */
/* Bits 8-15 of the flags: where the path's ray starts, the lens or the
 * sphere it leaves (PW_ORIGIN_*, accel/sphere_dirmap.h), which picks the
 * direction map its closest hit goes through in a scene of sphere groups. */
#define PW_PATH_ORIGIN_SHIFT 8u

/* 64 bytes: everything a path carries from one bounce to the next. */
typedef struct pw_path {
    pw_ray ray;       /* 24 */
    pw_vec3 beta;     /* 12: throughput */
    pw_vec3 L;        /* 12: radiance gathered so far */
    float prev_pdf;   /*  4: solid-angle pdf of the BSDF sample that made ray */
    uint32_t depth;   /*  4: bounces done */
    uint32_t key;     /*  4: counter-based RNG key of (seed, pixel, sample) */
    uint32_t flags;   /*  4 */
} pw_path;
PW_SIZE_CHECK(pw_path, 64);

PW_HD uint32_t pw_flags_origin(uint32_t flags) { return flags >> PW_PATH_ORIGIN_SHIFT & 0xffu; }
PW_HD uint32_t pw_path_origin(const pw_path *p) { return pw_flags_origin(p->flags); }

/* The origin code of a ray that leaves primitive prim: the sphere's id
 * where it fits in eight bits. */
PW_HD uint32_t pw_origin_of_prim(const pw_scene_view *s, uint32_t prim)
{
    return pw_prim_is_sphere(s, prim) && prim < PW_ORIGIN_LENS ? prim : PW_ORIGIN_UNKNOWN;
}

/* The origins of the rays that leave the surface at sf (pw_offsets,
 * geom/ray.h); cache: precompute the triangles' offset toward the side
 * the arriving ray came from, for several rays. */
PW_HD pw_offsets pw_surface_offsets(const pw_scene_view *s, const pw_surface *sf, pw_vec3 arriving, int cache)
{
    int sphere = pw_prim_is_sphere(s, sf->prim);
    return pw_offsets_make(sf->p, sf->ng, arriving, sphere, sphere ? s->spheres[sf->prim].r : 0.0f, cache);
}

/* A connection to a light: contrib is added to the path's pixel when the
 * segment from ray.o to distance tmax is unoccluded. */
typedef struct pw_shadow_ray {
    pw_ray ray;
    float tmax;
    pw_vec3 contrib;
} pw_shadow_ray;

/* Where shading puts its shadow rays. The megakernels and the CPU's loops
 * give an array of their own (rays) and trace the rays from there once
 * the hit is shaded. The wavefront gives its shadow records (rays NULL),
 * where the path's rays go straight to records first, first + 1, ...:
 * made in an array of the thread's own and copied to the records, they
 * went through local memory (352 bytes of stack in the GPU's shade stage,
 * whose warps Nsight Compute found waiting on local loads and stores). */
typedef struct pw_shadow_sink {
    pw_shadow_ray *rays;       /* the caller's array, or NULL */
    pw_shadow_records records; /* else the records (wave_queue.h) */
    uint32_t first;            /* the record of the path's first ray */
} pw_shadow_sink;

PW_HD pw_shadow_sink pw_sink_array(pw_shadow_ray *rays)
{
    pw_shadow_sink k = {rays, {NULL, NULL, NULL}, 0};
    return k;
}

/* The path's shadow ray i. */
PW_HD void pw_sink_put(const pw_shadow_sink *k, int i, pw_vec3 o, pw_vec3 d, float tmax, pw_vec3 contrib)
{
    if (k->rays) {
        pw_shadow_ray *r = &k->rays[i];
        r->ray.o = o;
        r->ray.d = d;
        r->tmax = tmax;
        r->contrib = contrib;
        return;
    }
    pw_records_put(&k->records, k->first + (uint32_t)i, o, d, tmax, contrib);
}

/* A shadow ray handed from lane to lane (pw_trace_shadows). 28 bytes, so
 * that 32 lanes reading one each touch 32 different banks. */
typedef struct pw_shadow_slot {
    pw_ray ray;
    float tmax;
} pw_shadow_slot;
PW_SIZE_CHECK(pw_shadow_slot, 28);

/* Length of a shadow ray from its (offset) origin to a sphere light: the
 * distance from the shading point would let the offset ray reach into the
 * light near the edge of its cone, and the light would shadow itself. The
 * ray stops 1e-4 of its length short, far more than the sphere test's
 * rounding. Where rounding lets the ray miss the sphere, it stops at
 * sqrt(fallback2) instead, a length the caller gives squared, so that the
 * square root is taken only there. */
PW_HD float pw_shadow_tmax_sphere(pw_sphere sp, pw_vec3 origin, pw_vec3 dir, float fallback2)
{
    float t = pw_intersect_sphere(origin, dir, sp.c, sp.r, 0.0f, PW_INF);
    return (t > 0.0f ? t : sqrtf(fallback2)) * 0.9999f;
}

/* The toy estimator casts one shadow ray per emissive sphere; scenes given to
 * it have at most this many (checked when the render is set up). */
#ifndef PW_MAX_SHADOW
#define PW_MAX_SHADOW 8
#endif

/* A path that is no path: what a variable holds before its first begin. */
PW_HD pw_path pw_path_none(void)
{
    pw_path p;
    p.ray.o = p.ray.d = p.beta = p.L = v3s(0.0f);
    p.prev_pdf = 0.0f;
    p.depth = p.key = p.flags = 0;
    return p;
}

/* A path at the camera, with its camera ray and key. */
PW_HD pw_path pw_path_start(pw_ray ray, uint32_t key)
{
    pw_path p;
    p.ray = ray;
    p.key = key;
    p.beta = v3s(1.0f);
    p.L = v3s(0.0f);
    p.prev_pdf = 0.0f;
    p.depth = 0;
    p.flags = PW_PATH_SPECULAR | PW_PATH_COUNT_EMISSION | PW_ORIGIN_LENS << PW_PATH_ORIGIN_SHIFT;
    return p;
}

PW_HD pw_path pw_path_begin(const pw_scene_view *s, const pw_render_params *prm, uint32_t px, uint32_t py,
                            uint32_t sample)
{
    uint32_t key = pw_path_key(prm->seed, py * prm->width + px, sample);
    /* The pixel's jitter takes the key's own bits (a hash, like every
     * draw: one hash less a path on the GPU), the lens bounce 0's first
     * dimension. */
    pw_rng rng = pw_rng_for_bounce(key, 0);
    float jx, jy, l1, l2;
    pw_rng_pair(key, &jx, &jy);
    pw_rng_next2(&rng, &l1, &l2);
    return pw_path_start(pw_camera_ray(&s->cam, (float)px + jx, (float)py + jy, l1, l2), key);
}

/* The environment seen by a ray that left the scene; an environment map is
 * also light-sampled, so BSDF-sampled rays that reach it are MIS-weighted. */
PW_HD void pw_path_miss(const pw_scene_view *s, const pw_render_params *prm, pw_path *p)
{
    float w = 1.0f;
    if (s->env_prob > 0.0f && prm->light_mode == PW_LIGHT_MODE_MIS && !(p->flags & PW_PATH_SPECULAR))
        w = pw_power_heuristic(p->prev_pdf, s->env_prob * pw_env_pdf(&s->env, p->ray.d));
    p->L = v3_add_rn(p->L, v3_scale(v3_mul(p->beta, pw_env_radiance(&s->env, p->ray.d)), w));
}

/* Emission of the surface just hit, weighted against light sampling. */
PW_HD void pw_path_add_emission(const pw_scene_view *s, const pw_render_params *prm, pw_path *p,
                                const pw_surface *sf, const pw_material *m)
{
    if (v3_is_zero(m->emission) || !pw_emits_toward(m, sf->front, pw_prim_is_sphere(s, sf->prim)))
        return;
    float w = 1.0f;
    if (prm->light_mode == PW_LIGHT_MODE_TOY) {
        if (!(p->flags & PW_PATH_COUNT_EMISSION))
            return;
    } else if (prm->light_mode == PW_LIGHT_MODE_MIS && !(p->flags & PW_PATH_SPECULAR)) {
        w = pw_power_heuristic(p->prev_pdf, pw_light_pdf(s, sf->prim, p->ray.o, sf->p, sf->ng));
    }
    p->L = v3_add_rn(p->L, v3_scale(v3_mul(p->beta, m->emission), w));
}

/* The toy tracer's light sampling at a Lambert hit: one cone-sampled shadow
 * ray to every emissive sphere but the one hit, weighted by its solid angle. */
PW_HD int pw_path_toy_lights(const pw_scene_view *s, const pw_path *p, const pw_surface *sf, const pw_material *m,
                             const pw_offsets *off, pw_rng *rng, const pw_shadow_sink *out)
{
    int n = 0;
    pw_vec3 nl = pw_facing_normal(sf, p->ray.d);
    for (uint32_t i = 0; i < s->n_lights && n < PW_MAX_SHADOW; i++) {
        pw_light l = s->lights[i];
        if (l.type != PW_LIGHT_SPHERE || l.prim == sf->prim)
            continue;
        pw_sphere sp = s->spheres[l.prim];
        pw_vec3 to_c = v3_sub(sp.c, sf->p);
        float d2 = v3_len2(to_c);
        float u1, u2;
        pw_rng_next2(rng, &u1, &u2);
        float omc = pw_sphere_one_minus_cos(sp.r, d2);
        if (omc < 0.0f)
            continue;
        pw_vec3 dir = pw_sample_cone(v3_scale(to_c, pw_rsqrt(d2)), omc, u1, u2);
        float omega = 2.0f * PW_PI * omc;
        pw_vec3 le = s->mats[s->sphere_mat[l.prim]].emission;
        pw_vec3 o = pw_offsets_for(off, dir);
        /* Missed by rounding: the length of the tangent. */
        float tmax = pw_shadow_tmax_sphere(sp, o, dir, pw_maxf(0.0f, d2 - sp.r * sp.r));
        pw_vec3 contrib =
            v3_scale(v3_mul(v3_mul(p->beta, m->albedo), le), pw_maxf(0.0f, v3_dot(dir, nl)) * omega * PW_INV_PI);
        pw_sink_put(out, n++, o, dir, tmax, contrib);
    }
    return n;
}

/* One power-proportional light sample with MIS against the BSDF. */
PW_HD int pw_path_sample_light(const pw_scene_view *s, const pw_path *p, const pw_surface *sf, const pw_material *m,
                               const pw_offsets *off, pw_rng *rng, const pw_shadow_sink *out, uint32_t kinds)
{
    /* Three numbers of 24 bits: an environment map is sampled by
     * inverting its tables (pw_rng_next2's 16 bits would miss entries). */
    float ul = pw_rng_next(rng), u1 = pw_rng_next(rng), u2 = pw_rng_next(rng);
    if ((s->n_lights == 0 && s->env_prob == 0.0f) || pw_material_is_specular(m))
        return 0;
    pw_light_sample ls;
    uint32_t li = PW_NO_LIGHT;
    int delta = 0;
    if (ul < s->env_prob) {
        /* The environment map: a direction by luminance, unbounded. */
        float pdf;
        if (!pw_env_sample(&s->env, u1, u2, &ls.wi, &pdf))
            return 0;
        ls.pdf = s->env_prob * pdf;
        ls.dist = PW_INF;
        ls.Le = pw_env_radiance(&s->env, ls.wi);
    } else {
        li = pw_light_pick(s, (ul - s->env_prob) / (1.0f - s->env_prob));
        /* lights: scenes with point or distant lights run with kinds other
         * than PW_KINDS_BASIC, so the basic megakernel compiles them out. */
        delta = kinds != PW_KINDS_BASIC && pw_light_is_delta(s->lights[li].type);
        int ok = delta ? pw_delta_light_sample(s, li, sf->p, &ls) : pw_light_sample_dir(s, li, sf->p, u1, u2, &ls);
        if (!ok || ls.pdf <= 0.0f)
            return 0;
    }
    float bsdf_pdf;
    pw_vec3 f = pw_bsdf_eval_kinds(m, sf, p->ray.d, ls.wi, &bsdf_pdf, kinds);
    if (v3_is_zero(f))
        return 0;
    /* lights: BSDF sampling never finds a point or distant light, so its
     * own sample carries the full weight. */
    float w = delta ? 1.0f : pw_power_heuristic(ls.pdf, bsdf_pdf);
    pw_vec3 o = pw_offsets_for(off, ls.wi);
    float tmax = PW_INF;
    if (li != PW_NO_LIGHT && ls.dist != PW_INF) {
        pw_light l = s->lights[li];
        tmax = l.type == PW_LIGHT_SPHERE ? pw_shadow_tmax_sphere(s->spheres[l.prim], o, ls.wi, ls.dist * ls.dist)
                                         : ls.dist * 0.9999f;
    }
    pw_sink_put(out, 0, o, ls.wi, tmax, v3_scale(v3_mul(v3_mul(p->beta, f), ls.Le), w / ls.pdf));
    return 1;
}

/* Shades the hit: adds emission, puts up to PW_MAX_SHADOW shadow rays into
 * shadows (*n_shadows of them), samples the next direction and plays
 * Russian roulette. Returns 1 while the path goes on, with p->ray set to
 * the next segment. */
PW_HD int pw_path_shade(const pw_scene_view *s, const pw_render_params *prm, pw_path *p, const pw_hit *h,
                        const pw_shadow_sink *shadows, int *n_shadows, uint32_t kinds)
{
    *n_shadows = 0;
    pw_surface sf = pw_surface_at(s, p->ray, h);
    const pw_material *m = &s->mats[sf.mat];
    /* textures: a textured material is shaded through a copy with this
     * point's albedo, metallic, roughness and emission, and its normal map
     * bends the shading normal (the geometric one stays for offsets and
     * sides). Scenes with textures run with kinds other than
     * PW_KINDS_BASIC, so the basic megakernel compiles this out. */
    pw_material textured;
    if (kinds != PW_KINDS_BASIC && PW_MAT_IS_TEXTURED(m)) {
        float u, v;
        pw_surface_uv(s, h, &sf, &u, &v);
        textured = pw_material_textured(s, m, u, v);
        if (PW_MAT_HAS_MAPS(m))
            pw_surface_normal_map(s, h, m, u, v, &sf);
        m = &textured;
    }
    pw_path_add_emission(s, prm, p, &sf, m);
    if (p->depth >= prm->max_depth)
        return 0;
    pw_rng rng = pw_rng_for_bounce(p->key, p->depth + 1);
    /* A toy Lambert hit sends three rays from the point, usually all on
     * the side the path arrived from: off a triangle, the CPU computes
     * that offset once (the same values; on the GPU keeping it live costs
     * spills). */
    int toy_lambert = prm->light_mode == PW_LIGHT_MODE_TOY && m->type == PW_MAT_LAMBERT;
    pw_offsets off = pw_surface_offsets(s, &sf, p->ray.d, toy_lambert && !PW_DEVICE_CODE);
    if (toy_lambert)
        *n_shadows = pw_path_toy_lights(s, p, &sf, m, &off, &rng, shadows);
    else if (prm->light_mode == PW_LIGHT_MODE_MIS)
        *n_shadows = pw_path_sample_light(s, p, &sf, m, &off, &rng, shadows, kinds);
    pw_bsdf_sample bs;
    if (!pw_bsdf_sample_kinds(m, &sf, p->ray.d, &rng, &bs, kinds))
        return 0;
    p->beta = v3_mul(p->beta, bs.weight);
    p->prev_pdf = bs.pdf;
    /* The origin only serves the sphere groups' maps, which the kernels
     * for basic materials trace: the others leave it unknown (working it
     * out cost the megakernel for every material 2.5% on the Veach scene). */
    uint32_t origin = kinds == PW_KINDS_BASIC ? pw_origin_of_prim(s, h->prim) : PW_ORIGIN_UNKNOWN;
    p->flags = (bs.specular ? PW_PATH_SPECULAR : 0u) | (m->type != PW_MAT_LAMBERT ? PW_PATH_COUNT_EMISSION : 0u) |
               origin << PW_PATH_ORIGIN_SHIFT;
    p->ray.o = pw_offsets_for(&off, bs.wi);
    p->ray.d = bs.wi;
    p->depth++;
    if (p->depth >= prm->rr_depth) {
        float survive = pw_minf(1.0f, v3_maxc(p->beta));
        if (pw_rng_next(&rng) >= survive)
            return 0;
        p->beta = v3_scale(p->beta, pw_div_approx(1.0f, survive));
    }
    return !v3_is_zero(p->beta);
}

/* Ray splitting: child k of split children of a path at its first hit.
 * Each child shades that hit itself (emission, light sample, its own next
 * direction) with 1/split of the throughput and random numbers of its own,
 * so the children's radiance sums to an unbiased estimate of the path's. */
PW_HD pw_path pw_path_child(const pw_path *p, uint32_t k, uint32_t split)
{
    pw_path c = *p;
    c.beta = v3_scale(p->beta, 1.0f / (float)split);
    c.key = pw_hash_combine(p->key, 0x51f7c0deu + k);
    return c;
}

/* A NaN or infinite sample would poison the pixel for good: it is dropped. */
PW_HD void pw_path_accumulate(pw_vec3 *sum, pw_vec3 L)
{
    if (isfinite(L.x) && isfinite(L.y) && isfinite(L.z))
        *sum = v3_add(*sum, L);
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

/* pw_path_accumulate into pixel `pixel` of the image sum (3 floats a
 * pixel) from any thread, with one atomic addition a channel. On the GPU
 * the atomics return nothing, so the thread does not wait for the pixel's
 * old value; global float atomics flush a denormal sum to zero, which the
 * plain addition would keep (values under 1.2e-38, far below what an image
 * shows). */
PW_HD void pw_pixel_add_atomic(float *sum, uint32_t pixel, pw_vec3 L)
{
    if (!(isfinite(L.x) && isfinite(L.y) && isfinite(L.z)))
        return;
    float *px = sum + 3 * (size_t)pixel;
    pw_atomic_add_float(px + 0, L.x);
    pw_atomic_add_float(px + 1, L.y);
    pw_atomic_add_float(px + 2, L.z);
}

/* A pool of path samples that the lanes of one worker draw from: every
 * sample of a rectangle of pixels, 2^w_log2 wide and 2^n_log2 pixels in
 * all, item i being sample first + (i >> n_log2) of pixel i mod 2^n_log2
 * (row-major in the rectangle), so items go out sample by sample; items of
 * pixels outside the image are skipped. Each finished item's radiance goes
 * to radiance[i]; whoever owns a pixel adds its samples up afterwards, in
 * sample order. (Powers of two: integer division is a long instruction
 * sequence on the GPU, and it cost 9% of toy-small's instructions.)
 *
 * Why: a GPU warp used to give each lane one pixel's samples, so it ran
 * until the lane with the longest paths was done; Nsight Compute found the
 * toy-small warps tracing 17.5 rays for every 9.3 of the average lane. With
 * a pool a lane whose path ends takes the warp's next unstarted sample, of
 * whichever pixel, and the warp waits only for the last paths begun. On the
 * CPU a pool is one pixel and the same code runs (pw_path_trace_pixel). */
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
 * maps (accel/sphere_dirmap.h), where dealing them, +4% on toy before the
 * maps, lost 8% (docs/PERFORMANCE.md). The loops stay
 * rolled: unrolled, they pushed the kernel past the instruction cache and
 * lost what the dealing gained. */
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
    for (int i = 0; i < n; i++) {
        pw_hit hs;
        if (!pw_trace(s, sh[i].ray, s->t_min, sh[i].tmax, 1, &hs))
            *L = v3_add_rn(*L, sh[i].contrib);
    }
}

/* One bounce of a path, from its pending ray: the closest hit (the
 * wavefront's walk, pw_trace_extend, which finds the same hit as the
 * megakernel's), its shading, then the shadow rays shading made, their
 * contributions added in order, so the radiance is what a wavefront would
 * have gathered bounce by bounce. Returns whether the path goes on. The
 * wavefront's tail kernel runs paths to their ends with it (no splitting
 * happens past the first hit, so none here). */
PW_HD int pw_path_step(const pw_scene_view *s, const pw_render_params *prm, pw_path *p, uint32_t kinds,
                       uint32_t *ext_rays, uint32_t *shadow_rays)
{
    pw_shadow_ray sh[PW_MAX_SHADOW];
    pw_hit h;
    (*ext_rays)++;
    if (!pw_trace_extend(s, p->ray, pw_path_origin(p), s->t_min, PW_INF, &h)) {
        pw_path_miss(s, prm, p);
        return 0;
    }
    int n;
    pw_shadow_sink sink = pw_sink_array(sh);
    int alive = pw_path_shade(s, prm, p, &h, &sink, &n, kinds);
    *shadow_rays += (uint32_t)n;
    pw_trace_shadows(s, sh, n, &p->L, NULL);
    return alive;
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
 * pw_trace_shadows); every pass waits for all the warp's lanes before its trace
 * (PW_WARP_ANY), so they trace together: without that, lanes that had
 * taken different branches reached the trace at different times and the
 * warp traced the same pass twice at half width (Nsight Compute: 17 of 32
 * lanes in the sphere loop of toy-small). The loop has one trace and one
 * shade call site, children and new samples included: inlined twice, the
 * path code needed far more registers on the GPU (and a single site for
 * shadow rays too measured slower, as lanes then interleave tracing with
 * shading; docs/PERFORMANCE.md). Adds the rays cast to *ext_rays (camera
 * and bounce) and *shadow_rays. */
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
                alive = pw_trace_from(s, p.ray, pw_path_origin(&p), s->t_min, PW_INF, 0, &h);
                if (!alive)
                    pw_path_miss(s, prm, &p);
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
