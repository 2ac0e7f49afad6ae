/* Ray-sphere and ray-triangle tests (src/geom/intersect.h) against exact
 * answers and double-precision references, and watertightness of the
 * triangle test on closed meshes: rays aimed exactly at vertices and edges
 * must never slip through, from inside or outside, directly or through the
 * BVH. */
#include "test_common.h"

#include "accel/bvh4.h"
#include "accel/bvh8_cpu.h"
#include "accel/bvh_traverse.h"
#include "accel/trace.h"
#include "scene/scene.h"
#include "test_mesh_util.h"

static pw_vec3 unit(pw_vec3 a) { return v3_norm(a); }

/* ---- spheres ---- */

static void sphere_basic(void **state)
{
    (void)state;
    pw_vec3 c = v3(0, 0, 0);
    /* From outside, head on: the near root. */
    assert_float_equal(pw_intersect_sphere(v3(0, 0, -5), v3(0, 0, 1), c, 1.0f, 0.0f, PW_INF), 4.0f, 1e-6f);
    /* From inside: the far root, whatever the direction. */
    assert_float_equal(pw_intersect_sphere(v3(0, 0, 0), v3(0, 0, 1), c, 1.0f, 0.0f, PW_INF), 1.0f, 1e-6f);
    assert_float_equal(pw_intersect_sphere(v3(0, 0, 0), v3(0, -1, 0), c, 2.0f, 0.0f, PW_INF), 2.0f, 1e-6f);
    /* Pointing away from the sphere: no hit. */
    assert_true(pw_intersect_sphere(v3(0, 0, -5), v3(0, 0, -1), c, 1.0f, 0.0f, PW_INF) < 0.0f);
    /* Sphere off to the side: no hit. */
    assert_true(pw_intersect_sphere(v3(3, 0, -5), v3(0, 0, 1), c, 1.0f, 0.0f, PW_INF) < 0.0f);
}

static void sphere_t_range(void **state)
{
    (void)state;
    pw_vec3 o = v3(0, 0, -5), d = v3(0, 0, 1), c = v3(0, 0, 0);
    /* tmax before the near root: miss. */
    assert_true(pw_intersect_sphere(o, d, c, 1.0f, 0.0f, 3.9f) < 0.0f);
    /* tmin past the near root: the far root. */
    assert_float_equal(pw_intersect_sphere(o, d, c, 1.0f, 4.5f, PW_INF), 6.0f, 1e-6f);
    /* tmin past both roots: miss. */
    assert_true(pw_intersect_sphere(o, d, c, 1.0f, 6.5f, PW_INF) < 0.0f);
    /* The interval is open: a root equal to tmax is not returned. */
    assert_true(pw_intersect_sphere(o, d, c, 1.0f, 0.0f, 4.0f) < 0.0f);
    /* A window that holds only the far root. */
    assert_float_equal(pw_intersect_sphere(o, d, c, 1.0f, 4.0f, 7.0f), 6.0f, 1e-6f);
    /* A negative tmin admits a sphere behind the origin (roots -4 and -6):
     * the shortcut that skips spheres behind holds only for tmin >= 0. */
    assert_float_equal(pw_intersect_sphere(o, v3(0, 0, -1), c, 1.0f, -10.0f, PW_INF), -6.0f, 1e-6f);
    assert_float_equal(pw_intersect_sphere(o, v3(0, 0, -1), c, 1.0f, -5.0f, PW_INF), -4.0f, 1e-6f);
}

static void sphere_tangent(void **state)
{
    (void)state;
    pw_vec3 d = v3(0, 0, 1), c = v3(0, 0, 0);
    /* Just outside the silhouette: miss; just inside: a hit at the
     * double-precision root. */
    for (int k = 1; k <= 4; k++) {
        double eps = pow(10.0, -k);
        assert_true(pw_intersect_sphere(v3(0, (float)(1.0 + eps), -5), d, c, 1.0f, 0.0f, PW_INF) < 0.0f);
        float y = (float)(1.0 - eps);
        double t_ref = 5.0 - sqrt(1.0 - (double)y * y);
        float t = pw_intersect_sphere(v3(0, y, -5), d, c, 1.0f, 0.0f, PW_INF);
        assert_true(t > 0.0f);
        /* Near the silhouette the root is ill-conditioned: an error of one
         * float ulp in r^2 - |l|^2 moves sqrt() by about 1.2e-7 / (2 sqrt(disc)). */
        double disc = 1.0 - (double)y * y;
        assert_true(fabs(t - t_ref) <= 1e-6 * 5.0 + 2.0 * 1.2e-7 / (2.0 * sqrt(disc)));
    }
}

