/* Reproducibility of the built-in scenes: a path's random numbers depend
 * only on (seed, pixel, sample, bounce, dimension), so the same settings give
 * the same image bit for bit, whatever the thread count; another seed gives
 * another image; progressive rendering continues the sample sequence
 * instead of repeating it; the CPU's two BVH layouts find the same hits;
 * and the sample pool the GPU megakernel's warps draw from gives each pixel
 * the same sums as tracing the pixel alone. */
#include "test_render_util.h"

#include "api/renderer.h"
#include "integrator/path.h"

#define W 64
#define H 48

typedef struct det_opts {
    const char *scene;
    int spp, threads;
    uint32_t seed;
    int bvh_width;
    int passes; /* the spp split into this many pw_renderer_render calls */
} det_opts;

static float *render_builtin(const det_opts *o)
{
    pw_scene *s;
    if (pw_scene_builtin(o->scene, &s) != PW_OK)
        fail_msg("pw_scene_builtin(%s): %s", o->scene, pw_last_error());
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = W;
    st.height = H;
    st.threads = o->threads;
    st.seed = o->seed;
    st.backend = test_backend();
    if (o->bvh_width)
        st.cpu_bvh_width = o->bvh_width;
    pw_renderer *r;
    if (pw_renderer_create(s, &st, &r) != PW_OK)
        fail_msg("pw_renderer_create(%s): %s", o->scene, pw_last_error());
    int passes = o->passes ? o->passes : 1;
    for (int p = 0; p < passes; p++)
        if (pw_renderer_render(r, o->spp / passes) != PW_OK)
            fail_msg("pw_renderer_render(%s): %s", o->scene, pw_last_error());
    float *img = malloc(sizeof(float) * 3 * W * H);
    assert_non_null(img);
    assert_int_equal(pw_renderer_image(r, img), PW_OK);
    pw_renderer_free(r);
    pw_scene_free(s);
    /* A meaningful image: finite everywhere and not black. */
    double sum = 0.0;
    for (int i = 0; i < 3 * W * H; i++) {
        if (!isfinite(img[i]) || img[i] < 0.0f)
            fail_msg("%s: pixel value %g at %d", o->scene, img[i], i / 3);
        sum += img[i];
    }
    assert_true(sum > 0.0);
    return img;
}

static int count_differing(const float *a, const float *b)
{
    int n = 0;
    for (int i = 0; i < 3 * W * H; i++)
        n += memcmp(&a[i], &b[i], sizeof(float)) != 0;
    return n;
}

static const char *const scenes[] = {"toy-small", "cornell", "toy"};
#define N_SCENES (int)(sizeof scenes / sizeof scenes[0])

static void same_seed_same_image(void **state)
{
    (void)state;
    for (int k = 0; k < N_SCENES; k++) {
        det_opts o = {scenes[k], 4, 2, 5, 0, 1};
        float *a = render_builtin(&o), *b = render_builtin(&o);
        int d = count_differing(a, b);
        if (d)
            fail_msg("%s: two renders with seed 5 differ in %d of %d values", scenes[k], d, 3 * W * H);
        printf("%s: two renders with the same seed are bit-identical\n", scenes[k]);
        free(a);
        free(b);
    }
}

static void thread_count_does_not_matter(void **state)
{
    (void)state;
    for (int k = 0; k < N_SCENES; k++) {
        det_opts o1 = {scenes[k], 4, 1, 9, 0, 1}, o2 = {scenes[k], 4, 2, 9, 0, 1}, o3 = {scenes[k], 4, 5, 9, 0, 1};
        float *a = render_builtin(&o1), *b = render_builtin(&o2), *c = render_builtin(&o3);
        int d12 = count_differing(a, b), d13 = count_differing(a, c);
        if (d12 || d13)
            fail_msg("%s: 1 vs 2 threads differ in %d values, 1 vs 5 threads in %d", scenes[k], d12, d13);
        printf("%s: 1, 2 and 5 threads give bit-identical images\n", scenes[k]);
        free(a);
        free(b);
        free(c);
    }
}

/* Another seed: different noise, so nearly every pixel that has any noise
 * changes; at least half of all values must. */
