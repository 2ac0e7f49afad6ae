/* Eight paths in the eight lanes of AVX2 registers: the CPU megakernel's
 * loop for scenes of spheres with the basic materials (the toy scenes of
 * BENCHMARKS.md B1, rtiow).
 *
 * Why: the scalar loop spends about 370 of its 560 instructions a ray on
 * path work (camera rays, hashing random numbers, sampling the lights and
 * the BSDFs, origin offsets), one path at a time; traversal already tests
 * 8 spheres at once. Here each lane carries one path, and the path work of
 * all eight runs as one stream of 8-wide instructions. The lanes' rays go
 * through the flat sphere blocks as packets of 8 (bvh8_flat.h), or one by
 * one through pw_trace in larger scenes.
 *
 * Every lane performs the operations of the shared scalar functions
 * (path.h, bsdf.h, sampling.h, camera.h, ray.h) in the same order, with a
 * fused multiply-add exactly where they call fmaf, so each lane's path and
 * its radiance are bit-identical to the scalar loop's, and so to the
 * GPU's paths as far as those agree (test_determinism compares the two
 * CPU loops bit for bit). A lane that leaves a branch of the scalar code
 * computes the branch anyway and its result is masked off. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_lanes8.h"
#include "integrator/path.h"

#if PW_BVH8_HAVE_AVX2

typedef __m256 f32x8;  /* a float per lane */
typedef __m256i u32x8; /* a 32-bit integer per lane */
typedef struct v3x8 {
    f32x8 x, y, z;
} v3x8;

/* ---- Lane arithmetic, one name per scalar operation. */
static inline f32x8 fsplat(float a) { return _mm256_set1_ps(a); } /* a in every lane */
static inline f32x8 add(f32x8 a, f32x8 b) { return _mm256_add_ps(a, b); }
static inline f32x8 sub(f32x8 a, f32x8 b) { return _mm256_sub_ps(a, b); }
static inline f32x8 mul(f32x8 a, f32x8 b) { return _mm256_mul_ps(a, b); }
static inline f32x8 divide(f32x8 a, f32x8 b) { return _mm256_div_ps(a, b); }
static inline f32x8 fma8(f32x8 a, f32x8 b, f32x8 c) { return _mm256_fmadd_ps(a, b, c); } /* fmaf(a, b, c) */
static inline f32x8 neg(f32x8 a) { return _mm256_xor_ps(a, fsplat(-0.0f)); }
static inline f32x8 sqrt8(f32x8 a) { return _mm256_sqrt_ps(a); }
/* pw_minf / pw_maxf on the host: a < b ? a : b, a > b ? a : b (minps and maxps exactly). */
static inline f32x8 min8(f32x8 a, f32x8 b) { return _mm256_min_ps(a, b); }
static inline f32x8 max8(f32x8 a, f32x8 b) { return _mm256_max_ps(a, b); }
static inline f32x8 abs8(f32x8 a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); } /* fabsf */
static inline f32x8 sel(f32x8 m, f32x8 a, f32x8 b) { return _mm256_blendv_ps(b, a, m); } /* m ? a : b */
static inline f32x8 lt(f32x8 a, f32x8 b) { return _mm256_cmp_ps(a, b, _CMP_LT_OQ); }
static inline f32x8 gt(f32x8 a, f32x8 b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline f32x8 ge(f32x8 a, f32x8 b) { return _mm256_cmp_ps(a, b, _CMP_GE_OQ); }
static inline f32x8 le(f32x8 a, f32x8 b) { return _mm256_cmp_ps(a, b, _CMP_LE_OQ); }
static inline f32x8 eq(f32x8 a, f32x8 b) { return _mm256_cmp_ps(a, b, _CMP_EQ_OQ); }
static inline f32x8 and8(f32x8 a, f32x8 b) { return _mm256_and_ps(a, b); }
static inline f32x8 andnot8(f32x8 a, f32x8 b) { return _mm256_andnot_ps(a, b); } /* !a && b */
static inline f32x8 or8(f32x8 a, f32x8 b) { return _mm256_or_ps(a, b); }
static inline int bits(f32x8 m) { return _mm256_movemask_ps(m); }
static inline f32x8 as_mask(u32x8 m) { return _mm256_castsi256_ps(m); } /* integer lanes of 0 / -1 as a mask */
static inline u32x8 iadd(u32x8 a, u32x8 b) { return _mm256_add_epi32(a, b); }
static inline u32x8 isplat(uint32_t a) { return _mm256_set1_epi32((int)a); }
static inline f32x8 ieq(u32x8 a, u32x8 b) { return as_mask(_mm256_cmpeq_epi32(a, b)); }
static inline u32x8 isel(f32x8 m, u32x8 a, u32x8 b)
{
    return _mm256_castps_si256(sel(m, _mm256_castsi256_ps(a), _mm256_castsi256_ps(b)));
}

/* The lanes whose bits are set in b. */
static inline f32x8 from_bits(int b)
{
    u32x8 lane_bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    return as_mask(_mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(b), lane_bit), lane_bit));
}

