/* BVH traversal against brute force: for thousands of random rays over
 * random triangles, spheres, a mix, degenerate layouts and real meshes, the
 * closest hit of pw_bvh_trace (the binary BVH), pw_bvh4_trace (the 4-wide
 * BVH every backend traces, collapsed from it, with its children pushed
 * in child order or, as on the GPU, in order of distance), pw_bvh8_trace (the
 * CPU's 8-wide AVX2 BVH, converted from it, 8 spheres or triangles a leaf
 * block) and, for
 * scenes of at most 64 spheres, pw_trace_sphere_groups (what the GPU traces
 * for them) is the one a
 * loop over every primitive finds (same t, same primitive except at exact
 * ties), any-hit agrees on hit or miss, and ray intervals (tmin, tmax) are
 * honoured. Also: the tree's structure is sound, and the build is the same
 * for any thread count.
 *
 * Usage: test_bvh [synthetic|grazing|bunny|sponza]. ctest runs each group
 * as its own test; the mesh groups need the shared scenes and report
 * themselves skipped without them.
 *
 * Built a second time as test_bvh_warp (PW_TEST_WARP_WALK), where the walk
 * with postponed leaves runs as in a GPU warp whose other lanes never hold
 * a leaf: every lane walks on through nodes while it holds one. (A CMake
 * compile definition cannot carry the function-like macro itself.) */
#ifdef PW_TEST_WARP_WALK
#define PW_LANES_ANY(x) 1
#endif
#include "test_common.h"

#include "accel/bvh8_cpu.h"
#include "accel/bvh4.h"
#include "accel/bvh_traverse.h"
#include "accel/sphere_groups.h"
#include "scene/scene.h"

static int brute_trace(const pw_scene_view *v, pw_ray r, float tmin, float tmax, pw_hit *h)
{
    pw_ray_shear sh = pw_ray_shear_make(r.d);
    uint32_t n = v->n_spheres + v->n_tris;
    int found = 0;
    h->prim = PW_NO_HIT;
    h->t = tmax;
    for (uint32_t p = 0; p < n; p++)
        found |= pw_intersect_prim(v, p, r.o, r.d, &sh, tmin, &tmax, h);
    return found;
}

/* t of primitive prim alone along the ray, or -1. */
static float prim_t(const pw_scene_view *v, uint32_t prim, pw_ray r, float tmin)
{
    pw_ray_shear sh = pw_ray_shear_make(r.d);
    float tmax = PW_INF;
    pw_hit h;
    return pw_intersect_prim(v, prim, r.o, r.d, &sh, tmin, &tmax, &h) ? h.t : -1.0f;
}

typedef struct cmp_counts {
    int rays, hits, ties, windows;
} cmp_counts;

/* The structures under test for one scene: the shared binary BVH, and the
 * CPU's 8-wide BVH where this build has one. */
typedef struct accel {
    pw_scene_view v;
    pw_bvh8 b8;
    int has_b8;
    pw_sphere_groups g;
    pw_scene_view vg; /* v with the sphere groups */
    int has_groups;
} accel;

static void accel_init(accel *a, const pw_scene *s)
{
    a->v = pw_scene_host_view(s, 1, 1);
    a->has_b8 = pw_bvh8_build(&a->v, &a->b8);
    a->has_groups = pw_sphere_groups_build(&a->v, 8, 8, &a->g);
    a->vg = a->v;
    if (a->has_groups) {
        a->vg.groups = a->g.groups;
        a->vg.group_spheres = a->g.spheres;
        a->vg.group_prims = a->g.prims;
        a->vg.n_groups = a->g.n_groups;
        a->vg.flat_spheres = PW_FLAT_GROUPS;
    }
}

static void accel_free(accel *a)
{
    if (a->has_b8)
        pw_bvh8_free(&a->b8);
    if (a->has_groups)
        pw_sphere_groups_free(&a->g);
}

typedef int (*trace_fn)(const accel *a, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *h);

static int trace_bvh2(const accel *a, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *h)
{
    return pw_bvh_trace(&a->v, r, tmin, tmax, any_hit, h);
}

static int trace_bvh4(const accel *a, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *h)
{
    return pw_bvh4_trace(&a->v, r, tmin, tmax, any_hit, h);
}

/* With the children pushed in order of distance, as the GPU walks it. */
static int trace_bvh4_sorted(const accel *a, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *h)
{
    pw_scene_view v = a->v;
    v.bvh4_sorted = 1;
    return pw_bvh4_trace(&v, r, tmin, tmax, any_hit, h);
}

/* The GPU wavefront's extend walk, leaves postponed (closest hits; its
 * any-hit queries are pw_bvh4_trace's). */
static int trace_bvh4_postponed(const accel *a, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *h)
{
    return any_hit ? pw_bvh4_trace(&a->v, r, tmin, tmax, 1, h) : pw_bvh4_trace_postponed(&a->v, r, tmin, tmax, h);
}

static int trace_bvh8(const accel *a, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *h)
{
    return pw_bvh8_trace(&a->v, &a->b8, r, tmin, tmax, any_hit, h);
}

static int trace_groups(const accel *a, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *h)
{
    return pw_trace_sphere_groups(&a->vg, r, PW_ORIGIN_UNKNOWN, tmin, tmax, any_hit, h);
}

