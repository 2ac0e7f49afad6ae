/* Stack-based BVH traversal, nearest child first, shared by every backend. */
#ifndef PW_BVH_TRAVERSE_H
#define PW_BVH_TRAVERSE_H

#include "accel/bvh_node.h"
#include "geom/intersect.h"
#include "shade/scene_view.h"

#define PW_BVH_STACK 64

/* Tests primitive id against the ray; on a hit closer than *tmax updates
 * *tmax and the hit record. */
PW_HD int pw_intersect_prim(const pw_scene_view *s, uint32_t prim, pw_vec3 o, pw_vec3 d, const pw_ray_shear *sh,
                            float tmin, float *tmax, pw_hit *hit)
{
    if (pw_prim_is_sphere(s, prim)) {
        pw_sphere sp = s->spheres[prim];
        return pw_hit_sphere(sp.c, sp.r, prim, o, d, tmin, tmax, hit);
    }
    uint32_t tri = prim - s->n_spheres;
    const uint32_t *ix = s->tri_idx + 3 * tri;
    float t, u, v;
    if (!pw_intersect_triangle(o, sh, s->pos[ix[0]], s->pos[ix[1]], s->pos[ix[2]], tmin, *tmax, &t, &u, &v))
        return 0;
    *tmax = t;
    hit->t = t;
    hit->prim = prim;
    hit->u = u;
    hit->v = v;
    return 1;
}

/* 16 bytes of a leaf primitive, through the read-only cache on the GPU. */
PW_HD void pw_leaf_load4(const float *p, float out[4])
{
#if PW_DEVICE_CODE
    float4 q = __ldg((const float4 *)p);
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
#else
    out[0] = p[0], out[1] = p[1], out[2] = p[2], out[3] = p[3];
#endif
}

/* Tests leaf slot `slot` against the ray; on a hit closer than *tmax
 * updates *tmax and the hit record. A sphere's record is read 16 bytes at
 * first (centre, radius); its id only when it is hit. */
PW_HD int pw_intersect_leaf(const pw_scene_view *s, uint32_t slot, pw_vec3 o, pw_vec3 d, const pw_ray_shear *sh,
                            float tmin, float *tmax, pw_hit *hit)
{
    const pw_leaf_prim *l = s->leaf_prims + slot;
    float a[4], b[4];
    pw_leaf_load4(l->a, a);
    /* a[3] is a sphere's radius, -1 for a triangle */
    if (s->n_tris == 0 || (s->n_spheres != 0 && a[3] > 0.0f)) {
        float t = pw_intersect_sphere(o, d, v3(a[0], a[1], a[2]), a[3], tmin, *tmax);
        if (t < 0.0f)
            return 0;
        pw_leaf_load4(l->b, b);
        *tmax = t;
        hit->t = t;
        hit->prim = (uint32_t)pw_float_as_int(b[3]);
        hit->u = hit->v = 0.0f;
        return 1;
    }
    float c[4];
    pw_leaf_load4(l->b, b);
    pw_leaf_load4(l->c, c);
    float t, u, v;
    if (!pw_intersect_triangle(o, sh, v3(a[0], a[1], a[2]), v3(b[0], b[1], b[2]), v3(c[0], c[1], c[2]), tmin, *tmax,
                               &t, &u, &v))
        return 0;
    *tmax = t;
    hit->t = t;
    hit->prim = (uint32_t)pw_float_as_int(b[3]);
    hit->u = u;
    hit->v = v;
    return 1;
}

/* One node in two 16-byte loads through the read-only cache on the GPU. */
PW_HD pw_bvh_node pw_bvh_load(const pw_bvh_node *p)
{
#if PW_DEVICE_CODE
    float4 a = __ldg((const float4 *)p), b = __ldg((const float4 *)p + 1);
    pw_bvh_node n;
    n.bmin[0] = a.x, n.bmin[1] = a.y, n.bmin[2] = a.z, n.first = __float_as_uint(a.w);
    n.bmax[0] = b.x, n.bmax[1] = b.y, n.bmax[2] = b.z, n.count = __float_as_uint(b.w);
    return n;
#else
    return *p;
#endif
}

/* Closest hit in (tmin, tmax); returns 1 and fills *hit on a hit. With
 * any_hit set it returns at the first hit found (shadow rays). */
PW_HD int pw_bvh_trace(const pw_scene_view *s, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
    uint32_t stack[PW_BVH_STACK];
    int sp = 0;
    pw_vec3 inv_d = pw_safe_inverse(r.d), oid = v3_mul(r.o, inv_d);
    pw_ray_shear sh;
    if (s->n_tris)
        sh = pw_ray_shear_make(r.d);
    const pw_bvh_node *nodes = s->nodes;
    int found = 0;
    pw_hit_none(hit, tmax);
    if (!nodes || pw_intersect_box(oid, inv_d, nodes[0].bmin, nodes[0].bmax, tmin, tmax) == PW_INF)
        return 0;
    pw_bvh_node n = pw_bvh_load(&nodes[0]);
    for (;;) {
        if (n.count > 0) {
            for (uint32_t i = n.first; i < n.first + n.count; i++) {
                if (pw_intersect_leaf(s, i, r.o, r.d, &sh, tmin, &tmax, hit)) {
                    found = 1;
                    if (any_hit)
                        return 1;
                }
            }
        } else {
            pw_bvh_node nl = pw_bvh_load(&nodes[n.first]), nr = pw_bvh_load(&nodes[n.first + 1]);
            float tl = pw_intersect_box(oid, inv_d, nl.bmin, nl.bmax, tmin, tmax);
            float tr = pw_intersect_box(oid, inv_d, nr.bmin, nr.bmax, tmin, tmax);
            if (tl != PW_INF && tr != PW_INF) {
                int left_first = tl <= tr;
                stack[sp++] = left_first ? n.first + 1 : n.first;
                n = left_first ? nl : nr;
                continue;
            }
            if (tl != PW_INF) {
                n = nl;
                continue;
            }
            if (tr != PW_INF) {
                n = nr;
                continue;
            }
        }
        /* Pop the next subtree, skipping those behind the closest hit so far. */
        do {
            if (sp == 0)
                return found;
            n = pw_bvh_load(&nodes[stack[--sp]]);
        } while (found && pw_intersect_box(oid, inv_d, n.bmin, n.bmax, tmin, tmax) == PW_INF);
    }
}

#endif