/* A ray that starts on the sphere and runs along its tangent: b = 0 and
 * disc = 0, so the roots' quotient cc / q is 0 / 0. The roots come out 0
 * and 0 (the NaN drops out of their minimum and maximum): no hit above a
 * tmin of 0, so a grazing ray never meets the sphere it leaves, and t = 0
 * (of either sign) for a tmin below it. */
static void sphere_tangent_from_surface(void **state)
{
    (void)state;
    pw_vec3 c = v3(0, 0, 0);
    pw_vec3 o[3] = {v3(0, 1, 0), v3(-2, 0, 0), v3(0, 0, 0.5f)};
    pw_vec3 d[3] = {v3(0, 0, 1), v3(0, 1, 0), v3(1, 0, 0)};
    float r[3] = {1.0f, 2.0f, 0.5f};
    for (int i = 0; i < 3; i++) {
        assert_true(pw_intersect_sphere(o[i], d[i], c, r[i], 0.0f, PW_INF) < 0.0f);
        assert_true(pw_intersect_sphere(o[i], d[i], c, r[i], -1.0f, PW_INF) == 0.0f);
        /* The ray reversed: the same. */
        assert_true(pw_intersect_sphere(o[i], v3_scale(d[i], -1.0f), c, r[i], 0.0f, PW_INF) < 0.0f);
    }
}

/* The sphere list's walk (pw_trace_sphere_list, the GPU's for toy-small,
 * which skips a sphere left behind without testing tmin): against
 * pw_intersect_sphere sphere by sphere, closest and any hit, from outside,
 * inside, on a surface along its tangent and past every sphere. */
static void sphere_list_walk(void **state)
{
    (void)state;
    pw_sphere sp[3] = {{v3(0, 0, 0), 1.0f}, {v3(0, 0, 5), 1.0f}, {v3(0, -101, 0), 100.0f}};
    pw_scene_view v;
    memset(&v, 0, sizeof v);
    v.spheres = sp;
    v.n_spheres = 3;
    v.flat_spheres = PW_FLAT_LIST;
    pw_ray rays[6] = {{v3(0, 0, -5), v3(0, 0, 1)},  {v3(0, 0, 0), v3(0, 0, 1)},    {v3(0, 1, 0), v3(1, 0, 0)},
                      {v3(0, 0, 9), v3(0, 0, 1)},   {v3(0, 0.5f, 3), v3(0, 0, -1)}, {v3(3, 0, 0), unit(v3(-1, -1, 0))}};
    for (int i = 0; i < 6; i++) {
        float best = -1.0f;
        uint32_t prim = PW_NO_HIT;
        for (uint32_t k = 0; k < 3; k++) {
            float t = pw_intersect_sphere(rays[i].o, rays[i].d, sp[k].c, sp[k].r, 0.0f, PW_INF);
            if (t > 0.0f && (best < 0.0f || t < best))
                best = t, prim = k;
        }
        pw_hit h, ha;
        int hit = pw_trace_from(&v, rays[i], PW_SELF_UNKNOWN, 0.0f, PW_INF, 0, &h);
        int any = pw_trace_from(&v, rays[i], PW_SELF_UNKNOWN, 0.0f, PW_INF, 1, &ha);
        assert_int_equal(hit, best > 0.0f);
        assert_int_equal(any, best > 0.0f);
        if (hit) {
            assert_int_equal(h.prim, prim);
            assert_true(h.t == best);
        }
    }
    /* Two of the distances known exactly, and a ray with every sphere behind it: no hit. */
    pw_hit h;
    assert_true(pw_trace_from(&v, rays[0], PW_SELF_UNKNOWN, 0.0f, PW_INF, 0, &h) && h.prim == 0 && h.t == 4.0f);
    assert_true(pw_trace_from(&v, rays[1], PW_SELF_UNKNOWN, 0.0f, PW_INF, 0, &h) && h.prim == 0 && h.t == 1.0f);
    assert_false(pw_trace_from(&v, rays[3], PW_SELF_UNKNOWN, 0.0f, PW_INF, 0, &h));
}

/* A small sphere far away: the naive b^2 - c discriminant loses every digit
 * here; the distance-based one keeps the hit and its distance. */
