/* The primitives: spheres and triangles in one id space, spheres first
 * (primitive p is sphere p below n_spheres, else triangle p - n_spheres).
 * pw_prims is how the builders of other folders (accel/bvh_build.c,
 * shade/light_build.c) are handed a scene's geometry: its arrays, without
 * the scene (scene/ sits above them). */
#ifndef PW_PRIMS_H
#define PW_PRIMS_H

#include "core/vec3.h"

/* 16 bytes: centre and radius. Its material sits in sphere_mat[]. */
typedef struct pw_sphere {
    pw_vec3 c;
    float r;
} pw_sphere;
PW_SIZE_CHECK(pw_sphere, 16);

typedef struct pw_prims {
    const pw_sphere *spheres;
    uint32_t n_spheres;
    const pw_vec3 *pos;      /* vertex positions */
    const uint32_t *tri_idx; /* 3 vertex indices per triangle */
    uint32_t n_tris;
} pw_prims;

/* Bounds of primitive prim. */
PW_HD void pw_prim_bounds(const pw_prims *s, uint32_t prim, float bmin[3], float bmax[3])
{
    if (prim < s->n_spheres) {
        pw_sphere sp = s->spheres[prim];
        bmin[0] = sp.c.x - sp.r, bmin[1] = sp.c.y - sp.r, bmin[2] = sp.c.z - sp.r;
        bmax[0] = sp.c.x + sp.r, bmax[1] = sp.c.y + sp.r, bmax[2] = sp.c.z + sp.r;
        return;
    }
    const uint32_t *ix = s->tri_idx + 3 * (prim - s->n_spheres);
    pw_vec3 lo = s->pos[ix[0]], hi = lo;
    for (int k = 1; k < 3; k++) {
        lo = v3_min(lo, s->pos[ix[k]]);
        hi = v3_max(hi, s->pos[ix[k]]);
    }
    bmin[0] = lo.x, bmin[1] = lo.y, bmin[2] = lo.z;
    bmax[0] = hi.x, bmax[1] = hi.y, bmax[2] = hi.z;
}

#endif
