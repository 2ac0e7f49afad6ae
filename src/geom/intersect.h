/* Ray-primitive tests shared by every backend and by the BVH traversal. */
#ifndef PW_INTERSECT_H
#define PW_INTERSECT_H

#include "geom/ray.h"

/* The sphere test's terms for f = o - c: b, the distance along d to the
 * point nearest the centre, and cc, |f|^2 - r2 (r2 = r * r; positive
 * outside). */
PW_HD float pw_sphere_b(pw_vec3 f, pw_vec3 d) { return -fmaf(f.z, d.z, fmaf(f.y, d.y, f.x * d.x)); }
PW_HD float pw_sphere_cc(pw_vec3 f, float r2) { return fmaf(f.z, f.z, fmaf(f.y, f.y, f.x * f.x)) - r2; }

/* Outside the sphere (cc > 0) with its centre behind (b < 0), both roots
 * are negative (q = b - sqrt(disc) < 0 and cc / q < 0): the ray leaves the
 * sphere behind and hits it at no t >= 0. Most rays start on a surface
 * they leave, with spheres behind them. */
PW_HD int pw_sphere_left_behind(float b, float cc) { return b < 0.0f && cc > 0.0f; }

/* Sphere test with the discriminant computed from the distance of the
 * centre to the ray (Haines et al., Ray Tracing Gems, ch. 7), which stays
 * accurate for small spheres far away. Needs a unit direction. The dot
 * products are written as fused multiply-adds so that the CPU's 8-lane
 * version (accel/bvh8_cpu.c) performs the same roundings with fewer
 * instructions. The root's square root and division are the GPU's
 * approximations (pw_sqrt_approx: exact on the host): t is then off by a
 * few ulps, where the offset of the next ray's origin off a sphere
 * (pw_sphere_offset_dist) is some 256 ulps of the point's largest
 * coordinate (2^-16 at least), and the furnace tests still lose no
 * path; the IEEE sequences were a notable share of toy's warp
 * instructions, run by few lanes of the warp, and the approximations made
 * toy and toy-small faster (docs/PERFORMANCE.md). The test comes in
 * steps, which pw_trace_sphere_list also takes one by one. First the
 * discriminant, negative where the line misses, for f = o - c and
 * r2 = r * r; *b_out takes b. */
PW_HD float pw_sphere_disc(pw_vec3 f, pw_vec3 d, float r2, float *b_out)
{
    float b = pw_sphere_b(f, d);
    pw_vec3 l = v3(fmaf(d.x, b, f.x), fmaf(d.y, b, f.y), fmaf(d.z, b, f.z));
    *b_out = b;
    return r2 - fmaf(l.z, l.z, fmaf(l.y, l.y, l.x * l.x));
}

/* Then the roots, for disc >= 0: the nearer is *tn, the farther *tf. q is
 * 0 only where b = 0 and the square root is 0 (disc = 0, or on the GPU a
 * denormal disc, which its approximate square root flushes), where a
 * guard on q used to make both roots 0. Without it cc / q is a NaN (the
 * host: b = 0 makes disc = -cc exactly, so cc = 0 too) or, on the GPU, an
 * infinity: a NaN drops out of the minimum and maximum, leaving 0 and 0,
 * and an infinity makes the roots 0 and it, and pw_sphere_pick and the
 * range test find the same t as from the guard's roots (0 where it lies in
 * the range). Sparing the test of q saved the GPU's sphere tests two
 * instructions (docs/PERFORMANCE.md). */
PW_HD void pw_sphere_roots(float b, float cc, float disc, float *tn, float *tf)
{
    float q = b + copysignf(pw_sqrt_approx(disc), b);
    float t0 = pw_div_approx(cc, q), t1 = q;
    *tn = pw_minf(t0, t1);
    *tf = pw_maxf(t0, t1);
}

/* The root a ray meets first in (tmin, tmax), or one outside that range:
 * the near root if it lies above tmin, else the far one. A near root past
 * tmax leaves the far one past it too, so the near one needs no test
 * against tmax here: the range test after it rejects both. */