/* One closest-hit and one any-hit query of one structure against brute force. */
static void check_one(const accel *a, trace_fn trace, const char *name, pw_ray r, float tmin, float tmax,
                      const pw_hit *hb, int fb, int ray_id, cmp_counts *c)
{
    const pw_scene_view *v = &a->v;
    pw_hit hv;
    int fv = trace(a, r, tmin, tmax, 0, &hv);
    if (fb != fv)
        fail_msg("%s, ray %d (o %.9g %.9g %.9g, d %.9g %.9g %.9g, t in (%g, %g)): brute force %s (primitive %u, t %.9g), "
                 "BVH %s (primitive %u, t %.9g)", name, ray_id, r.o.x, r.o.y, r.o.z, r.d.x, r.d.y, r.d.z, tmin, tmax,
                 fb ? "hits" : "misses", hb->prim, hb->t, fv ? "hits" : "misses", hv.prim, hv.t);
    if (fb) {
        if (hb->prim == hv.prim) {
            if (hb->t != hv.t || hb->u != hv.u || hb->v != hv.v)
                fail_msg("%s, ray %d: same primitive %u but t %.9g vs %.9g", name, ray_id, hb->prim, hb->t, hv.t);
        } else {
            /* Two primitives at the same distance: either is right. */
            float t_alt = prim_t(v, hv.prim, r, tmin);
            if (!(fabsf(hv.t - hb->t) <= 1e-6f * hb->t) || t_alt != hv.t)
                fail_msg("%s, ray %d: brute force hits primitive %u at %.9g, BVH primitive %u at %.9g", name, ray_id,
                         hb->prim, hb->t, hv.prim, hv.t);
            c->ties++;
        }
        if (!(hv.t > tmin && hv.t < tmax))
            fail_msg("%s, ray %d: hit at %.9g outside (%g, %g)", name, ray_id, hv.t, tmin, tmax);
    }
    pw_hit ha;
    int fa = trace(a, r, tmin, tmax, 1, &ha);
    if (fa != fb)
        fail_msg("%s, ray %d (o %.9g %.9g %.9g, d %.9g %.9g %.9g, t in (%g, %g)): any-hit says %s, brute force %s", name,
                 ray_id, r.o.x, r.o.y, r.o.z, r.d.x, r.d.y, r.d.z, tmin, tmax, fa ? "hit" : "miss", fb ? "hit" : "miss");
}

/* One query checked against brute force on every structure. */
static void check_closest(const accel *a, pw_ray r, float tmin, float tmax, int ray_id, cmp_counts *c)
{
    pw_hit hb;
    int fb = brute_trace(&a->v, r, tmin, tmax, &hb);
    check_one(a, trace_bvh2, "binary BVH", r, tmin, tmax, &hb, fb, ray_id, c);
    assert_non_null(a->v.nodes4);
    check_one(a, trace_bvh4, "4-wide BVH", r, tmin, tmax, &hb, fb, ray_id, c);
    check_one(a, trace_bvh4_sorted, "4-wide BVH, children sorted", r, tmin, tmax, &hb, fb, ray_id, c);
    check_one(a, trace_bvh4_postponed, "4-wide BVH, leaves postponed", r, tmin, tmax, &hb, fb, ray_id, c);
    if (a->has_b8)
        check_one(a, trace_bvh8, "8-wide BVH", r, tmin, tmax, &hb, fb, ray_id, c);
    if (a->has_groups)
        check_one(a, trace_groups, "sphere groups", r, tmin, tmax, &hb, fb, ray_id, c);
    c->hits += fb;
    c->rays++;
}

static pw_vec3 prim_centre(const pw_scene *s, uint32_t p)
{
    float lo[3], hi[3];
    pw_prims prims = pw_scene_prims(s);
    pw_prim_bounds(&prims, p, lo, hi);
    return v3(0.5f * (lo[0] + hi[0]), 0.5f * (lo[1] + hi[1]), 0.5f * (lo[2] + hi[2]));
}

/* Random rays of several kinds over the box [lo, hi]: from anywhere in any
 * direction; aimed at primitives; along the axes and in axis planes (zero
 * direction components, infinite reciprocals in the slab test); and starting
 * on a primitive like a bounce ray. Each closest query is repeated with a
 * shortened tmax and a raised tmin. */
