/* The one entry point the integrator traces rays through. */
#ifndef PW_TRACE_H
#define PW_TRACE_H

#include "accel/bvh8_cpu.h"
#include "accel/bvh_traverse.h"

/* Closest (or, with any_hit, any) hit in (tmin, tmax). On the host a view
 * may carry the CPU's 8-wide BVH; both layouts give the same hits. */
PW_HD int pw_trace(const pw_scene_view *s, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
#if !PW_DEVICE_CODE
    if (s->cpu_bvh8)
        return pw_bvh8_trace(s, (const pw_bvh8 *)s->cpu_bvh8, r, tmin, tmax, any_hit, hit);
#endif
    return pw_bvh_trace(s, r, tmin, tmax, any_hit, hit);
}

#endif
