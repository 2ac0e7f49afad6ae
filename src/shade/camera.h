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

#endif