static cmp_counts check_random_rays(const pw_scene *s, int n_rays, pw_vec3 lo, pw_vec3 hi, uint64_t seed,
                                    int off_planes)
{
    accel a;
    accel_init(&a, s);
    const pw_scene_view *v = &a.v;
    uint32_t n_prims = s->n_spheres + s->n_tris;
    test_rng g = {seed};
    cmp_counts c = {0, 0, 0, 0};
    pw_vec3 ext = v3_sub(hi, lo);
    for (int i = 0; i < n_rays; i++) {
        pw_vec3 o = v3(lo.x - 0.2f * ext.x + 1.4f * ext.x * (float)trng_unif(&g),
                       lo.y - 0.2f * ext.y + 1.4f * ext.y * (float)trng_unif(&g),
                       lo.z - 0.2f * ext.z + 1.4f * ext.z * (float)trng_unif(&g));
        pw_vec3 d;
        int kind = i % 8;
        uint32_t target = (uint32_t)(trng_u64(&g) % n_prims);
        if (kind <= 2) {
            d = trng_dir(&g);
        } else if (kind <= 4) {
            d = v3_norm(v3_sub(prim_centre(s, target), o));
        } else if (kind == 5) {
            /* Exactly along an axis, sometimes from a primitive's centre line. */
            int axis = (int)(trng_u64(&g) % 3);
            float sign = trng_unif(&g) < 0.5 ? -1.0f : 1.0f;
            d = v3(axis == 0 ? sign : 0.0f, axis == 1 ? sign : 0.0f, axis == 2 ? sign : 0.0f);
            if (trng_unif(&g) < 0.5) {
                pw_vec3 pc = prim_centre(s, target);
                if (axis != 0) o.x = pc.x;
                if (axis != 1) o.y = pc.y;
                if (axis != 2) o.z = pc.z;
            }
        } else if (kind == 6) {
            /* In an axis plane: one zero component. */
            int axis = (int)(trng_u64(&g) % 3);
            pw_vec3 pc = prim_centre(s, target);
            pw_vec3 dd = v3_sub(pc, o);
            if (axis == 0) dd.x = 0.0f, o.x = pc.x;
            if (axis == 1) dd.y = 0.0f, o.y = pc.y;
            if (axis == 2) dd.z = 0.0f, o.z = pc.z;
            if (v3_len2(dd) == 0.0f)
                dd = v3(axis == 0 ? 0.f : 1.f, axis == 0 ? 1.f : 0.f, 0.f);
            d = v3_norm(dd);
        } else {
            /* A bounce: leave the first hit of a random ray in a random direction. */
            pw_hit h;
            pw_ray r0 = {o, v3_norm(v3_sub(prim_centre(s, target), o))};
            if (brute_trace(v, r0, 0.0f, PW_INF, &h))
                o = v3_madd(r0.o, r0.d, h.t);
            d = trng_dir(&g);
        }
        if (off_planes && (kind == 5 || kind == 6)) {
            /* Keep the origin off the exact planes of axis-aligned faces:
             * rays lying in such a plane are the business of
             * grazing_box_faces below. */
            o = v3_add(o, v3(trng_range(&g, -1e-3f, 1e-3f), trng_range(&g, -1e-3f, 1e-3f), trng_range(&g, -1e-3f, 1e-3f)));
        }
        pw_ray r = {o, d};
        /* A bounce ray starts on a surface: like the integrator, ignore
         * "hits" at distances that are rounding noise of its origin. */
        float tmin = kind == 7 ? 1e-4f : 0.0f;
        check_closest(&a, r, tmin, PW_INF, i, &c);
        /* The same ray with a window that ends before or after its hit, and
         * one that starts just past it. */
        pw_hit h;
        if (brute_trace(v, r, tmin, PW_INF, &h)) {
            float f = (float)(0.3 + 1.4 * trng_unif(&g));
            check_closest(&a, r, tmin, h.t * f, i, &c);
            check_closest(&a, r, h.t, PW_INF, i, &c);               /* open interval: the hit itself is excluded */
            check_closest(&a, r, h.t * 0.999f, h.t * 1.001f, i, &c); /* a narrow window around it */
            c.windows += 3;
        } else {
            check_closest(&a, r, tmin, 1e3f, i, &c);
        }
    }
    if (!a.has_b8)
        printf("(this build has no 8-wide BVH: only the binary BVH is checked)\n");
    accel_free(&a);
    return c;
}

/* Structure: every node's box holds the bounds of every primitive below it,
 * leaves cover prim_ref exactly once, prim_ref is a permutation, and the
 * depth fits the traversal stack. Returns the depth. */
static int check_node(const pw_scene *s, uint32_t ni, int depth, float lo[3], float hi[3], uint8_t *seen_ref)
{
    const pw_bvh *b = &s->bvh;
    assert_true(ni < b->n_nodes);
    const pw_bvh_node *n = &b->nodes[ni];
    for (int k = 0; k < 3; k++) {
        lo[k] = PW_INF;
        hi[k] = -PW_INF;
    }
    int d = depth;
    if (n->count > 0) {
        assert_true(n->first + n->count <= b->n_refs);
        for (uint32_t i = n->first; i < n->first + n->count; i++) {
            assert_int_equal(seen_ref[i], 0);
            seen_ref[i] = 1;
            float plo[3], phi[3];
            pw_prims prims = pw_scene_prims(s);
            pw_prim_bounds(&prims, b->prim_ref[i], plo, phi);
            for (int k = 0; k < 3; k++) {
                lo[k] = fminf(lo[k], plo[k]);
                hi[k] = fmaxf(hi[k], phi[k]);
            }
        }
    } else {
        float l2[3], h2[3];
        assert_true(n->first + 1 < b->n_nodes);
        int d1 = check_node(s, n->first, depth + 1, lo, hi, seen_ref);
        int d2 = check_node(s, n->first + 1, depth + 1, l2, h2, seen_ref);
        d = d1 > d2 ? d1 : d2;
        for (int k = 0; k < 3; k++) {
            lo[k] = fminf(lo[k], l2[k]);
            hi[k] = fmaxf(hi[k], h2[k]);
        }
    }
    for (int k = 0; k < 3; k++)
        if (!(n->bmin[k] <= lo[k] && n->bmax[k] >= hi[k]))
            fail_msg("node %u (depth %d): box [%g, %g] on axis %d does not hold its primitives [%g, %g]", ni, depth,
                     n->bmin[k], n->bmax[k], k, lo[k], hi[k]);
    return d;
}

