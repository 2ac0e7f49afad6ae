/* Camera ray generation (thin lens; a zero lens radius is a pinhole). */
#ifndef PW_CAMERA_H
#define PW_CAMERA_H

#include "core/sampling.h"
#include "geom/ray.h"
#include "scene/scene_view.h"

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
 * depth, and a margin for the rounding of the camera's rays; and unless
 * it lies wholly behind the lens. */
PW_HD int pw_camera_region_may_hit(const pw_camera *cam, float x0, float y0, float x1, float y1, pw_vec3 c, float r)
{
    pw_vec3 corner[4];
    corner[0] = v3_sub(v3_fma(cam->pixel_dx, x0, v3_fma(cam->pixel_dy, y0, cam->corner)), cam->origin);
    corner[1] = v3_sub(v3_fma(cam->pixel_dx, x1, v3_fma(cam->pixel_dy, y0, cam->corner)), cam->origin);
    corner[2] = v3_sub(v3_fma(cam->pixel_dx, x1, v3_fma(cam->pixel_dy, y1, cam->corner)), cam->origin);
    corner[3] = v3_sub(v3_fma(cam->pixel_dx, x0, v3_fma(cam->pixel_dy, y1, cam->corner)), cam->origin);
    pw_vec3 mid = v3_scale(v3_add(corner[0], corner[2]), 0.5f), oc = v3_sub(c, cam->origin);
    float focus = -v3_dot(cam->w, corner[0]), depth = -v3_dot(cam->w, oc), dist = v3_len(oc);
    float slack = 1e-4f * (dist + r) + 1e-6f;
    if (depth < -(r + slack))
        return 0; /* wholly behind the lens, which every ray leaves forward */
    float reach = r + cam->lens_radius * (1.0f + (fabsf(depth) + r) / focus) + slack;
    for (int i = 0; i < 4; i++) {
        pw_vec3 n = v3_cross(corner[i], corner[(i + 1) & 3]);
        float len = v3_len(n);
        if (!(len > 0.0f))
            continue; /* a degenerate rectangle: no plane to cull by */
        n = v3_scale(n, v3_dot(n, mid) < 0.0f ? -1.0f / len : 1.0f / len);
        if (v3_dot(n, oc) < -reach)
            return 0;
    }
    return 1;
}

#endif
