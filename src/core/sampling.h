/* Warps from uniform numbers in [0,1)^2 to the distributions the integrator
 * samples, with their densities. */
#ifndef PW_SAMPLING_H
#define PW_SAMPLING_H

#include "core/vec3.h"

PW_HD pw_vec3 pw_sample_unit_sphere_surface(float u1, float u2)
{
    float z = 1.0f - 2.0f * u1;
    float r = pw_sqrt_approx(pw_maxf(0.0f, 1.0f - z * z));
    float sp, cp;
    pw_sincos(2.0f * PW_PI * u2, &sp, &cp);
    return v3(r * cp, r * sp, z);
}

/* Uniform point inside the unit ball: direction times cube-root radius. */
PW_HD pw_vec3 pw_sample_unit_ball(float u1, float u2, float u3)
{
    return v3_scale(pw_sample_unit_sphere_surface(u1, u2), pw_cbrt_approx(u3));
}

/* Cosine-weighted direction about unit n: n plus a uniform point on the unit
 * sphere, normalised, is exactly cosine distributed and needs no frame. */
PW_HD pw_vec3 pw_sample_cosine_about(pw_vec3 n, float u1, float u2)
{
    pw_vec3 d = v3_add(n, pw_sample_unit_sphere_surface(u1, u2));
    float l2 = v3_len2(d);
    return l2 > 1e-12f ? v3_scale(d, pw_rsqrt(l2)) : n;
}

/* Direction in the cone about unit axis w whose half-angle has cosine
 * 1 - omc, uniform in solid angle; pdf = 1 / (2 pi omc). With h = 1 - cos
 * of the direction's angle, the sine is sqrt(h (2 - h)), which keeps its
 * digits in a narrow cone where 1 - cos^2 would not. */
PW_HD pw_vec3 pw_sample_cone(pw_vec3 w, float omc, float u1, float u2)
{
    float h = pw_mul_rn(u1, omc), cos_a = 1.0f - h; /* h has three uses: unfused (pw_mul_rn) */
    float sin_a = pw_sqrt_approx(pw_maxf(0.0f, h * (2.0f - h)));
    float sp, cp;
    pw_sincos(2.0f * PW_PI * u2, &sp, &cp);
    pw_frame f = pw_frame_from_normal(w);
    return pw_frame_to_world(&f, v3(cp * sin_a, sp * sin_a, cos_a));
}

/* Uniform point on the unit disk, in polar coordinates: radius sqrt(u1),
 * angle 2 pi u2. On the GPU that is three hardware approximations; the
 * concentric map (Shirley and Chiu), which keeps strata whole but matters
 * only for stratified numbers (ours are independent), took a division, a
 * branch and about 25 instructions, in the block that begins each path,
 * a large share of toy-small's warp instructions (docs/PERFORMANCE.md). */
PW_HD void pw_sample_disk(float u1, float u2, float *x, float *y)
{
    float r = pw_sqrt_approx(u1), sp, cp;
    pw_sincos(2.0f * PW_PI * u2, &sp, &cp);
    *x = r * cp;
    *y = r * sp;
}

/* Uniform barycentrics (b1, b2) on a triangle. */
PW_HD void pw_sample_triangle(float u1, float u2, float *b1, float *b2)
{
    float s = sqrtf(u1);
    *b1 = 1.0f - s;
    *b2 = u2 * s;
}

/* Veach's power heuristic with beta = 2 for two one-sample strategies. */
PW_HD float pw_power_heuristic(float pdf_a, float pdf_b)
{
    float a2 = pdf_a * pdf_a, b2 = pdf_b * pdf_b;
    return a2 + b2 > 0.0f ? a2 / (a2 + b2) : 0.0f;
}

#endif