static int check_structure(const pw_scene *s)
{
    const pw_bvh *b = &s->bvh;
    uint32_t n = s->n_spheres + s->n_tris;
    assert_int_equal(b->n_refs, n);
    assert_true(b->n_nodes >= 1 && b->n_nodes <= 2 * n);
    uint8_t *seen_ref = calloc(n, 1), *seen_prim = calloc(n, 1);
    float lo[3], hi[3];
    int depth = check_node(s, 0, 0, lo, hi, seen_ref);
    for (uint32_t i = 0; i < n; i++) {
        if (!seen_ref[i])
            fail_msg("prim_ref[%u] is in no leaf", i);
        assert_true(b->prim_ref[i] < n);
        if (seen_prim[b->prim_ref[i]]++)
            fail_msg("primitive %u appears twice in prim_ref", b->prim_ref[i]);
    }
    free(seen_ref);
    free(seen_prim);
    /* Traversal pushes at most one node per level on a stack of PW_BVH_STACK. */
    if (depth >= PW_BVH_STACK)
        fail_msg("BVH depth %d does not fit the traversal stack of %d", depth, PW_BVH_STACK);
    return depth;
}

static pw_scene *new_scene(const char *name, uint32_t *mat)
{
    pw_scene *s = pw_scene_alloc(name);
    assert_non_null(s);
    *mat = pw_scene_push_material(s, pw_lambert(.5f, .5f, .5f));
    return s;
}

static void add_tri(pw_scene *s, pw_vec3 a, pw_vec3 b, pw_vec3 c, uint32_t mat)
{
    pw_vec3 p[3] = {a, b, c};
    uint32_t base = pw_scene_add_vertices(s, p, NULL, 3);
    assert_int_not_equal(base, UINT32_MAX);
    assert_int_equal(pw_scene_add_triangle(s, base, base + 1, base + 2, mat), PW_OK);
}

static void add_random_tris(pw_scene *s, test_rng *g, int n, float box, uint32_t mat)
{
    for (int i = 0; i < n; i++) {
        pw_vec3 c = v3(trng_range(g, -box, box), trng_range(g, -box, box), trng_range(g, -box, box));
        float size = i % 10 == 0 ? 6.0f : trng_range(g, 0.1f, 1.5f); /* a tenth are long slivers */
        pw_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = v3_add(c, v3_scale(trng_dir(g), size * (k == 0 || i % 10 ? 1.0f : 0.05f)));
        add_tri(s, p[0], p[1], p[2], mat);
    }
}

static void add_random_spheres(pw_scene *s, test_rng *g, int n, float box, uint32_t mat)
{
    for (int i = 0; i < n; i++) {
        pw_vec3 c = v3(trng_range(g, -box, box), trng_range(g, -box, box), trng_range(g, -box, box));
        float r = i % 100 == 0 ? trng_range(g, 2.0f, 4.0f) : trng_range(g, 0.02f, 0.8f);
        assert_int_equal(pw_scene_push_sphere(s, c, r, mat), PW_OK);
    }
}

static void run_scene(pw_scene *s, int n_rays, float box, uint64_t seed, int off_planes)
{
    double t0 = test_now();
    assert_int_equal(pw_scene_prepare(s, 2), PW_OK);
    int depth = check_structure(s);
    cmp_counts c = check_random_rays(s, n_rays, v3s(-box), v3s(box), seed, off_planes);
    printf("%s: %u spheres + %u triangles, %u nodes, depth %d; %d queries (%d hits, %d ties, %d windows) in %.2f s\n",
           s->name, s->n_spheres, s->n_tris, s->bvh.n_nodes, depth, c.rays, c.hits, c.ties, c.windows,
           test_now() - t0);
    assert_true(c.hits > c.rays / 4); /* the rays must exercise hits, not just misses */
}

static void random_triangles(void **state)
{
    (void)state;
    uint32_t mat;
    pw_scene *s = new_scene("random triangles", &mat);
    test_rng g = {101};
    add_random_tris(s, &g, 5000, 10.0f, mat);
    run_scene(s, 2000, 11.0f, 1001, 0);
    pw_scene_free(s);
}

static void random_spheres(void **state)
{
    (void)state;
    uint32_t mat;
    pw_scene *s = new_scene("random spheres", &mat);
    test_rng g = {102};
    add_random_spheres(s, &g, 4000, 10.0f, mat);
    run_scene(s, 2000, 11.0f, 1002, 0);
    pw_scene_free(s);
}

/* 20 spheres above a ground sphere of radius 1e19, whose box area
 * overflows float: the sphere groups and the CPU's flat 8-wide blocks
 * must still hold every sphere once, and rays from among the small
 * spheres must find what brute force finds. */
