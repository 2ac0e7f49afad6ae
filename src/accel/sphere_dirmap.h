/* Direction maps: for a small ball B (centre c, radius rho) in a scene of
 * sphere groups, a cube map over directions whose texels list, as a bit
 * mask of run slots, the spheres that a ray leaving B in a direction of the
 * texel can hit. The idea is Haines and Greenberg's light buffer (1986):
 * shadow rays toward a light need test only the objects that the light
 * sees in their direction. Here maps serve three kinds of rays:
 *
 *  - rays that start in B (camera rays, whose origins lie on the lens):
 *    looked up by their direction d (pw_scene_view.dirmap_camera); the
 *    megakernel takes it only with origin maps, as without them its
 *    warps would walk camera and bounce rays one after the other;
 *  - segments that end in B (shadow rays to a sphere light, which end just
 *    short of its surface): the segment reversed starts in B, so it is
 *    looked up by -d;
 *  - bounce rays, which start on the sphere the path hit last (origin
 *    maps): B is that sphere's ball, or for a sphere far larger than the
 *    others (toy's ground) the ball of a cell of a grid over its surface
 *    (pw_dirmap_cells). A ray leaving a sphere cannot hit it again, so its
 *    map leaves it out, and the lookup adds it back for rays that do not
 *    surely leave it (glass: rays inside it). A sphere has a second map
 *    for the rays that leave it: such a ray, starting at o with
 *    (o - c).d >= 0, stays in the half-cylinder of radius rho around the
 *    ray c + s d, s >= 0, which a sphere touching the ball (a neighbour in
 *    toy's grid, the ground under it) meets only for directions toward its
 *    side, where the ball meets it in every direction.
 *
 * Why a mask from the ball's centre bounds every such ray: a ray x(t) =
 * o + t d with |o - c| <= rho stays within rho of y(t) = c + t d, the ray
 * from the centre in the same direction; a sphere (centre p, radius r)
 * that x(t) hits therefore comes within r + rho of that ray. For a texel
 * whose directions lie within angle a of its centre direction w, that
 * holds only if p is within r + rho of c, or the angle between w and p - c
 * is at most asin((r + rho) / |p - c|) + a. The build takes every sphere
 * that passes that test, with margins far above float rounding, so a
 * lookup never drops a sphere the ray can hit: the closest hit and the
 * any-hit verdict are those of every sphere against the ray. The lookup
 * keeps the rounding of a segment's end off the ball's radius
 * (pw_dirmap_ends_in), and directions are rounded to texels within the
 * angular margin.
 *
 * On toy a shadow ray walked the boxes of all 8 runs and the spheres of
 * a couple of them; through its light's map it tests a handful of spheres
 * (the light itself and the ground among them), a camera ray fewer than
 * one. That made both CUDA backends clearly faster on toy (the megakernel
 * with its shadow rays no longer dealt out, and camera rays on the runs);
 * bounce rays through origin maps, which list a few spheres each on toy,
 * made both faster again (the megakernel with its camera rays back on
 * their map; docs/PERFORMANCE.md). The CPU's sphere scenes run through
 * the 8-lane sphere blocks of its own BVH (bvh8_flat.h) and do not use
 * the maps. */
#ifndef PW_SPHERE_DIRMAP_H
#define PW_SPHERE_DIRMAP_H

#include "geom/intersect.h"
#include "shade/scene_view.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Texels along each edge of a cube face: 6 * 32 * 32 masks of 8 bytes,
 * 48 KiB a map: against 16 texels, toy's shadow rays test fewer spheres,
 * and the megakernel and wavefront ran slightly faster
 * (docs/PERFORMANCE.md). */
#define PW_DIRMAP_RES 32
#define PW_DIRMAP_TEXELS (6 * PW_DIRMAP_RES * PW_DIRMAP_RES)
#define PW_DIRMAP_MAX 9 /* the camera and PW_MAX_SHADOW sphere lights */
#define PW_NO_DIRMAP 0xffffffffu
#define PW_DIRMAP_CELLS 0xfffffffeu /* pw_scene_view.dirmap_origin: the sphere's map is its cell's */
#define PW_DIRMAP_MAX_CELLS 1024u