static inline v3x8 v3x8_set(pw_vec3 a) { v3x8 r = {fsplat(a.x), fsplat(a.y), fsplat(a.z)}; return r; }
static inline v3x8 v3x8_add(v3x8 a, v3x8 b) { v3x8 r = {add(a.x, b.x), add(a.y, b.y), add(a.z, b.z)}; return r; }
static inline v3x8 v3x8_sub(v3x8 a, v3x8 b) { v3x8 r = {sub(a.x, b.x), sub(a.y, b.y), sub(a.z, b.z)}; return r; }
static inline v3x8 v3x8_mul(v3x8 a, v3x8 b) { v3x8 r = {mul(a.x, b.x), mul(a.y, b.y), mul(a.z, b.z)}; return r; }
static inline v3x8 v3x8_scale(v3x8 a, f32x8 s) { v3x8 r = {mul(a.x, s), mul(a.y, s), mul(a.z, s)}; return r; }
static inline v3x8 v3x8_neg(v3x8 a) { v3x8 r = {neg(a.x), neg(a.y), neg(a.z)}; return r; }
static inline v3x8 v3x8_sel(f32x8 m, v3x8 a, v3x8 b)
{
    v3x8 r = {sel(m, a.x, b.x), sel(m, a.y, b.y), sel(m, a.z, b.z)};
    return r;
}
static inline f32x8 v3x8_dot(v3x8 a, v3x8 b) { return add(add(mul(a.x, b.x), mul(a.y, b.y)), mul(a.z, b.z)); }
/* v3_fma: a s + c, one rounding a component, a the same in every lane. */
static inline v3x8 v3x8_fma(pw_vec3 a, f32x8 s, v3x8 c)
{
    v3x8 r = {fma8(fsplat(a.x), s, c.x), fma8(fsplat(a.y), s, c.y), fma8(fsplat(a.z), s, c.z)};
    return r;
}
static inline v3x8 v3x8_madd(v3x8 a, v3x8 b, f32x8 s) /* a + b s */
{
    v3x8 r = {add(a.x, mul(b.x, s)), add(a.y, mul(b.y, s)), add(a.z, mul(b.z, s))};
    return r;
}
static inline v3x8 v3x8_norm(v3x8 a) { return v3x8_scale(a, divide(fsplat(1.0f), sqrt8(v3x8_dot(a, a)))); }
static inline v3x8 v3x8_reflect(v3x8 d, v3x8 n)
{
    return v3x8_sub(d, v3x8_scale(n, mul(fsplat(2.0f), v3x8_dot(d, n))));
}
static inline f32x8 v3x8_is_zero(v3x8 a)
{
    return and8(and8(eq(a.x, fsplat(0.0f)), eq(a.y, fsplat(0.0f))), eq(a.z, fsplat(0.0f)));
}

/* ---- Random numbers per lane: pw_hash32, pw_hash_combine (the path key),
 * pw_rng_next and pw_rng_next2. */
static inline u32x8 hash8(u32x8 x)
{
    x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
    x = _mm256_mullo_epi32(x, isplat(PW_HASH_M1));
    x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 15));
    x = _mm256_mullo_epi32(x, isplat(PW_HASH_M2));
    return _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
}

static inline u32x8 hash_combine8(u32x8 h, u32x8 v)
{
    u32x8 mix = iadd(iadd(iadd(v, isplat(PW_GOLDEN)), _mm256_slli_epi32(h, 6)), _mm256_srli_epi32(h, 2));
    return hash8(_mm256_xor_si256(h, mix));
}

/* One bounce's stream per lane (pw_rng): the key plus the next dimension
 * times PW_GOLDEN, which is what pw_rng_bits hashes. */
typedef struct rng8 {
    u32x8 next;
} rng8;

static inline rng8 rng8_for(u32x8 bounce_key)
{
    rng8 r = {bounce_key};
    return r;
}

/* The next dimension's bits of every lane in m; the other lanes' streams
 * stand still. */
static inline u32x8 draw_bits(rng8 *r, f32x8 m)
{
    u32x8 u = hash8(r->next);
    r->next = iadd(r->next, _mm256_and_si256(_mm256_castps_si256(m), isplat(PW_GOLDEN)));
    return u;
}

/* pw_rng_next. */
static inline f32x8 draw(rng8 *r, f32x8 m)
{
    return mul(_mm256_cvtepi32_ps(_mm256_srli_epi32(draw_bits(r, m), 8)), fsplat(1.0f / 16777216.0f));
}

/* pw_rng_pair and pw_rng_next2. */
static inline void pair8(u32x8 u, f32x8 *a, f32x8 *b)
{
    *a = fma8(_mm256_cvtepi32_ps(_mm256_srli_epi32(u, 16)), fsplat(1.0f / 65536.0f), fsplat(0.5f / 65536.0f));
    *b = fma8(_mm256_cvtepi32_ps(_mm256_and_si256(u, isplat(0xffff))), fsplat(1.0f / 65536.0f), fsplat(0.5f / 65536.0f));
}

static inline void draw2(rng8 *r, f32x8 m, f32x8 *a, f32x8 *b) { pair8(draw_bits(r, m), a, b); }

/* ---- Sampling (core/pw_hd.h, core/sampling.h). */
static inline void sincos8(f32x8 x, f32x8 *s, f32x8 *c)
{
    f32x8 k = _mm256_round_ps(mul(x, fsplat(PW_SINCOS_2_OVER_PI)), _MM_FROUND_CUR_DIRECTION) /* rintf */;
    f32x8 r = fma8(neg(k), fsplat(PW_SINCOS_PIO2_HI), x);
    r = fma8(neg(k), fsplat(PW_SINCOS_PIO2_LO), r);
    f32x8 r2 = mul(r, r);
    f32x8 sin_poly = fma8(r2, fma8(r2, fsplat(PW_SINCOS_S0), fsplat(PW_SINCOS_S1)), fsplat(PW_SINCOS_S2));
    f32x8 sp = fma8(mul(r2, r), sin_poly, r);
    f32x8 cp = fma8(mul(r2, r2), fma8(r2, fma8(r2, fsplat(PW_SINCOS_C0), fsplat(PW_SINCOS_C1)), fsplat(PW_SINCOS_C2)),
                 fma8(fsplat(-0.5f), r2, fsplat(1.0f)));
    u32x8 q = _mm256_cvttps_epi32(k);
    f32x8 odd = ieq(_mm256_and_si256(q, isplat(1)), isplat(1));
    f32x8 sv = sel(odd, cp, sp), cv = sel(odd, sp, cp);
    *s = sel(ieq(_mm256_and_si256(q, isplat(2)), isplat(2)), neg(sv), sv);
    *c = sel(ieq(_mm256_and_si256(iadd(q, isplat(1)), isplat(2)), isplat(2)), neg(cv), cv);
}

static inline v3x8 unit_sphere_surface8(f32x8 u1, f32x8 u2)
{
    f32x8 z = sub(fsplat(1.0f), mul(fsplat(2.0f), u1));
    f32x8 r = sqrt8(max8(fsplat(0.0f), sub(fsplat(1.0f), mul(z, z))));
    f32x8 sp, cp;
    sincos8(mul(fsplat(2.0f * PW_PI), u2), &sp, &cp);
    v3x8 v = {mul(r, cp), mul(r, sp), z};
    return v;
}