static void huge_ground(void)
{
    uint32_t mat;
    pw_scene *s = new_scene("spheres on a huge ground", &mat);
    test_rng g = {310};
    add_random_spheres(s, &g, 20, 10.0f, mat);
    assert_int_equal(pw_scene_push_sphere(s, v3(0.0f, -1e19f - 12.0f, 0.0f), 1e19f, mat), PW_OK);
    assert_int_equal(pw_scene_prepare(s, 2), PW_OK);
    accel a;
    accel_init(&a, s);
    assert_true(a.has_groups && a.g.n_spheres == 21);
    int seen[21] = {0};
    for (uint32_t i = 0; i < 21; i++)
        seen[a.g.prims[i]]++;
    for (int i = 0; i < 21; i++)
        assert_int_equal(seen[i], 1);
    cmp_counts c = {0, 0, 0, 0};
    for (int i = 0; i < 1000; i++) {
        pw_vec3 o = v3(trng_range(&g, -11, 11), trng_range(&g, -11, 11), trng_range(&g, -11, 11));
        check_closest(&a, (pw_ray){o, trng_dir(&g)}, 0.0f, PW_INF, i, &c);
    }
    assert_true(c.hits > c.rays / 2); /* half the directions point down */
    accel_free(&a);
    pw_scene_free(s);
}

/* Small sphere scenes, which the GPU traces as sphere groups: random ones
 * of 5 to 64 spheres, 20 spheres on a ground sphere of radius 1e19 (whose
 * box area overflows float: the cut must still keep every sphere), and the
 * toy scene. */
/* The GPU's sorted visit of a 4-wide node: for every order of four unit
 * boxes along +x (one slot empty, one box missed), the nearest hit child
 * comes back and the others are pushed farthest first, each with its entry
 * distance, so they pop nearest first. The unsorted visit pushes the same
 * children. Brute-force checks cannot see the order: any order finds the
 * same hits. */
static void sorted_child_visit(void **state)
{
    (void)state;
    const float at[4] = {7.0f, 1.0f, 5.0f, 3.0f}; /* box k spans [at, at + 1] on x */
    pw_vec3 d = v3(1.0f, 0.0f, 0.0f), o = v3(0.0f, 0.5f, 0.5f);
    pw_vec3 inv_d = pw_safe_inverse(d), oid = v3_mul(o, inv_d);
    for (int empty = 0; empty < 4; empty++)
        for (int missed = 0; missed < 4; missed++) {
            if (missed == empty)
                continue;
            pw_bvh4_node n;
            memset(&n, 0, sizeof n);
            for (int k = 0; k < 4; k++) {
                n.lo_x[k] = at[k], n.hi_x[k] = at[k] + 1.0f;
                n.lo_y[k] = k == missed ? 2.0f : 0.0f, n.hi_y[k] = n.lo_y[k] + 1.0f;
                n.lo_z[k] = 0.0f, n.hi_z[k] = 1.0f;
                n.child[k] = k == empty ? PW_BVH4_EMPTY : 100u + (uint32_t)k;
            }
            uint32_t ref[4], ref2[4];
            float t[4], t2[4];
            int sp = 0, sp2 = 0;
            uint32_t next = pw_bvh4_visit_sorted(&n, oid, inv_d, 0.0f, PW_INF, ref, t, &sp);
            uint32_t next2 = pw_bvh4_visit(&n, oid, inv_d, 0.0f, PW_INF, ref2, t2, &sp2, 0);
            /* The two children hit, by distance: of k = 1, 3, 2, 0 (x = 1, 3, 5, 7). */
            uint32_t want[2];
            int nw = 0;
            const int by_distance[4] = {1, 3, 2, 0};
            for (int i = 0; i < 4; i++)
                if (by_distance[i] != empty && by_distance[i] != missed)
                    want[nw++] = 100u + (uint32_t)by_distance[i];
            assert_int_equal(nw, 2);
            assert_int_equal(next, want[0]);
            assert_int_equal(sp, 1);
            assert_int_equal(ref[0], want[1]);
            assert_true(t[0] == at[want[1] - 100u]);
            assert_int_equal(next2, want[0]);
            assert_int_equal(sp2, 1);
            assert_int_equal(ref2[0], want[1]);
        }
    /* All four hit: pushed farthest first (x = 7, 5, 3), nearest (x = 1) next. */
    pw_bvh4_node n;
    memset(&n, 0, sizeof n);
    for (int k = 0; k < 4; k++) {
        n.lo_x[k] = at[k], n.hi_x[k] = at[k] + 1.0f, n.hi_y[k] = n.hi_z[k] = 1.0f;
        n.child[k] = 100u + (uint32_t)k;
    }
    uint32_t ref[4];
    float t[4];
    int sp = 0;
    assert_int_equal(pw_bvh4_visit_sorted(&n, oid, inv_d, 0.0f, PW_INF, ref, t, &sp), 101u);
    assert_int_equal(sp, 3);
    assert_int_equal(ref[0], 100u);
    assert_int_equal(ref[1], 102u);
    assert_int_equal(ref[2], 103u);
    assert_true(t[0] > t[1] && t[1] > t[2]);
}

