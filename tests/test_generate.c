/* The generated scenes: terrain:N has exactly N triangles, all facing up,
 * none degenerate, inside the box it is designed to fill, the same on every
 * build; bunnies:K has K copies of the bunny plus a ground of 2 triangles;
 * the BVH over each finds the closest hit a loop over every triangle finds;
 * bad sizes are refused with a message that names them. */
#include "test_common.h"

#include "accel/bvh_traverse.h"
#include "scene/scene.h"

static pw_scene *build(const char *name)
{
    pw_scene *s = NULL;
    if (pw_scene_builtin(name, &s) != PW_OK)
        fail_msg("%s: %s", name, pw_last_error());
    return s;
}

static int brute_trace(const pw_scene_view *v, pw_ray r, float tmin, float tmax, pw_hit *h)
{
    pw_ray_shear sh = pw_ray_shear_make(r.d);
    int found = 0;
    h->prim = PW_NO_HIT;
    for (uint32_t p = 0; p < v->n_spheres + v->n_tris; p++)
        found |= pw_intersect_prim(v, p, r.o, r.d, &sh, tmin, &tmax, h);
    return found;
}

/* The binary BVH against brute force: closest hit (same t; the same
 * triangle unless two lie at that t) and any-hit. */
static void check_ray(const pw_scene_view *v, pw_ray r, int id, int *hits)
{
    pw_hit hb, hv, ha;
    int fb = brute_trace(v, r, 0.0f, PW_INF, &hb);
    int fv = pw_bvh_trace(v, r, 0.0f, PW_INF, 0, &hv);
    int fa = pw_bvh_trace(v, r, 0.0f, PW_INF, 1, &ha);
    if (fb != fv || fb != fa)
        fail_msg("ray %d (o %g %g %g, d %g %g %g): brute force %s, BVH closest %s, any-hit %s", id, r.o.x, r.o.y, r.o.z,
                 r.d.x, r.d.y, r.d.z, fb ? "hits" : "misses", fv ? "hits" : "misses", fa ? "hits" : "misses");
    if (fb && (hb.t != hv.t || (hb.prim != hv.prim && fabsf(hb.t - hv.t) > 0.0f)))
        fail_msg("ray %d: brute force hits primitive %u at %.9g, BVH primitive %u at %.9g", id, hb.prim, hb.t, hv.prim,
                 hv.t);
    *hits += fb;
}

/* Rays from above toward random points of the box, from inside it in any
 * direction, and level rays through it (the terrain's grazing case). */
static void check_bvh(pw_scene *s, int n_rays, uint64_t seed)
{
    assert_int_equal(pw_scene_prepare(s, 2), PW_OK);
    pw_scene_view v = pw_scene_host_view(s, 1, 1);
    pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
    for (uint32_t i = 0; i < s->n_verts; i++) {
        lo = v3_min(lo, s->pos[i]);
        hi = v3_max(hi, s->pos[i]);
    }
    pw_vec3 ext = v3_sub(hi, lo);
    test_rng g = {seed};
    int hits = 0;
    for (int i = 0; i < n_rays; i++) {
        pw_vec3 p = v3(lo.x + ext.x * (float)trng_unif(&g), lo.y + ext.y * (float)trng_unif(&g),
                       lo.z + ext.z * (float)trng_unif(&g));
        pw_ray r;
        if (i % 3 == 0) {
            r.o = v3(p.x + trng_range(&g, -0.5f, 0.5f) * ext.x, hi.y + ext.y + 1.0f, p.z);
            r.d = v3_norm(v3_sub(p, r.o));
        } else if (i % 3 == 1) {
            r.o = p;
            r.d = trng_dir(&g);
        } else {
            r.o = v3(lo.x - 1.0f, p.y, p.z);
            r.d = v3_norm(v3(1.0f, 0.0f, trng_range(&g, -0.3f, 0.3f)));
        }
        check_ray(&v, r, i, &hits);
    }
    printf("%s: %d rays, %d hits, BVH of %u nodes\n", s->name, n_rays, hits, s->bvh.n_nodes);
    assert_true(hits > n_rays / 4);
}

static void terrain_counts_and_bounds(void **state)
{
    (void)state;
    static const uint32_t sizes[] = {1, 2, 3, 4, 5, 7, 100, 1001, 12345};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        char name[64];
        snprintf(name, sizeof name, "terrain:%u", sizes[k]);
        pw_scene *s = build(name);
        assert_int_equal(s->n_tris, sizes[k]);
        assert_int_equal(s->n_spheres, 0);
        pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
        for (uint32_t t = 0; t < s->n_tris; t++) {
            const uint32_t *ix = s->tri_idx + 3 * t;
            pw_vec3 a = s->pos[ix[0]], b = s->pos[ix[1]], c = s->pos[ix[2]];
            pw_vec3 n = v3_cross(v3_sub(b, a), v3_sub(c, a));
            if (!(n.y > 0.0f) || !(v3_len(n) > 0.0f))
                fail_msg("%s: triangle %u is degenerate or faces down (normal %g %g %g)", name, t, n.x, n.y, n.z);
            for (int j = 0; j < 3; j++) {
                lo = v3_min(lo, s->pos[ix[j]]);
                hi = v3_max(hi, s->pos[ix[j]]);
            }
        }
        /* Designed: x and z fill [-50, 50] exactly, heights within [-8, 8]. */
        if (lo.x != -50.0f || hi.x != 50.0f || lo.z != -50.0f || hi.z != 50.0f || lo.y < -8.0f || hi.y > 8.0f)
            fail_msg("%s: bounds (%g %g %g) .. (%g %g %g), designed [-50, 50] x [-8, 8] x [-50, 50]", name, lo.x, lo.y,
                     lo.z, hi.x, hi.y, hi.z);
        pw_scene_free(s);
    }
}