static inline v3x8 cosine_about8(v3x8 n, f32x8 u1, f32x8 u2)
{
    v3x8 d = v3x8_add(n, unit_sphere_surface8(u1, u2));
    f32x8 l2 = v3x8_dot(d, d);
    return v3x8_sel(gt(l2, fsplat(1e-12f)), v3x8_scale(d, divide(fsplat(1.0f), sqrt8(l2))), n);
}

/* pw_sample_cone with pw_frame_from_normal and pw_frame_to_world. */
static inline v3x8 cone8(v3x8 w, f32x8 omc, f32x8 u1, f32x8 u2)
{
    f32x8 h = mul(u1, omc), cos_a = sub(fsplat(1.0f), h);
    f32x8 sin_a = sqrt8(max8(fsplat(0.0f), mul(h, sub(fsplat(2.0f), h))));
    f32x8 sp, cp;
    sincos8(mul(fsplat(2.0f * PW_PI), u2), &sp, &cp);
    f32x8 sign = _mm256_or_ps(fsplat(1.0f), and8(w.z, fsplat(-0.0f))); /* copysignf(1, n.z) */
    f32x8 a = divide(fsplat(-1.0f), add(sign, w.z));
    f32x8 b = mul(mul(w.x, w.y), a);
    v3x8 t = {add(fsplat(1.0f), mul(mul(mul(sign, w.x), w.x), a)), mul(sign, b), mul(neg(sign), w.x)};
    v3x8 bb = {b, add(sign, mul(mul(w.y, w.y), a)), neg(w.y)};
    f32x8 lx = mul(cp, sin_a), ly = mul(sp, sin_a);
    v3x8 r = {add(add(mul(t.x, lx), mul(bb.x, ly)), mul(w.x, cos_a)),
            add(add(mul(t.y, lx), mul(bb.y, ly)), mul(w.y, cos_a)),
            add(add(mul(t.z, lx), mul(bb.z, ly)), mul(w.z, cos_a))};
    return r;
}

/* ---- Origin offsets (geom/ray.h): pw_offsets_for off a sphere, p moved
 * e (pw_sphere_offset_dist) along ng on the side dir leaves by. */
static inline v3x8 offset_sphere8(v3x8 p, v3x8 ng, f32x8 e, v3x8 dir)
{
    f32x8 es = sel(lt(v3x8_dot(dir, ng), fsplat(0.0f)), neg(e), e);
    v3x8 r = {fma8(ng.x, es, p.x), fma8(ng.y, es, p.y), fma8(ng.z, es, p.z)};
    return r;
}

/* pw_intersect_sphere for one sphere and eight rays, tmin 0 and tmax
 * infinite: the distance, or -1. */
static inline f32x8 sphere_t8(v3x8 o, v3x8 d, pw_sphere sp)
{
    v3x8 f = v3x8_sub(o, v3x8_set(sp.c));
    pw_sphere_quad8 k = pw_sphere_quad8_make(f.x, f.y, f.z, d.x, d.y, d.z, fsplat(sp.r * sp.r));
    f32x8 tn, tf;
    pw_sphere_quad8_roots(&k, &tn, &tf);
    f32x8 inf = fsplat(PW_INF), zero = fsplat(0.0f);
    f32x8 tn_ok = and8(gt(tn, zero), lt(tn, inf)), tf_ok = and8(gt(tf, zero), lt(tf, inf));
    f32x8 t = sel(tn_ok, tn, sel(tf_ok, tf, fsplat(-1.0f)));
    return sel(lt(k.disc, zero), fsplat(-1.0f), t);
}

/* ---- The lanes. */
typedef struct lanes8 {
    v3x8 o, d, beta, L; /* pw_path's ray, throughput and radiance */
    u32x8 key, depth, flags;
    f32x8 active;       /* lanes with a path */
    /* Each lane's pixel: its coordinates, its next and its end sample, its
     * sum (loaded from the image and written back when its samples are done). */
    u32x8 px, py, sample, end;
    v3x8 sum;
    u32x8 seed_key;     /* pw_hash32(seed) */
    /* The tile and the next of its pixels to hand out. */
    uint32_t x0, x1, y1, next_x, next_y, spp;
    pw_renderer *r;
} lanes8;

/* pw_path_begin for the lanes in m. */
static void begin8(lanes8 *ls, f32x8 m, const pw_scene_view *s, const pw_render_params *prm)
{
    u32x8 pixel = iadd(_mm256_mullo_epi32(ls->py, isplat(prm->width)), ls->px);
    u32x8 key = hash_combine8(hash_combine8(ls->seed_key, pixel), ls->sample);
    rng8 rng = rng8_for(key); /* pw_bounce_key(key, 0) */
    f32x8 all = as_mask(_mm256_set1_epi32(-1));
    f32x8 jx, jy, l1, l2;
    pair8(key, &jx, &jy); /* the key's own bits */
    draw2(&rng, all, &l1, &l2);
    f32x8 x = add(_mm256_cvtepi32_ps(ls->px), jx), y = add(_mm256_cvtepi32_ps(ls->py), jy);
    /* pw_camera_ray, with pw_sample_disk for the lens. */
    const pw_camera *c = &s->cam;
    v3x8 o = v3x8_set(c->origin);
    if (c->lens_radius > 0.0f) {
        f32x8 rad = sqrt8(l1), sp, cp;
        sincos8(mul(fsplat(2.0f * PW_PI), l2), &sp, &cp);
        f32x8 dx = mul(rad, cp), dy = mul(rad, sp);
        o = v3x8_fma(c->lens_u, dx, v3x8_fma(c->lens_v, dy, o));
    }
    v3x8 target = v3x8_fma(c->pixel_dx, x, v3x8_fma(c->pixel_dy, y, v3x8_set(c->corner)));
    v3x8 d = v3x8_norm(v3x8_sub(target, o));
    ls->o = v3x8_sel(m, o, ls->o);
    ls->d = v3x8_sel(m, d, ls->d);
    ls->beta = v3x8_sel(m, v3x8_set(v3s(1.0f)), ls->beta);
    ls->L = v3x8_sel(m, v3x8_set(v3s(0.0f)), ls->L);
    ls->key = isel(m, key, ls->key);
    ls->depth = isel(m, _mm256_setzero_si256(), ls->depth);
    ls->flags = isel(m, isplat(PW_PATH_SPECULAR | PW_PATH_COUNT_EMISSION), ls->flags);
}