static void different_seed_different_image(void **state)
{
    (void)state;
    for (int k = 0; k < N_SCENES; k++) {
        det_opts o1 = {scenes[k], 4, 2, 1, 0, 1}, o2 = {scenes[k], 4, 2, 2, 0, 1};
        float *a = render_builtin(&o1), *b = render_builtin(&o2);
        int d = count_differing(a, b);
        printf("%s: seeds 1 and 2 differ in %d of %d values\n", scenes[k], d, 3 * W * H);
        if (d < 3 * W * H / 2)
            fail_msg("%s: seeds 1 and 2 differ in only %d of %d values", scenes[k], d, 3 * W * H);
        free(a);
        free(b);
    }
}

/* 4 passes of 2 samples are the same 8 samples as one pass of 8 (samples
 * are numbered by the pixel's count so far); only the order of the float
 * additions differs, so each pixel agrees to rounding. Repeating samples
 * instead would leave differences of the size of the noise. */
static void progressive_continues_the_sequence(void **state)
{
    (void)state;
    for (int k = 0; k < N_SCENES; k++) {
        det_opts one = {scenes[k], 8, 2, 3, 0, 1}, four = {scenes[k], 8, 2, 3, 0, 4};
        float *a = render_builtin(&one), *b = render_builtin(&four);
        double worst = 0.0;
        for (int i = 0; i < 3 * W * H; i++) {
            double rel = fabs((double)a[i] - b[i]) / (fabs((double)a[i]) + 1e-3);
            worst = fmax(worst, rel);
        }
        printf("%s: 1 pass vs 4 passes of the same samples: largest relative difference %.2g\n", scenes[k], worst);
        if (worst > 1e-5)
            fail_msg("%s: progressive passes give another image (relative difference up to %.3g)", scenes[k], worst);
        free(a);
        free(b);
    }
}

/* The CPU's 8-wide BVH and the GPU's trees (--cpu-bvh 2: the 4-wide one
 * for meshes) must give the same image: bit-identical where hits are
 * unique (spheres); with triangles a ray
 * through a shared edge may be assigned to either neighbour, which moves a
 * path by rounding only, so nearly all values must still be identical and
 * the image means agree to 1e-4. */
static void bvh_layouts_agree(void **state)
{
    (void)state;
    for (int k = 0; k < N_SCENES; k++) {
        det_opts o8 = {scenes[k], 4, 2, 4, 8, 1}, o2 = {scenes[k], 4, 2, 4, 2, 1};
        float *a = render_builtin(&o8), *b = render_builtin(&o2);
        int d = count_differing(a, b);
        double ma = 0, mb = 0;
        for (int i = 0; i < 3 * W * H; i++)
            ma += a[i], mb += b[i];
        printf("%s: 8-wide vs binary BVH: %d of %d values differ, means %.6f vs %.6f\n", scenes[k], d, 3 * W * H,
               ma / (3 * W * H), mb / (3 * W * H));
        int has_triangles = strcmp(scenes[k], "cornell") == 0;
        if (!has_triangles && d)
            fail_msg("%s: the two BVH layouts give different images (%d values)", scenes[k], d);
        if (d > 3 * W * H / 100 || fabs(ma - mb) > 1e-4 * ma)
            fail_msg("%s: the two BVH layouts give different images (%d values differ)", scenes[k], d);
        free(a);
        free(b);
    }
}

/* The GPU megakernel hands a warp's samples out from a pool over an 8x4
 * tile (pw_path_trace_pool), any lane taking any pixel's next sample; the
 * pixel's samples must still sum to what tracing that pixel alone gives,
 * bit for bit, tiles over the image's edge included (their outside pixels
 * are skipped). Checked here on the host, with and without splitting. */
