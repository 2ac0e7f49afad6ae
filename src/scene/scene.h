/* The host-side scene: growable flat arrays, camera and render defaults, and
 * what is derived from them before a render (BVH, light tables). */
#ifndef PW_SCENE_H
#define PW_SCENE_H

#include "pathwave.h"
#include "scene/scene_view.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pw_camera_desc {
    pw_vec3 look_from, look_at, up;
    float vfov_deg;    /* vertical field of view */
    float aperture;    /* lens diameter; 0 = pinhole */
    float focus_dist;  /* 0 = distance to look_at */
    int fov_short_axis; /* vfov_deg is the field of view of the shorter image axis (pbrt's fov) */
    int mirror_x;       /* image x runs along -(up x back): pbrt cameras whose transform keeps handedness */
} pw_camera_desc;

typedef struct pw_light_table {
    pw_light *lights;
    float *pmf, *alias_prob;
    uint32_t *alias_idx, *prim_light;
    uint32_t count;
} pw_light_table;

typedef struct pw_bvh {
    pw_bvh_node *nodes;
    uint32_t *prim_ref;
    uint32_t n_nodes, n_refs;
    double build_ms;
} pw_bvh;

struct pw_scene {
    char name[256];
    pw_sphere *spheres;
    uint32_t *sphere_mat;
    uint32_t n_spheres, cap_spheres;
    pw_vec3 *pos, *nrm; /* nrm is NULL or has one entry per position */
    float *uv;          /* NULL or 2 texture coordinates per position */
    uint32_t n_verts, cap_verts;
    uint32_t *tri_idx, *tri_mat;
    uint32_t n_tris, cap_tris;
    pw_material *mats;
    uint32_t n_mats, cap_mats;

    pw_env env;
    float *env_map, *env_marginal, *env_cond; /* owned arrays behind env when it is a map */
    pw_camera_desc cam;
    float t_min;
    pw_settings defaults;

    int prepared; /* bvh and lights below are current */
    pw_bvh bvh;
    pw_light_table lights;
};

pw_scene *pw_scene_new(const char *name);
uint32_t pw_scene_add_material(pw_scene *s, pw_material m);
pw_status pw_scene_add_sphere(pw_scene *s, pw_vec3 c, float r, uint32_t mat);
/* Appends vertices; returns the index of the first, or UINT32_MAX on failure. */
uint32_t pw_scene_add_vertices(pw_scene *s, const pw_vec3 *p, const pw_vec3 *n, uint32_t count);
/* Texture coordinates (u, v pairs) of vertices [first, first + count). */
pw_status pw_scene_set_uvs(pw_scene *s, uint32_t first, const float *uv, uint32_t count);
pw_status pw_scene_add_triangle(pw_scene *s, uint32_t a, uint32_t b, uint32_t c, uint32_t mat);

pw_material pw_lambert(float r, float g, float b);
pw_material pw_metal(float r, float g, float b, float roughness);
pw_material pw_dielectric(float ior);
/* GGX conductor: complex IOR eta + i k per channel, roughness alpha. */
pw_material pw_conductor(pw_vec3 eta, pw_vec3 k, float alpha);
pw_material pw_emissive(pw_material m, float r, float g, float b);

/* Builds the BVH and light tables if the geometry changed. */
pw_status pw_scene_prepare(pw_scene *s, int threads);
/* Camera for an image of the given aspect ratio. */
pw_camera pw_camera_make(const pw_camera_desc *d, float aspect);
/* A view of the scene's host arrays. */
pw_scene_view pw_scene_host_view(const pw_scene *s, float aspect);

/* Builders (accel/bvh_build.c, shade/light_build.c). */
pw_status pw_bvh_build(const pw_scene *s, int threads, pw_bvh *out);
void pw_bvh_free(pw_bvh *b);
pw_status pw_light_table_build(const pw_scene *s, pw_light_table *out);
void pw_light_table_free(pw_light_table *t);

/* Bounds of primitive id (spheres first, then triangles). */
void pw_prim_bounds(const pw_scene *s, uint32_t prim, float bmin[3], float bmax[3]);

#ifdef __cplusplus
}
#endif
#endif
