/* Stage intersect: the closest hit of the path's pending ray, through
 * whichever structure the accel layer chooses (accel/trace.h), given the
 * ray's self hint. */
#ifndef PW_STAGE_INTERSECT_H
#define PW_STAGE_INTERSECT_H

#include "integrator/path_state.h"

/* Next: shade surface at a hit (h), shade background on a miss. */
PW_HD pw_next pw_path_intersect(const pw_scene_view *s, const pw_path *p, pw_hit *h)
{
    return pw_trace_from(s, p->ray, pw_path_self(p), s->t_min, PW_INF, 0, h) ? PW_NEXT_SHADE_SURFACE
                                                                              : PW_NEXT_SHADE_BACKGROUND;
}

#endif