/* Lane k of v set to x (a blend: a store and reload of the vector would
 * stall on store forwarding). */
static inline u32x8 set_lane(u32x8 v, f32x8 lane_k, uint32_t x) { return isel(lane_k, isplat(x), v); }
static inline f32x8 set_lanef(f32x8 v, f32x8 lane_k, float x) { return sel(lane_k, fsplat(x), v); }

/* Hands lane k the tile's next pixel; 0 when none is left. */
static int take_pixel(lanes8 *ls, int k)
{
    pw_renderer *r = ls->r;
    if (ls->next_y >= ls->y1)
        return 0;
    uint32_t x = ls->next_x, y = ls->next_y;
    if (++ls->next_x >= ls->x1)
        ls->next_x = ls->x0, ls->next_y++;
    size_t i = (size_t)y * r->params.width + x;
    f32x8 lane_k = from_bits(1 << k);
    ls->px = set_lane(ls->px, lane_k, x);
    ls->py = set_lane(ls->py, lane_k, y);
    ls->sample = set_lane(ls->sample, lane_k, r->count[i]);
    ls->end = set_lane(ls->end, lane_k, r->count[i] + ls->spp);
    ls->sum.x = set_lanef(ls->sum.x, lane_k, r->sum[3 * i + 0]);
    ls->sum.y = set_lanef(ls->sum.y, lane_k, r->sum[3 * i + 1]);
    ls->sum.z = set_lanef(ls->sum.z, lane_k, r->sum[3 * i + 2]);
    return 1;
}

/* Writes back the sums of the lanes in b, whose pixels have all their samples. */
static void store_pixels(const lanes8 *ls, int b)
{
    pw_renderer *r = ls->r;
    uint32_t x[8], y[8], end[8];
    float sx[8], sy[8], sz[8];
    _mm256_storeu_si256((__m256i *)x, ls->px), _mm256_storeu_si256((__m256i *)y, ls->py);
    _mm256_storeu_si256((__m256i *)end, ls->end);
    _mm256_storeu_ps(sx, ls->sum.x), _mm256_storeu_ps(sy, ls->sum.y), _mm256_storeu_ps(sz, ls->sum.z);
    for (; b; b &= b - 1) {
        int k = __builtin_ctz((unsigned)b);
        size_t i = (size_t)y[k] * r->params.width + x[k];
        r->sum[3 * i + 0] = sx[k];
        r->sum[3 * i + 1] = sy[k];
        r->sum[3 * i + 2] = sz[k];
        r->count[i] = end[k];
    }
}

/* The paths in lanes `ended` are done: each adds its radiance to its
 * pixel (pw_path_accumulate: only if finite) and begins the pixel's next
 * sample, or the next pixel's first. */
static void finish8(lanes8 *ls, f32x8 ended, const pw_scene_view *s, const pw_render_params *prm)
{
    f32x8 big = fsplat(PW_INF); /* isfinite(x): |x| <= FLT_MAX, false for NaN */
    f32x8 finite = and8(and8(le(andnot8(fsplat(-0.0f), ls->L.x), big), le(andnot8(fsplat(-0.0f), ls->L.y), big)),
                     le(andnot8(fsplat(-0.0f), ls->L.z), big));
    /* 0 + L as the scalar lane loop adds it (it turns -0 into +0; the sums are the same) */
    ls->sum = v3x8_sel(and8(finite, ended), v3x8_add(ls->sum, v3x8_add(v3x8_set(v3s(0.0f)), ls->L)), ls->sum);
    ls->sample = _mm256_sub_epi32(ls->sample, _mm256_castps_si256(ended));
    int done = bits(and8(ieq(ls->sample, ls->end), ended));
    int restart = bits(ended) & ~done, gone = 0;
    if (done) {
        store_pixels(ls, done);
        for (int b = done; b; b &= b - 1) {
            int k = __builtin_ctz((unsigned)b);
            if (take_pixel(ls, k))
                restart |= 1 << k;
            else
                gone |= 1 << k;
        }
    }
    if (restart)
        begin8(ls, from_bits(restart), s, prm);
    ls->active = andnot8(from_bits(gone), ls->active);
}

/* ---- Shading (path.h's pw_path_shade with pw_path_toy_lights, bsdf.h). */

/* pw_env_radiance for a sky without an image. */
static inline v3x8 sky8(const pw_env *e, v3x8 d)
{
    v3x8 c = {fma8(fsplat(e->sky_slope.x), d.y, fsplat(e->sky_mid.x)),
              fma8(fsplat(e->sky_slope.y), d.y, fsplat(e->sky_mid.y)),
              fma8(fsplat(e->sky_slope.z), d.y, fsplat(e->sky_mid.z))};
    return c;
}

/* One shadow ray per lane: contrib is added where the segment is clear. */
typedef struct shadow8 {
    v3x8 o, d, contrib;
    f32x8 tmax, valid;
} shadow8;

/* The surface of a lane's hit sphere, and its material. */
typedef struct hit8 {
    v3x8 p, ng, nl; /* point, outward normal, normal facing the arriving ray */
    f32x8 front;    /* the ray arrived from outside */
    u32x8 type;
    v3x8 albedo, emission;
    f32x8 roughness, ior;
    f32x8 off_e; /* pw_sphere_offset_dist */
} hit8;

