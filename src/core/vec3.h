/* Three-float vectors used for points, directions and RGB colours alike. */
#ifndef PW_VEC3_H
#define PW_VEC3_H

#include <math.h>
#include "core/pw_hd.h"

typedef struct pw_vec3 {
    float x, y, z;
} pw_vec3;

PW_HD pw_vec3 v3(float x, float y, float z) { pw_vec3 r = {x, y, z}; return r; }
PW_HD pw_vec3 v3s(float s) { return v3(s, s, s); }
PW_HD pw_vec3 v3_add(pw_vec3 a, pw_vec3 b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
/* a + b, each sum rounded on its own. nvcc fuses a product and the add
 * after it into one rounding (a * s + c as an FMA) unless told not to;
 * radiance is summed with this, so that a term added right where it is
 * made (the megakernel) and one stored and added later (the wavefront's
 * shadow records and lazy radiance) round alike. The host is built with
 * -ffp-contract=off. */
PW_HD pw_vec3 v3_add_rn(pw_vec3 a, pw_vec3 b)
{
#if PW_DEVICE_CODE
    return v3(__fadd_rn(a.x, b.x), __fadd_rn(a.y, b.y), __fadd_rn(a.z, b.z));
#else
    return v3_add(a, b);
#endif
}
PW_HD pw_vec3 v3_sub(pw_vec3 a, pw_vec3 b) { return v3(a.x - b.x, a.y - b.y, a.z - b.z); }
PW_HD pw_vec3 v3_mul(pw_vec3 a, pw_vec3 b) { return v3(a.x * b.x, a.y * b.y, a.z * b.z); }
PW_HD pw_vec3 v3_scale(pw_vec3 a, float s) { return v3(a.x * s, a.y * s, a.z * s); }
PW_HD pw_vec3 v3_neg(pw_vec3 a) { return v3(-a.x, -a.y, -a.z); }
/* a + b * s, the most common update in the integrator. */
PW_HD pw_vec3 v3_madd(pw_vec3 a, pw_vec3 b, float s) { return v3(a.x + b.x * s, a.y + b.y * s, a.z + b.z * s); }
/* a * s + c with one rounding a component (fmaf), alike on every backend. */
PW_HD pw_vec3 v3_fma(pw_vec3 a, float s, pw_vec3 c) { return v3(fmaf(a.x, s, c.x), fmaf(a.y, s, c.y), fmaf(a.z, s, c.z)); }
/* On the GPU the products are fused explicitly, in the order nvcc fuses
 * them where it does. Left to the compiler, whether a dot product was
 * fused depended on the code around it: the Lambert sample's pdf
 * (cos / pi) came out an ulp apart in the wavefront's shade stage and the
 * megakernel on the same path, and the two backends' images then differed
 * in the last bits of a few pixels (docs/PERFORMANCE.md). */
PW_HD float v3_dot(pw_vec3 a, pw_vec3 b)
{
#if PW_DEVICE_CODE
    return fmaf(a.z, b.z, fmaf(a.y, b.y, a.x * b.x));
#else
    return a.x * b.x + a.y * b.y + a.z * b.z;
#endif
}
PW_HD pw_vec3 v3_cross(pw_vec3 a, pw_vec3 b)
{
    return v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
PW_HD float v3_len2(pw_vec3 a) { return v3_dot(a, a); }
PW_HD float v3_len(pw_vec3 a) { return sqrtf(v3_dot(a, a)); }
PW_HD pw_vec3 v3_norm(pw_vec3 a) { return v3_scale(a, 1.0f / sqrtf(v3_dot(a, a))); }
/* v3_norm on the host; on the GPU through the approximate 1/sqrt
 * (pw_rsqrt), for directions and normals where a few ulps do not matter. */
PW_HD pw_vec3 v3_norm_approx(pw_vec3 a) { return v3_scale(a, pw_rsqrt(v3_dot(a, a))); }
PW_HD pw_vec3 v3_min(pw_vec3 a, pw_vec3 b) { return v3(pw_minf(a.x, b.x), pw_minf(a.y, b.y), pw_minf(a.z, b.z)); }
PW_HD pw_vec3 v3_max(pw_vec3 a, pw_vec3 b) { return v3(pw_maxf(a.x, b.x), pw_maxf(a.y, b.y), pw_maxf(a.z, b.z)); }
PW_HD pw_vec3 v3_lerp(pw_vec3 a, pw_vec3 b, float t) { return v3_add(v3_scale(a, 1.0f - t), v3_scale(b, t)); }
PW_HD float v3_maxc(pw_vec3 a) { return pw_maxf(a.x, pw_maxf(a.y, a.z)); }
PW_HD float v3_max_abs(pw_vec3 a) { return pw_maxf(fabsf(a.x), pw_maxf(fabsf(a.y), fabsf(a.z))); }
PW_HD float v3_get(pw_vec3 a, int i) { return i == 0 ? a.x : (i == 1 ? a.y : a.z); }
/* Without short-circuit branches: three compares and two ands. */
PW_HD int v3_is_zero(pw_vec3 a) { return (a.x == 0.0f) & (a.y == 0.0f) & (a.z == 0.0f); }
PW_HD float v3_luminance(pw_vec3 c) { return 0.2126f * c.x + 0.7152f * c.y + 0.0722f * c.z; }
PW_HD pw_vec3 v3_reflect(pw_vec3 d, pw_vec3 n) { return v3_sub(d, v3_scale(n, 2.0f * v3_dot(d, n))); }

/* Orthonormal basis around unit n without a branch on a near-parallel axis
 * (Duff et al., "Building an Orthonormal Basis, Revisited", JCGT 2017). */
typedef struct pw_frame {
    pw_vec3 t, b, n;
} pw_frame;

PW_HD pw_frame pw_frame_from_normal(pw_vec3 n)
{
    float sign = copysignf(1.0f, n.z);
    float a = pw_div_approx(-1.0f, sign + n.z);
    float b = n.x * n.y * a;
    pw_frame f;
    f.t = v3(1.0f + sign * n.x * n.x * a, sign * b, -sign * n.x);
    f.b = v3(b, sign + n.y * n.y * a, -n.y);
    f.n = n;
    return f;
}

PW_HD pw_vec3 pw_frame_to_world(const pw_frame *f, pw_vec3 l)
{
    return v3_add(v3_add(v3_scale(f->t, l.x), v3_scale(f->b, l.y)), v3_scale(f->n, l.z));
}

PW_HD pw_vec3 pw_frame_to_local(const pw_frame *f, pw_vec3 w)
{
    return v3(v3_dot(w, f->t), v3_dot(w, f->b), v3_dot(w, f->n));
}

#endif
