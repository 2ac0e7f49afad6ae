/* The CPU's AVX2 sphere blocks, and the flat layout of a small sphere-only
 * scene: at most 8 blocks of 8 spheres whose 8 boxes are one
 * pw_bvh8_node. A ray tests the 8 boxes in one go and then only the blocks
 * it enters: no stack, no ordering, no call (the integrator inlines it).
 * Host code with AVX2 only; nvcc and other
 * targets never see it. */
#ifndef PW_BVH8_FLAT_H
#define PW_BVH8_FLAT_H

#include "accel/bvh8_cpu.h"
#include "geom/intersect.h"

#if defined(__AVX2__) && !defined(__CUDACC__)
#define PW_BVH8_HAVE_AVX2 1
#include <immintrin.h>

/* Ray constants broadcast to all lanes. */
typedef struct pw_ray8 {
    __m256 ox, oy, oz, dx, dy, dz;
} pw_ray8;

static inline pw_ray8 pw_ray8_make(pw_ray r)
{
    pw_ray8 r8;
    r8.ox = _mm256_set1_ps(r.o.x), r8.oy = _mm256_set1_ps(r.o.y), r8.oz = _mm256_set1_ps(r.o.z);
    r8.dx = _mm256_set1_ps(r.d.x), r8.dy = _mm256_set1_ps(r.d.y), r8.dz = _mm256_set1_ps(r.d.z);
    return r8;
}

/* pw_intersect_sphere's quadratic, lane by lane, for f = o - c, a unit
 * direction d and r2 = r^2: b (distance along d to the closest approach),
 * the discriminant r2 - |f + d b|^2, and cc = |f|^2 - r2 (> 0 outside). */
typedef struct pw_sphere_quad8 {
    __m256 b, disc, cc;
} pw_sphere_quad8;

static inline pw_sphere_quad8 pw_sphere_quad8_make(__m256 fx, __m256 fy, __m256 fz, __m256 dx, __m256 dy, __m256 dz,
                                                   __m256 r2)
{
    pw_sphere_quad8 k;
    __m256 fd = _mm256_fmadd_ps(fz, dz, _mm256_fmadd_ps(fy, dy, _mm256_mul_ps(fx, dx)));
    k.b = _mm256_xor_ps(fd, _mm256_set1_ps(-0.0f));
    __m256 lx = _mm256_fmadd_ps(dx, k.b, fx);
    __m256 ly = _mm256_fmadd_ps(dy, k.b, fy);
    __m256 lz = _mm256_fmadd_ps(dz, k.b, fz);
    k.disc = _mm256_sub_ps(r2, _mm256_fmadd_ps(lz, lz, _mm256_fmadd_ps(ly, ly, _mm256_mul_ps(lx, lx))));
    k.cc = _mm256_sub_ps(_mm256_fmadd_ps(fz, fz, _mm256_fmadd_ps(fy, fy, _mm256_mul_ps(fx, fx))), r2);
    return k;
}

/* Its two roots, nearer first (q = b + sign(b) sqrt(disc) and cc / q, 0
 * where q is 0). Lanes with disc < 0 get NaN roots, which fail every
 * comparison. */
static inline void pw_sphere_quad8_roots(const pw_sphere_quad8 *k, __m256 *tn, __m256 *tf)
{
    __m256 sign = _mm256_and_ps(k->b, _mm256_set1_ps(-0.0f));
    __m256 q = _mm256_add_ps(k->b, _mm256_or_ps(_mm256_sqrt_ps(k->disc), sign));
    __m256 qnz = _mm256_cmp_ps(q, _mm256_setzero_ps(), _CMP_NEQ_UQ);
    __m256 t0 = _mm256_and_ps(_mm256_div_ps(k->cc, q), qnz);
    *tn = _mm256_min_ps(t0, q);
    *tf = _mm256_max_ps(t0, q);
}

/* The lanes that may hit: disc >= 0, and not outside the sphere with its
 * centre behind (the shortcut of pw_intersect_sphere, taken where
 * behind_ok: tmin >= 0), so the roots can be skipped when none may. */
static inline __m256 pw_sphere_quad8_may_hit(const pw_sphere_quad8 *k, __m256 behind_ok)
{
    __m256 zero = _mm256_setzero_ps();
    __m256 behind = _mm256_and_ps(
        _mm256_and_ps(_mm256_cmp_ps(k->b, zero, _CMP_LT_OQ), _mm256_cmp_ps(k->cc, zero, _CMP_GT_OQ)), behind_ok);
    return _mm256_andnot_ps(behind, _mm256_cmp_ps(k->disc, zero, _CMP_GE_OQ));
}

/* One block of 8 spheres against the ray, folded into the running per-lane
 * nearest hit (*best, *best_prim; best starts at tmax, so only closer hits
 * qualify). Each lane performs exactly the operations of
 * pw_intersect_sphere in the same order, so distances are bit-identical to
 * the scalar test. Returns the mask of lanes that found a closer hit. */