static void sphere_small_far(void **state)
{
    (void)state;
    pw_vec3 c = v3(0, 0, -1e4f);
    float t = pw_intersect_sphere(v3(0, 0, 0), v3(0, 0, -1), c, 0.01f, 0.0f, PW_INF);
    assert_true(t > 0.0f);
    assert_true(fabsf(t - (1e4f - 0.01f)) < 2e-3f); /* two float ulps at 1e4 */
    /* Rays 0.9 r and 1.1 r off the centre line, aimed parallel to it. */
    assert_true(pw_intersect_sphere(v3(0.009f, 0, 0), v3(0, 0, -1), c, 0.01f, 0.0f, PW_INF) > 0.0f);
    assert_true(pw_intersect_sphere(v3(0.011f, 0, 0), v3(0, 0, -1), c, 0.01f, 0.0f, PW_INF) < 0.0f);
}

/* Random rays against a double-precision solution of |o + t d - c| = r. */
static void sphere_random_vs_double(void **state)
{
    (void)state;
    test_rng rng = {11};
    int hits = 0, misses = 0;
    for (int i = 0; i < 20000; i++) {
        pw_vec3 c = v3(trng_range(&rng, -5, 5), trng_range(&rng, -5, 5), trng_range(&rng, -5, 5));
        float r = trng_range(&rng, 0.05f, 2.0f);
        pw_vec3 o = v3(trng_range(&rng, -10, 10), trng_range(&rng, -10, 10), trng_range(&rng, -10, 10));
        pw_vec3 target = v3(c.x + trng_range(&rng, -1.5f, 1.5f) * r, c.y + trng_range(&rng, -1.5f, 1.5f) * r,
                            c.z + trng_range(&rng, -1.5f, 1.5f) * r);
        pw_vec3 d = unit(v3_sub(target, o));
        double f[3] = {(double)o.x - c.x, (double)o.y - c.y, (double)o.z - c.z}, dd[3] = {d.x, d.y, d.z};
        double dn = sqrt(dd[0] * dd[0] + dd[1] * dd[1] + dd[2] * dd[2]);
        double b = -(f[0] * dd[0] + f[1] * dd[1] + f[2] * dd[2]) / dn;
        double ff = f[0] * f[0] + f[1] * f[1] + f[2] * f[2];
        double disc = (double)r * r - (ff - b * b);
        float t = pw_intersect_sphere(o, d, c, r, 0.0f, PW_INF);
        if (disc < -1e-3 * r * r) {
            assert_true(t < 0.0f);
            misses++;
            continue;
        }
        if (disc < 1e-3 * r * r)
            continue; /* too close to the silhouette to call */
        double t0 = (b - sqrt(disc)) / dn, t1 = (b + sqrt(disc)) / dn;
        double t_ref = t0 > 1e-4 ? t0 : (t1 > 1e-4 ? t1 : -1.0);
        if (t_ref < 0.0) {
            assert_true(t < 0.0f);
            continue;
        }
        if (fabs(t0) < 1e-3 || fabs(t1) < 1e-3)
            continue; /* origin on the surface */
        assert_true(t > 0.0f);
        if (fabs(t - t_ref) > 1e-5 * (1.0 + t_ref))
            fail_msg("ray %d: t %.9g, double-precision root %.9g", i, t, t_ref);
        hits++;
    }
    printf("sphere vs double: %d hits, %d misses checked\n", hits, misses);
    assert_true(hits > 5000 && misses > 2000);
}

/* A ray that leaves a sphere from the point where another ray hit it
 * (o + t d, as the renderer finds it) starts at pw_offsets_for's origin,
 * with no tmin: outward it must never meet the sphere again, inward only
 * at the far side. Spheres from radius 0.05 to the ground spheres of
 * toy (100, centre at y = -100.5) and RTIOW (1000), whose test's
 * |o - c|^2 - r^2 rounds to some 2^-24 r^2: at the hit point itself, with
 * no offset, rays leaving at a grazing angle re-hit the sphere. */