/* 32 bytes: the ball a direction map bounds, and for a sphere light's or
 * an origin map the sphere itself, which its masks leave out. */
typedef struct pw_dirmap {
    pw_vec3 c;
    float rho;         /* its radius */
    float own_r;       /* the light's (or the origin map's sphere's) radius; 0: the camera's map */
    uint32_t own_slot; /* the light's (sphere's) group slot (0 in the camera's map, never used) */
    uint32_t outward;  /* an origin map of a sphere's ball: 1, and the next map is for rays that leave the sphere */
    uint32_t pad;
} pw_dirmap;
PW_SIZE_CHECK(pw_dirmap, 32);

/* Where a closest-hit ray starts (pw_trace_from): on sphere origin (a
 * sphere id below PW_ORIGIN_LENS), on the camera's lens, or unknown. Eight
 * bits, so that a path carries it among its flags. */
#define PW_ORIGIN_LENS 0xfeu
#define PW_ORIGIN_UNKNOWN 0xffu

/* The maps of a small sphere scene: maps[0] the camera's lens, one per
 * sphere light (n in all), then with origin maps two per sphere (its ball,
 * and its ball for rays that leave it), none for a large one that has
 * cells instead, then those cells (n_all in all; host memory;
 * pw_dirmaps_free). */
typedef struct pw_dirmaps {
    pw_dirmap *maps;
    uint64_t *masks;  /* n_all * PW_DIRMAP_TEXELS, map by map */
    uint32_t n, n_all;
    uint32_t *origin; /* by sphere id, with origin maps (else NULL): as pw_scene_view.dirmap_origin */
    pw_dirmap_cells cells;
} pw_dirmaps;

/* Builds the maps of s over its spheres in the order slots holds them
 * (the groups' run order), prims[i] being slot i's sphere id: slot i is
 * bit i of the masks. A light's map leaves the light's own slot out
 * (pw_dirmap_misses_own), and so does a sphere's origin map (or its
 * cells'). cell_scale sets the cells' size, in diameters of the largest
 * other sphere; 0, or origin maps whose masks would take more than
 * max_origin_bytes, makes none (they only save time). Returns 0 when out
 * of memory or when s has more than 64 spheres; with no sphere lights
 * only the camera's map (and the origin maps) is made. */
int pw_dirmaps_build(const pw_scene_view *s, const pw_sphere *slots, const uint32_t *prims, float cell_scale,
                     size_t max_origin_bytes, pw_dirmaps *out);
void pw_dirmaps_free(pw_dirmaps *m);
/* Points view's direction maps at those of m (host memory). */
void pw_dirmaps_view(pw_scene_view *view, const pw_dirmaps *m);

/* The texel of direction d (not necessarily of unit length): the face of
 * its largest component, then the other two components over it;
 * PW_NO_DIRMAP for a direction whose largest component is below 1e-30
 * (16 / m would overflow), infinite or NaN. */
PW_HD uint32_t pw_dirmap_texel(pw_vec3 d)
{
    float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z), m, u, v;
    uint32_t face;
    if (ax >= ay && ax >= az) {
        face = d.x < 0.0f;
        m = ax, u = d.y, v = d.z;
    } else if (ay >= az) {
        face = 2u + (d.y < 0.0f);
        m = ay, u = d.x, v = d.z;
    } else {
        face = 4u + (d.z < 0.0f);
        m = az, u = d.x, v = d.y;
    }
    if (!(m >= 1e-30f && m < PW_INF))
        return PW_NO_DIRMAP;
    float scale = pw_div_approx(0.5f * (float)PW_DIRMAP_RES, m), mid = 0.5f * (float)PW_DIRMAP_RES;
    int iu = (int)fmaf(u, scale, mid), iv = (int)fmaf(v, scale, mid);
    iu = iu < 0 ? 0 : iu > PW_DIRMAP_RES - 1 ? PW_DIRMAP_RES - 1 : iu;
    iv = iv < 0 ? 0 : iv > PW_DIRMAP_RES - 1 ? PW_DIRMAP_RES - 1 : iv;
    return (face * PW_DIRMAP_RES + (uint32_t)iv) * PW_DIRMAP_RES + (uint32_t)iu;
}

