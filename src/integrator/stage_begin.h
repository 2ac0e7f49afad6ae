/* Stage begin: a path at the camera, for sample `sample` of pixel (px, py). */
#ifndef PW_STAGE_BEGIN_H
#define PW_STAGE_BEGIN_H

#include "integrator/path_state.h"
#include "shade/camera.h"

PW_HD pw_path pw_path_begin(const pw_scene_view *s, const pw_render_params *prm, uint32_t px, uint32_t py,
                            uint32_t sample)
{
    uint32_t key = pw_path_key(prm->seed, py * prm->width + px, sample);
    /* The pixel's jitter takes the key's own bits (a hash, like every
     * draw: one hash less a path on the GPU), the lens bounce 0's first
     * dimension. */
    pw_rng rng = pw_rng_for_bounce(key, 0);
    float jx, jy, l1, l2;
    pw_rng_pair(key, &jx, &jy);
    pw_rng_next2(&rng, &l1, &l2);
    return pw_path_start(pw_camera_ray(&s->cam, (float)px + jx, (float)py + jy, l1, l2), key);
}

#endif
