/* The node tree of a glTF file's scene, walked from the JSON: every visit
 * of a node (a node reached twice, as the child of two parents, is visited
 * twice, as assimp imports it) in pre-order, with its transform to the
 * world. The walk is also a guard for assimp, which recurses through the
 * tree: cycles, depth and the number of visits (a few nodes listing each
 * other many times expand exponentially) are refused before it starts. */
#ifndef PW_GLTF_NODES_H
#define PW_GLTF_NODES_H

#include "scene/gltf_json.h"

#define PW_GLTF_NO_PARENT UINT32_MAX
/* The deepest node tree and the most node visits a scene may have. */
#define PW_GLTF_MAX_DEPTH 256
#define PW_GLTF_MAX_VISITS (1u << 20)

typedef struct pw_gltf_visit {
    long node;         /* index into the file's nodes */
    uint32_t parent;   /* the visit of its parent, PW_GLTF_NO_PARENT for the scene's roots */
    double world[16];  /* node to world, column-major as glTF writes matrices */
} pw_gltf_visit;

typedef struct pw_gltf_tree {
    pw_gltf_visit *visits;
    uint32_t n;
    uint32_t roots; /* visits without a parent: the scene's nodes */
} pw_gltf_tree;

/* Walks the nodes of the file's scene ("scene", else the first). A file
 * without scenes has no visits. Errors (PW_ERR_FORMAT, naming the file and
 * node) for a bad child or scene index, a cycle, a malformed transform
 * (matrix, translation, rotation, scale) and the limits above. */
pw_status pw_gltf_walk_nodes(const pw_gltf_doc *doc, pw_gltf_tree *tree);
void pw_gltf_tree_free(pw_gltf_tree *tree);

/* 4x4 column-major matrices. */
void pw_mat4_mul(const double a[16], const double b[16], double out[16]);
/* translation t, rotation quaternion q (x, y, z, w; normalized here) and
 * scale s as one matrix, T R S. */
void pw_mat4_trs(const double t[3], const double q[4], const double s[3], double out[16]);
/* m applied to point p (w = 1) or direction d (w = 0). */
void pw_mat4_point(const double m[16], const double p[3], double out[3]);
void pw_mat4_direction(const double m[16], const double d[3], double out[3]);

#endif