/* Whether a segment of length tmax whose end is rel from map m's centre
 * ends inside m's ball, with room for the rounding: the caller takes the
 * end relative to the centre as (o - c) + tmax d (o - c first, so that
 * large coordinates do not blur it), and its error, a few ulps of tmax,
 * is kept off the radius.
 * Without that room a segment far from the origin could end, as rounded,
 * inside a ball it ends just outside, and miss a sphere the ball's map
 * does not list. */
PW_HD int pw_dirmap_ends_in(const pw_dirmap *m, pw_vec3 rel, float tmax)
{
    float room = m->rho - 0x1p-20f * tmax;
    return room > 0.0f && v3_len2(rel) <= room * room;
}

/* Whether a segment (direction d, length tmax) that ends rel from a light
 * map's centre surely misses the light itself, which the map's masks
 * leave out. A shadow ray to a sphere light stops short of it
 * (pw_shadow_tmax_sphere), so the light never occludes it, but any
 * segment that ends in the ball is looked up here, so that is checked,
 * not assumed: the end lies outside the light, and the segment is still
 * closing in on the light's centre there, so every point of it is
 * farther from the centre than its end. The margins, 1e-5 of tmax, are
 * some 16 times the rounding of rel and of the sphere test's nearest root
 * (whose error grows as the origin nears the light: hence an origin at
 * least 3 radii from the centre, tmax >= 4 r). A segment that fails the
 * check tests the light as every other listed sphere. On toy this spares
 * most shadow rays their costliest sphere test, the light they aim at. */
PW_HD int pw_dirmap_misses_own(const pw_dirmap *m, pw_vec3 rel, pw_vec3 d, float tmax)
{
    float r = m->own_r;
    return tmax >= 4.0f * r && v3_len2(rel) >= fmaf(r, r, 2e-5f * r * tmax) && v3_dot(rel, d) <= -1e-5f * tmax;
}

/* The origin map of a ray from o that leaves sphere `from`, if o lies in
 * its ball (else PW_NO_DIRMAP: a glass path's origin inside a ball of no
 * map, a ground point off the grid). */
PW_HD uint32_t pw_dirmap_of_origin(const pw_scene_view *s, pw_vec3 o, uint32_t from)
{
    uint32_t m = s->dirmap_origin[from];
    if (m == PW_DIRMAP_CELLS) {
        const pw_dirmap_cells *g = &s->dirmap_cells;
        pw_vec3 q = v3_sub(o, g->c);
        float u = (v3_dot(q, g->t1) - g->u0) * g->inv_size, v = (v3_dot(q, g->t2) - g->v0) * g->inv_size;
        if (!(u >= 0.0f && v >= 0.0f && u < (float)g->nu && v < (float)g->nv))
            return PW_NO_DIRMAP;
        m = g->first + (uint32_t)v * g->nu + (uint32_t)u;
    }
    if (m == PW_NO_DIRMAP || v3_len2(v3_sub(o, s->dirmaps[m].c)) > s->dirmaps[m].rho * s->dirmaps[m].rho)
        return PW_NO_DIRMAP;
    return m;
}

/* The slots a ray can hit, from the map that bounds it, or all ones when
 * none does: a closest-hit ray that leaves a sphere with an origin map
 * (with the sphere's own slot unless the ray surely leaves it), one from
 * inside the camera's ball (where the view's dirmap_camera allows), or a
 * segment (o, o + tmax d) that ends inside a light's (with the light's
 * own slot where the segment may reach it). */
