/* Adding a path's radiance to the image's sums (3 floats a pixel). */
#ifndef PW_PIXEL_ADD_H
#define PW_PIXEL_ADD_H

#include "core/vec3.h"
#include "geom/ray.h" /* pw_float_as_int */

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

#endif