static inline int pw_sphere8_test(const pw_sphere8 *l, const pw_ray8 *r, __m256 lo, __m256 behind_ok, __m256 *best,
                                  __m256i *best_prim)
{
    __m256 fx = _mm256_sub_ps(r->ox, _mm256_loadu_ps(l->cx));
    __m256 fy = _mm256_sub_ps(r->oy, _mm256_loadu_ps(l->cy));
    __m256 fz = _mm256_sub_ps(r->oz, _mm256_loadu_ps(l->cz));
    pw_sphere_quad8 k = pw_sphere_quad8_make(fx, fy, fz, r->dx, r->dy, r->dz, _mm256_loadu_ps(l->r2));
    if (_mm256_movemask_ps(pw_sphere_quad8_may_hit(&k, behind_ok)) == 0)
        return 0;
    __m256 tn, tf;
    pw_sphere_quad8_roots(&k, &tn, &tf);
    __m256 tn_ok = _mm256_and_ps(_mm256_cmp_ps(tn, lo, _CMP_GT_OQ), _mm256_cmp_ps(tn, *best, _CMP_LT_OQ));
    __m256 tf_ok = _mm256_and_ps(_mm256_cmp_ps(tf, lo, _CMP_GT_OQ), _mm256_cmp_ps(tf, *best, _CMP_LT_OQ));
    __m256 closer = _mm256_or_ps(tn_ok, tf_ok);
    *best = _mm256_blendv_ps(*best, _mm256_blendv_ps(tf, tn, tn_ok), closer);
    *best_prim = _mm256_castps_si256(
        _mm256_blendv_ps(_mm256_castsi256_ps(*best_prim), _mm256_loadu_ps((const float *)l->prim), closer));
    return _mm256_movemask_ps(closer);
}

/* The nearest of the per-lane hits (some lane found one below *tmax). */
static inline void pw_sphere8_resolve(__m256 best, __m256i best_prim, float *tmax, pw_hit *hit)
{
    __m256 m = _mm256_min_ps(best, _mm256_permute2f128_ps(best, best, 1));
    m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(1, 0, 3, 2)));
    m = _mm256_min_ps(m, _mm256_shuffle_ps(m, m, _MM_SHUFFLE(2, 3, 0, 1)));
    int lane = __builtin_ctz((unsigned)_mm256_movemask_ps(_mm256_cmp_ps(best, m, _CMP_EQ_OQ)));
    *tmax = _mm256_cvtss_f32(m);
    hit->t = *tmax;
    hit->prim = (uint32_t)_mm256_cvtsi256_si32(_mm256_permutevar8x32_epi32(best_prim, _mm256_set1_epi32(lane)));
    hit->u = hit->v = 0.0f;
}

/* Mask of the children of n whose boxes the ray enters within (tmin,
 * tmax), with their entry distances in *tn_out: (b - o) / d per slab, the far distance widened by 2 gamma(3) so
 * that rounding never culls a box the ray touches (as pw_intersect_box). */
static inline int pw_bvh8_node_mask(const pw_bvh8_node *n, const pw_ray8 *r, __m256 ix, __m256 iy, __m256 iz, int nx,
                                    int ny, int nz, __m256 vtmin, __m256 vtmax, __m256 *tn_out)
{
    __m256 t0x = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(nx ? n->hi[0] : n->lo[0]), r->ox), ix);
    __m256 t1x = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(nx ? n->lo[0] : n->hi[0]), r->ox), ix);
    __m256 t0y = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(ny ? n->hi[1] : n->lo[1]), r->oy), iy);
    __m256 t1y = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(ny ? n->lo[1] : n->hi[1]), r->oy), iy);
    __m256 t0z = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(nz ? n->hi[2] : n->lo[2]), r->oz), iz);
    __m256 t1z = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(nz ? n->lo[2] : n->hi[2]), r->oz), iz);
    __m256 tn = _mm256_max_ps(_mm256_max_ps(t0x, t0y), _mm256_max_ps(t0z, vtmin));
    __m256 tf = _mm256_min_ps(_mm256_min_ps(t1x, t1y), _mm256_min_ps(t1z, vtmax));
    *tn_out = tn;
    return _mm256_movemask_ps(_mm256_cmp_ps(tn, _mm256_mul_ps(tf, _mm256_set1_ps(1.00000024f)), _CMP_LE_OQ));
}

/* Same contract as pw_bvh_trace, for a pw_bvh8 in flat mode. */
static inline int pw_bvh8_trace_flat(const pw_bvh8 *b, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
    pw_hit_none(hit, tmax);
    pw_ray8 r8 = pw_ray8_make(r);
    /* pw_safe_inverse in one 4-lane division. */
    __m128 d4 = _mm_setr_ps(r.d.x, r.d.y, r.d.z, 1.0f);
    d4 = _mm_blendv_ps(d4, _mm_set1_ps(1e-30f), _mm_cmpeq_ps(d4, _mm_setzero_ps()));
    __m128 inv = _mm_div_ps(_mm_set1_ps(1.0f), d4);
    int neg = _mm_movemask_ps(inv);
    __m256 lo = _mm256_set1_ps(tmin), best = _mm256_set1_ps(tmax), tn;
    int live = pw_bvh8_node_mask(b->nodes, &r8, _mm256_broadcastss_ps(inv),
                                 _mm256_broadcastss_ps(_mm_movehdup_ps(inv)),
                                 _mm256_broadcastss_ps(_mm_unpackhi_ps(inv, inv)), neg & 1, neg & 2, neg & 4, lo, best,
                                 &tn);
    /* Only the real blocks: a ray with a NaN component "enters" every
     * slot, empty ones included (maxps and minps return their second
     * operand when one is NaN), and there are only n_blocks blocks. */
    live &= (1 << b->n_blocks) - 1;
    __m256i best_prim = _mm256_setzero_si256();
    __m256 behind_ok = _mm256_cmp_ps(lo, _mm256_setzero_ps(), _CMP_GE_OQ);
    int found = 0;
    while (live) {
        int k = __builtin_ctz((unsigned)live);
        live &= live - 1;
        found |= pw_sphere8_test(&b->blocks[k], &r8, lo, behind_ok, &best, &best_prim);
        if (any_hit && found)
            return 1;
    }
    if (!found)
        return 0;
    pw_sphere8_resolve(best, best_prim, &tmax, hit);
    return 1;
}

#endif
#endif
