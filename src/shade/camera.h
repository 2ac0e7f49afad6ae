/* The camera and its rays (thin lens; a zero lens radius is a pinhole). */
#ifndef PW_CAMERA_H
#define PW_CAMERA_H

#include "core/sampling.h"
#include "geom/ray.h"

/* Pinhole or thin-lens camera; the image plane sits at the focus distance.
 * The raster fields (pw_camera_set_raster) place a render's pixels on that
 * plane: raster point (x, y), pixel (0, 0)'s top-left corner at (0, 0), is
 * corner + x pixel_dx + y pixel_dy, and the lens's axes come scaled by its
 * radius, so that a camera ray is a few fused multiply-adds (fewer GPU
 * instructions at a path's start, and toy-small's megakernel ran a little
 * faster; docs/PERFORMANCE.md). */

typedef struct pw_camera {
    pw_vec3 origin, lower_left, horizontal, vertical;
    pw_vec3 u, v, w;
    float lens_radius;
    pw_vec3 corner, pixel_dx, pixel_dy, lens_u, lens_v;
} pw_camera;

/* The ray through raster point (x, y), in the units of the camera's
 * raster (pw_camera_set_raster: pixels, pixel (px, py) spanning px .. px
 * + 1 and py .. py + 1, row 0 at the top), from lens sample (l1, l2) in
 * [0,1)^2, in fused multiply-adds on the raster fields. */
PW_HD pw_ray pw_camera_ray(const pw_camera *c, float x, float y, float l1, float l2)
{
    pw_ray r;
    r.o = c->origin;
    if (c->lens_radius > 0.0f) {
        float dx, dy;
        pw_sample_disk(l1, l2, &dx, &dy);
        r.o = v3_fma(c->lens_u, dx, v3_fma(c->lens_v, dy, c->origin));
    }
    pw_vec3 target = v3_fma(c->pixel_dx, x, v3_fma(c->pixel_dy, y, c->corner));
    r.d = v3_norm_approx(v3_sub(target, r.o));
    return r;
}

/* Whether any camera ray through the raster rectangle [x0, x1] x [y0, y1]
 * (pixels and their jitter) may hit the sphere (c, r): false only where
 * none can. The rays through the rectangle from the lens's centre form a
 * pyramid; a ray from a lens point l (|l| <= lens radius R) meets the
 * focal plane at a point of the rectangle, so at depth z (along the view
 * direction) it lies at most R |1 - z / f| outside the pyramid's side
 * planes (f: the focus distance). A sphere is kept unless its centre lies
 * beyond a side plane by more than r, that lens spread at its farthest
 * depth, and a margin for rounding; and unless it lies wholly behind the
 * lens. The margin: 1e-4 of the distance (the camera's rays and this
 * test round a few ulps), and some ulps of the coordinates where camera
 * and sphere lie far from the world's origin (the rays' and this test's
 * differences of positions round to those). Each side plane's normal is
 * the cross product of a corner's ray and the edge to the next corner:
 * the cross product of two corners' rays, nearly parallel across a block
 * of a few pixels, lost float's digits (a 2 degree field of view at 1080p
 * tilted a plane by ten times the margin). */
PW_HD int pw_camera_region_may_hit(const pw_camera *cam, float x0, float y0, float x1, float y1, pw_vec3 c, float r)
{
    const float xs[4] = {x0, x1, x1, x0}, ys[4] = {y0, y0, y1, y1};
    pw_vec3 base = v3_sub(cam->corner, cam->origin), oc = v3_sub(c, cam->origin);
    pw_vec3 mid = v3_fma(cam->pixel_dx, 0.5f * (x0 + x1), v3_fma(cam->pixel_dy, 0.5f * (y0 + y1), base));
    float focus = -v3_dot(cam->w, base), depth = -v3_dot(cam->w, oc), dist = v3_len(oc);
    float far = v3_max_abs(cam->origin);
    float slack = (1e-4f + 1e-6f * far / focus) * (dist + r) + 4e-7f * (far + v3_max_abs(c)) + 1e-6f;
    if (depth < -(r + slack))
        return 0; /* wholly behind the lens, which every ray leaves forward */
    float reach = r + cam->lens_radius * (1.0f + (fabsf(depth) + r) / focus) + slack;
    for (int i = 0; i < 4; i++) {
        /* corner i, and the edge to corner i + 1: along x, along y, back along x, back along y */
        pw_vec3 k = v3_fma(cam->pixel_dx, xs[i], v3_fma(cam->pixel_dy, ys[i], base));
        int j = (i + 1) & 3;
        pw_vec3 e = i % 2 ? v3_scale(cam->pixel_dy, ys[j] - ys[i]) : v3_scale(cam->pixel_dx, xs[j] - xs[i]);
        pw_vec3 n = v3_cross(k, e);
        float len = v3_len(n);
        if (!(len > 0.0f))
            continue; /* a degenerate rectangle: no plane to cull by */
        float off = v3_dot(n, oc) / len;
        if ((v3_dot(n, mid) < 0.0f ? -off : off) < -reach)
            return 0;
    }
    return 1;
}

#endif