static void few_spheres(void **state)
{
    (void)state;
    const int counts[] = {5, 8, 9, 30, 64};
    for (int k = 0; k < 5; k++) {
        uint32_t mat;
        pw_scene *s = new_scene("few spheres", &mat);
        test_rng g = {300 + (uint64_t)k};
        add_random_spheres(s, &g, counts[k], 10.0f, mat);
        run_scene(s, 1000, 11.0f, 1100 + (uint64_t)k, 0);
        accel a;
        accel_init(&a, s);
        assert_true(a.has_groups);
        assert_true(a.g.n_groups >= (uint32_t)(counts[k] + 7) / 8 && a.g.n_groups <= 8 &&
                    a.g.n_spheres == (uint32_t)counts[k]);
        accel_free(&a);
        pw_scene_free(s);
    }
    huge_ground();
    pw_scene *toy;
    assert_int_equal(pw_scene_builtin("toy", &toy), PW_OK);
    run_scene(toy, 2000, 110.0f, 1200, 0);
    pw_scene_free(toy);
}

static void random_mix(void **state)
{
    (void)state;
    uint32_t mat;
    pw_scene *s = new_scene("random mix", &mat);
    test_rng g = {103};
    add_random_spheres(s, &g, 1500, 10.0f, mat);
    add_random_tris(s, &g, 3000, 10.0f, mat);
    run_scene(s, 2000, 11.0f, 1003, 0);
    pw_scene_free(s);
}

/* Flat and coincident geometry: an axis-aligned grid floor and walls (boxes
 * of zero thickness), hundreds of identical triangles and spheres (all
 * centroids equal: the build must split by count), and tiny spheres. */
static void degenerate_layouts(void **state)
{
    (void)state;
    uint32_t mat;
    pw_scene *s = new_scene("degenerate layouts", &mat);
    const int n = 30;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float x0 = -10.0f + 20.0f * (float)i / n, x1 = -10.0f + 20.0f * (float)(i + 1) / n;
            float z0 = -10.0f + 20.0f * (float)j / n, z1 = -10.0f + 20.0f * (float)(j + 1) / n;
            add_tri(s, v3(x0, 0, z0), v3(x1, 0, z0), v3(x1, 0, z1), mat); /* floor y = 0 */
            add_tri(s, v3(x0, 0, z0), v3(x1, 0, z1), v3(x0, 0, z1), mat);
            if (i % 3 == 0) { /* walls x = const */
                add_tri(s, v3(x0, z0, 5), v3(x0, z1, 5), v3(x0, z1, 6), mat);
            }
        }
    for (int i = 0; i < 300; i++) {
        add_tri(s, v3(1, 2, 3), v3(2, 2.5f, 3), v3(1.5f, 3, 3.5f), mat);
        assert_int_equal(pw_scene_push_sphere(s, v3(-3, 4, -2), 0.7f, mat), PW_OK);
        assert_int_equal(pw_scene_push_sphere(s, v3(3.0f + 0.001f * i, 7, 2), 1e-3f, mat), PW_OK);
    }
    run_scene(s, 2000, 11.0f, 1004, 1);
    pw_scene_free(s);
}

/* Rays that lie exactly in the plane of an axis-aligned face (a zero
 * direction component, the origin on the plane) and meet a triangle edge
 * lying in that plane: the ray along the ceiling of a room hitting the top
 * edge of a wall, the ray along the floor hitting a skirting board's bottom
 * edge. The triangle test reports these edge hits (it is watertight); the
 * BVH must not cull the boxes they lie on. */
static void grazing_box_faces(void **state)
{
    (void)state;
    uint32_t mat;
    pw_scene *s = new_scene("grazing", &mat);
    /* Left wall x = -1, y 0..2, z -1..1, and a right wall x = 1. */
    add_tri(s, v3(-1, 0, -1), v3(-1, 2, -1), v3(-1, 2, 1), mat);
    add_tri(s, v3(-1, 0, -1), v3(-1, 2, 1), v3(-1, 0, 1), mat);
    add_tri(s, v3(1, 0, -1), v3(1, 0, 1), v3(1, 2, 1), mat);
    add_tri(s, v3(1, 0, -1), v3(1, 2, 1), v3(1, 2, -1), mat);
    /* Floor y = 0 and ceiling y = 2. */
    add_tri(s, v3(-1, 0, -1), v3(-1, 0, 1), v3(1, 0, 1), mat);
    add_tri(s, v3(-1, 0, -1), v3(1, 0, 1), v3(1, 0, -1), mat);
    add_tri(s, v3(-1, 2, -1), v3(1, 2, 1), v3(-1, 2, 1), mat);
    add_tri(s, v3(-1, 2, -1), v3(1, 2, -1), v3(1, 2, 1), mat);
    /* A basement wall below the floor: its box ends at y = 0. */
    add_tri(s, v3(-0.5f, -1, -1), v3(-0.5f, 0, -1), v3(-0.5f, 0, 1), mat);
    add_tri(s, v3(-0.5f, -1, -1), v3(-0.5f, 0, 1), v3(-0.5f, -1, 1), mat);
    assert_int_equal(pw_scene_prepare(s, 1), PW_OK);
    accel a;
    accel_init(&a, s);
    struct {
        pw_vec3 o, d;
        float t;
    } cases[] = {
        {{0.5f, 2, 0.3f}, {-1, 0, 0}, 1.5f},   /* along the ceiling into the left wall's top edge */
        {{-0.5f, 2, -0.3f}, {1, 0, 0}, 1.5f},  /* ... into the right wall's top edge */
        {{0.5f, 0, 0.3f}, {-1, 0, 0}, 1.0f},   /* along the floor into the basement wall's top edge */
        {{-1, 1, 0.5f}, {0, 1, 0}, 1.0f},      /* up the left wall's face into the ceiling's edge */
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pw_ray r = {cases[i].o, cases[i].d};
        pw_hit hb;
        int fb = brute_trace(&a.v, r, 0.0f, PW_INF, &hb);
        assert_true(fb); /* the triangle test hits the edge */
        assert_float_equal(hb.t, cases[i].t, 1e-6f);
        for (int k = 0; k < 1 + a.has_b8; k++) {
            trace_fn trace = k ? trace_bvh8 : trace_bvh2;
            pw_hit hv, ha;
            int fv = trace(&a, r, 0.0f, PW_INF, 0, &hv);
            int fa = trace(&a, r, 0.0f, PW_INF, 1, &ha);
            if (!fv || hv.t != hb.t || !fa) {
                printf("%s: ray o (%g, %g, %g) d (%g, %g, %g) hits primitive %u at t %g by brute force; closest-hit "
                       "gives %s (t %g), any-hit %s\n", k ? "8-wide BVH" : "binary BVH", r.o.x, r.o.y, r.o.z, r.d.x,
                       r.d.y, r.d.z, hb.prim, hb.t, fv ? "a hit" : "a miss", hv.t, fa ? "hits" : "misses");
                failures++;
            }
        }
    }
    accel_free(&a);
    pw_scene_free(s);
    if (failures)
        fail_msg("%d queries along rays lying in the plane of a box face lost the hit (the box was culled)", failures);
}