/* Rows r[0..7] of 8 floats each, transposed: column c of the rows in out[c]. */
static inline void transpose8(const f32x8 r[8], f32x8 out[8])
{
    f32x8 a0 = _mm256_unpacklo_ps(r[0], r[1]), a1 = _mm256_unpackhi_ps(r[0], r[1]);
    f32x8 a2 = _mm256_unpacklo_ps(r[2], r[3]), a3 = _mm256_unpackhi_ps(r[2], r[3]);
    f32x8 a4 = _mm256_unpacklo_ps(r[4], r[5]), a5 = _mm256_unpackhi_ps(r[4], r[5]);
    f32x8 a6 = _mm256_unpacklo_ps(r[6], r[7]), a7 = _mm256_unpackhi_ps(r[6], r[7]);
    f32x8 b0 = _mm256_shuffle_ps(a0, a2, _MM_SHUFFLE(1, 0, 1, 0)), b1 = _mm256_shuffle_ps(a0, a2, _MM_SHUFFLE(3, 2, 3, 2));
    f32x8 b2 = _mm256_shuffle_ps(a1, a3, _MM_SHUFFLE(1, 0, 1, 0)), b3 = _mm256_shuffle_ps(a1, a3, _MM_SHUFFLE(3, 2, 3, 2));
    f32x8 b4 = _mm256_shuffle_ps(a4, a6, _MM_SHUFFLE(1, 0, 1, 0)), b5 = _mm256_shuffle_ps(a4, a6, _MM_SHUFFLE(3, 2, 3, 2));
    f32x8 b6 = _mm256_shuffle_ps(a5, a7, _MM_SHUFFLE(1, 0, 1, 0)), b7 = _mm256_shuffle_ps(a5, a7, _MM_SHUFFLE(3, 2, 3, 2));
    out[0] = _mm256_permute2f128_ps(b0, b4, 0x20), out[4] = _mm256_permute2f128_ps(b0, b4, 0x31);
    out[1] = _mm256_permute2f128_ps(b1, b5, 0x20), out[5] = _mm256_permute2f128_ps(b1, b5, 0x31);
    out[2] = _mm256_permute2f128_ps(b2, b6, 0x20), out[6] = _mm256_permute2f128_ps(b2, b6, 0x31);
    out[3] = _mm256_permute2f128_ps(b3, b7, 0x20), out[7] = _mm256_permute2f128_ps(b3, b7, 0x31);
}

/* The hit spheres and their materials, read row by row and transposed:
 * eight loads and a transpose cost less than a gather per field. */
static hit8 surface8(const pw_scene_view *s, const lanes8 *ls, u32x8 prim, f32x8 t)
{
    _Static_assert(offsetof(pw_material, albedo) == 0 && offsetof(pw_material, type) == 12 &&
                       offsetof(pw_material, emission) == 16 && offsetof(pw_material, roughness) == 28,
                   "surface8 reads a material's first 8 floats as albedo, type, emission, roughness");
    hit8 h;
    uint32_t id[8];
    _mm256_storeu_si256((__m256i *)id, prim);
    f32x8 rows[8], col[8];
    /* Two spheres a row (pw_sphere is 4 floats): columns c.x, c.y, c.z, r twice. */
    for (int k = 0; k < 4; k++)
        rows[k] = _mm256_loadu2_m128((const float *)&s->spheres[id[k + 4]], (const float *)&s->spheres[id[k]]);
    f32x8 a0 = _mm256_unpacklo_ps(rows[0], rows[1]), a1 = _mm256_unpackhi_ps(rows[0], rows[1]);
    f32x8 a2 = _mm256_unpacklo_ps(rows[2], rows[3]), a3 = _mm256_unpackhi_ps(rows[2], rows[3]);
    v3x8 c = {_mm256_shuffle_ps(a0, a2, _MM_SHUFFLE(1, 0, 1, 0)), _mm256_shuffle_ps(a0, a2, _MM_SHUFFLE(3, 2, 3, 2)),
              _mm256_shuffle_ps(a1, a3, _MM_SHUFFLE(1, 0, 1, 0))};
    f32x8 radius = _mm256_shuffle_ps(a1, a3, _MM_SHUFFLE(3, 2, 3, 2));
    h.p = v3x8_madd(ls->o, ls->d, t);
    h.ng = v3x8_scale(v3x8_sub(h.p, c), divide(fsplat(1.0f), radius));
    f32x8 most = max8(max8(abs8(h.p.x), fsplat(0.5f)), max8(abs8(h.p.y), abs8(h.p.z)));
    h.off_e = fma8(fsplat(0x1p-15f), most, mul(fsplat(0x1p-22f), radius)); /* pw_sphere_offset_dist */
    h.front = lt(v3x8_dot(ls->d, h.ng), fsplat(0.0f));
    /* pw_facing_normal: a sphere's shading normal is ng, so the test is the
     * same dot product, d . ng, in the same order. */
    h.nl = v3x8_sel(h.front, h.ng, v3x8_neg(h.ng));
    const pw_material *mat[8];
    for (int k = 0; k < 8; k++) {
        mat[k] = &s->mats[s->sphere_mat[id[k]]];
        rows[k] = _mm256_loadu_ps((const float *)mat[k]);
    }
    transpose8(rows, col);
    h.albedo = (v3x8){col[0], col[1], col[2]};
    h.type = _mm256_castps_si256(col[3]);
    h.emission = (v3x8){col[4], col[5], col[6]};
    h.roughness = col[7];
    h.ior = _mm256_setr_ps(mat[0]->ior, mat[1]->ior, mat[2]->ior, mat[3]->ior, mat[4]->ior, mat[5]->ior, mat[6]->ior,
                           mat[7]->ior);
    return h;
}

/* pw_path_toy_lights for the lanes in m: slot n of out holds every
 * lane's ray to the n-th sphere light that some lane of m samples (a lane
 * that hit that light itself has none there, as in the scalar loop). */