PW_HD uint64_t pw_dirmap_slots(const pw_scene_view *s, pw_ray r, float tmax, int any_hit, uint32_t origin)
{
    uint32_t map = PW_NO_DIRMAP;
    uint64_t own = 0; /* the sphere left out of the map, unless surely missed */
    pw_vec3 d = r.d;
    if (!any_hit) {
        if (origin < s->n_spheres && s->dirmap_origin) { /* a sphere id (PW_ORIGIN_* are larger) */
            map = pw_dirmap_of_origin(s, r.o, origin);
            if (map != PW_NO_DIRMAP) {
                uint32_t k = s->dirmaps[map].own_slot;
                pw_sphere sp = s->group_spheres[k];
                pw_vec3 f = v3_sub(r.o, sp.c);
                /* r^2 unfused, as pw_intersect_sphere's r2, which has two
                 * uses, is rounded, so that a sphere skipped here is one
                 * its test misses. (Where they differed, it would be at
                 * cc = 0, a root at t = 0, which tmin >= 0 rules out.) */
                if (!pw_sphere_left_behind(pw_sphere_b(f, r.d), pw_sphere_cc(f, pw_mul_rn(sp.r, sp.r))))
                    own = (uint64_t)1 << k;
                else
                    map += s->dirmaps[map].outward;
            }
        } else if (s->dirmap_camera &&
                   v3_len2(v3_sub(r.o, s->dirmaps[0].c)) <= s->dirmaps[0].rho * s->dirmaps[0].rho) {
            map = 0;
        }
    } else if (tmax < PW_INF) {
        for (uint32_t i = 1; i < s->n_dirmaps && map == PW_NO_DIRMAP; i++) {
            const pw_dirmap *m = &s->dirmaps[i];
            pw_vec3 rel = v3_madd(v3_sub(r.o, m->c), r.d, tmax);
            if (pw_dirmap_ends_in(m, rel, tmax)) {
                map = i;
                if (!pw_dirmap_misses_own(m, rel, r.d, tmax))
                    own = (uint64_t)1 << m->own_slot;
            }
        }
        d = v3_scale(d, -1.0f);
    }
    uint32_t texel = map == PW_NO_DIRMAP ? PW_NO_DIRMAP : pw_dirmap_texel(d);
    if (texel == PW_NO_DIRMAP)
        return ~(uint64_t)0;
    return s->dirmap_masks[map * PW_DIRMAP_TEXELS + texel] | own;
}

/* Closest (or any) hit among the spheres of the slots set in mask:
 * spheres[i] for bit i, whose id is prims[i]. The slots go highest first,
 * a 32-bit half of the mask at a time: finding a 64-bit mask's lowest bit
 * and clearing it took 14 instructions on the GPU, half of each pass of
 * this loop, where the highest bit of a word is one (FLO). */
PW_HD int pw_trace_sphere_slots(const pw_sphere *spheres, const uint32_t *prims, pw_ray r, float tmin, float tmax,
                                int any_hit, uint64_t mask, pw_hit *hit)
{
    int found = 0;
    pw_hit_none(hit, tmax);
    uint32_t word = (uint32_t)(mask >> 32), rest = (uint32_t)mask, base = 32;
    while (word | rest) {
        if (!word) {
            word = rest;
            rest = 0;
            base = 0;
        }
        uint32_t b = pw_highest_bit(word), i = base + b;
        word ^= 1u << b;
        pw_sphere sp = spheres[i];
        if (pw_hit_sphere(sp.c, sp.r, i, r.o, r.d, tmin, &tmax, hit)) { /* a slot until the end */
            found = 1;
            if (any_hit)
                break;
        }
    }
    if (found)
        hit->prim = prims[hit->prim];
    return found;
}

#ifdef __cplusplus
}
#endif

#endif
