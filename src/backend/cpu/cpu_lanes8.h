/* The CPU megakernel's 8-lane path loop for sphere scenes (cpu_lanes8.c). */
#ifndef PW_CPU_LANES8_H
#define PW_CPU_LANES8_H

#include "accel/bvh8_flat.h"
#include "api/renderer.h"

/* Whether the 8-lane loop renders r: an AVX2 build with the CPU's 8-wide
 * BVH, a scene of spheres only with Lambert, toy metal and smooth
 * dielectric materials (no textures, no point or distant lights: those
 * make the render's kinds PW_KINDS_ALL), the toy estimator or no light
 * sampling, a sky without an image, no splitting. PATHWAVE_CPU_LANES8=0
 * turns it off (for measurements and for the test that compares it with
 * the scalar loop). */
int pw_cpu_lanes8_usable(const pw_renderer *r);

#if PW_BVH8_HAVE_AVX2
/* Adds spp samples to every pixel of [x0, x1) x [y0, y1), each pixel's
 * samples summed in sample order: the image is bit-identical to the scalar
 * loop's. Adds the camera and bounce rays cast to *ext_rays and the shadow
 * rays to *shadow_rays. Only where pw_cpu_lanes8_usable says so. */
void pw_cpu_lanes8_tile(pw_renderer *r, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint32_t spp,
                        uint32_t *ext_rays, uint32_t *shadow_rays);
#endif

#endif
