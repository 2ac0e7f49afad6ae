/* The surface at a hit, rebuilt from the compact hit record. */
#ifndef PW_SURFACE_H
#define PW_SURFACE_H

#include "geom/ray.h"
#include "shade/scene_view.h"

typedef struct pw_surface {
    pw_vec3 p;     /* hit point */
    pw_vec3 ng;    /* geometric normal, outward (sphere) or by winding (triangle) */
    pw_vec3 ns;    /* shading normal, same hemisphere as ng */
    uint32_t mat;
    uint32_t prim;
    int front;     /* the ray arrived on the side ng points to */
} pw_surface;

PW_HD pw_surface pw_surface_at(const pw_scene_view *s, pw_ray r, const pw_hit *h)
{
    pw_surface sf;
    sf.prim = h->prim;
    sf.p = v3_madd(r.o, r.d, h->t);
    if (pw_prim_is_sphere(s, h->prim)) {
        pw_sphere sp = s->spheres[h->prim];
        sf.ng = v3_scale(v3_sub(sf.p, sp.c), pw_rcp(sp.r));
        sf.ns = sf.ng;
    } else {
        uint32_t tri = h->prim - s->n_spheres;
        const uint32_t *ix = s->tri_idx + 3 * tri;
        pw_vec3 p0 = s->pos[ix[0]], p1 = s->pos[ix[1]], p2 = s->pos[ix[2]];
        /* Recomputing the point from barycentrics is more accurate than o + t d. */
        float w = 1.0f - h->u - h->v;
        sf.p = v3_add(v3_add(v3_scale(p0, w), v3_scale(p1, h->u)), v3_scale(p2, h->v));
        sf.ng = v3_norm(v3_cross(v3_sub(p1, p0), v3_sub(p2, p0)));
        sf.ns = sf.ng;
        if (s->nrm) {
            pw_vec3 n = v3_add(v3_add(v3_scale(s->nrm[ix[0]], w), v3_scale(s->nrm[ix[1]], h->u)),
                               v3_scale(s->nrm[ix[2]], h->v));
            float l2 = v3_len2(n);
            if (l2 > 0.0f) {
                n = v3_scale(n, pw_rsqrt(l2));
                sf.ns = v3_dot(n, sf.ng) < 0.0f ? v3_neg(n) : n;
            }
        }
    }
    sf.mat = pw_prim_material(s, h->prim);
    sf.front = v3_dot(r.d, sf.ng) < 0.0f;
    return sf;
}

/* Texture coordinates at a hit, computed only for textured materials (a
 * pw_surface field would cost every path registers). Triangles interpolate
 * their vertices' (u, v), (0, 0) when the mesh has none; spheres map
 * longitude to u like the environment map (pw_env_dir_to_uv) and latitude
 * to v, 0 at the bottom pole and 1 at the top (+y). */
PW_HD void pw_surface_uv(const pw_scene_view *s, const pw_hit *h, const pw_surface *sf, float *u, float *v)
{
    if (pw_prim_is_sphere(s, h->prim)) {
        pw_vec3 n = sf->ng;
        *u = (atan2f(n.x, -n.z) + PW_PI) * (0.5f * PW_INV_PI);
        *v = 1.0f - acosf(pw_minf(1.0f, pw_maxf(-1.0f, n.y))) * PW_INV_PI;
        return;
    }
    *u = *v = 0.0f;
    if (!s->uv)
        return;
    const uint32_t *ix = s->tri_idx + 3 * (h->prim - s->n_spheres);
    const float *t0 = s->uv + 2 * ix[0], *t1 = s->uv + 2 * ix[1], *t2 = s->uv + 2 * ix[2];
    float w = 1.0f - h->u - h->v;
    *u = w * t0[0] + h->u * t1[0] + h->v * t2[0];
    *v = w * t0[1] + h->u * t1[1] + h->v * t2[1];
}

#endif