static void sphere_offset_origins(void **state)
{
    (void)state;
    /* Points on the ground spheres near their top, where the scenes are:
     * within a unit or two of the world's origin, where an offset that
     * scaled with |p| alone would be too small for the sphere test. */
    const struct {
        pw_vec3 c;
        float r, cap; /* points within cap (in x and z) of the top of the normal's sphere */
    } spheres[] = {{{0, -100.5f, -1}, 100, 0.02f}, {{0, -1000, 0}, 1000, 0.001f}, {{2, 0, -1}, 0.5f, 1},
                   {{-3.7f, 0.2f, 2.9f}, 0.2f, 1}, {{40, 7, -25}, 3, 1}, {{0.01f, -0.02f, 0.03f}, 0.05f, 1}};
    test_rng g = {23};
    int grazing = 0, checked = 0;
    for (size_t k = 0; k < sizeof spheres / sizeof spheres[0]; k++) {
        pw_vec3 c = spheres[k].c;
        float r = spheres[k].r;
        for (int i = 0; i < 20000; i++) {
            /* A ray from up to 20 units off the surface at a random point of its upper half (or cap). */
            float cap = spheres[k].cap;
            pw_vec3 n0 = trng_dir(&g);
            n0.y = fabsf(n0.y);
            if (cap < 1.0f)
                n0 = v3_norm(v3(trng_range(&g, -cap, cap), 1, trng_range(&g, -cap, cap)));
            pw_vec3 target = v3_add(c, v3_scale(n0, r));
            pw_vec3 o = v3_add(target, v3_scale(trng_dir(&g), trng_range(&g, 0.5f, 20.0f)));
            pw_vec3 d = v3_norm(v3_sub(target, o));
            float t = pw_intersect_sphere(o, d, c, r, 0.0f, PW_INF);
            if (t <= 0.0f)
                continue;
            pw_vec3 p = v3_madd(o, d, t), ng = v3_scale(v3_sub(p, c), 1.0f / r);
            pw_offsets off = pw_offsets_make(p, ng, d, 1, r, 0);
            pw_vec3 out = trng_dir(&g);
            float cos_out = v3_dot(out, ng);
            grazing += fabsf(cos_out) < 0.01f;
            pw_vec3 from = pw_offsets_for(&off, out);
            /* And not far: a ten-thousandth of the scale at most (the
             * offset is some 3e-5 of it), far below the smallest gaps
             * between objects. */
            float moved = v3_len(v3_sub(from, p)), most = 1e-4f * (1.0f + v3_max_abs(p)) + 1e-6f * r;
            if (moved > most)
                fail_msg("sphere %zu (r %g), ray %d: the origin moved %g off the surface, more than %g", k, (double)r,
                         i, (double)moved, (double)most);
            checked++;
            float t2 = pw_intersect_sphere(from, out, c, r, 0.0f, PW_INF);
            if (cos_out > 0.0f && t2 >= 0.0f)
                fail_msg("sphere %zu (r %g), ray %d: leaving at cosine %g, it meets its sphere again at t = %g", k,
                         (double)r, i, (double)cos_out, (double)t2);
            /* Inward, from a depth e the far side lies about e / |cosine|
             * beyond the chord; too near the tangent to tell, it must at
             * least lie ahead. */
            float chord = -2.0f * r * cos_out, e = pw_sphere_offset_dist(p, r);
            int far_side = cos_out < -0.05f ? fabsf(t2 - chord) <= 4.0f * e / -cos_out + 1e-4f * chord : t2 > 0.0f;
            if (cos_out < 0.0f && !far_side)
                fail_msg("sphere %zu (r %g), ray %d: entering at cosine %g, it meets the far side at t = %g, not %g",
                         k, (double)r, i, (double)cos_out, (double)t2, (double)chord);
        }
    }
    printf("sphere offsets: %d rays, %d of them grazing (|cosine| < 0.01)\n", checked, grazing);
    assert_true(checked > 50000 && grazing > 300);
}

/* ---- triangles ---- */

static int tri(pw_vec3 o, pw_vec3 d, pw_vec3 a, pw_vec3 b, pw_vec3 c, float tmin, float tmax, float *t, float *u,
               float *v)
{
    pw_ray_shear sh = pw_ray_shear_make(d);
    return pw_intersect_triangle(o, &sh, a, b, c, tmin, tmax, t, u, v);
}

