/* The two pbrt-v4 files in shared/scenes read through pw_scene_load:
 * - Bitterli's Cornell box rendered from its .pbrt file matches the
 *   published reference render (tests/test_reference.h states the bounds);
 * - the Veach MIS scene loads without a warning, with its four plates,
 *   three sphere lights and materials where the file puts them, and its
 *   lights appear in the image where its camera sees them, at the radiance
 *   the file gives.
 * Skipped when the files are absent. */
#include "test_reference.h"
#include "test_render_util.h"

#include "scene/scene.h"

#define RES 128
#define BLOCKS 8
#define BLOCK_TOL 0.005
#define K_SE 4.5
/* Under AddressSanitizer the render is about ten times slower: fewer
 * samples, and the block bounds widen with the measured noise. */
#if defined(__SANITIZE_ADDRESS__)
#define HALF_SPP 48
#else
#define HALF_SPP 256
#endif

static int warnings;

static void count_warning(const char *msg, void *user)
{
    (void)user;
    printf("warning: %s\n", msg);
    warnings++;
}

static pw_scene *load_shared(const char *rel, char *path, size_t n)
{
    if (!pw_test_shared_file(rel, path, n))
        return NULL;
    pw_scene *s;
    warnings = 0;
    pw_set_warning_handler(count_warning, NULL);
    pw_status st = pw_scene_load(path, &s);
    pw_set_warning_handler(NULL, NULL);
    if (st != PW_OK)
        fail_msg("%s", pw_last_error());
    return s;
}

static float *render(pw_scene *s, int w, int h, int spp, uint32_t seed)
{
    pw_settings st;
    pw_settings_default(s, &st);
    test_render o = {w, h, spp, st.max_depth, st.rr_depth, st.light_mode, seed, 0};
    return test_render_image(s, &o);
}

static void cornell_pbrt_matches_reference(void **state)
{
    (void)state;
    char path[4096], ref_path[4096];
    pw_scene *s = load_shared("scenes/bitterli-cornell-box/pbrt-v4/scene-v4.pbrt", path, sizeof path);
    if (!s)
        PW_SKIP("%s is absent", path);
    double *ref = test_cornell_reference(RES, ref_path, sizeof ref_path);
    if (!ref) {
        pw_scene_free(s);
        PW_SKIP("%s is absent", ref_path);
    }
    assert_int_equal(warnings, 0);
    assert_int_equal(s->n_tris, 36);
    assert_int_equal(s->defaults.width, 1024);
    assert_int_equal(s->defaults.max_depth, 65);
    double t0 = test_now();
    float *a = render(s, RES, RES, HALF_SPP, 1001), *b = render(s, RES, RES, HALF_SPP, 2002);
    printf("%dx%d, 2 x %d spp, max depth %d: %.1f s (printed, not checked)\n", RES, RES, HALF_SPP,
           s->defaults.max_depth, test_now() - t0);
    int failures = test_compare_reference(a, b, ref, RES, BLOCKS, BLOCK_TOL, K_SE);
    free(a);
    free(b);
    free(ref);
    pw_scene_free(s);
    if (failures)
        fail_msg("%d checks against the reference failed", failures);
}

/* Pixel (column, row from the top) where the camera sees point p. */
static void project(const pw_camera *c, pw_vec3 p, int w, int h, int *px, int *py)
{
    pw_vec3 d = v3_sub(p, c->origin);
    float depth = -v3_dot(d, c->w), focus = -v3_dot(v3_sub(c->lower_left, c->origin), c->w);
    float x = focus * v3_dot(d, c->u) / depth, y = focus * v3_dot(d, c->v) / depth;
    float s = 0.5f + x / v3_len(c->horizontal), t = 0.5f + y / v3_len(c->vertical);
    *px = (int)floorf(s * (float)w);
    *py = (int)floorf((1.0f - t) * (float)h);
}