static void sample_pool_matches_pixels(void **state)
{
    (void)state;
    enum { PW = 20, PH = 10, SPP = 3, TW = 8, TH = 4 };
    const char *names[] = {"toy", "cornell"};
    for (int k = 0; k < 2; k++)
        for (int split = 1; split <= 2; split++) {
            pw_scene *s;
            assert_int_equal(pw_scene_builtin(names[k], &s), PW_OK);
            pw_settings st;
            pw_settings_default(s, &st);
            st.width = PW;
            st.height = PH;
            st.split = split;
            st.backend = PW_BACKEND_CPU;
            pw_renderer *r;
            assert_int_equal(pw_renderer_create(s, &st, &r), PW_OK);
            const pw_render_params *prm = &r->params;
            uint32_t kinds = split > 1 ? PW_KINDS_ALL : PW_KINDS_BASIC, ext = 0, shadow = 0, mismatches = 0;
            for (uint32_t ty = 0; ty < (PH + TH - 1) / TH; ty++)
                for (uint32_t tx = 0; tx < (PW + TW - 1) / TW; tx++) {
                    pw_vec3 radiance[SPP * TW * TH];
                    uint32_t next = 0;
                    pw_sample_pool pool = {tx * TW, ty * TH, 3, 5, 7, SPP, &next, radiance, NULL, NULL, NULL, 0, 0, 0,
                                           NULL, 0};
                    /* Tiles inside the image skip the pixel test, as the GPU's do. */
                    pool.whole = (tx + 1) * TW <= PW && (ty + 1) * TH <= PH;
                    pw_path_trace_pool(&r->view, prm, &pool, prm->split, kinds, &ext, &shadow);
                    for (uint32_t j = 0; j < TW * TH; j++) {
                        uint32_t x = pw_pool_x(&pool, j), y = pw_pool_y(&pool, j);
                        if (x >= PW || y >= PH)
                            continue;
                        pw_vec3 a = v3s(0.0f), b = v3s(0.0f);
                        for (uint32_t i = 0; i < SPP; i++)
                            pw_path_accumulate(&a, radiance[i * TW * TH + j]);
                        pw_path_trace_pixel(&r->view, prm, x, y, 7, SPP, prm->split, kinds, &b, &ext, &shadow);
                        mismatches += memcmp(&a, &b, sizeof a) != 0;
                    }
                }
            if (mismatches)
                fail_msg("%s, split %d: %u pixels differ between the sample pool and per-pixel tracing", names[k],
                         split, mismatches);
            pw_renderer_free(r);
            pw_scene_free(s);
        }
}

/* A toy-estimator scene the built-ins do not cover: 100 spheres (so the
 * 8-wide tree, not the flat blocks, and shadow rays walked ray by ray),
 * lights that are not Lambert (a toy metal and a glass sphere emit), a
 * constant sky and a pinhole camera. */
static pw_scene *hundred_spheres(void)
{
    pw_scene *s = pw_scene_alloc("hundred");
    assert_non_null(s);
    uint32_t mats[5] = {
        pw_scene_push_material(s, pw_lambert(.7f, .6f, .5f)),
        pw_scene_push_material(s, pw_metal(.8f, .8f, .9f, .3f)),
        pw_scene_push_material(s, pw_dielectric(1.5f)),
        pw_scene_push_material(s, pw_emissive(pw_metal(.9f, .9f, .9f, 0.0f), 4.0f, 3.0f, 2.0f)),
        pw_scene_push_material(s, pw_emissive(pw_dielectric(1.3f), 2.0f, 3.0f, 5.0f)),
    };
    test_rng g = {5};
    assert_int_equal(pw_scene_push_sphere(s, v3(0, -1000, 0), 999.5f, mats[0]), PW_OK);
    for (int i = 1; i < 100; i++) {
        pw_vec3 c = v3(trng_range(&g, -6, 6), trng_range(&g, -0.3f, 2.5f), trng_range(&g, -8, 2));
        uint32_t m = i == 1 ? mats[3] : i == 2 ? mats[4] : mats[i % 3];
        assert_int_equal(pw_scene_push_sphere(s, c, trng_range(&g, 0.15f, 0.6f), m), PW_OK);
    }
    s->env.type = PW_ENV_CONSTANT;
    s->env.top = v3(0.2f, 0.25f, 0.3f);
    s->env.scale = 0.8f;
    s->cam.look_from = v3(0, 2, 5);
    s->cam.look_at = v3(0, 0.5f, -2);
    s->cam.aperture = 0.0f;
    return s;
}