static void triangle_basic(void **state)
{
    (void)state;
    pw_vec3 a = v3(0, 0, 0), b = v3(1, 0, 0), c = v3(0, 1, 0);
    float t, u, v;
    assert_true(tri(v3(0.25f, 0.5f, 1), v3(0, 0, -1), a, b, c, 0, PW_INF, &t, &u, &v));
    assert_float_equal(t, 1.0f, 1e-6f);
    assert_float_equal(u, 0.25f, 1e-6f); /* barycentric of b */
    assert_float_equal(v, 0.5f, 1e-6f);  /* barycentric of c */
    /* The back face is hit too. */
    assert_true(tri(v3(0.25f, 0.5f, -2), v3(0, 0, 1), a, b, c, 0, PW_INF, &t, &u, &v));
    assert_float_equal(t, 2.0f, 1e-6f);
    /* Outside the triangle (beyond the hypotenuse), and behind the origin. */
    assert_false(tri(v3(0.6f, 0.6f, 1), v3(0, 0, -1), a, b, c, 0, PW_INF, &t, &u, &v));
    assert_false(tri(v3(0.25f, 0.25f, 1), v3(0, 0, 1), a, b, c, 0, PW_INF, &t, &u, &v));
    /* A ray in the triangle's plane (det = 0). */
    assert_false(tri(v3(-1, 0.25f, 0), v3(1, 0, 0), a, b, c, 0, PW_INF, &t, &u, &v));
    /* t range: open at both ends. */
    assert_false(tri(v3(0.25f, 0.25f, 1), v3(0, 0, -1), a, b, c, 0, 0.5f, &t, &u, &v));
    assert_false(tri(v3(0.25f, 0.25f, 1), v3(0, 0, -1), a, b, c, 1.5f, PW_INF, &t, &u, &v));
    assert_false(tri(v3(0.25f, 0.25f, 1), v3(0, 0, -1), a, b, c, 0, 1.0f, &t, &u, &v));
    assert_true(tri(v3(0.25f, 0.25f, 1), v3(0, 0, -1), a, b, c, 0.999f, 1.001f, &t, &u, &v));
    /* Every dominant axis and sign of the direction (the shear's six cases). */
    pw_vec3 A = v3(1, 2, 3), B = v3(2, 2.5f, 3), C = v3(1.5f, 3, 3.5f);
    pw_vec3 P = v3_add(v3_add(v3_scale(A, 0.2f), v3_scale(B, 0.3f)), v3_scale(C, 0.5f));
    const pw_vec3 dirs[6] = {{1, .1f, .2f}, {-1, .2f, .1f}, {.1f, 1, .3f}, {.2f, -1, .1f}, {.3f, .2f, 1}, {.1f, .3f, -1}};
    for (int k = 0; k < 6; k++) {
        pw_vec3 d = unit(dirs[k]);
        pw_vec3 o = v3_madd(P, d, -2.5f);
        assert_true(tri(o, d, A, B, C, 0, PW_INF, &t, &u, &v));
        assert_float_equal(t, 2.5f, 1e-5f);
        assert_float_equal(u, 0.3f, 1e-5f);
        assert_float_equal(v, 0.5f, 1e-5f);
    }
}

/* Random triangles and rays against double-precision Moeller-Trumbore,
 * away from edges (where the answer is a matter of rounding). */
static void triangle_random_vs_double(void **state)
{
    (void)state;
    test_rng rng = {12};
    int hits = 0, misses = 0;
    for (int i = 0; i < 40000; i++) {
        pw_vec3 p[3];
        for (int k = 0; k < 3; k++)
            p[k] = v3(trng_range(&rng, -3, 3), trng_range(&rng, -3, 3), trng_range(&rng, -3, 3));
        pw_vec3 o = v3(trng_range(&rng, -8, 8), trng_range(&rng, -8, 8), trng_range(&rng, -8, 8));
        /* Aim at a random point of the plane near the triangle. */
        double w1 = trng_unif(&rng) * 1.6 - 0.3, w2 = trng_unif(&rng) * 1.6 - 0.3;
        pw_vec3 q = v3((float)(p[0].x + w1 * (p[1].x - p[0].x) + w2 * (p[2].x - p[0].x)),
                       (float)(p[0].y + w1 * (p[1].y - p[0].y) + w2 * (p[2].y - p[0].y)),
                       (float)(p[0].z + w1 * (p[1].z - p[0].z) + w2 * (p[2].z - p[0].z)));
        pw_vec3 d = unit(v3_sub(q, o));
        double e1[3] = {p[1].x - (double)p[0].x, p[1].y - (double)p[0].y, p[1].z - (double)p[0].z};
        double e2[3] = {p[2].x - (double)p[0].x, p[2].y - (double)p[0].y, p[2].z - (double)p[0].z};
        double D[3] = {d.x, d.y, d.z};
        double pv[3] = {D[1] * e2[2] - D[2] * e2[1], D[2] * e2[0] - D[0] * e2[2], D[0] * e2[1] - D[1] * e2[0]};
        double det = e1[0] * pv[0] + e1[1] * pv[1] + e1[2] * pv[2];
        double nrm = sqrt(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]) * sqrt(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
        if (fabs(det) < 1e-2 * nrm)
            continue; /* nearly parallel or a sliver triangle */
        double tv[3] = {o.x - (double)p[0].x, o.y - (double)p[0].y, o.z - (double)p[0].z};
        double u = (tv[0] * pv[0] + tv[1] * pv[1] + tv[2] * pv[2]) / det;
        double qv[3] = {tv[1] * e1[2] - tv[2] * e1[1], tv[2] * e1[0] - tv[0] * e1[2], tv[0] * e1[1] - tv[1] * e1[0]};
        double v = (D[0] * qv[0] + D[1] * qv[1] + D[2] * qv[2]) / det;
        double t = (e2[0] * qv[0] + e2[1] * qv[1] + e2[2] * qv[2]) / det;
        float ft = 0, fu = 0, fv = 0;
        int hit = tri(o, d, p[0], p[1], p[2], 0, PW_INF, &ft, &fu, &fv);
        double margin = fmin(fmin(u, v), 1.0 - u - v);
        if (fabs(margin) < 1e-3 || fabs(t) < 1e-3)
            continue;
        if (margin < 0.0 || t < 0.0) {
            if (hit)
                fail_msg("ray %d: hit at t %g but the double reference misses (u %g v %g t %g)", i, ft, u, v, t);
            misses++;
            continue;
        }
        if (!hit)
            fail_msg("ray %d: miss but the double reference hits (u %g v %g t %g)", i, u, v, t);
        assert_true(fabs(ft - t) <= 1e-5 * (1.0 + t));
        assert_true(fabs(fu - u) <= 1e-4 && fabs(fv - v) <= 1e-4);
        hits++;
    }
    printf("triangle vs double: %d hits, %d misses checked\n", hits, misses);
    assert_true(hits > 5000 && misses > 5000);
}

