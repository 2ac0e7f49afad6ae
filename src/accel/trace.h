/* The one entry point the integrator traces rays through. */
#ifndef PW_TRACE_H
#define PW_TRACE_H

#include "accel/bvh8_cpu.h"
#include "accel/bvh4.h"
#include "accel/bvh8_flat.h"
#include "accel/bvh_traverse.h"
#include "accel/sphere_groups.h"

/* Small sphere-only scenes: every sphere of spheres[0 .. n_spheres) (the
 * scene's list, or the GPU's cut of it for a block's camera rays)
 * against the ray; prim is the index in that array. With the spheres
 * in shared memory this beats any tree (BENCHMARKS.md B1 anchors). The
 * loop takes pw_intersect_sphere's steps itself, so the distances are
 * its; it keeps only the nearest sphere's id and its distance, updated
 * right where a root is found, and writes the hit once at the end. In the
 * GPU's loop, where every instruction runs for each of toy-small's 9
 * spheres, returning -1 and testing it afterwards cost several
 * instructions a sphere, and one helper for both this loop and
 * pw_hit_sphere made toy-small slower (docs/PERFORMANCE.md). */
PW_HD int pw_sphere_list_walk(const pw_sphere *spheres, uint32_t n_spheres, pw_ray r, float tmin, float tmax,
                              int any_hit, pw_hit *hit)
{
    uint32_t best = PW_NO_HIT;
    /* Two spheres a turn, as nvcc unrolled it before the roots' tests
     * shrank; left to itself it then unrolled four, and the kernel took
     * more registers (fewer resident blocks). Three a turn (no odd sphere
     * after toy-small's nine) ran slightly slower (docs/PERFORMANCE.md). */
#if PW_DEVICE_CODE
#pragma unroll 2
#endif
    for (uint32_t i = 0; i < n_spheres; i++) {
        pw_sphere sp = spheres[i];
        pw_vec3 f = v3_sub(r.o, sp.c);
        float b, r2 = sp.r * sp.r;
        float disc = pw_sphere_disc(f, r.d, r2, &b);
        if (disc < 0.0f)
            continue;
        /* tmin >= 0 (pw_trace_from): a sphere left behind has no root above it. */
        float cc = pw_sphere_cc(f, r2);
        if (pw_sphere_left_behind(b, cc))
            continue;
        float tn, tf;
        pw_sphere_roots(b, cc, disc, &tn, &tf);
        float t = pw_sphere_pick(tn, tf, tmin);
        if (t > tmin && t < tmax) {
            tmax = t;
            best = i;
            if (any_hit)
                break;
        }
    }
    hit->t = tmax;
    hit->prim = best;
    hit->u = hit->v = 0.0f;
    return best != PW_NO_HIT;
}

/* The self hint a ray carries for the accel layer (after Cycles'
 * ray.self): what the layer keeps of the primitive the ray leaves, made
 * by pw_self_hint when the ray is made, PW_SELF_CAMERA for a camera ray.
 * It fits in PW_SELF_BITS bits. The layer may use it to take a cheaper
 * walk (the sphere groups' direction maps take the map of the sphere the
 * ray leaves, the wavefront's extend walks camera rays in order) and
 * never needs it to be right: PW_SELF_UNKNOWN is always allowed. */
#define PW_SELF_BITS 8u
#define PW_SELF_CAMERA PW_ORIGIN_LENS
#define PW_SELF_UNKNOWN PW_ORIGIN_UNKNOWN
PW_HD uint32_t pw_self_hint(const pw_scene_view *s, uint32_t prim)
{
    return pw_prim_is_sphere(s, prim) && prim < PW_ORIGIN_LENS ? prim : PW_ORIGIN_UNKNOWN;
}

/* The scene's whole list. */
PW_HD int pw_trace_sphere_list(const pw_scene_view *s, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
    return pw_sphere_list_walk(s->spheres, s->n_spheres, r, tmin, tmax, any_hit, hit);
}

/* Closest (or, with any_hit, any) hit in (tmin, tmax), tmin >= 0. On the host a view
 * may carry the CPU's 8-wide BVH. Every layout finds the same closest t;
 * where two triangles tie exactly (a ray through their shared edge), the
 * layouts and walk orders (the GPU's sorted 4-wide walk, the CPU's 8-wide
 * tree) may report either one. With any_hit only the verdict is defined:
 * which occluder is reported differs between layouts. self is the ray's
 * self hint (pw_self_hint). */
PW_HD int pw_trace_from(const pw_scene_view *s, pw_ray r, uint32_t self, float tmin, float tmax, int any_hit,
                        pw_hit *hit)
{
#if !PW_DEVICE_CODE
    if (s->cpu_bvh8) {
#if PW_BVH8_HAVE_AVX2
        /* Small sphere scenes: inlined here, as a call costs more than the
         * boxes test (the toy scene, BENCHMARKS.md B1). */
        const pw_bvh8 *b8 = (const pw_bvh8 *)s->cpu_bvh8;
        if (b8->flat)
            return pw_bvh8_trace_flat(b8, r, tmin, tmax, any_hit, hit);
#endif
        return pw_bvh8_trace(s, (const pw_bvh8 *)s->cpu_bvh8, r, tmin, tmax, any_hit, hit);
    }
#endif
    if (s->flat_spheres == PW_FLAT_LIST)
        return pw_trace_sphere_list(s, r, tmin, tmax, any_hit, hit);
    if (s->flat_spheres == PW_FLAT_GROUPS)
        return pw_trace_sphere_groups(s, r, self, tmin, tmax, any_hit, hit);
    if (s->wide_bvh)
        return pw_bvh4_trace(s, r, tmin, tmax, any_hit, hit);
    return pw_bvh_trace(s, r, tmin, tmax, any_hit, hit);
}

/* pw_trace_from for a ray without a self hint. */
PW_HD int pw_trace(const pw_scene_view *s, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
    return pw_trace_from(s, r, PW_SELF_UNKNOWN, tmin, tmax, any_hit, hit);
}

/* Closest hits for the GPU wavefront's extend stage, a kernel that does
 * nothing but walk: for bounce rays over the 4-wide BVH, the walk with
 * postponed leaves (pw_bvh4_trace_postponed); for camera rays, whose lanes
 * mostly step alike already, and otherwise, pw_trace_from. Measured
 * (docs/PERFORMANCE.md): postponed for every ray, bunnies-mixed gained but
 * sponza and the bunny lost; for bounce rays only, bunnies-mixed gained
 * and sponza was unchanged. The wavefront's tail kernel takes it too
 * (through pw_path_step: bunnies-mixed:16, :64 and the bunny a little
 * faster, the sphere scenes unchanged); the megakernels keep pw_trace's
 * walk. */
PW_HD int pw_trace_extend(const pw_scene_view *s, pw_ray r, uint32_t self, float tmin, float tmax, pw_hit *hit)
{
#if PW_DEVICE_CODE
    if (self != PW_SELF_CAMERA && s->wide_bvh && s->flat_spheres == PW_FLAT_NONE)
        return pw_bvh4_trace_postponed(s, r, tmin, tmax, hit);
#endif
    return pw_trace_from(s, r, self, tmin, tmax, 0, hit);
}

#endif
