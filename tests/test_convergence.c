/* The built-in Cornell box against the published reference render of the
 * same scene by an independent renderer (tests/test_reference.h states the
 * bounds): 8x8 blocks of 16x16 pixels, whose standard error at 512 spp is
 * about 0.7%, within 4.5 standard errors plus 0.5% (the reference's own
 * noise, about 0.15% per block, and its tent filter).
 *
 * Skipped when the reference file is absent. */
#include "test_reference.h"
#include "test_render_util.h"

#define RES 128
#define BLOCKS 8
#define HALF_SPP 256
#define BLOCK_TOL 0.005
#define K_SE 4.5

static float *render_half(uint32_t seed)
{
    pw_scene *s;
    if (pw_scene_builtin("cornell", &s) != PW_OK)
        fail_msg("pw_scene_builtin(cornell): %s", pw_last_error());
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = RES;
    st.height = RES;
    st.seed = seed;
    st.threads = 0;
    st.backend = test_backend();
    pw_renderer *r;
    if (pw_renderer_create(s, &st, &r) != PW_OK)
        fail_msg("pw_renderer_create: %s", pw_last_error());
    if (pw_renderer_render(r, HALF_SPP) != PW_OK)
        fail_msg("pw_renderer_render: %s", pw_last_error());
    float *img = malloc(sizeof(float) * 3 * RES * RES);
    assert_int_equal(pw_renderer_image(r, img), PW_OK);
    printf("cornell %dx%d, %d spp, max depth %d, seed %u: rendered\n", RES, RES, HALF_SPP, st.max_depth, seed);
    pw_renderer_free(r);
    pw_scene_free(s);
    return img;
}

static void cornell_matches_reference(void **state)
{
    (void)state;
    char path[4096];
    double *ref = test_cornell_reference(RES, path, sizeof path);
    if (!ref)
        PW_SKIP("%s is absent (set PATHWAVE_SHARED to the shared folder)", path);
    double t0 = test_now();
    float *a = render_half(1001), *b = render_half(2002);
    printf("render time %.1f s (printed, not checked)\n", test_now() - t0);
    int failures = test_compare_reference(a, b, ref, RES, BLOCKS, BLOCK_TOL, K_SE);
    free(a);
    free(b);
    free(ref);
    if (failures)
        fail_msg("%d checks against the reference failed", failures);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(cornell_matches_reference)};
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
