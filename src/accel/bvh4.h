/* A 4-wide BVH collapsed from the binary one (accel/bvh4_build.c) and its
 * traversal, shared by every backend. A node holds its four children's
 * boxes side by side, so one node visit tests four boxes with independent
 * arithmetic instead of two, and a path from the root to a leaf visits half
 * as many nodes, each a 128-byte record read in eight 16-byte loads. */
#ifndef PW_BVH4_H
#define PW_BVH4_H

#include "accel/bvh_traverse.h"

/* Each node visit pushes at most 3 entries and the collapsed tree is at
 * most half as deep as the binary one (<= 62 levels, accel/bvh_build.c). */
#define PW_BVH4_STACK 100

/* The node's seven used 16-byte rows, through the read-only cache on the GPU. */
PW_HD void pw_bvh4_load(const pw_bvh4_node *p, pw_bvh4_node *n)
{
#if PW_DEVICE_CODE
    const float4 *q = (const float4 *)p;
    float4 *d = (float4 *)n;
#pragma unroll
    for (int i = 0; i < 7; i++)
        d[i] = __ldg(q + i);
#else
    *n = *p;
#endif
}

/* Entry distance of the ray into child k of node n, PW_INF when it misses
 * the box or the slot is empty. */
PW_HD float pw_bvh4_child_t(const pw_bvh4_node *n, int k, pw_vec3 oid, pw_vec3 inv_d, float tmin, float tmax)
{
    if (n->child[k] == PW_BVH4_EMPTY)
        return PW_INF;
    const float lo[3] = {n->lo_x[k], n->lo_y[k], n->lo_z[k]}, hi[3] = {n->hi_x[k], n->hi_y[k], n->hi_z[k]};
    return pw_intersect_box(oid, inv_d, lo, hi, tmin, tmax);
}

/* Tests node n's children: returns the nearest hit (PW_BVH4_EMPTY if
 * none) and pushes the others with their entry distance, in child order. */
PW_HD uint32_t pw_bvh4_visit(const pw_bvh4_node *n, pw_vec3 oid, pw_vec3 inv_d, float tmin, float tmax,
                             uint32_t *st_ref, float *st_t, int *sp, int any_hit)
{
    uint32_t next = PW_BVH4_EMPTY;
    float t_next = PW_INF;
#if PW_DEVICE_CODE
#pragma unroll
#endif
    for (int k = 0; k < 4; k++) {
        float t = pw_bvh4_child_t(n, k, oid, inv_d, tmin, tmax);
        if (t == PW_INF)
            continue;
        /* Any hit ends the walk, so tmax never shrinks and no entry's
         * distance is read again: a shadow ray pushes references alone. */
        if (t < t_next) {
            if (next != PW_BVH4_EMPTY) {
                if (!any_hit)
                    st_t[*sp] = t_next;
                st_ref[(*sp)++] = next;
            }
            next = n->child[k];
            t_next = t;
        } else {
            if (!any_hit)
                st_t[*sp] = t;
            st_ref[(*sp)++] = n->child[k];
        }
    }
    return next;
}

/* Puts entries i < j of (t, c) in order of t. */
PW_HD void pw_bvh4_order(float *t, uint32_t *c, int i, int j)
{
    float ti = t[i], tj = t[j];
    uint32_t ci = c[i], cj = c[j];
    int swap = tj < ti;
    t[i] = swap ? tj : ti;
    t[j] = swap ? ti : tj;
    c[i] = swap ? cj : ci;
    c[j] = swap ? ci : cj;
}

/* As pw_bvh4_visit, but the others are pushed farthest first, so they pop
 * in order of distance and more of them are skipped behind a hit found
 * meanwhile (a sorting network of five compare-swaps orders the four). On
 * the GPU, whose traversal waits on memory, that pays for closest hits
 * (the meshes ran faster), so the GPU always sorts; on the CPU the Cornell
 * box took more instructions (docs/PERFORMANCE.md), so the host sorts only
 * where a view sets bvh4_sorted (the tests, to check the GPU's walk). */
PW_HD uint32_t pw_bvh4_visit_sorted(const pw_bvh4_node *n, pw_vec3 oid, pw_vec3 inv_d, float tmin, float tmax,
                                    uint32_t *st_ref, float *st_t, int *sp)
{
    float t[4];
    uint32_t c[4];
#if PW_DEVICE_CODE
#pragma unroll
#endif
    for (int k = 0; k < 4; k++) {
        c[k] = n->child[k];
        t[k] = pw_bvh4_child_t(n, k, oid, inv_d, tmin, tmax);
    }
    pw_bvh4_order(t, c, 0, 1);
    pw_bvh4_order(t, c, 2, 3);
    pw_bvh4_order(t, c, 0, 2);
    pw_bvh4_order(t, c, 1, 3);
    pw_bvh4_order(t, c, 1, 2);
#if PW_DEVICE_CODE
#pragma unroll
#endif
    for (int k = 3; k > 0; k--)
        if (t[k] != PW_INF) {
            st_ref[*sp] = c[k];
            st_t[(*sp)++] = t[k];
        }
    return t[0] != PW_INF ? c[0] : PW_BVH4_EMPTY;
}

/* Closest hit in (tmin, tmax), or with any_hit the first hit found. The
 * nearest child box hit is visited next and the others pushed
 * (pw_bvh4_visit, pw_bvh4_visit_sorted); a popped entry farther than the
 * closest hit so far is skipped. */
