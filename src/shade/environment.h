/* Radiance of rays that leave the scene. */
#ifndef PW_ENVIRONMENT_H
#define PW_ENVIRONMENT_H

#include "scene/scene_view.h"

PW_HD pw_vec3 pw_env_radiance(const pw_env *e, pw_vec3 d)
{
    if (e->type == PW_ENV_GRADIENT)
        return v3_scale(v3_lerp(e->bottom, e->top, 0.5f * (d.y + 1.0f)), e->scale);
    return v3_scale(e->top, e->scale);
}

#endif
