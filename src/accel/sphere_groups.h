/* Sphere groups: a small sphere-only scene as at most 8 runs of at most 8
 * spheres, each run with its box. A ray tests the boxes, then the spheres
 * of the runs it enters: no tree, no stack. On the GPU the lanes of a warp
 * run this in step (the loops have fixed bounds), where a BVH's traversal
 * sends each lane down its own path; the CPU's AVX2 tracer uses the same
 * runs as its flat blocks (accel/bvh8_flat.h). */
#ifndef PW_SPHERE_GROUPS_H
#define PW_SPHERE_GROUPS_H

#include "accel/sphere_dirmap.h"
#include "geom/intersect.h"
#include "shade/scene_view.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PW_GROUPS_MAX 32           /* runs (a bit mask of them per ray) */
#define PW_GROUPS_MAX_SPHERES 64   /* scenes up to this many spheres */

/* 32 bytes: a run of spheres and its box. */
typedef struct pw_sphere_group {
    float lo[3];
    uint32_t first; /* into group_spheres */
    float hi[3];
    uint32_t count;
} pw_sphere_group;
PW_SIZE_CHECK(pw_sphere_group, 32);

/* Cuts the spheres of s (at most PW_GROUPS_MAX_SPHERES, no triangles), in
 * the binary BVH's leaf order, which keeps neighbours together, into at
 * most max_runs runs of at most run_len spheres whose boxes have the least
 * total surface area: the chance that a ray enters a box grows with its
 * area. Fills order (the sphere ids, n_spheres of them) and first[0 ..
 * runs] (run k is order[first[k] .. first[k + 1])); returns the number of
 * runs, 0 if the spheres do not fit or every cut's area overflows. */
uint32_t pw_sphere_groups_cut(const pw_scene_view *s, uint32_t max_runs, uint32_t run_len,
                              uint32_t order[PW_GROUPS_MAX_SPHERES], uint32_t first[PW_GROUPS_MAX + 1]);

/* The box of spheres order[first .. end), padded so that rounding in the
 * slab test never culls a sphere at its tangent points. */
void pw_sphere_groups_box(const pw_scene_view *s, const uint32_t *order, uint32_t first, uint32_t end, float lo[3],
                          float hi[3]);

/* The groups of s, for a scene view (host memory; pw_sphere_groups_free). */
typedef struct pw_sphere_groups {
    pw_sphere_group *groups;
    pw_sphere *spheres; /* in run order */
    uint32_t *prims;    /* their sphere ids */
    uint32_t n_groups, n_spheres;
} pw_sphere_groups;

/* Runs as pw_sphere_groups_cut makes them. Returns 0 when out of memory
 * or when s is not a scene the groups take. */
int pw_sphere_groups_build(const pw_scene_view *s, uint32_t max_runs, uint32_t run_len, pw_sphere_groups *out);
void pw_sphere_groups_free(pw_sphere_groups *g);

#ifdef __cplusplus
}
#endif

/* Closest (or with any_hit, any) hit in (tmin, tmax), tmin >= 0, among
 * the spheres of s's groups (s->groups, s->group_spheres, s->group_prims),
 * for a ray that starts at origin (a PW_ORIGIN_* or a sphere id). The
 * boxes are tested first into a mask; the runs entered are then taken
 * lowest first, each sphere against the closest hit so far. */
PW_HD int pw_trace_sphere_groups(const pw_scene_view *s, pw_ray r, uint32_t origin, float tmin, float tmax,
                                 int any_hit, pw_hit *hit)
{
    /* Shadow rays to sphere lights, camera rays and bounce rays: the few
     * spheres their direction map lists. */
    uint64_t listed = pw_dirmap_slots(s, r, tmax, any_hit, origin);
    if (listed != ~(uint64_t)0)
        return pw_trace_sphere_slots(s->group_spheres, s->group_prims, r, tmin, tmax, any_hit, listed, hit);
    pw_vec3 inv_d = pw_safe_inverse_approx(r.d), oid = v3_mul(r.o, inv_d);
    uint32_t enter = 0;
    int found = 0;
    pw_hit_none(hit, tmax);
    /* A run of one sphere (toy's ground and one of its lights) is tested
     * right away, the whole warp in step, as its box would cost as much as
     * its sphere; walked with the others it took a pass of the walk below
     * that lanes in longer runs spent on their own spheres. A hit found
     * here also shortens the boxes tested after it. */
    PW_NO_UNROLL
    for (uint32_t g = 0; g < s->n_groups; g++) {
        uint32_t first = s->groups[g].first;
        if (s->groups[g].count == 1) {
            pw_sphere sp = s->group_spheres[first];
            if (pw_hit_sphere(sp.c, sp.r, first, r.o, r.d, tmin, &tmax, hit)) {
                found = 1;
                if (any_hit)
                    break;
            }
        } else if (pw_intersect_box(oid, inv_d, s->groups[g].lo, s->groups[g].hi, tmin, tmax) != PW_INF) {
            enter |= 1u << g;
        }
    }
    if (found && any_hit)
        enter = 0;
    /* Each lane walks its own entered runs, lowest first: a warp then
     * makes as many passes as its busiest lane enters runs, where a walk
     * over all runs in step made one for every run any lane entered
     * (toy ran a little faster so; docs/PERFORMANCE.md). */
    while (enter) {
        uint32_t g = pw_lowest_bit(enter);
        enter &= enter - 1u;
        uint32_t end = s->groups[g].first + s->groups[g].count;
        PW_NO_UNROLL
        for (uint32_t i = s->groups[g].first; i < end; i++) {
            pw_sphere sp = s->group_spheres[i];
            if (pw_hit_sphere(sp.c, sp.r, i, r.o, r.d, tmin, &tmax, hit)) { /* a run slot until the end */
                found = 1;
                if (any_hit)
                    break;
            }
        }
        if (found && any_hit)
            break;
    }
    if (found)
        hit->prim = s->group_prims[hit->prim];
    return found;
}

#endif
