/* Stage shadow: the light samples shading made (shadow rays), traced for
 * visibility, the unoccluded ones' contributions added to the path's
 * radiance in the order they were made. */
#ifndef PW_STAGE_SHADOW_H
#define PW_STAGE_SHADOW_H

#include "integrator/path_state.h"
#include "integrator/soa.h"

/* A connection to a light: contrib is added to the path's pixel when the
 * segment from ray.o to distance tmax is unoccluded. */
typedef struct pw_shadow_ray {
    pw_ray ray;
    float tmax;
    pw_vec3 contrib;
} pw_shadow_ray;

/* Where shading puts its shadow rays. The megakernels and the CPU's loops
 * give an array of their own (rays) and trace the rays from there once
 * the hit is shaded. The wavefront gives its shadow records (rays NULL),
 * where the path's rays go straight to records first, first + 1, ...:
 * made in an array of the thread's own and copied to the records, they
 * went through local memory (352 bytes of stack in the GPU's shade stage,
 * whose warps Nsight Compute found waiting on local loads and stores). */
typedef struct pw_shadow_sink {
    pw_shadow_ray *rays;       /* the caller's array, or NULL */
    pw_shadow_records records; /* else the records (integrator/soa.h) */
    uint32_t first;            /* the record of the path's first ray */
} pw_shadow_sink;

PW_HD pw_shadow_sink pw_sink_array(pw_shadow_ray *rays)
{
    pw_shadow_sink k = {rays, {NULL, NULL, NULL}, 0};
    return k;
}

/* The path's shadow ray i. */
PW_HD void pw_sink_put(const pw_shadow_sink *k, int i, pw_vec3 o, pw_vec3 d, float tmax, pw_vec3 contrib)
{
    if (k->rays) {
        pw_shadow_ray *r = &k->rays[i];
        r->ray.o = o;
        r->ray.d = d;
        r->tmax = tmax;
        r->contrib = contrib;
        return;
    }
    pw_records_put(&k->records, k->first + (uint32_t)i, o, d, tmax, contrib);
}

/* The toy estimator casts one shadow ray per emissive sphere; scenes given to
 * it have at most this many (checked when the render is set up). */
#ifndef PW_MAX_SHADOW
#define PW_MAX_SHADOW 8
#endif

/* Traces shadow rays sh[0 .. n) and adds the contributions of the
 * unoccluded ones to *L, in order. */
PW_HD void pw_path_connect(const pw_scene_view *s, const pw_shadow_ray *sh, int n, pw_vec3 *L)
{
    for (int i = 0; i < n; i++) {
        pw_hit hs;
        if (!pw_trace(s, sh[i].ray, s->t_min, sh[i].tmax, 1, &hs))
            *L = v3_add_rn(*L, sh[i].contrib);
    }
}

#endif
