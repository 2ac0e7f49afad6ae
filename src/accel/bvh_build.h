/* Building the BVH over a scene's primitives (bvh_build.c), and its 4-wide
 * collapse (bvh4_build.c). The scene (scene/scene.c, pw_scene_prepare)
 * calls these with its arrays as a pw_prims; accel/ knows no pw_scene. */
#ifndef PW_BVH_BUILD_H
#define PW_BVH_BUILD_H

#include "pathwave.h"
#include "accel/bvh_node.h"
#include "geom/prims.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pw_bvh {
    pw_bvh_node *nodes;
    uint32_t *prim_ref;
    pw_leaf_prim *leaf_prims; /* n_refs of them, in prim_ref's order */
    pw_bvh4_node *nodes4;     /* the same tree collapsed 4-wide (accel/bvh4_build.c) */
    uint32_t n_nodes, n_refs, n_nodes4;
    double build_ms;
} pw_bvh;

/* name (the scene's) is for messages. */
pw_status pw_bvh_build(const pw_prims *p, const char *name, int threads, pw_bvh *out);
void pw_bvh_free(pw_bvh *b);
pw_status pw_bvh4_build(const char *name, const pw_bvh_node *nodes, uint32_t n_nodes, uint32_t n_refs,
                        pw_bvh4_node **out, uint32_t *n_out);

#ifdef __cplusplus
}
#endif
#endif
