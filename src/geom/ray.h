/* Rays, hits and the robust origin offset for secondary rays. */
#ifndef PW_RAY_H
#define PW_RAY_H

#include <string.h>
#include "core/vec3.h"

/* Directions are always unit length: sphere tests and the integrator rely on it. */
typedef struct pw_ray {
    pw_vec3 o, d;
} pw_ray;

/* What closest-hit traversal returns; the surface is rebuilt from it later.
 * prim indexes the scene's primitive space: spheres first, then triangles. */
typedef struct pw_hit {
    float t;
    uint32_t prim;
    float u, v; /* barycentrics of vertices 1 and 2 for triangles */
} pw_hit;

#define PW_NO_HIT 0xffffffffu

/* No hit yet, up to tmax: where every traversal starts. */
PW_HD void pw_hit_none(pw_hit *hit, float tmax)
{
    hit->prim = PW_NO_HIT;
    hit->t = tmax;
    hit->u = hit->v = 0.0f;
}

PW_HD int32_t pw_float_as_int(float f)
{
#if PW_DEVICE_CODE
    return __float_as_int(f);
#else
    int32_t i;
    memcpy(&i, &f, sizeof i);
    return i;
#endif
}

PW_HD float pw_int_as_float(int32_t i)
{
#if PW_DEVICE_CODE
    return __int_as_float(i);
#else
    float f;
    memcpy(&f, &i, sizeof f);
    return f;
#endif
}

/* Moves p off its surface along the unit normal n, a few ulps in integer
 * space far from the origin, a fixed epsilon near it (Waechter and Binder,
 * Ray Tracing Gems, ch. 6). Works at any scale, unlike a fixed t_min. */
PW_HD pw_vec3 pw_offset_along(pw_vec3 p, pw_vec3 n)
{
    const float origin = 1.0f / 32.0f, float_scale = 1.0f / 65536.0f, int_scale = 256.0f;
    int32_t ox = (int32_t)(int_scale * n.x), oy = (int32_t)(int_scale * n.y), oz = (int32_t)(int_scale * n.z);
    pw_vec3 pi = v3(pw_int_as_float(pw_float_as_int(p.x) + (p.x < 0.0f ? -ox : ox)),
                    pw_int_as_float(pw_float_as_int(p.y) + (p.y < 0.0f ? -oy : oy)),
                    pw_int_as_float(pw_float_as_int(p.z) + (p.z < 0.0f ? -oz : oz)));
    return v3(fabsf(p.x) < origin ? p.x + float_scale * n.x : pi.x,
              fabsf(p.y) < origin ? p.y + float_scale * n.y : pi.y,
              fabsf(p.z) < origin ? p.z + float_scale * n.z : pi.z);
}

/* p moved off its surface on the side of the geometric normal ng that a
 * ray along dir leaves by. */
PW_HD pw_vec3 pw_offset_origin(pw_vec3 p, pw_vec3 ng, pw_vec3 dir)
{
    return pw_offset_along(p, v3_dot(dir, ng) < 0.0f ? v3_neg(ng) : ng);
}

/* How far pw_offsets_for moves a point p off a sphere of radius r:
 * 2^-15 max(|p_i|, 1/2) + 2^-22 r. The first term is pw_offset_along's
 * 256 ulps (and its floor near the origin), against p's own rounding as o +
 * t d, some ulps of the distances involved. The second keeps the ray clear
 * of the sphere test's own rounding, whose |o - c|^2 - r^2 is off by a few
 * 2^-24 r^2, on a large sphere whose surface passes near the world's
 * origin, where the first term is small (a ground sphere): at 2^-24 r,
 * rays leaving a sphere of radius 1000 there met it again
 * (tests/test_intersect.c, sphere_offset_origins); 2^-22 leaves a factor
 * of 4. 13 instructions on the GPU, where pw_offset_along (still the
 * triangles' offset) takes 44, a notable share of toy-small's
 * instructions (docs/PERFORMANCE.md). Its floor, 2^-16 while no
 * coordinate exceeds 1/2, is pw_offset_along's near the origin: spheres
 * of radius below about 1e-4 there are too small for it. */
PW_HD float pw_sphere_offset_dist(pw_vec3 p, float r)
{
    float m = pw_maxf(pw_maxf(fabsf(p.x), 0.5f), pw_maxf(fabsf(p.y), fabsf(p.z)));
    return fmaf(0x1p-15f, m, 0x1p-22f * r);
}

/* The origins of rays that leave one hit point (pw_offsets_for): p moved
 * off its surface on the side of the geometric normal ng each ray leaves
 * by, off a sphere by sphere_e along ng (pw_sphere_offset_dist), off a
 * triangle by pw_offset_along, whose offset toward the side the arriving
 * ray came from can be computed once. */
typedef struct pw_offsets {
    pw_vec3 p, ng;
    pw_vec3 back;   /* p moved along the normal that faces the arriving ray (triangles, cache) */
    int ng_faces;   /* that normal is ng itself (not -ng); -1: nothing cached */
    /* p lies on a sphere: a flag of its own, not sphere_e > 0, so that in
     * a kernel for spheres only it is a literal and the triangles' offset
     * compiles away. */
    int sphere;
    float sphere_e; /* then the distance it moves */
} pw_offsets;

/* sphere_r: the radius of the sphere p lies on, or 0 for a triangle.
 * With cache 0 (a literal), nothing is precomputed. */
PW_HD pw_offsets pw_offsets_make(pw_vec3 p, pw_vec3 ng, pw_vec3 arriving_dir, int sphere, float sphere_r, int cache)
{
    pw_offsets o;
    o.p = p;
    o.ng = ng;
    o.sphere = sphere;
    o.sphere_e = sphere ? pw_sphere_offset_dist(p, sphere_r) : 0.0f;
    cache = cache && !sphere;
    o.ng_faces = cache ? !(v3_dot(arriving_dir, ng) > 0.0f) : -1;
    o.back = cache ? pw_offset_along(p, o.ng_faces ? ng : v3_neg(ng)) : p;
    return o;
}

/* The origin of a ray along dir: off a triangle exactly pw_offset_origin(p, ng, dir). */
PW_HD pw_vec3 pw_offsets_for(const pw_offsets *o, pw_vec3 dir)
{
    int along_ng = !(v3_dot(dir, o->ng) < 0.0f);
    if (o->sphere) {
        float e = along_ng ? o->sphere_e : -o->sphere_e;
        return v3_fma(o->ng, e, o->p);
    }
    return along_ng == o->ng_faces ? o->back : pw_offset_along(o->p, along_ng ? o->ng : v3_neg(o->ng));
}

#endif