PW_HD float pw_sphere_pick(float tn, float tf, float tmin) { return tn > tmin ? tn : tf; }

/* The whole test: the nearest t in (tmin, tmax), or -1. */
PW_HD float pw_intersect_sphere(pw_vec3 o, pw_vec3 d, pw_vec3 c, float r, float tmin, float tmax)
{
    pw_vec3 f = v3_sub(o, c);
    float b, r2 = r * r;
    float disc = pw_sphere_disc(f, d, r2, &b);
    if (disc < 0.0f)
        return -1.0f;
    float cc = pw_sphere_cc(f, r2);
    /* No hit above a tmin >= 0: the square root and the division are spared. */
    if (pw_sphere_left_behind(b, cc) && tmin >= 0.0f)
        return -1.0f;
    float tn, tf;
    pw_sphere_roots(b, cc, disc, &tn, &tf);
    float t = pw_sphere_pick(tn, tf, tmin);
    return t > tmin && t < tmax ? t : -1.0f;
}

/* The sphere (c, radius), whose id is id, against the ray up to *tmax: on a hit,
 * *tmax and the hit record take its distance and id. The step of the
 * loops over spheres that keep a hit record (the groups' runs, a map's
 * slots, a BVH's primitives; the sphere list keeps an id and a distance). */
PW_HD int pw_hit_sphere(pw_vec3 c, float radius, uint32_t id, pw_vec3 o, pw_vec3 d, float tmin, float *tmax,
                        pw_hit *hit)
{
    float t = pw_intersect_sphere(o, d, c, radius, tmin, *tmax);
    if (t < 0.0f)
        return 0;
    *tmax = t;
    hit->t = t;
    hit->prim = id;
    hit->u = hit->v = 0.0f;
    return 1;
}

/* Per-ray constants of the watertight triangle test (Woop, Benthin and Wald,
 * JCGT 2013): the axis of largest direction component becomes z and the ray
 * is sheared onto +z, so edge functions of neighbouring triangles agree
 * exactly and no ray leaks through a shared edge or vertex. */
typedef struct pw_ray_shear {
    int kx, ky, kz;
    float sx, sy, sz;
} pw_ray_shear;

PW_HD pw_ray_shear pw_ray_shear_make(pw_vec3 d)
{
    pw_ray_shear s;
    float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z);
    s.kz = (ax > ay) ? (ax > az ? 0 : 2) : (ay > az ? 1 : 2);
    s.kx = s.kz == 2 ? 0 : s.kz + 1;
    s.ky = s.kx == 2 ? 0 : s.kx + 1;
    float dz = v3_get(d, s.kz);
    if (dz < 0.0f) {
        int t = s.kx;
        s.kx = s.ky;
        s.ky = t;
    }
    s.sx = v3_get(d, s.kx) / dz;
    s.sy = v3_get(d, s.ky) / dz;
    s.sz = 1.0f / dz;
    return s;
}

/* Returns 1 and fills t and the barycentrics (u, v) of v1 and v2 on a hit in
 * (tmin, tmax). Both faces are hit. */