static void terrain_is_deterministic(void **state)
{
    (void)state;
    pw_scene *a = build("terrain:5000"), *b = build("terrain:5000");
    assert_int_equal(a->n_verts, b->n_verts);
    assert_memory_equal(a->pos, b->pos, a->n_verts * sizeof *a->pos);
    assert_memory_equal(a->tri_idx, b->tri_idx, 3 * a->n_tris * sizeof *a->tri_idx);
    pw_scene_free(a);
    pw_scene_free(b);
}

static void terrain_bvh_matches_brute_force(void **state)
{
    (void)state;
    pw_scene *s = build("terrain:6000");
    check_bvh(s, 3000, 77);
    pw_scene_free(s);
}

static void expect_refused(const char *name, pw_status want, const char *needle)
{
    pw_scene *s = (pw_scene *)1;
    pw_status st = pw_scene_builtin(name, &s);
    if (st != want || s != NULL || !strstr(pw_last_error(), needle))
        fail_msg("'%s': status %d (want %d), message '%s' (want it to name '%s')", name, (int)st, (int)want,
                 pw_last_error(), needle);
}

static void bad_sizes_are_refused(void **state)
{
    (void)state;
    expect_refused("terrain:0", PW_ERR_INVALID_ARGUMENT, "'0'");
    expect_refused("terrain:-5", PW_ERR_INVALID_ARGUMENT, "'-5'");
    expect_refused("terrain:abc", PW_ERR_INVALID_ARGUMENT, "'abc'");
    expect_refused("terrain:12x", PW_ERR_INVALID_ARGUMENT, "'12x'");
    expect_refused("terrain: 12", PW_ERR_INVALID_ARGUMENT, "' 12'");
    expect_refused("terrain:1e6", PW_ERR_INVALID_ARGUMENT, "'1e6'");
    expect_refused("terrain:10000000000", PW_ERR_INVALID_ARGUMENT, "'10000000000'");
    expect_refused("terrain:100000001", PW_ERR_INVALID_ARGUMENT, "1..100000000");
    expect_refused("terrain:99999999999999999999999", PW_ERR_INVALID_ARGUMENT, "'99999999999999999999999'");
    expect_refused("terrain:", PW_ERR_INVALID_ARGUMENT, "''");
    expect_refused("terrain", PW_ERR_INVALID_ARGUMENT, "terrain:N");
    expect_refused("bunnies:0", PW_ERR_INVALID_ARGUMENT, "'0'");
    expect_refused("bunnies:5000", PW_ERR_INVALID_ARGUMENT, "'5000'");
    expect_refused("bunnies:2:/no/such/bunny.ply", PW_ERR_IO, "/no/such/bunny.ply");
    expect_refused("cornell:2", PW_ERR_INVALID_ARGUMENT, "cornell:2");
    expect_refused("nosuch:5", PW_ERR_NOT_FOUND, "nosuch:5");
}

/* bunnies:3 against the bunny file itself: 3 copies plus 2 ground
 * triangles, each copy standing on y = 0 with a largest extent of 1. */
static void bunnies(void **state)
{
    (void)state;
    char path[4096], name[4200];
    if (!pw_test_shared_file("scenes/stanford-bunny/bunny.ply", path, sizeof path))
        PW_SKIP("%s is absent (set PATHWAVE_SHARED to the shared folder)", path);
    setenv("PATHWAVE_SHARED", pw_test_shared_dir(), 1);
    pw_scene *m;
    assert_int_equal(pw_scene_load(path, &m), PW_OK);
    pw_scene *s = build("bunnies:3");
    assert_int_equal(s->n_tris, 3 * m->n_tris + 2);
    pw_vec3 mlo = v3s(PW_INF), mhi = v3s(-PW_INF);
    for (uint32_t i = 0; i < m->n_verts; i++) {
        mlo = v3_min(mlo, m->pos[i]);
        mhi = v3_max(mhi, m->pos[i]);
    }
    pw_vec3 mext = v3_sub(mhi, mlo);
    float height = mext.y / fmaxf(mext.x, fmaxf(mext.y, mext.z));
    for (uint32_t k = 0; k < 3; k++) {
        pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
        for (uint32_t i = k * m->n_verts; i < (k + 1) * m->n_verts; i++) {
            lo = v3_min(lo, s->pos[i]);
            hi = v3_max(hi, s->pos[i]);
        }
        /* Scaled to a largest extent of 1, standing on y = 0, turned about
         * y (which keeps the height; a turned unit box fits in sqrt 2). */
        assert_float_equal(lo.y, 0.0f, 0.0f);
        assert_float_equal(hi.y, height, 1e-5f);
        assert_true(hi.x - lo.x <= 1.4143f && hi.z - lo.z <= 1.4143f);
    }
    for (uint32_t t = s->n_tris - 2; t < s->n_tris; t++)
        for (int j = 0; j < 3; j++)
            assert_float_equal(s->pos[s->tri_idx[3 * t + j]].y, 0.0f, 0.0f);
    snprintf(name, sizeof name, "bunnies:3:%s", path);
    pw_scene *e = build(name);
    assert_int_equal(e->n_tris, s->n_tris);
    assert_memory_equal(e->pos, s->pos, s->n_verts * sizeof *s->pos);
    check_bvh(s, 300, 5);
    pw_scene_free(e);
    pw_scene_free(s);
    pw_scene_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(terrain_counts_and_bounds),
        cmocka_unit_test(terrain_is_deterministic),
        cmocka_unit_test(terrain_bvh_matches_brute_force),
        cmocka_unit_test(bad_sizes_are_refused),
        cmocka_unit_test(bunnies),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