/* The CPU megakernel traces sphere scenes eight paths at a time in AVX2
 * lanes (backend/cpu/cpu_lanes8.c), a transcription of the shared scalar
 * path code; PATHWAVE_CPU_LANES8=0 makes it trace them one by one. Both
 * must give the same image bit for bit: the toy estimator (shadow rays,
 * the hit light skipped, rough metal, glass), no light sampling, the 8-wide
 * tree walked ray by ray (rtiow with its thin lens, and 100 spheres under
 * a constant sky with a metal and a glass light), a depth limit and
 * Russian roulette, tiles cut by the image's edge and progressive passes.
 * Every case must take the 8-lane loop where AVX2 runs at all. */
static void simd_lanes_match_scalar_loop(void **state)
{
    (void)state;
    typedef struct lanes_case {
        const char *scene; /* a built-in, or NULL for hundred_spheres() */
        int width, height, spp, passes, max_depth, rr_depth;
    } lanes_case;
    const lanes_case cases[] = {
        {"toy", 37, 23, 3, 2, -1, -1},      {"toy", 40, 20, 4, 1, 2, 1},     {"toy-small", 37, 23, 3, 1, -1, -1},
        {"toy-small", 21, 17, 2, 2, 5, 2}, {"rtiow", 37, 23, 2, 1, -1, -1}, {NULL, 33, 19, 3, 1, 6, 2},
    };
    int have_lanes = -1; /* whether this build has the 8-lane loop: the first case tells */
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const lanes_case *lc = &cases[c];
        const char *name = lc->scene ? lc->scene : "hundred spheres";
        float *img[2];
        for (int lanes = 0; lanes < 2; lanes++) {
            pw_scene *s = NULL;
            if (lc->scene)
                assert_int_equal(pw_scene_builtin(lc->scene, &s), PW_OK);
            else
                s = hundred_spheres();
            pw_settings st;
            pw_settings_default(s, &st);
            st.width = lc->width;
            st.height = lc->height;
            st.threads = 2;
            st.seed = 21;
            st.backend = PW_BACKEND_CPU;
            st.light_mode = lc->scene ? PW_LIGHT_MODE_SCENE : PW_LIGHT_MODE_TOY;
            if (lc->max_depth >= 0)
                st.max_depth = lc->max_depth, st.rr_depth = lc->rr_depth;
            if (lanes)
                unsetenv("PATHWAVE_CPU_LANES8");
            else
                setenv("PATHWAVE_CPU_LANES8", "0", 1);
            pw_renderer *r;
            if (pw_renderer_create(s, &st, &r) != PW_OK)
                fail_msg("%s: %s", name, pw_last_error());
            for (int p = 0; p < lc->passes; p++)
                assert_int_equal(pw_renderer_render(r, lc->spp / lc->passes + (p < lc->spp % lc->passes)), PW_OK);
            pw_render_stats rs;
            pw_renderer_get_stats(r, &rs);
            img[lanes] = malloc(sizeof(float) * 3 * (size_t)(lc->width * lc->height));
            assert_non_null(img[lanes]);
            assert_int_equal(pw_renderer_image(r, img[lanes]), PW_OK);
            pw_renderer_free(r);
            pw_scene_free(s);
            unsetenv("PATHWAVE_CPU_LANES8");
            if (!lanes && rs.cpu_simd_paths != 0)
                fail_msg("PATHWAVE_CPU_LANES8=0 did not turn the 8-lane loop off");
            if (lanes && have_lanes < 0)
                have_lanes = rs.cpu_simd_paths == 8;
            if (lanes && !have_lanes) {
                free(img[0]);
                free(img[1]);
                print_message("this build traces paths one by one (no AVX2): nothing to compare\n");
                skip();
            }
            if (lanes && rs.cpu_simd_paths != 8)
                fail_msg("%s no longer takes the 8-lane loop (cpu_simd_paths %u)", name, rs.cpu_simd_paths);
            if (!lc->scene && rs.shadow_rays == 0)
                fail_msg("%s: the toy estimator cast no shadow rays to its metal and glass lights", name);
        }
        int n = 3 * lc->width * lc->height, d = 0;
        double mean = 0.0;
        for (int i = 0; i < n; i++)
            d += memcmp(&img[0][i], &img[1][i], sizeof(float)) != 0, mean += img[1][i];
        printf("%s %dx%d, %d spp in %d passes, depth %d: 8 lanes vs one by one: %d of %d values differ (mean %.4f)\n",
               name, lc->width, lc->height, lc->spp, lc->passes, lc->max_depth, d, n, mean / n);
        if (d)
            fail_msg("%s: the 8-lane loop changes %d of %d values", name, d, n);
        assert_true(mean > 0.0);
        free(img[0]);
        free(img[1]);
    }
}