static int toy_lights8(const pw_scene_view *s, const lanes8 *ls, const hit8 *h, u32x8 prim, f32x8 m, rng8 *rng,
                       shadow8 *out)
{
    /* The scalar loop stops at PW_MAX_SHADOW rays a lane; here a slot
     * serves a light for all lanes. The same, as toy scenes have at most
     * PW_MAX_SHADOW sphere lights (renderer.c refuses more). */
    int n = 0;
    for (uint32_t i = 0; i < s->n_lights && n < PW_MAX_SHADOW; i++) {
        pw_light l = s->lights[i];
        if (l.type != PW_LIGHT_SPHERE)
            continue;
        f32x8 sampling = andnot8(ieq(prim, isplat(l.prim)), m); /* lanes that sample light i */
        if (!bits(sampling))
            continue;
        pw_sphere sp = s->spheres[l.prim];
        v3x8 to_c = v3x8_sub(v3x8_set(sp.c), h->p);
        f32x8 d2 = v3x8_dot(to_c, to_c);
        f32x8 u1, u2;
        draw2(rng, sampling, &u1, &u2);
        f32x8 r2 = fsplat(sp.r * sp.r);
        f32x8 s2 = divide(r2, d2); /* pw_sphere_one_minus_cos */
        f32x8 omc = sel(lt(s2, fsplat(1.0f)), divide(s2, add(fsplat(1.0f), sqrt8(sub(fsplat(1.0f), s2)))),
                        fsplat(-1.0f));
        shadow8 *sr = &out[n++];
        sr->valid = andnot8(lt(omc, fsplat(0.0f)), sampling);
        sr->d = cone8(v3x8_scale(to_c, divide(fsplat(1.0f), sqrt8(d2))), omc, u1, u2);
        f32x8 omega = mul(fsplat(2.0f * PW_PI), omc);
        pw_vec3 le = s->mats[s->sphere_mat[l.prim]].emission;
        sr->o = offset_sphere8(h->p, h->ng, h->off_e, sr->d);
        f32x8 fallback = sqrt8(max8(fsplat(0.0f), sub(d2, r2)));
        f32x8 t = sphere_t8(sr->o, sr->d, sp);
        sr->tmax = mul(sel(gt(t, fsplat(0.0f)), t, fallback), fsplat(0.9999f)); /* pw_shadow_tmax_sphere */
        f32x8 w = mul(mul(max8(fsplat(0.0f), v3x8_dot(sr->d, h->nl)), omega), fsplat(PW_INV_PI));
        sr->contrib = v3x8_scale(v3x8_mul(v3x8_mul(ls->beta, h->albedo), v3x8_set(le)), w);
    }
    return n;
}

/* pw_fresnel_dielectric and the smooth dielectric's choice of direction. */
static v3x8 dielectric8(v3x8 d, const hit8 *h, f32x8 u1)
{
    v3x8 n = v3x8_sel(h->front, h->ng, v3x8_neg(h->ng));
    f32x8 eta = sel(h->front, divide(fsplat(1.0f), h->ior), h->ior);
    f32x8 cos_i = min8(fsplat(1.0f), neg(v3x8_dot(d, n)));
    f32x8 sin2_t = mul(mul(eta, eta), max8(fsplat(0.0f), sub(fsplat(1.0f), mul(cos_i, cos_i))));
    f32x8 tir = ge(sin2_t, fsplat(1.0f));
    f32x8 cos_t = andnot8(tir, sqrt8(sub(fsplat(1.0f), sin2_t)));
    f32x8 rs = divide(sub(mul(eta, cos_i), cos_t), add(mul(eta, cos_i), cos_t));
    f32x8 rp = divide(sub(cos_i, mul(eta, cos_t)), add(cos_i, mul(eta, cos_t)));
    f32x8 f = sel(tir, fsplat(1.0f), min8(fsplat(1.0f), mul(fsplat(0.5f), add(mul(rs, rs), mul(rp, rp)))));
    v3x8 refr = v3x8_norm(v3x8_add(v3x8_scale(d, eta), v3x8_scale(n, sub(mul(eta, cos_i), cos_t))));
    return v3x8_sel(lt(u1, f), v3x8_norm(v3x8_reflect(d, n)), refr);
}

/* pw_sample_unit_ball's radius: libm's cbrtf, lane by lane (rough metal only). */
static f32x8 cbrt8(f32x8 u, f32x8 m)
{
    float a[8];
    _mm256_storeu_ps(a, u);
    for (int b = bits(m); b; b &= b - 1) {
        int k = __builtin_ctz((unsigned)b);
        a[k] = cbrtf(a[k]);
    }
    return _mm256_loadu_ps(a);
}

/* pw_bsdf_sample_kinds for the basic materials, lanes in m: the sampled
 * direction, and in *ok the lanes whose sample is valid. */
static v3x8 sample_bsdf8(const lanes8 *ls, const hit8 *h, f32x8 m, rng8 *rng, f32x8 *ok)
{
    f32x8 u1 = draw(rng, m), u2 = draw(rng, m);
    f32x8 lambert = and8(ieq(h->type, isplat(PW_MAT_LAMBERT)), m);
    f32x8 metal = and8(ieq(h->type, isplat(PW_MAT_METAL)), m);
    f32x8 glass = and8(ieq(h->type, isplat(PW_MAT_DIELECTRIC)), m);
    v3x8 wi = h->nl;
    *ok = fsplat(0.0f);
    if (bits(lambert)) {
        v3x8 wl = cosine_about8(h->nl, u1, u2);
        wi = v3x8_sel(lambert, wl, wi);
        *ok = or8(*ok, and8(_mm256_cmp_ps(v3x8_dot(wl, h->nl), fsplat(0.0f), _CMP_NLE_UQ), lambert)); /* !(c <= 0) */
    }
    if (bits(metal)) {
        v3x8 refl = v3x8_reflect(ls->d, h->nl);
        f32x8 rough = and8(gt(h->roughness, fsplat(0.0f)), metal);
        if (bits(rough)) {
            f32x8 u3 = draw(rng, rough);
            v3x8 ball = v3x8_scale(unit_sphere_surface8(u1, u2), cbrt8(u3, rough));
            refl = v3x8_sel(rough, v3x8_add(refl, v3x8_scale(ball, h->roughness)), refl);
        }
        v3x8 wm = v3x8_norm(refl);
        wi = v3x8_sel(metal, wm, wi);
        *ok = or8(*ok, and8(gt(v3x8_dot(wm, h->nl), fsplat(0.0f)), metal));
    }
    if (bits(glass)) {
        wi = v3x8_sel(glass, dielectric8(ls->d, h, u1), wi);
        *ok = or8(*ok, glass);
    }
    return wi;
}

/* The end of pw_path_shade for the lanes in alive, which move on along
 * wi: throughput, flags, the next ray, the depth, Russian roulette.
 * Returns the lanes whose paths go on. (Depths are compared as signed
 * integers: the renderer caps max depth at 1024 and rr depth at INT_MAX.) */