PW_HD int pw_bvh4_trace(const pw_scene_view *s, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
    uint32_t st_ref[PW_BVH4_STACK];
    float st_t[PW_BVH4_STACK];
    int sp = 0;
    pw_vec3 inv_d = pw_safe_inverse(r.d), oid = v3_mul(r.o, inv_d);
    pw_ray_shear sh;
    if (s->n_tris)
        sh = pw_ray_shear_make(r.d);
    int found = 0;
    pw_hit_none(hit, tmax);
    uint32_t cur = 0;
    for (;;) {
        if (cur & PW_BVH4_LEAF) {
            uint32_t first = cur & PW_BVH4_FIRST_MASK, end = first + ((cur >> PW_BVH4_COUNT_SHIFT) & 3u) + 1u;
            for (uint32_t i = first; i < end; i++)
                if (pw_intersect_leaf(s, i, r.o, r.d, &sh, tmin, &tmax, hit)) {
                    found = 1;
                    if (any_hit)
                        return 1;
                }
        } else {
            pw_bvh4_node n;
            pw_bvh4_load(s->nodes4 + cur, &n);
            uint32_t next = PW_BVH4_EMPTY;
            /* On the GPU a literal: each inlined walk holds one visit. */
            if (!any_hit && (PW_DEVICE_CODE || s->bvh4_sorted))
                next = pw_bvh4_visit_sorted(&n, oid, inv_d, tmin, tmax, st_ref, st_t, &sp);
            else
                next = pw_bvh4_visit(&n, oid, inv_d, tmin, tmax, st_ref, st_t, &sp, any_hit);
            if (next != PW_BVH4_EMPTY) {
                cur = next;
                continue;
            }
        }
        do {
            if (sp == 0)
                return found;
            --sp;
            cur = st_ref[sp];
        } while (!any_hit && st_t[sp] > tmax);
    }
}

/* The walk of pw_bvh4_trace for closest hits, as the GPU's wavefront
 * extends rays (Aila and Laine, "Understanding the Efficiency of Ray
 * Traversal on GPUs", 2009: while-while with postponed leaves). In the
 * plain walk each step is a node or a leaf, so a warp whose lanes are at
 * different kinds of step runs both at part width (a profile of the
 * extend stage's walk at bounce 1 found few lanes of 32 active;
 * docs/PERFORMANCE.md). Here a lane that reaches a leaf keeps it aside
 * and walks on through nodes until every active lane of its warp holds a
 * leaf (or has finished), then the leaves are tested together. The price: leaves tested later shrink tmax later,
 * so fewer popped entries are skipped behind the hit. It finds the same
 * closest hit as pw_bvh4_trace: it tests the leaves the plain walk tests,
 * in the same order, and besides them only boxes and leaves the plain walk
 * skipped behind a closer hit, which cannot beat it (test_bvh). On the
 * host the warp is one lane; test_bvh_warp defines PW_LANES_ANY(x) as 1,
 * a warp whose other lanes never hold a leaf. */
#ifndef PW_LANES_ANY
#if PW_DEVICE_CODE
#define PW_LANES_ANY(x) __any_sync(__activemask(), (x))
#else
#define PW_LANES_ANY(x) (x)
#endif
#endif

/* The next entry on the stack not behind the closest hit so far, or
 * PW_BVH4_EMPTY when there is none. */
PW_HD uint32_t pw_bvh4_pop(const uint32_t *st_ref, const float *st_t, int *sp, float tmax)
{
    while (*sp > 0) {
        --*sp;
        if (st_t[*sp] <= tmax)
            return st_ref[*sp];
    }
    return PW_BVH4_EMPTY;
}

PW_HD int pw_bvh4_is_leaf(uint32_t ref) { return ref != PW_BVH4_EMPTY && (ref & PW_BVH4_LEAF); }

PW_HD int pw_bvh4_trace_postponed(const pw_scene_view *s, pw_ray r, float tmin, float tmax, pw_hit *hit)
{
    uint32_t st_ref[PW_BVH4_STACK];
    float st_t[PW_BVH4_STACK];
    int sp = 0, found = 0;
    pw_vec3 inv_d = pw_safe_inverse(r.d), oid = v3_mul(r.o, inv_d);
    pw_ray_shear sh;
    if (s->n_tris)
        sh = pw_ray_shear_make(r.d);
    pw_hit_none(hit, tmax);
    uint32_t cur = 0, leaf = PW_BVH4_EMPTY; /* the node to visit (the root is one); the leaf kept aside */
    while (cur != PW_BVH4_EMPTY || leaf != PW_BVH4_EMPTY) {
        while (cur != PW_BVH4_EMPTY && !(cur & PW_BVH4_LEAF)) {
            pw_bvh4_node n;
            pw_bvh4_load(s->nodes4 + cur, &n);
            cur = pw_bvh4_visit_sorted(&n, oid, inv_d, tmin, tmax, st_ref, st_t, &sp);
            if (cur == PW_BVH4_EMPTY)
                cur = pw_bvh4_pop(st_ref, st_t, &sp, tmax);
            if (pw_bvh4_is_leaf(cur) && leaf == PW_BVH4_EMPTY) {
                leaf = cur;
                cur = pw_bvh4_pop(st_ref, st_t, &sp, tmax);
            }
            if (!PW_LANES_ANY(leaf == PW_BVH4_EMPTY))
                break;
        }
        /* The leaf kept aside, then cur for as long as it is a leaf. */
        while (leaf != PW_BVH4_EMPTY) {
            uint32_t first = leaf & PW_BVH4_FIRST_MASK, end = first + ((leaf >> PW_BVH4_COUNT_SHIFT) & 3u) + 1u;
            for (uint32_t i = first; i < end; i++)
                found |= pw_intersect_leaf(s, i, r.o, r.d, &sh, tmin, &tmax, hit);
            leaf = PW_BVH4_EMPTY;
            if (pw_bvh4_is_leaf(cur)) {
                leaf = cur;
                cur = pw_bvh4_pop(st_ref, st_t, &sp, tmax);
            }
        }
    }
    return found;
}

#endif
