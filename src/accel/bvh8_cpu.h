/* An 8-wide BVH for the CPU backends, converted from the shared binary BVH:
 * one AVX2 instruction sequence tests a node's eight child boxes, and a leaf
 * tests up to eight spheres or eight triangles at once (the triangles with
 * the lane-by-lane operations of the shared watertight test). Built only
 * where AVX2 is available; elsewhere the CPU traces the shared trees (the
 * 4-wide one for meshes) as the GPU does. */
#ifndef PW_BVH8_CPU_H
#define PW_BVH8_CPU_H

#include "geom/ray.h"
#include "shade/scene_view.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PW_BVH8_WIDTH 8

/* 256 bytes, 64-byte aligned. Empty slots have lo = +inf, hi = -inf so that
 * no ray enters them. child >= 0: inner node; child < 0: leaf ~child. */
typedef struct pw_bvh8_node {
    float lo[3][8];    /* 96: per-axis lower bounds of the 8 children */
    float hi[3][8];    /* 96 */
    int32_t child[8];  /* 32 */
    uint32_t pad[8];   /* 32: keeps nodes on cache-line pairs */
} pw_bvh8_node;
PW_SIZE_CHECK(pw_bvh8_node, 256);

/* 160 bytes: 8 spheres as SoA lanes, with the radius squared (the only
 * form the test needs). Unused lanes have r2 = 0 and cx = +inf, which no
 * ray hits. */
typedef struct pw_sphere8 {
    float cx[8], cy[8], cz[8], r2[8]; /* 128 */
    uint32_t prim[8];                /*  32 */
} pw_sphere8;
PW_SIZE_CHECK(pw_sphere8, 160);

/* 320 bytes: 8 triangles as SoA lanes, v[k][a][lane] the coordinate a of
 * vertex k. Lanes past a leaf's triangle count are never reported. */
typedef struct pw_tri8 {
    float v[3][3][8]; /* 288 */
    uint32_t prim[8]; /*  32 */
} pw_tri8;
PW_SIZE_CHECK(pw_tri8, 320);

/* 16 bytes: a leaf's sphere blocks and triangle blocks. */
typedef struct pw_bvh8_leaf {
    uint32_t block_first, block_count; /* into pw_bvh8.blocks */
    uint32_t tri_first, tri_count;     /* tri_count triangles in blocks from pw_bvh8.tri_blocks[tri_first] */
} pw_bvh8_leaf;
PW_SIZE_CHECK(pw_bvh8_leaf, 16);

/* Subtrees of at most this many spheres become one leaf: testing a few
 * blocks of 8 spheres costs less than a node visit, its sorting and stack. */
#define PW_BVH8_LEAF_SPHERES 64
#define PW_BVH8_LEAF_PRIMS 8

typedef struct pw_bvh8 {
    pw_bvh8_node *nodes;
    pw_bvh8_leaf *leaves;
    pw_sphere8 *blocks;
    pw_tri8 *tri_blocks; /* the triangles of all leaves, 8 a block */
    uint32_t n_nodes, n_leaves, n_blocks, n_tri_blocks;
    int root_is_leaf;
    /* Flat mode (at most PW_GROUPS_MAX_SPHERES spheres, no triangles): no
     * tree, only blocks[0 .. n_blocks), the sphere groups' runs, and their
     * boxes as the children of nodes[0] (accel/bvh8_flat.h). */
    int flat;
    uint8_t block_spheres[PW_BVH8_WIDTH]; /* flat mode: the lanes of each block up to its last sphere */
} pw_bvh8;

/* Converts the binary BVH of the view; returns 0 when out of memory or when
 * this build has no AVX2 path (the caller then traces the shared trees). */
int pw_bvh8_build(const pw_scene_view *s, pw_bvh8 *out);
void pw_bvh8_free(pw_bvh8 *b);
/* Host memory of its arrays. */
uint64_t pw_bvh8_bytes(const pw_bvh8 *b);
/* Same contract as pw_bvh_trace. */
int pw_bvh8_trace(const pw_scene_view *s, const pw_bvh8 *b, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit);

#ifdef __cplusplus
}
#endif
#endif