/* ---- watertightness ---- */

#define MAX_HITS 64

/* The ray from o toward the surface point p (o inside a convex mesh) must
 * cross the surface exactly once, at p. */
static void expect_exit_at(const test_mesh *m, pw_vec3 o, pw_vec3 p, const char *what, int i, int *double_hits)
{
    float ts[MAX_HITS];
    uint32_t tris[MAX_HITS];
    pw_vec3 d = unit(v3_sub(p, o));
    float expect = v3_len(v3_sub(p, o));
    int n = test_mesh_all_hits(m, o, d, ts, tris, MAX_HITS);
    if (n == 0)
        fail_msg("%s %d: the ray from inside toward (%.9g, %.9g, %.9g) leaks through the mesh", what, i, p.x, p.y,
                 p.z);
    int crossings = test_count_crossings(ts, n, 1e-4f * expect);
    if (crossings != 1 || fabsf(ts[0] - expect) > 1e-5f * expect)
        fail_msg("%s %d: %d crossings, first at t %.9g, expected one at %.9g", what, i, crossings, ts[0], expect);
    *double_hits += n > 1;
}

/* From outside through p (o in front of a face at p): the first crossing is
 * at p and the ray crosses the closed surface exactly twice. */
static void expect_entry_at(const test_mesh *m, pw_vec3 o, pw_vec3 p, const char *what, int i)
{
    float ts[MAX_HITS];
    uint32_t tris[MAX_HITS];
    pw_vec3 d = unit(v3_sub(p, o));
    float expect = v3_len(v3_sub(p, o));
    int n = test_mesh_all_hits(m, o, d, ts, tris, MAX_HITS);
    if (n == 0)
        fail_msg("%s %d: the ray from outside through (%.9g, %.9g, %.9g) misses the mesh", what, i, p.x, p.y, p.z);
    int crossings = test_count_crossings(ts, n, 1e-4f * expect);
    if (fabsf(ts[0] - expect) > 2e-5f * expect)
        fail_msg("%s %d: first hit at t %.9g, expected %.9g", what, i, ts[0], expect);
    if (crossings != 2)
        fail_msg("%s %d: %d surface crossings, a ray through a closed convex mesh makes 2", what, i, crossings);
}

static pw_vec3 lerp3(pw_vec3 a, pw_vec3 b, float s) { return v3_add(a, v3_scale(v3_sub(b, a), s)); }

