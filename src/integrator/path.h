/* The path tracer's stages, each a file of PW_HD functions of (path
 * state, scene view, random numbers) that knows nothing of threads,
 * warps, tiles, pools, lanes or queues:
 *   begin             stage_begin.h             a path at the camera
 *   intersect         stage_intersect.h         the closest hit of its ray (accel/trace.h)
 *   shade surface     stage_shade_surface.h     emission, light samples, next direction, roulette
 *   shade background  stage_shade_background.h  a ray that left the scene
 *   shadow            stage_shadow.h            the light samples' visibility and contributions
 * pw_path_step runs them once, one bounce. The schedulers in src/backend/
 * run them: a megakernel thread bounce after bounce
 * (backend/sample_pool.h), a wavefront stage by stage over queues
 * (wavefront.h). */
#ifndef PW_PATH_H
#define PW_PATH_H

#include "film/pixel_add.h"
#include "integrator/path_state.h"
#include "integrator/stage_begin.h"
#include "integrator/stage_intersect.h"
#include "integrator/stage_shade_background.h"
#include "integrator/stage_shade_surface.h"
#include "integrator/stage_shadow.h"

/* One bounce of a path, from its pending ray, the stages in turn: the
 * closest hit (the wavefront's walk, pw_trace_extend, which finds the
 * same hit as the megakernel's), its shading, then the shadow rays
 * shading made, their contributions added in order, so the radiance is
 * what a wavefront would have gathered bounce by bounce. Returns the next
 * stage: intersect while the path goes on, else the end. The wavefront's
 * tail kernel runs paths to their ends with it (no splitting happens past
 * the first hit, so none here). */
PW_HD pw_next pw_path_step(const pw_scene_view *s, const pw_render_params *prm, pw_path *p, uint32_t kinds,
                           uint32_t *ext_rays, uint32_t *shadow_rays)
{
    pw_shadow_ray sh[PW_MAX_SHADOW];
    pw_hit h;
    (*ext_rays)++;
    pw_next next = pw_trace_extend(s, p->ray, pw_path_self(p), s->t_min, PW_INF, &h) ? PW_NEXT_SHADE_SURFACE
                                                                                      : PW_NEXT_SHADE_BACKGROUND;
    if (next == PW_NEXT_SHADE_BACKGROUND)
        return pw_path_miss(s, prm, p, kinds);
    int n;
    pw_shadow_sink sink = pw_sink_array(sh);
    next = pw_path_shade(s, prm, p, &h, &sink, &n, kinds);
    *shadow_rays += (uint32_t)n;
    pw_path_connect(s, sh, n, &p->L);
    return next;
}

#endif