static f32x8 continue8(lanes8 *ls, const hit8 *h, v3x8 wi, f32x8 alive, const pw_render_params *prm, rng8 *rng)
{
    ls->beta = v3x8_sel(alive, v3x8_mul(ls->beta, h->albedo), ls->beta);
    f32x8 specular = andnot8(ieq(h->type, isplat(PW_MAT_LAMBERT)), alive);
    u32x8 flags = isel(specular, isplat(PW_PATH_SPECULAR | PW_PATH_COUNT_EMISSION), _mm256_setzero_si256());
    ls->flags = isel(alive, flags, ls->flags);
    ls->o = v3x8_sel(alive, offset_sphere8(h->p, h->ng, h->off_e, wi), ls->o);
    ls->d = v3x8_sel(alive, wi, ls->d);
    ls->depth = _mm256_sub_epi32(ls->depth, _mm256_castps_si256(alive));
    f32x8 rr = and8(as_mask(_mm256_cmpgt_epi32(ls->depth, isplat(prm->rr_depth - 1u))), alive);
    if (bits(rr)) {
        f32x8 survive = min8(fsplat(1.0f), max8(ls->beta.x, max8(ls->beta.y, ls->beta.z)));
        f32x8 dies = and8(ge(draw(rng, rr), survive), rr);
        ls->beta = v3x8_sel(andnot8(dies, rr), v3x8_scale(ls->beta, divide(fsplat(1.0f), survive)), ls->beta);
        alive = andnot8(dies, alive);
    }
    return andnot8(v3x8_is_zero(ls->beta), alive);
}

/* Shades the lanes in hit, as pw_path_shade does for PW_KINDS_BASIC:
 * emission, the toy estimator's shadow rays, the next direction and
 * Russian roulette. Returns the lanes whose paths go on; *n_shadows slots
 * of shadows hold the shadow rays. */
static f32x8 shade8(lanes8 *ls, f32x8 hit, u32x8 prim, f32x8 t, const pw_scene_view *s, const pw_render_params *prm,
                    shadow8 *shadows, int *n_shadows)
{
    *n_shadows = 0;
    prim = isel(hit, prim, _mm256_setzero_si256());
    hit8 h = surface8(s, ls, prim, t);
    /* pw_path_add_emission: spheres emit to both sides. */
    f32x8 emits = andnot8(v3x8_is_zero(h.emission), hit);
    if (prm->light_mode == PW_LIGHT_MODE_TOY) {
        u32x8 counted = _mm256_and_si256(ls->flags, isplat(PW_PATH_COUNT_EMISSION));
        emits = andnot8(ieq(counted, _mm256_setzero_si256()), emits);
    }
    ls->L = v3x8_sel(emits, v3x8_add(ls->L, v3x8_mul(ls->beta, h.emission)), ls->L);
    f32x8 bounce = and8(as_mask(_mm256_cmpgt_epi32(isplat(prm->max_depth), ls->depth)), hit); /* depth < max */
    if (!bits(bounce))
        return bounce;
    rng8 rng = rng8_for(iadd(ls->key, _mm256_mullo_epi32(iadd(ls->depth, isplat(1)),
                                                         isplat(PW_RNG_BOUNCE_DIMS * PW_GOLDEN)))); /* pw_bounce_key */
    f32x8 lambert = and8(ieq(h.type, isplat(PW_MAT_LAMBERT)), bounce);
    if (prm->light_mode == PW_LIGHT_MODE_TOY && bits(lambert))
        *n_shadows = toy_lights8(s, ls, &h, prim, lambert, &rng, shadows);
    f32x8 ok;
    v3x8 wi = sample_bsdf8(ls, &h, bounce, &rng, &ok);
    return continue8(ls, &h, wi, ok, prm, &rng);
}

/* Closest (or any) hits of the rays o + t d of the lanes in m within
 * (t_min, tmax): the hit lanes, with *t and *prim. A flat sphere scene is
 * traced as a packet (accel/bvh8_flat.h); others ray by ray. */
static f32x8 trace8(const pw_scene_view *s, v3x8 o, v3x8 d, f32x8 m, f32x8 tmax, int any_hit, f32x8 *t,
                    u32x8 *prim)
{
    const pw_bvh8 *b8 = (const pw_bvh8 *)s->cpu_bvh8;
    if (b8->flat) {
        pw_rays8 r = {o.x, o.y, o.z, d.x, d.y, d.z};
        return pw_bvh8_trace_flat8(b8, &r, m, s->t_min, tmax, any_hit, t, prim);
    }
    float ox[8], oy[8], oz[8], dx[8], dy[8], dz[8], tv[8] = {0}, tm[8];
    uint32_t pv[8] = {0};
    _mm256_storeu_ps(ox, o.x), _mm256_storeu_ps(oy, o.y), _mm256_storeu_ps(oz, o.z);
    _mm256_storeu_ps(dx, d.x), _mm256_storeu_ps(dy, d.y), _mm256_storeu_ps(dz, d.z);
    _mm256_storeu_ps(tm, tmax);
    int found = 0;
    for (int b = bits(m); b; b &= b - 1) {
        int k = __builtin_ctz((unsigned)b);
        pw_ray ray = {v3(ox[k], oy[k], oz[k]), v3(dx[k], dy[k], dz[k])};
        pw_hit h;
        if (pw_trace(s, ray, s->t_min, tm[k], any_hit, &h))
            found |= 1 << k, pv[k] = h.prim, tv[k] = h.t;
    }
    *t = _mm256_loadu_ps(tv);
    *prim = _mm256_loadu_si256((const __m256i *)pv);
    return from_bits(found);
}

/* Shadow rays: a slot per sphere light, at most PW_MAX_SHADOW slots of 8
 * lanes, and trace_shadows8 keeps one bit per ray in a uint64_t. */
_Static_assert(PW_MAX_SHADOW <= 8, "the 8-lane loop packs at most 64 shadow rays a pass");

/* For every 8-bit lane mask b: compress[b] lists the set lanes in order
 * (byte i: the lane of the i-th set bit), rank[b] gives each lane its
 * place among them (byte k: set bits below lane k). Tables, not loops:
 * a loop over a mask's bits is a branch the CPU mispredicts. */
static uint64_t compress_lut[256], rank_lut[256];

/* Filled once when the library is loaded (before main, or before dlopen
 * returns), so render threads only ever read them. */
__attribute__((constructor)) static void lanes8_tables(void)
{
    for (int b = 0; b < 256; b++) {
        int n = 0;
        for (int k = 0; k < 8; k++) {
            rank_lut[b] |= (uint64_t)n << (8 * k);
            if (b >> k & 1)
                compress_lut[b] |= (uint64_t)k << (8 * n++);
        }
    }
}