static void check_closed_mesh(const test_mesh *m, pw_vec3 centre, float size, uint64_t seed)
{
    test_rng rng = {seed};
    int double_hits = 0, rays = 0;
    /* Inside origins: the centre and a few random points well inside. */
    pw_vec3 origins[4] = {centre};
    for (int k = 1; k < 4; k++)
        origins[k] = v3_add(centre, v3(trng_range(&rng, -.3f, .3f) * size, trng_range(&rng, -.3f, .3f) * size,
                                       trng_range(&rng, -.3f, .3f) * size));
    for (int k = 0; k < 4; k++) {
        for (uint32_t i = 0; i < m->nv; i++, rays++)
            expect_exit_at(m, origins[k], m->v[i], "vertex", (int)i, &double_hits);
        for (uint32_t e = 0; e < m->ne; e++) {
            pw_vec3 a = m->v[m->edges[e][0]], b = m->v[m->edges[e][1]];
            expect_exit_at(m, origins[k], lerp3(a, b, 0.5f), "edge midpoint", (int)e, &double_hits);
            expect_exit_at(m, origins[k], lerp3(a, b, (float)trng_unif(&rng)), "edge point", (int)e, &double_hits);
            rays += 2;
        }
        /* Random directions: must hit (no need to know where). */
        for (int i = 0; i < 2000; i++, rays++) {
            pw_vec3 d = unit(v3(trng_range(&rng, -1, 1), trng_range(&rng, -1, 1), trng_range(&rng, -1, 1)));
            float ts[MAX_HITS];
            uint32_t tris[MAX_HITS];
            int n = test_mesh_all_hits(m, origins[k], d, ts, tris, MAX_HITS);
            if (n == 0)
                fail_msg("random ray %d from inside leaks (d = %.9g %.9g %.9g)", i, d.x, d.y, d.z);
        }
    }
    /* From outside, through every vertex and edge point. */
    for (uint32_t e = 0; e < m->ne; e++) {
        for (int k = 0; k < 2; k++) {
            pw_vec3 a = m->v[m->edges[e][0]], b = m->v[m->edges[e][1]];
            pw_vec3 p = k == 0 ? lerp3(a, b, 0.5f) : (trng_unif(&rng) < 0.5 ? a : lerp3(a, b, (float)trng_unif(&rng)));
            /* A direction toward the outside of both faces at p: radial plus jitter. */
            pw_vec3 radial = unit(v3_sub(p, centre));
            pw_vec3 jitter = v3(trng_range(&rng, -.3f, .3f), trng_range(&rng, -.3f, .3f), trng_range(&rng, -.3f, .3f));
            pw_vec3 w = unit(v3_add(radial, jitter));
            pw_vec3 o = v3_madd(p, w, size * trng_range(&rng, 0.5f, 3.0f));
            expect_entry_at(m, o, p, "outside ray through edge", (int)e);
            rays++;
        }
    }
    printf("%u triangles: %d rays, none leaked; %d inside rays were reported by more than one triangle\n", m->nt, rays,
           double_hits);
}

static void watertight_cube(void **state)
{
    (void)state;
    /* Axis-aligned, exactly representable corners: edge functions come out
     * exactly zero, which is where the double-precision fallback decides. */
    test_mesh m = test_mesh_cube(-1.0f, 1.0f);
    check_closed_mesh(&m, v3(0, 0, 0), 2.0f, 21);
    /* Rays from the centre along the exact diagonals (all three direction
     * components equal: the shear's tie-breaking case). */
    for (int i = 0; i < 8; i++) {
        pw_vec3 d = unit(v3(i & 1 ? 1.f : -1.f, i & 2 ? 1.f : -1.f, i & 4 ? 1.f : -1.f));
        float ts[MAX_HITS];
        uint32_t tris[MAX_HITS];
        assert_true(test_mesh_all_hits(&m, v3(0, 0, 0), d, ts, tris, MAX_HITS) > 0);
        assert_float_equal(ts[0], sqrtf(3.0f), 1e-5f);
    }
    test_mesh_free(&m);
    /* The same cube, off the origin at an awkward scale. */
    m = test_mesh_cube(0.1f, 7.3f);
    check_closed_mesh(&m, v3(3.7f, 3.7f, 3.7f), 7.2f, 22);
    test_mesh_free(&m);
}

static void watertight_icosphere(void **state)
{
    (void)state;
    pw_vec3 centre = v3(0.37f, -1.21f, 2.53f);
    test_mesh m = test_mesh_icosphere(3, centre, 1.7);
    assert_int_equal(m.nt, 1280);
    assert_int_equal(m.ne, 1920);
    /* Outward winding (signed volume > 0) keeps the construction honest. */
    double vol = 0;
    for (uint32_t t = 0; t < m.nt; t++) {
        pw_vec3 a = v3_sub(m.v[m.idx[3 * t]], centre), b = v3_sub(m.v[m.idx[3 * t + 1]], centre),
                c = v3_sub(m.v[m.idx[3 * t + 2]], centre);
        vol += v3_dot(a, v3_cross(b, c)) / 6.0;
    }
    assert_true(vol > 0.9 * 4.0 / 3.0 * PW_PI * 1.7 * 1.7 * 1.7);
    check_closed_mesh(&m, centre, 1.7f, 23);
    test_mesh_free(&m);
}