static void veach_mis_loads_as_written(void **state)
{
    (void)state;
    char path[4096];
    pw_scene *s = load_shared("scenes/bitterli-veach-mis/scene-v4.pbrt", path, sizeof path);
    if (!s)
        PW_SKIP("%s is absent", path);
    assert_int_equal(warnings, 0);
    assert_int_equal(s->n_tris, 52);
    assert_int_equal(s->defaults.width, 1280);
    assert_int_equal(s->defaults.height, 720);
    assert_int_equal(s->defaults.max_depth, 3);
    /* Six named materials, and one emissive copy of "Null" per light. */
    assert_int_equal(s->n_mats, 9);
    static const float cz[3] = {-2.8f, 0.0f, 2.7f}, r[3] = {1.0f, 0.5f, 0.05f},
                       L[3] = {7.599088f, 30.396353f, 3039.6353f};
    assert_int_equal(s->n_spheres, 3);
    for (int i = 0; i < 3; i++) {
        assert_true(fabsf(s->spheres[i].c.x) < 1e-6f && fabsf(s->spheres[i].c.y - 6.5f) < 1e-6f &&
                    fabsf(s->spheres[i].c.z - cz[i]) < 1e-6f);
        assert_true(s->spheres[i].r == r[i]);
        const pw_material *m = &s->mats[s->sphere_mat[i]];
        assert_true(m->emission.x == L[i] && m->emission.y == L[i] && m->emission.z == L[i]);
        assert_true(v3_is_zero(m->albedo));
    }
    /* The plates, in file order: conductors with alpha given directly (remaproughness false). */
    static const float alpha[4] = {0.01f, 0.05f, 0.1f, 0.25f};
    static const uint32_t first_tri[4] = {0, 12, 24, 40};
    for (int i = 0; i < 4; i++) {
        const pw_material *m = &s->mats[s->tri_mat[first_tri[i]]];
        assert_int_equal(m->type, PW_MAT_CONDUCTOR);
        assert_true(fabsf(m->roughness - alpha[i]) < 1e-7f);
        assert_true(fabsf(m->eta.x - 0.200438f) < 1e-6f && fabsf(m->k.z - 2.142188f) < 1e-6f);
    }
    assert_int_equal(pw_scene_prepare(s, 0), PW_OK);
    assert_int_equal(s->lights.count, 3);

    /* The camera looks down -x from x = 28.3: world -z is the image's right,
     * so the lights run small, medium, large from left to right. A camera
     * ray that hits a light adds its emission and nothing else ("Null" is
     * black), so pixels well inside the two larger disks hold exactly L. */
    const int w = 256, h = 144;
    float *img = render(s, w, h, 4, 7);
    pw_camera cam = pw_camera_make(&s->cam, (float)w / (float)h);
    int px[3], py[3];
    for (int i = 0; i < 3; i++)
        project(&cam, s->spheres[i].c, w, h, &px[i], &py[i]);
    printf("lights at pixels (%d, %d), (%d, %d), (%d, %d)\n", px[0], py[0], px[1], py[1], px[2], py[2]);
    assert_true(px[2] < px[1] && px[1] < px[0]);
    assert_true(py[0] == py[1] && py[1] == py[2] && py[0] > 0 && py[0] < h / 2);
    for (int i = 0; i < 2; i++)
        for (int c = 0; c < 3; c++) {
            float v = img[3 * ((size_t)py[i] * w + px[i]) + c];
            if (fabsf(v - L[i]) > 1e-4f * L[i])
                fail_msg("light %d: pixel (%d, %d) channel %d is %g, not L = %g", i, px[i], py[i], c, v, L[i]);
        }
    /* Between the lights, above the plates, the backdrop is far dimmer than any light. */
    int mid = (px[1] + px[0]) / 2;
    float between = img[3 * ((size_t)py[0] * w + mid)];
    printf("backdrop between the lights: %g\n", between);
    assert_true(between > 0.0f && between < 0.1f * L[0]);
    free(img);
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(veach_mis_loads_as_written),
        cmocka_unit_test(cornell_pbrt_matches_reference),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
