/* Stage shade background: a path whose ray left the scene. */
#ifndef PW_STAGE_SHADE_BACKGROUND_H
#define PW_STAGE_SHADE_BACKGROUND_H

#include "integrator/path_state.h"
#include "shade/environment.h"
#include "shade/bsdf.h"
#include "shade/light_sample.h"

/* The environment seen by a ray that left the scene; an environment map is
 * also light-sampled, so BSDF-sampled rays that reach it are MIS-weighted.
 * Scenes with a map run with kinds other than PW_KINDS_BASIC
 * (api/renderer.c), so the basic kernels compile its lookups out. */
PW_HD pw_next pw_path_miss(const pw_scene_view *s, const pw_render_params *prm, pw_path *p, uint32_t kinds)
{
    int map = kinds != PW_KINDS_BASIC && s->env.type == PW_ENV_MAP;
    float w = 1.0f;
    if (map && s->env_prob > 0.0f && prm->light_mode == PW_LIGHT_MODE_MIS && !(p->flags & PW_PATH_SPECULAR))
        w = pw_power_heuristic(p->prev_pdf, s->env_prob * pw_env_pdf(&s->env, p->ray.d));
    pw_vec3 le = map ? pw_env_radiance(&s->env, p->ray.d) : pw_sky_radiance(&s->env, p->ray.d);
    p->L = v3_add_rn(p->L, v3_scale(v3_mul(p->beta, le), w));
    return PW_NEXT_END;
}

#endif
