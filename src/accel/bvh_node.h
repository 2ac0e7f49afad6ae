/* The BVH's nodes and leaf records as traversal reads them, on the host
 * and on the GPU: the binary tree (bvh_build.c) and the 4-wide one it is
 * collapsed into (bvh4_build.c, walked by bvh4.h). */
#ifndef PW_BVH_NODE_H
#define PW_BVH_NODE_H

#include "core/pw_hd.h"

/* 48 bytes: a primitive as a BVH leaf tests it, kept in leaf order (leaf
 * slot i holds primitive prim_ref[i]), so traversal reads its geometry with
 * no index to follow first: one 16-byte load for a sphere (a second on a
 * hit, for its id), three for a triangle, instead of an index, then a
 * sphere or an index triple and three vertices. */
typedef struct pw_leaf_prim {
    float a[4];    /* sphere: centre and radius (> 0); triangle: vertex 0 and -1 */
    float b[3];    /* triangle: vertex 1 */
    uint32_t prim; /* the primitive id (spheres first, then triangles) */
    float c[4];    /* triangle: vertex 2 (c[3] unused) */
} pw_leaf_prim;
PW_SIZE_CHECK(pw_leaf_prim, 48);

/* The 4-wide BVH (accel/bvh4.h), 128 bytes a node. */
/* A child reference: a node index, or a leaf (PW_BVH4_LEAF set) holding
 * leaf slots first .. first + count - 1 of prim_ref and leaf_prims, with
 * count - 1 (the binary builder makes leaves of 1 to 4) in bits 29-30. */
#define PW_BVH4_LEAF 0x80000000u
#define PW_BVH4_COUNT_SHIFT 29u
#define PW_BVH4_FIRST_MASK 0x1fffffffu
#define PW_BVH4_EMPTY 0xffffffffu
/* The four children's bounds as structure of arrays, then their references. */
typedef struct pw_bvh4_node {
    float lo_x[4], lo_y[4], lo_z[4];
    float hi_x[4], hi_y[4], hi_z[4];
    uint32_t child[4];
    uint32_t pad[4];
} pw_bvh4_node;
PW_SIZE_CHECK(pw_bvh4_node, 128);

/* 32 bytes. Interior nodes have count == 0 and children at first, first+1;
 * leaves hold slots first .. first+count of prim_ref and leaf_prims. */
typedef struct pw_bvh_node {
    float bmin[3];
    uint32_t first;
    float bmax[3];
    uint32_t count;
} pw_bvh_node;
PW_SIZE_CHECK(pw_bvh_node, 32);

#endif
