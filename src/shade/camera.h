/* Camera ray generation (thin lens; a zero lens radius is a pinhole). */
#ifndef PW_CAMERA_H
#define PW_CAMERA_H

#include "core/sampling.h"
#include "geom/ray.h"
#include "scene/scene_view.h"

/* s, t in [0,1]^2 across the image (t = 0 at the bottom row); lens sample
 * (l1, l2) in [0,1)^2. */
PW_HD pw_ray pw_camera_ray(const pw_camera *c, float s, float t, float l1, float l2)
{
    pw_vec3 offset = v3s(0.0f);
    if (c->lens_radius > 0.0f) {
        float dx, dy;
        pw_sample_disk(l1, l2, &dx, &dy);
        offset = v3_add(v3_scale(c->u, dx * c->lens_radius), v3_scale(c->v, dy * c->lens_radius));
    }
    pw_ray r;
    r.o = v3_add(c->origin, offset);
    pw_vec3 target = v3_add(c->lower_left, v3_add(v3_scale(c->horizontal, s), v3_scale(c->vertical, t)));
    r.d = v3_norm_approx(v3_sub(target, r.o));
    return r;
}

#endif