static inline u32x8 byte_lanes(uint64_t v) { return _mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)v)); }

/* Traces the shadow rays of every slot and adds the contributions of the
 * clear ones, slot by slot, as the scalar loop adds a path's in order. The
 * rays are packed 8 to a packet first: a slot alone fills about half the
 * lanes (the Lambert hits of a pass). */
static void trace_shadows8(lanes8 *ls, const pw_scene_view *s, const shadow8 *sh, int n_sh, uint32_t *shadow_rays)
{
    enum { OX, OY, OZ, DX, DY, DZ, TMAX, FIELDS, MAX_RAYS = 8 * PW_MAX_SHADOW };
    float ray[FIELDS][MAX_RAYS + 8]; /* each field of each ray, slot after slot */
    int first[PW_MAX_SHADOW], n = 0;
    for (int j = 0; j < n_sh; j++) {
        int valid = bits(sh[j].valid);
        u32x8 order = byte_lanes(compress_lut[valid]);
        f32x8 f[FIELDS] = {sh[j].o.x, sh[j].o.y, sh[j].o.z, sh[j].d.x, sh[j].d.y, sh[j].d.z, sh[j].tmax};
        for (int a = 0; a < FIELDS; a++)
            _mm256_storeu_ps(&ray[a][n], _mm256_permutevar8x32_ps(f[a], order));
        first[j] = n;
        n += __builtin_popcount((unsigned)valid);
    }
    *shadow_rays += (uint32_t)n;
    for (int a = 0; a < FIELDS; a++) /* the last packet's unused lanes: defined values, masked off */
        _mm256_storeu_ps(&ray[a][n], _mm256_setzero_ps());
    uint64_t blocked = 0; /* bit i: ray i hit something */
    for (int p = 0; p < n; p += 8) {
        v3x8 o = {_mm256_loadu_ps(&ray[OX][p]), _mm256_loadu_ps(&ray[OY][p]), _mm256_loadu_ps(&ray[OZ][p])};
        v3x8 d = {_mm256_loadu_ps(&ray[DX][p]), _mm256_loadu_ps(&ray[DY][p]), _mm256_loadu_ps(&ray[DZ][p])};
        int used = n - p < 8 ? n - p : 8;
        f32x8 t;
        u32x8 prim;
        f32x8 hit = trace8(s, o, d, from_bits((1 << used) - 1), _mm256_loadu_ps(&ray[TMAX][p]), 1, &t, &prim);
        blocked |= (uint64_t)bits(hit) << p;
    }
    for (int j = 0; j < n_sh; j++) {
        /* Ray first[j] + rank of lane k among the slot's rays is lane k's. */
        int valid = bits(sh[j].valid);
        f32x8 was_blocked = from_bits((int)(blocked >> first[j]) & 0xff);
        was_blocked = _mm256_permutevar8x32_ps(was_blocked, byte_lanes(rank_lut[valid]));
        f32x8 clear = andnot8(was_blocked, sh[j].valid);
        ls->L = v3x8_sel(clear, v3x8_add(ls->L, sh[j].contrib), ls->L);
    }
}

/* One pass: every lane's ray traced, the lanes shaded, their shadow rays
 * traced, finished paths replaced. */
static void step8(lanes8 *ls, const pw_scene_view *s, const pw_render_params *prm, uint32_t *ext_rays,
                  uint32_t *shadow_rays)
{
    f32x8 t;
    u32x8 prim;
    *ext_rays += (uint32_t)__builtin_popcount((unsigned)bits(ls->active));
    f32x8 hit = trace8(s, ls->o, ls->d, ls->active, fsplat(PW_INF), 0, &t, &prim);
    f32x8 miss = andnot8(hit, ls->active);
    if (bits(miss))
        ls->L = v3x8_sel(miss, v3x8_add(ls->L, v3x8_mul(ls->beta, sky8(&s->env, ls->d))), ls->L);
    f32x8 alive = hit;
    shadow8 sh[PW_MAX_SHADOW];
    int n_sh = 0;
    if (bits(hit))
        alive = shade8(ls, hit, prim, t, s, prm, sh, &n_sh);
    if (n_sh)
        trace_shadows8(ls, s, sh, n_sh, shadow_rays);
    f32x8 ended = andnot8(alive, ls->active);
    if (bits(ended))
        finish8(ls, ended, s, prm);
}

int pw_cpu_lanes8_usable(const pw_renderer *r)
{
    const char *e = getenv("PATHWAVE_CPU_LANES8");
    const pw_scene_view *s = &r->view;
    const pw_render_params *p = &r->params;
    if (e && *e == '0')
        return 0;
    return s->cpu_bvh8 && s->n_tris == 0 && s->n_spheres > 0 && p->kinds == PW_KINDS_BASIC && p->split <= 1 &&
           (p->light_mode == PW_LIGHT_MODE_TOY || p->light_mode == PW_LIGHT_MODE_NONE) && s->env.type != PW_ENV_MAP;
}

__attribute__((flatten)) void pw_cpu_lanes8_tile(pw_renderer *r, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1,
                                                 uint32_t spp, uint32_t *ext_rays, uint32_t *shadow_rays)
{
    const pw_scene_view *s = &r->view;
    const pw_render_params *prm = &r->params;
    lanes8 ls;
    memset(&ls, 0, sizeof ls);
    ls.r = r;
    ls.seed_key = hash8(isplat(prm->seed));
    ls.x0 = ls.next_x = x0, ls.next_y = y0, ls.x1 = x1, ls.y1 = y1, ls.spp = spp;
    if (spp == 0)
        return;
    int start = 0;
    for (int k = 0; k < 8; k++)
        if (take_pixel(&ls, k))
            start |= 1 << k;
    ls.active = from_bits(start);
    begin8(&ls, ls.active, s, prm);
    while (bits(ls.active))
        step8(&ls, s, prm, ext_rays, shadow_rays);
}

#else

int pw_cpu_lanes8_usable(const pw_renderer *r)
{
    (void)r;
    return 0; /* no AVX2 in this build: paths are traced one by one */
}

#endif
