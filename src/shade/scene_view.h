/* The scene as the integrator sees it: flat arrays behind plain pointers, the
 * same struct filled with host pointers by the CPU backends and with device
 * pointers by the CUDA backends. A thin aggregate: each element type lives
 * with its concern (geom/prims.h, shade/material.h, shade/light.h,
 * shade/environment.h, shade/camera.h, accel/bvh_node.h and the sphere
 * structures' headers in accel/).
 *
 * It sits in shade/ because shade/, accel/ and the integrator all read it:
 * it includes the shade/ and geom/ types it holds, and names accel/'s by
 * their struct tags only, since accel/ reads this view and including accel/
 * from here would make the folders include each other (scripts/
 * check-layering.sh). The one accel/ type held by value, pw_dirmap_cells,
 * is therefore defined here. */
#ifndef PW_SCENE_VIEW_H
#define PW_SCENE_VIEW_H

#include "core/vec3.h"
#include "geom/prims.h"
#include "shade/camera.h"
#include "shade/environment.h"
#include "shade/light.h"
#include "shade/material.h"

/* accel/'s types the view points to, named only (accel/bvh_node.h,
 * accel/sphere_groups.h, accel/sphere_dirmap.h). */
struct pw_bvh_node;
struct pw_leaf_prim;
struct pw_bvh4_node;
struct pw_sphere_group;
struct pw_dirmap;

/* A grid of direction maps over the surface of one sphere far larger
 * than the others (toy's ground): cells of a square grid in the plane
 * across the axis from its centre toward the others, each cell the map of
 * the ball around the sphere's surface above it (accel/sphere_dirmap.h).
 * Defined here rather than there as the view holds it by value. */
typedef struct pw_dirmap_cells {
    pw_vec3 c;               /* the sphere's centre */
    pw_vec3 t1, t2;          /* the grid's axes */
    float u0, v0, inv_size;  /* the grid's corner along t1 and t2, and 1 / cell size */
    uint32_t nu, nv, first;  /* cells along t1 and t2, and the map of cell 0 (cell (i, j): first + j nu + i) */
} pw_dirmap_cells;

/* How a sphere-only scene's rays find their hits (pw_scene_view.flat_spheres). */
#define PW_FLAT_NONE 0u   /* through the BVH */
#define PW_FLAT_LIST 1u   /* every sphere against every ray */
#define PW_FLAT_GROUPS 2u /* runs of spheres behind their boxes (accel/sphere_groups.h) */

typedef struct pw_scene_view {
    const pw_sphere *spheres;
    const uint32_t *sphere_mat;
    uint32_t n_spheres;

    const pw_vec3 *pos;       /* vertex positions */
    const pw_vec3 *nrm;       /* per-vertex shading normals, or NULL */
    const float *uv;          /* per-vertex texture coordinates (u, v), or NULL */
    const uint32_t *tri_idx;  /* 3 vertex indices per triangle */
    const uint32_t *tri_mat;  /* material per triangle */
    uint32_t n_tris;

    const pw_material *mats;
    uint32_t n_mats;

    const pw_texture *textures; /* textures: the table materials index */
    const float *texels;        /* textures: the pixel pool, 3 floats per texel */
    uint32_t n_textures;

    const struct pw_bvh_node *nodes;       /* the binary BVH (accel/bvh_node.h) */
    const uint32_t *prim_ref;              /* BVH leaf order -> primitive id */
    const struct pw_leaf_prim *leaf_prims; /* the same order: the primitives' geometry */
    const struct pw_bvh4_node *nodes4;     /* the same tree 4-wide (root at 0), traced when wide_bvh is set */

    const pw_light *lights;
    const float *light_pmf;       /* selection probability of each light */
    const float *alias_prob;      /* alias table for O(1) power-proportional selection */
    const uint32_t *alias_idx;
    const uint32_t *prim_light;   /* primitive id -> light index, or PW_NO_LIGHT */
    uint32_t n_lights;
    const pw_delta_light *delta_lights; /* lights: point, distant and spot lights, which lights[] index */
    const pw_spot_cone *delta_cones;    /* lights: by the same index, the spots' cones */

    const void *cpu_bvh8; /* CPU only: an 8-wide BVH traced instead of nodes (accel/bvh8_cpu.h) */
    uint32_t wide_bvh;     /* trace nodes4 rather than nodes (the renderer picks, docs/PERFORMANCE.md) */
    uint32_t bvh4_sorted;  /* host: closest-hit walks of nodes4 push children in order of distance, as the GPU's always do */
    uint32_t flat_spheres; /* a PW_FLAT_*: spheres only and few of them, no BVH (the GPU keeps them in shared memory) */
    const struct pw_sphere_group *groups; /* PW_FLAT_GROUPS: the runs (accel/sphere_groups.h) */
    const pw_sphere *group_spheres;       /* their spheres in run order */
    const uint32_t *group_prims;          /* and those spheres' ids */
    uint32_t n_groups;
    /* PW_FLAT_GROUPS, optional: the camera's, the sphere lights' and the
     * origin maps (accel/sphere_dirmap.h) */
    const struct pw_dirmap *dirmaps;
    const uint64_t *dirmap_masks;  /* PW_DIRMAP_TEXELS masks of group slots each */
    uint32_t n_dirmaps;            /* the camera's and the lights' (origin maps follow them) */
    uint32_t dirmap_camera;        /* closest-hit rays from the lens use dirmaps[0] */
    const uint32_t *dirmap_origin; /* optional, by sphere id: the map of rays that leave it, PW_DIRMAP_CELLS or PW_NO_DIRMAP */
    pw_dirmap_cells dirmap_cells;  /* the cells of PW_DIRMAP_CELLS */

    pw_env env;
    float env_prob; /* probability that a light sample goes to the environment map (0 without one) */
    pw_camera cam;
    float t_min; /* minimum hit distance on top of the origin offset (the toy scene's 0.001) */
} pw_scene_view;

/* Whether primitive prim is a sphere. A kernel compiled for sphere-only
 * scenes sets n_tris to a literal 0, one for meshes n_spheres, so every
 * triangle or sphere branch behind this test is compiled out. */
PW_HD int pw_prim_is_sphere(const pw_scene_view *s, uint32_t prim)
{
    return s->n_tris == 0 || (s->n_spheres != 0 && prim < s->n_spheres);
}

/* The material of primitive prim. */
PW_HD uint32_t pw_prim_material(const pw_scene_view *s, uint32_t prim)
{
    return pw_prim_is_sphere(s, prim) ? s->sphere_mat[prim] : s->tri_mat[prim - s->n_spheres];
}

#endif