/* Where two spheres are hit at exactly the same distance (here nine
 * coincident ones, each emitting its own colour, cut into two blocks),
 * the 8-lane loop's packets report the sphere the scalar loop reports. */
static void simd_lanes_break_ties_like_scalar_loop(void **state)
{
    (void)state;
    const float grey[][3] = {{3, 6, -6}, {6, -4, -3}, {-4, 3, -5}, {-1, 2, -1}, {2, -5, 0}, {-1, -5, -6}, {4, 3, -3}};
    float px[2][3 * 5 * 4];
    for (int lanes = 0; lanes < 2; lanes++) {
        pw_scene *s = pw_scene_alloc("ties");
        assert_non_null(s);
        uint32_t g = pw_scene_push_material(s, pw_lambert(.5f, .5f, .5f));
        for (int i = 0; i < 9; i++)
            assert_int_equal(pw_scene_push_sphere(s, v3(0, 0, 0), 1.0f,
                                                 pw_scene_push_material(s, pw_emissive(pw_lambert(0, 0, 0),
                                                                                      (float)(i + 1), 0, 0))),
                             PW_OK);
        for (int i = 0; i < 7; i++)
            assert_int_equal(pw_scene_push_sphere(s, v3(grey[i][0], grey[i][1], grey[i][2]), 0.5f, g), PW_OK);
        s->cam.look_from = v3(0, 0, 5);
        s->cam.look_at = v3(0, 0, 0);
        s->cam.vfov_deg = 10.0f;
        pw_settings st;
        pw_settings_default(s, &st);
        st.width = 5, st.height = 4, st.max_depth = 0, st.threads = 1, st.seed = 1;
        st.light_mode = PW_LIGHT_MODE_NONE;
        st.backend = PW_BACKEND_CPU;
        if (lanes)
            unsetenv("PATHWAVE_CPU_LANES8");
        else
            setenv("PATHWAVE_CPU_LANES8", "0", 1);
        pw_renderer *r;
        assert_int_equal(pw_renderer_create(s, &st, &r), PW_OK);
        assert_int_equal(pw_renderer_render(r, 2), PW_OK);
        assert_int_equal(pw_renderer_image(r, px[lanes]), PW_OK);
        pw_render_stats rs;
        pw_renderer_get_stats(r, &rs);
        pw_renderer_free(r);
        pw_scene_free(s);
        unsetenv("PATHWAVE_CPU_LANES8");
        if (lanes && rs.cpu_simd_paths != 8)
            skip(); /* no AVX2 in this build */
    }
    /* Every pixel sees the coincident spheres: one of the nine colours. */
    for (int i = 0; i < 5 * 4; i++)
        assert_true(px[0][3 * i] >= 1.0f && px[0][3 * i] <= 9.0f && px[0][3 * i + 1] == 0.0f);
    printf("nine coincident spheres: the scalar loop reports the one emitting %g, the 8 lanes %g\n", px[0][0],
           px[1][0]);
    if (memcmp(px[0], px[1], sizeof px[0]))
        fail_msg("at a tie the 8-lane loop reports another sphere (emission %g, not %g)", px[1][0], px[0][0]);
}

/* Teardown of the tests that set PATHWAVE_CPU_LANES8: a failed assert
 * leaves the test before it unsets it, and the tests after it would run
 * under it. */
static int unset_lanes_switch(void **state)
{
    (void)state;
    unsetenv("PATHWAVE_CPU_LANES8");
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_image),
        cmocka_unit_test(thread_count_does_not_matter),
        cmocka_unit_test(different_seed_different_image),
        cmocka_unit_test(progressive_continues_the_sequence),
        cmocka_unit_test(bvh_layouts_agree),
        cmocka_unit_test(sample_pool_matches_pixels),
        cmocka_unit_test_teardown(simd_lanes_match_scalar_loop, unset_lanes_switch),
        cmocka_unit_test_teardown(simd_lanes_break_ties_like_scalar_loop, unset_lanes_switch),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
