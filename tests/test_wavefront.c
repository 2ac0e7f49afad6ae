/* The CPU wavefront against the CPU megakernel. Both call the same path
 * functions with the same random numbers and add each pixel's samples in
 * the same order, so their images must be bit-identical: any difference
 * means a stage lost, repeated or reordered work (a shadow ray added
 * twice, a path dropped from a queue, a wave overlapping the next). */
#include "test_render_util.h"

#include "pathwave.h"
#include "api/renderer.h"
#include "integrator/features.h"
#include "backend/wavefront/wavefront.h"
#include "backend/wavefront/wavefront_layout.h"

static float *render_split(pw_scene *s, pw_backend b, int w, int h, int spp, int wave_paths, int split, uint32_t seed,
                           int threads, pw_render_stats *stats);

static float *render(pw_scene *s, pw_backend b, int w, int h, int spp, int wave_paths, pw_render_stats *stats)
{
    return render_split(s, b, w, h, spp, wave_paths, 1, 3, 0, stats);
}

/* threads: 0 for the default (all cores). */
static float *render_split(pw_scene *s, pw_backend b, int w, int h, int spp, int wave_paths, int split, uint32_t seed,
                           int threads, pw_render_stats *stats)
{
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = w;
    st.height = h;
    st.seed = seed;
    if (threads > 0)
        st.threads = threads;
    st.backend = b;
    st.wave_paths = wave_paths;
    st.split = split;
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

static void check_identical_scene(const char *name, pw_scene *s, int w, int h, int spp, int wave_paths)
{
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
}

static void check_identical(const char *name, int w, int h, int spp, int wave_paths)
{
    pw_scene *s;
    assert_int_equal(pw_scene_builtin(name, &s), PW_OK);
    check_identical_scene(name, s, w, h, spp, wave_paths);
    pw_scene_free(s);
}

/* toy: two shadow rays per Lambert hit, metal, glass, emitters hit. */
static void test_toy(void **state)
{
    (void)state;
    check_identical("toy", 96, 54, 3, 0);
}

/* An image of whole 8x4 tiles: the camera rays go out tile by tile and
 * gather finds each pixel's slots through the inverse map, in a wave of
 * the whole image and in waves of whole rows of tiles (12 rows, three
 * waves, and with a last wave of two rows that keeps row order). The only bit-exact tests of tile order: the other exact tests'
 * images are not whole tiles, and keep rows (the split test's 32x32 is
 * tiled, but checks statistics only). */
static void test_toy_tile_order(void **state)
{
    (void)state;
    pw_render_params prm;
    memset(&prm, 0, sizeof prm);
    prm.width = 24;
    prm.height = 8;
    assert_true(pw_wf_tiled(&prm, 0, 24 * 8));
    assert_false(pw_wf_tiled(&prm, 0, 24 * 8 - 1));
    /* Waves of whole rows of tiles: the image's lower half, but not a
     * wave starting or ending between a tile's rows. */
    assert_true(pw_wf_tiled(&prm, 24 * 4, 24 * 4));
    assert_false(pw_wf_tiled(&prm, 24 * 2, 24 * 4));
    assert_false(pw_wf_tiled(&prm, 0, 24 * 6));
    assert_false(pw_wf_tiled(&prm, 0, 0));
    prm.width = 20;
    assert_false(pw_wf_tiled(&prm, 0, 20 * 8));
    prm.width = 24;
    uint8_t seen[24 * 8] = {0};
    for (uint32_t p = 0; p < 24 * 8; p++) {
        uint32_t q = pw_wf_tile_pixel(&prm, p);
        assert_true(q < 24 * 8);
        assert_int_equal(seen[q]++, 0);
        assert_int_equal(pw_wf_tile_position(&prm, q), p);
    }
    /* The first tile is the top-left 8x4 block, the second the one right of it. */
    assert_int_equal(pw_wf_tile_pixel(&prm, 9), 1 * 24 + 1);
    assert_int_equal(pw_wf_tile_pixel(&prm, 32), 8);
    check_identical("toy", 64, 36, 3, 0);
    check_identical("toy", 64, 36, 3, 64 * 12);
    /* Tiled waves of 12 rows, then a last wave of 2 rows in row order. */
    check_identical("toy", 64, 38, 3, 64 * 12);
}

/* Where the GPU cuts a frame of one wave in two (pw_wave_half_pixels):
 * never no rows (a cut of 0 rows once made cuda-wave loop for ever on a
 * 1-row image), never every row of an image it can cut, and on a
 * multiple of 4 rows, so that the first half is whole rows of tiles. */
static void test_half_wave_cut(void **state)
{
    (void)state;
    const uint32_t heights[] = {1, 2, 3, 4, 5, 7, 8, 9, 56, 60, 70, 720, 800, 1080, 1081};
    for (size_t k = 0; k < sizeof heights / sizeof heights[0]; k++) {
        uint32_t h = heights[k], w = 64, first = pw_wave_half_pixels(w, h);
        pw_render_params prm;
        memset(&prm, 0, sizeof prm);
        prm.width = w;
        prm.height = h;
        assert_true(first > 0 && first % w == 0 && first <= w * h);
        if (h <= PW_WF_TILE_H) {
            assert_int_equal(first, w * h);
            continue;
        }
        uint32_t rows = first / w;
        assert_true(rows < h && rows % PW_WF_TILE_H == 0 && rows >= (h + 1) / 2);
        assert_true(pw_wf_tiled(&prm, 0, first));
    }
    assert_int_equal(pw_wave_half_pixels(96, 60), 96 * 32);
    assert_int_equal(pw_wave_half_pixels(1920, 1080), 1920 * 540);
    assert_int_equal(pw_wave_half_pixels(96, 5), 96 * 4);
}

/* Eight toy lights: a Lambert hit makes up to PW_MAX_SHADOW shadow rays,
 * so it fills all of its path's shadow records (slot * per onward, per =
 * 8): records that overlapped a neighbouring slot's would show. */
static void test_eight_toy_lights(void **state)
{
    (void)state;
    pw_scene *s = test_scene_eight_toy_lights(30);
    check_identical_scene("eight toy lights", s, 80, 45, 2, 0);
    pw_scene_free(s);
}

/* Waves of several samples of every pixel: room for two, so 5 samples go
 * through as 2 + 2 + 1 (4 in the first call, 1 in the second). */
static void test_toy_multi_sample_waves(void **state)
{
    (void)state;
    check_identical("toy", 32, 18, 5, 2 * 32 * 18 + 7);
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

/* The GPU's wavefront makes camera paths where bounce 0 needs them
 * instead of storing them (pw_wf_extend_camera, pw_wf_shade_camera); the
 * CPU's does the same with PATHWAVE_CPU_WAVE_CAMERA=0, so that CI checks
 * that way too: in tiled waves and a row-order one, and in waves of
 * several samples (toy), and through deep MIS paths in waves that split
 * the image unevenly (cornell), bit for bit; and with ray splitting, the
 * split test below. */
static void test_camera_made_where_needed(void **state)
{
    (void)state;
    setenv("PATHWAVE_CPU_WAVE_CAMERA", "0", 1);
    check_identical("toy", 64, 38, 3, 64 * 12);
    check_identical("toy", 32, 18, 5, 2 * 32 * 18 + 7);
    check_identical("cornell", 64, 64, 3, 1000);
}

static void test_split_camera_made_where_needed(void **state);

static int unset_camera_switch(void **state)
{
    (void)state;
    unsetenv("PATHWAVE_CPU_WAVE_CAMERA");
    return 0;
}

static void check_split_mega_vs_wave(void);

/* Ray splitting, megakernel against wavefront: the same children with the
 * same random numbers, each in a fixed slot, and gather sums a pixel's
 * children in child order as the megakernel does, so the images are
 * bit-identical. Waves of 700 paths (175 pixels of 4 children) also
 * exercise the children's slots. */
static void test_split_mega_vs_wave(void **state)
{
    (void)state;
    check_split_mega_vs_wave();
}

static void test_split_camera_made_where_needed(void **state)
{
    (void)state;
    setenv("PATHWAVE_CPU_WAVE_CAMERA", "0", 1);
    check_split_mega_vs_wave();
}

static void check_split_mega_vs_wave(void)
{
    pw_scene *s;
    assert_int_equal(pw_scene_builtin("cornell", &s), PW_OK);
    pw_render_stats a, b;
    float *mega = render_split(s, PW_BACKEND_CPU, 48, 48, 2, 0, 4, 3, 0, &a);
    float *wave = render_split(s, PW_BACKEND_CPU_WAVE, 48, 48, 2, 700, 4, 3, 0, &b);
    size_t differ = 0;
    for (size_t i = 0; i < 48 * 48 * 3; i++)
        differ += memcmp(&mega[i], &wave[i], sizeof(float)) != 0;
    printf("split 4: %zu of %d values differ; rays %llu/%llu vs %llu/%llu\n", differ, 48 * 48 * 3,
           (unsigned long long)a.bounce_rays, (unsigned long long)a.shadow_rays, (unsigned long long)b.bounce_rays,
           (unsigned long long)b.shadow_rays);
    assert_int_equal(differ, 0);
    assert_true(a.bounce_rays == b.bounce_rays && a.shadow_rays == b.shadow_rays);
    free(mega);
    free(wave);
    pw_scene_free(s);
}

/* Ray splitting, cpu-wave against cpu bit for bit, on 1 and 2 threads,
 * in one wave and in waves of 1,000 paths (333 or 250 pixels, so the
 * children's groups of slots, cap / split apart, leave slots unused at the
 * end and a frame's last wave is short), over two progressive calls
 * (render_split). Children once took their slots from an atomic counter
 * and added to their pixel with atomics as they finished, so the image
 * changed with the threads' timing. The Cornell box's children end in
 * connect (shadow rays) and in shade; toy's paths also miss at their
 * first hit (children with zero radiance, pw_wf_no_children). */
static void test_split_bit_identical(void **state)
{
    (void)state;
    const char *names[] = {"cornell", "toy"};
    const int w = 40, h = 30, spp = 3;
    for (int n = 0; n < 2; n++) {
        pw_scene *s;
        assert_int_equal(pw_scene_builtin(names[n], &s), PW_OK);
        for (int split = 3; split <= 4; split++) {
            pw_render_stats a, b;
            float *mega = render_split(s, PW_BACKEND_CPU, w, h, spp, 0, split, 5, 1, &a);
            for (int threads = 1; threads <= 2; threads++)
                for (int wave_paths = 0; wave_paths <= 1000; wave_paths += 1000) {
                    float *wave = render_split(s, PW_BACKEND_CPU_WAVE, w, h, spp, wave_paths, split, 5, threads, &b);
                    size_t differ = 0;
                    for (size_t i = 0; i < (size_t)w * h * 3; i++)
                        differ += memcmp(&mega[i], &wave[i], sizeof(float)) != 0;
                    printf("%s split %d, %d threads, %d paths in flight: %zu of %d values differ from cpu\n",
                           names[n], split, threads, wave_paths, differ, w * h * 3);
                    assert_int_equal(differ, 0);
                    assert_true(a.bounce_rays == b.bounce_rays && a.shadow_rays == b.shadow_rays);
                    free(wave);
                }
            float *mega2 = render_split(s, PW_BACKEND_CPU, w, h, spp, 0, split, 5, 2, &b);
            assert_memory_equal(mega, mega2, (size_t)w * h * 3 * sizeof(float));
            free(mega);
            free(mega2);
        }
        pw_scene_free(s);
    }
}

/* The children's slots (pw_wf_child_slot) of every wave the plan makes
 * are distinct and inside the wave's cap, for caps that are and are not
 * multiples of the split. */
static void test_split_slots(void **state)
{
    (void)state;
    static unsigned char used[4096];
    for (uint32_t split = 2; split <= 8; split++)
        for (uint32_t cap = split; cap <= 4096; cap += 97) {
            pw_wave wv;
            memset(&wv, 0, sizeof wv);
            wv.cap = cap;
            uint32_t npix[] = {1, cap / split, cap / split + 1, 5000}, pixels, samples;
            for (int t = 0; t < 4; t++) {
                pw_wave_plan(cap, npix[t], split, 4, &pixels, &samples);
                assert_true(samples == 1 && pixels >= 1 && pw_wf_split_fits(&wv, split, pixels));
                memset(used, 0, cap);
                for (uint32_t pi = 0; pi < pixels; pi++)
                    for (uint32_t k = 0; k < split; k++) {
                        uint32_t c = pw_wf_child_slot(&wv, split, pi, k);
                        if (c >= cap || used[c])
                            fail_msg("split %u, cap %u: child %u of slot %u at slot %u", split, cap, k, pi, c);
                        used[c] = 1;
                    }
            }
            assert_false(pw_wf_split_fits(&wv, split, cap / split + 1));
        }
}

/* Splitting must not bias the image: the per-pixel difference between a
 * split-4 render and an unsplit one (independent seeds, so independent
 * noise) must average to zero within 4.5 standard errors, the standard
 * error taken from the differences themselves. Forgetting the 1/N on the
 * children's throughput makes the image 4 times too bright, and counting
 * the parent's emission once per child adds a bias that this sees too. */
static void test_split_unbiased(void **state)
{
    (void)state;
    pw_scene *s;
    assert_int_equal(pw_scene_builtin("cornell", &s), PW_OK);
    pw_render_stats st;
    const int w = 32, h = 32;
    float *split = render_split(s, PW_BACKEND_CPU_WAVE, w, h, 256, 0, 4, 11, 0, &st);
    float *plain = render_split(s, PW_BACKEND_CPU, w, h, 1024, 0, 1, 12, 0, &st);
    for (int c = 0; c < 3; c++) {
        double sum = 0, sum2 = 0, ref = 0;
        for (int i = 0; i < w * h; i++) {
            double d = split[3 * i + c] - plain[3 * i + c];
            sum += d;
            sum2 += d * d;
            ref += plain[3 * i + c];
        }
        double n = w * h, mean = sum / n, se = sqrt(fmax(0.0, sum2 / n - mean * mean) / n);
        printf("channel %d: mean difference %.5f (%.2f%% of %.5f), %.2f standard errors\n", c, mean,
               100 * mean / (ref / n), ref / n, mean / se);
        assert_true(fabs(mean) <= 4.5 * se);
    }
    free(split);
    free(plain);
    pw_scene_free(s);
}

/* The tuning knobs (core/tuning.h): a well-formed value is taken, and a
 * malformed or out-of-range one stops the renderer's creation with an
 * error naming the variable, so that a mistyped knob never passes for a
 * measurement. */
static void test_tuning_knobs(void **state)
{
    (void)state;
    pw_scene *s;
    assert_int_equal(pw_scene_builtin("cornell", &s), PW_OK);
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = 8, st.height = 8, st.backend = PW_BACKEND_CPU_WAVE;
    static const char *good[][2] = {{"PATHWAVE_WAVE_TAIL", "4294967295"}, {"PATHWAVE_MEGA_TILE", "16x4"},
                                    {"PATHWAVE_CPU_BVH", "2"}, {"PATHWAVE_WAVE_HALVE", ""}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        setenv(good[i][0], good[i][1], 1);
        pw_renderer *r;
        if (pw_renderer_create(s, &st, &r) != PW_OK)
            fail_msg("%s='%s' refused: %s", good[i][0], good[i][1], pw_last_error());
        if (strcmp(good[i][0], "PATHWAVE_WAVE_TAIL") == 0)
            assert_true(r->job.tuning.wave_tail == 4294967295LL);
        if (strcmp(good[i][0], "PATHWAVE_MEGA_TILE") == 0)
            assert_true(r->job.tuning.mega_tile_w == 16 && r->job.tuning.mega_tile_h == 4);
        if (strcmp(good[i][0], "PATHWAVE_WAVE_HALVE") == 0) /* empty: unset */
            assert_int_equal(r->job.tuning.wave_halve, PW_TUNING_AUTO);
        pw_renderer_free(r);
        unsetenv(good[i][0]);
    }
    static const char *bad[][2] = {
        {"PATHWAVE_WAVE_TAIL", "30x0"}, {"PATHWAVE_WAVE_TAIL", "-5"},       {"PATHWAVE_WAVE_TAIL", "2.5"},
        {"PATHWAVE_WAVE_TAIL", "0x10"}, {"PATHWAVE_WAVE_TAIL", "inf"},      {"PATHWAVE_WAVE_TAIL", "4294967296"},
        {"PATHWAVE_WAVE_TAIL", " 7"},   {"PATHWAVE_MEGA_TILE", "3x4"},      {"PATHWAVE_MEGA_TILE", "2x2"},
        {"PATHWAVE_MEGA_TILE", "16x4x"}, {"PATHWAVE_MEGA_TILE", "4294967312x1"}, {"PATHWAVE_MEGA_TILE", "-16x4"},
        {"PATHWAVE_MEGA_TILE", " 16x4"}, {"PATHWAVE_MEGA_TILE", "16x+4"}, {"PATHWAVE_CPU_BVH", "4"},
        {"PATHWAVE_WAVE_SLOTS", "3"},
        {"PATHWAVE_WAVE_GRAPH", "yes"}, {"PATHWAVE_CUDA_FLAT", "1025"},     {"PATHWAVE_CPU_WAVE_CAMERA", "1e-400"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv(bad[i][0], bad[i][1], 1);
        pw_renderer *r = NULL;
        pw_status e = pw_renderer_create(s, &st, &r);
        unsetenv(bad[i][0]);
        if (e != PW_ERR_INVALID_ARGUMENT || r || !strstr(pw_last_error(), bad[i][0]))
            fail_msg("%s='%s': status %d, message '%s'", bad[i][0], bad[i][1], (int)e, pw_last_error());
    }
    pw_scene_free(s);
}

/* The features a render needs (integrator/features.h), which pick the
 * GPU's kernels: geometry, material kinds, estimator, splitting and walk,
 * for built-in scenes on a CPU backend (whose view walks the 4-wide BVH
 * over triangles, the binary one over spheres). */
static void test_render_features(void **state)
{
    (void)state;
    const struct {
        const char *scene;
        int split;
        uint32_t want;
    } cases[] = {
        {"toy", 1, PW_FEAT_SPHERES | PW_FEAT_LIGHT_TOY | PW_FEAT_BVH2},
        {"toy-small", 3, PW_FEAT_SPHERES | PW_FEAT_LIGHT_NONE | PW_FEAT_SPLIT | PW_FEAT_BVH2},
        {"cornell", 1, PW_FEAT_TRIANGLES | PW_FEAT_LIGHT_MIS | PW_FEAT_BVH4},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pw_scene *s;
        assert_int_equal(pw_scene_builtin(cases[i].scene, &s), PW_OK);
        pw_settings st;
        pw_settings_default(s, &st);
        st.width = 8, st.height = 8, st.backend = PW_BACKEND_CPU, st.split = cases[i].split;
        pw_renderer *r;
        assert_int_equal(pw_renderer_create(s, &st, &r), PW_OK);
        uint32_t f = pw_features_of(&r->job.view, &r->job.params);
        if (f != cases[i].want)
            fail_msg("%s, split %d: features 0x%x, want 0x%x", cases[i].scene, cases[i].split, f, cases[i].want);
        /* A kernel for every render covers it; one without a feature the render needs does not. */
        assert_true(pw_features_cover(PW_FEAT_EVERY, f));
        assert_false(pw_features_cover(f & ~PW_FEAT_LIGHTS, f));
        pw_renderer_free(r);
        pw_scene_free(s);
    }
}

static int unset_knobs(void **state)
{
    (void)state;
    const char *names[] = {"PATHWAVE_WAVE_TAIL", "PATHWAVE_MEGA_TILE", "PATHWAVE_CPU_BVH", "PATHWAVE_WAVE_SLOTS",
                           "PATHWAVE_WAVE_GRAPH", "PATHWAVE_CUDA_FLAT", "PATHWAVE_CPU_WAVE_CAMERA", "PATHWAVE_WAVE_HALVE"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unsetenv(names[i]);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_toy),
        cmocka_unit_test(test_toy_tile_order),
        cmocka_unit_test(test_half_wave_cut),
        cmocka_unit_test(test_cornell_in_waves),
        cmocka_unit_test(test_rtiow),
        cmocka_unit_test(test_eight_toy_lights),
        cmocka_unit_test(test_toy_multi_sample_waves),
        cmocka_unit_test(test_split_mega_vs_wave),
        cmocka_unit_test(test_split_bit_identical),
        cmocka_unit_test(test_split_slots),
        cmocka_unit_test_teardown(test_camera_made_where_needed, unset_camera_switch),
        cmocka_unit_test_teardown(test_split_camera_made_where_needed, unset_camera_switch),
        cmocka_unit_test(test_split_unbiased),
        cmocka_unit_test_teardown(test_tuning_knobs, unset_knobs),
        cmocka_unit_test(test_render_features),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
