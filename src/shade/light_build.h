/* Building the light table (light_build.c) from what a scene emits. The
 * scene (scene/scene.c, pw_scene_prepare) hands its arrays over as a
 * pw_light_sources; shade/ knows no pw_scene. */
#ifndef PW_LIGHT_BUILD_H
#define PW_LIGHT_BUILD_H

#include "pathwave.h"
#include "geom/prims.h"
#include "shade/light.h"
#include "shade/material.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pw_light_table {
    pw_light *lights;
    float *pmf, *alias_prob;
    uint32_t *alias_idx, *prim_light;
    uint32_t count;
} pw_light_table;

/* The emitters: every primitive whose material is a light
 * (pw_material_is_light) and every delta light of non-zero L. */
typedef struct pw_light_sources {
    pw_prims prims;
    const pw_material *mats;
    const uint32_t *sphere_mat, *tri_mat; /* material of each sphere, of each triangle */
    const pw_delta_light *delta_lights;
    const pw_spot_cone *delta_cones; /* by the same index (zero but for spots) */
    const uint32_t *delta_type;      /* by the same index: a pw_light_type */
    uint32_t n_delta_lights;
} pw_light_sources;

/* name (the scene's) is for messages. */
pw_status pw_light_table_build(const pw_light_sources *src, const char *name, pw_light_table *out);
void pw_light_table_free(pw_light_table *t);

#ifdef __cplusplus
}
#endif
#endif