/* Closest (any_hit 0) or any hit through the binary (which 0), 4-wide (1)
 * or the CPU's 8-wide BVH (2, with its 8-lane triangle test). */
static int trace_with(int which, const pw_scene_view *v, const pw_bvh8 *b8, pw_ray r, int any_hit, pw_hit *h)
{
    if (which == 2)
        return pw_bvh8_trace(v, b8, r, 0.0f, PW_INF, any_hit, h);
    return (which ? pw_bvh4_trace : pw_bvh_trace)(v, r, 0.0f, PW_INF, any_hit, h);
}

/* The same leak test through the BVH: the box test must not cull a node a
 * ray through a vertex or edge touches. */
static void watertight_through_bvh(void **state)
{
    (void)state;
    pw_vec3 centre = v3(-4.1f, 0.3f, 12.7f);
    test_mesh m = test_mesh_icosphere(4, centre, 2.3); /* 5120 triangles: a deep tree */
    pw_scene *s = pw_scene_alloc("watertight");
    uint32_t mat = pw_scene_push_material(s, pw_lambert(.5f, .5f, .5f));
    uint32_t base = pw_scene_add_vertices(s, m.v, NULL, m.nv);
    for (uint32_t t = 0; t < m.nt; t++)
        assert_int_equal(pw_scene_add_triangle(s, base + m.idx[3 * t], base + m.idx[3 * t + 1], base + m.idx[3 * t + 2], mat),
                         PW_OK);
    assert_int_equal(pw_scene_prepare(s, 1), PW_OK);
    pw_scene_view view = pw_scene_host_view(s, 1, 1);
    pw_bvh8 b8;
    int has_b8 = pw_bvh8_build(&view, &b8);
    test_rng rng = {31};
    int rays = 0;
    for (int k = 0; k < 3; k++) {
        pw_vec3 o = k == 0 ? centre
                           : v3_add(centre, v3(trng_range(&rng, -.5f, .5f), trng_range(&rng, -.5f, .5f),
                                               trng_range(&rng, -.5f, .5f)));
        for (uint32_t i = 0; i < m.nv + 2 * m.ne; i++, rays++) {
            pw_vec3 p = i < m.nv ? m.v[i]
                                 : lerp3(m.v[m.edges[(i - m.nv) / 2][0]], m.v[m.edges[(i - m.nv) / 2][1]],
                                         (i - m.nv) % 2 ? 0.5f : (float)trng_unif(&rng));
            pw_ray r = {o, unit(v3_sub(p, o))};
            float expect = v3_len(v3_sub(p, o));
            for (int wide = 0; wide < 2 + has_b8; wide++) {
                const char *name = wide == 2 ? "8-wide CPU BVH" : wide ? "4-wide BVH" : "BVH";
                pw_hit h;
                if (!trace_with(wide, &view, &b8, r, 0, &h))
                    fail_msg("%s: the ray from inside toward point %u leaks", name, i);
                if (fabsf(h.t - expect) > 1e-5f * expect)
                    fail_msg("%s: ray toward point %u hits at %.9g, expected %.9g", name, i, h.t, expect);
                if (!trace_with(wide, &view, &b8, r, 1, &h))
                    fail_msg("%s any-hit: the ray from inside toward point %u leaks", name, i);
            }
        }
    }
    printf("BVH over %u triangles: %d rays through vertices and edges, none leaked%s\n", m.nt, rays,
           has_b8 ? " (binary, 4-wide and the CPU's 8-wide)" : " (binary and 4-wide; no AVX2 8-wide here)");
    if (has_b8)
        pw_bvh8_free(&b8);
    pw_scene_free(s);
    test_mesh_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sphere_basic),
        cmocka_unit_test(sphere_t_range),
        cmocka_unit_test(sphere_tangent),
        cmocka_unit_test(sphere_tangent_from_surface),
        cmocka_unit_test(sphere_list_walk),
        cmocka_unit_test(sphere_small_far),
        cmocka_unit_test(sphere_random_vs_double),
        cmocka_unit_test(sphere_offset_origins),
        cmocka_unit_test(triangle_basic),
        cmocka_unit_test(triangle_random_vs_double),
        cmocka_unit_test(watertight_cube),
        cmocka_unit_test(watertight_icosphere),
        cmocka_unit_test(watertight_through_bvh),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