PW_HD int pw_intersect_triangle(pw_vec3 o, const pw_ray_shear *s, pw_vec3 v0, pw_vec3 v1, pw_vec3 v2, float tmin,
                                float tmax, float *t_out, float *u_out, float *v_out)
{
    pw_vec3 a = v3_sub(v0, o), b = v3_sub(v1, o), c = v3_sub(v2, o);
    float az = v3_get(a, s->kz), bz = v3_get(b, s->kz), cz = v3_get(c, s->kz);
    float ax = v3_get(a, s->kx) - s->sx * az, ay = v3_get(a, s->ky) - s->sy * az;
    float bx = v3_get(b, s->kx) - s->sx * bz, by = v3_get(b, s->ky) - s->sy * bz;
    float cx = v3_get(c, s->kx) - s->sx * cz, cy = v3_get(c, s->ky) - s->sy * cz;
    float U = cx * by - cy * bx;
    float V = ax * cy - ay * cx;
    float W = bx * ay - by * ax;
    /* An edge function of exactly zero is decided in double precision so
     * that the two triangles sharing that edge agree on who owns the ray. */
    if (U == 0.0f || V == 0.0f || W == 0.0f) {
        U = (float)((double)cx * (double)by - (double)cy * (double)bx);
        V = (float)((double)ax * (double)cy - (double)ay * (double)cx);
        W = (float)((double)bx * (double)ay - (double)by * (double)ax);
    }
    if ((U < 0.0f || V < 0.0f || W < 0.0f) && (U > 0.0f || V > 0.0f || W > 0.0f))
        return 0;
    float det = U + V + W;
    if (det == 0.0f)
        return 0;
    float T = U * (s->sz * az) + V * (s->sz * bz) + W * (s->sz * cz);
    float inv = 1.0f / det;
    float t = T * inv;
    if (!(t > tmin && t < tmax))
        return 0;
    *t_out = t;
    *u_out = V * inv;
    *v_out = W * inv;
    return 1;
}

/* Slab test against a box with a precomputed reciprocal direction inv_d
 * and origin term oid = o * inv_d, so each slab distance is one fused
 * multiply-add, b * inv_d - oid (Aila and Laine, HPG 2009): 6 FMAs a box
 * instead of 6 subtractions and 6 multiplies, the largest single cost of
 * traversal on the GPU. The far distance is widened by 2 gamma(3) so that
 * rounding never culls a box the ray touches (Ize, "Robust BVH Ray
 * Traversal", JCGT 2013); the rounding of oid adds an absolute error of
 * about |o| 2^-24, which the builder's absolute padding of every box
 * (scene extent 2^-20, accel/bvh_build.c) covers for any origin closer than
 * 16 scene extents. Returns the entry distance, or PW_INF on a miss. */
PW_HD float pw_intersect_box(pw_vec3 oid, pw_vec3 inv_d, const float bmin[3], const float bmax[3], float tmin,
                             float tmax)
{
    float tx0 = fmaf(bmin[0], inv_d.x, -oid.x), tx1 = fmaf(bmax[0], inv_d.x, -oid.x);
    float ty0 = fmaf(bmin[1], inv_d.y, -oid.y), ty1 = fmaf(bmax[1], inv_d.y, -oid.y);
    float tz0 = fmaf(bmin[2], inv_d.z, -oid.z), tz1 = fmaf(bmax[2], inv_d.z, -oid.z);
    float tn = pw_maxf(pw_maxf(pw_minf(tx0, tx1), pw_minf(ty0, ty1)), pw_maxf(pw_minf(tz0, tz1), tmin));
    float tf = pw_minf(pw_minf(pw_maxf(tx0, tx1), pw_maxf(ty0, ty1)), pw_minf(pw_maxf(tz0, tz1), tmax));
    return tn <= tf * 1.00000024f ? tn : PW_INF;
}

/* d with its zero components (+0 and -0) made 1e-30, so that their
 * inverse is huge and finite, which the slab test handles. */
PW_HD pw_vec3 pw_nonzero_dir(pw_vec3 d)
{
    return v3(d.x != 0.0f ? d.x : 1e-30f, d.y != 0.0f ? d.y : 1e-30f, d.z != 0.0f ? d.z : 1e-30f);
}

PW_HD pw_vec3 pw_safe_inverse(pw_vec3 d)
{
    pw_vec3 n = pw_nonzero_dir(d);
    return v3(1.0f / n.x, 1.0f / n.y, 1.0f / n.z);
}

/* pw_safe_inverse with the GPU's approximate division (exact on the
 * host), for boxes padded far past its ulp (the sphere groups'). */
PW_HD pw_vec3 pw_safe_inverse_approx(pw_vec3 d)
{
    pw_vec3 n = pw_nonzero_dir(d);
    return v3(pw_div_approx(1.0f, n.x), pw_div_approx(1.0f, n.y), pw_div_approx(1.0f, n.z));
}

#endif
