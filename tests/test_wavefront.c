/* The CPU wavefront against the CPU megakernel. Both call the same path
 * functions with the same random numbers and add each pixel's samples in
 * the same order, so their images must be bit-identical: any difference
 * means a stage lost, repeated or reordered work (a shadow ray resolved
 * twice, a path dropped from a queue, a wave overlapping the next). */
#include "test_common.h"

#include "pathwave.h"

static float *render(pw_scene *s, pw_backend b, int w, int h, int spp, int wave_paths, pw_render_stats *stats)
{
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = w;
    st.height = h;
    st.seed = 3;
    st.backend = b;
    st.wave_paths = wave_paths;
    st.stage_stats = 1;
    pw_renderer *r;
    if (pw_renderer_create(s, &st, &r) != PW_OK)
        fail_msg("pw_renderer_create: %s", pw_last_error());
    /* Two calls: progressive rendering must continue the sample sequence. */
    if (pw_renderer_render(r, spp - 1) != PW_OK || pw_renderer_render(r, 1) != PW_OK)
        fail_msg("pw_renderer_render: %s", pw_last_error());
    float *rgb = malloc((size_t)w * h * 3 * sizeof *rgb);
    assert_non_null(rgb);
    assert_int_equal(pw_renderer_image(r, rgb), PW_OK);
    pw_renderer_get_stats(r, stats);
    if (b == PW_BACKEND_CPU_WAVE) {
        /* The stage statistics account for every ray. */
        int rows;
        const pw_stage_stats *ss = pw_renderer_stage_stats(r, &rows);
        uint64_t ext = 0, shadow = 0;
        for (int i = 0; i < rows; i++) {
            ext += ss[i].items[PW_STAGE_EXTEND];
            shadow += ss[i].items[PW_STAGE_CONNECT];
        }
        assert_true(ext == stats->camera_rays + stats->bounce_rays);
        assert_true(shadow == stats->shadow_rays);
        assert_true(ss[0].items[PW_STAGE_GENERATE] == (uint64_t)w * h * spp);
    }
    pw_renderer_free(r);
    return rgb;
}

static void check_identical(const char *name, int w, int h, int spp, int wave_paths)
{
    pw_scene *s;
    assert_int_equal(pw_scene_builtin(name, &s), PW_OK);
    pw_render_stats a, b;
    float *mega = render(s, PW_BACKEND_CPU, w, h, spp, 0, &a);
    float *wave = render(s, PW_BACKEND_CPU_WAVE, w, h, spp, wave_paths, &b);
    size_t n = (size_t)w * h * 3, differ = 0;
    for (size_t i = 0; i < n; i++)
        differ += memcmp(&mega[i], &wave[i], sizeof(float)) != 0;
    printf("%s %dx%d, %d spp, %d paths in flight: %zu of %zu values differ; rays %llu/%llu/%llu vs %llu/%llu/%llu\n",
           name, w, h, spp, wave_paths, differ, n, (unsigned long long)a.camera_rays,
           (unsigned long long)a.bounce_rays, (unsigned long long)a.shadow_rays, (unsigned long long)b.camera_rays,
           (unsigned long long)b.bounce_rays, (unsigned long long)b.shadow_rays);
    assert_int_equal(differ, 0);
    assert_true(a.camera_rays == b.camera_rays && a.bounce_rays == b.bounce_rays && a.shadow_rays == b.shadow_rays);
    free(mega);
    free(wave);
    pw_scene_free(s);
}

/* toy: two shadow rays per Lambert hit, metal, glass, emitters hit. */
static void test_toy(void **state)
{
    (void)state;
    check_identical("toy", 96, 54, 3, 0);
}

/* cornell: MIS with triangle lights, Russian roulette, deep paths; the
 * pixels go through in waves of 1000 paths (not a divisor of the image). */
static void test_cornell_in_waves(void **state)
{
    (void)state;
    check_identical("cornell", 64, 64, 3, 1000);
}

/* rtiow: no lights, so no shadow rays at all. */
static void test_rtiow(void **state)
{
    (void)state;
    check_identical("rtiow", 60, 40, 2, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toy),
        cmocka_unit_test(test_cornell_in_waves),
        cmocka_unit_test(test_rtiow),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