/* Materials whose numbers would turn paths into NaN rays are refused by
 * name when the scene is prepared; and a NaN ray (which the 8-wide BVH's
 * slab tests would otherwise let into every slot, empty ones included,
 * reading past its arrays) hits nothing, in the flat blocks of a small
 * sphere scene and in the tree of a large one. */
static void bad_material_numbers_and_nan_rays(void **state)
{
    (void)state;
    struct {
        pw_material m;
        const char *expect;
    } bad[] = {
        {pw_dielectric(NAN), "index of refraction nan, which is not finite"},
        {pw_metal(.5f, .5f, .5f, INFINITY), "roughness inf, which is not finite"},
        {pw_lambert(-.5f, .5f, .5f), "albedo red -0.5, which is negative"},
        {pw_emissive(pw_lambert(.5f, .5f, .5f), 1.0f, -1.0f, 1.0f), "emission green -1, which is negative"},
        {pw_dielectric(0.0f), "index of refraction 0, which is not positive"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint32_t mat;
        pw_scene *s = new_scene("badmat", &mat);
        assert_int_equal(pw_scene_push_sphere(s, v3(0, 0, 0), 1.0f, pw_scene_push_material(s, bad[i].m)), PW_OK);
        assert_int_equal(pw_scene_prepare(s, 1), PW_ERR_FORMAT);
        if (!strstr(pw_last_error(), "badmat: material 1 has") || !strstr(pw_last_error(), bad[i].expect))
            fail_msg("case %zu: error '%s' does not name material 1 and '%s'", i, pw_last_error(), bad[i].expect);
        pw_scene_free(s);
    }
    test_rng g = {77};
    for (int n = 40; n <= 400; n += 360) {
        uint32_t mat;
        pw_scene *s = new_scene(n <= 64 ? "flat" : "tree", &mat);
        add_random_spheres(s, &g, n, 10.0f, mat);
        assert_int_equal(pw_scene_prepare(s, 1), PW_OK);
        accel a;
        accel_init(&a, s);
        if (!a.has_b8) {
            accel_free(&a);
            pw_scene_free(s);
            skip(); /* no AVX2 in this build: there is no 8-wide BVH */
        }
        pw_ray rays[] = {{v3(0, 0, 0), v3(NAN, 0, 0)}, {v3(0, 0, 0), v3(NAN, NAN, NAN)}, {v3(NAN, 0, 0), v3(0, 1, 0)}};
        for (size_t i = 0; i < sizeof rays / sizeof rays[0]; i++)
            for (int any = 0; any < 2; any++) {
                pw_hit h;
                if (pw_bvh8_trace(&a.v, &a.b8, rays[i], 0.0f, PW_INF, any, &h))
                    fail_msg("%d spheres: NaN ray %zu hits primitive %u", n, i, h.prim);
            }
        printf("%d spheres (%s): NaN rays hit nothing\n", n, a.b8.flat ? "flat blocks" : "8-wide tree");
        accel_free(&a);
        pw_scene_free(s);
    }
}

/* pw_scene_prepare builds subtrees in parallel; the node array and the
 * primitive order must not depend on the thread count. */
static void build_is_thread_independent(void **state)
{
    (void)state;
    const int threads[3] = {1, 2, 8};
    pw_scene *s[3];
    for (int k = 0; k < 3; k++) {
        uint32_t mat;
        s[k] = new_scene("threads", &mat);
        test_rng g = {104}; /* the same geometry in each scene */
        add_random_tris(s[k], &g, 20000, 20.0f, mat);
        add_random_spheres(s[k], &g, 3000, 20.0f, mat);
        assert_int_equal(pw_scene_prepare(s[k], threads[k]), PW_OK);
    }
    check_structure(s[0]);
    for (int k = 1; k < 3; k++) {
        assert_int_equal(s[k]->bvh.n_nodes, s[0]->bvh.n_nodes);
        assert_int_equal(s[k]->bvh.n_refs, s[0]->bvh.n_refs);
        if (memcmp(s[k]->bvh.nodes, s[0]->bvh.nodes, s[0]->bvh.n_nodes * sizeof(pw_bvh_node)) != 0)
            fail_msg("the BVH nodes built with %d threads differ from those built with 1", threads[k]);
        if (memcmp(s[k]->bvh.prim_ref, s[0]->bvh.prim_ref, s[0]->bvh.n_refs * sizeof(uint32_t)) != 0)
            fail_msg("prim_ref built with %d threads differs from the one built with 1", threads[k]);
    }
    printf("23000 primitives: %u nodes, identical for 1, 2 and 8 threads\n", s[0]->bvh.n_nodes);
    for (int k = 0; k < 3; k++)
        pw_scene_free(s[k]);
}

/* ---- real meshes ---- */

/* Rays from a sphere around the mesh's bounds toward random points inside
 * them, and rays from inside the bounds in random directions. */
static void check_mesh_file(const char *rel, int n_rays)
{
    char path[4096];
    if (!pw_test_shared_file(rel, path, sizeof path))
        PW_SKIP("%s is absent (set PATHWAVE_SHARED to the shared folder)", path);
    double t0 = test_now();
    pw_scene *s;
    pw_status st = pw_scene_load(path, &s);
    if (st != PW_OK)
        fail_msg("loading %s: %s", path, pw_last_error());
    double t_load = test_now() - t0;
    assert_int_equal(pw_scene_prepare(s, 2), PW_OK);
    int depth = check_structure(s);
    pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
    for (uint32_t i = 0; i < s->n_verts; i++) {
        lo = v3_min(lo, s->pos[i]);
        hi = v3_max(hi, s->pos[i]);
    }
    pw_vec3 centre = v3_scale(v3_add(lo, hi), 0.5f), ext = v3_sub(hi, lo);
    float radius = 0.5f * v3_len(ext);
    accel a;
    accel_init(&a, s);
    test_rng g = {2001};
    cmp_counts c = {0, 0, 0, 0};
    for (int i = 0; i < n_rays; i++) {
        pw_vec3 inside = v3(lo.x + ext.x * (float)trng_unif(&g), lo.y + ext.y * (float)trng_unif(&g),
                            lo.z + ext.z * (float)trng_unif(&g));
        pw_ray r;
        if (i % 3 != 2) {
            r.o = v3_madd(centre, trng_dir(&g), 2.0f * radius);
            r.d = v3_norm(v3_sub(inside, r.o));
        } else {
            r.o = inside;
            r.d = trng_dir(&g);
        }
        check_closest(&a, r, 0.0f, PW_INF, i, &c);
        pw_hit h;
        if (i % 4 == 0 && pw_bvh_trace(&a.v, r, 0.0f, PW_INF, 0, &h)) {
            check_closest(&a, r, h.t, PW_INF, i, &c); /* the next surface behind the first */
            c.windows++;
        }
    }
    printf("%s: %u triangles loaded in %.2f s, %u nodes, depth %d; %d queries, %d hits, %d ties, in %.2f s\n", rel,
           s->n_tris, t_load, s->bvh.n_nodes, depth, c.rays, c.hits, c.ties, test_now() - t0);
    assert_true(c.hits > c.rays / 4);
    accel_free(&a);
    pw_scene_free(s);
}

static void mesh_bunny(void **state)
{
    (void)state;
    check_mesh_file("scenes/stanford-bunny/bunny.ply", 800);
}

static void mesh_sponza(void **state)
{
    (void)state;
    check_mesh_file("scenes/sponza-dabrovic/sponza.obj", 500);
}

int main(int argc, char **argv)
{
    const char *group = argc > 1 ? argv[1] : "synthetic";
    const struct CMUnitTest synthetic[] = {
        cmocka_unit_test(random_triangles),   cmocka_unit_test(random_spheres),
        cmocka_unit_test(few_spheres),        cmocka_unit_test(sorted_child_visit),
        cmocka_unit_test(random_mix),         cmocka_unit_test(degenerate_layouts),
        cmocka_unit_test(build_is_thread_independent), cmocka_unit_test(bad_material_numbers_and_nan_rays),
    };
    const struct CMUnitTest grazing[] = {cmocka_unit_test(grazing_box_faces)};
    const struct CMUnitTest bunny[] = {cmocka_unit_test(mesh_bunny)};
    const struct CMUnitTest sponza[] = {cmocka_unit_test(mesh_sponza)};
    if (strcmp(group, "synthetic") == 0)
        return pw_test_exit(cmocka_run_group_tests_name("synthetic", synthetic, NULL, NULL));
    if (strcmp(group, "grazing") == 0)
        return pw_test_exit(cmocka_run_group_tests_name("grazing", grazing, NULL, NULL));
    if (strcmp(group, "bunny") == 0)
        return pw_test_exit(cmocka_run_group_tests_name("bunny", bunny, NULL, NULL));
    if (strcmp(group, "sponza") == 0)
        return pw_test_exit(cmocka_run_group_tests_name("sponza", sponza, NULL, NULL));
    fprintf(stderr, "test_bvh: unknown group '%s' (synthetic, grazing, bunny, sponza)\n", group);
    return 2;
}
