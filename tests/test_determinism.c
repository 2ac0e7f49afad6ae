/* Reproducibility of the built-in scenes: a path's random numbers depend
 * only on (seed, pixel, sample, bounce, dimension), so the same settings give
 * the same image bit for bit, whatever the thread count; another seed gives
 * another image; progressive rendering continues the sample sequence
 * instead of repeating it; the CPU's two BVH layouts find the same hits;
 * and the sample pool the GPU megakernel's warps draw from gives each pixel
 * the same sums as tracing the pixel alone. */
#include "test_render_util.h"

#include "api/renderer.h"
#include "backend/sample_pool.h"

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
    /* The BVH layout is a tuning knob (core/tuning.h). */
    if (o->bvh_width)
        setenv("PATHWAVE_CPU_BVH", o->bvh_width == 8 ? "8" : "2", 1);
    pw_renderer *r;
    pw_status created = pw_renderer_create(s, &st, &r);
    unsetenv("PATHWAVE_CPU_BVH");
    if (created != PW_OK)
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

/* The CPU's 8-wide BVH and the GPU's trees (PATHWAVE_CPU_BVH=2: the 4-wide one
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
            const pw_render_params *prm = &r->job.params;
            uint32_t kinds = split > 1 ? PW_KINDS_ALL : PW_KINDS_BASIC, ext = 0, shadow = 0, mismatches = 0;
            for (uint32_t ty = 0; ty < (PH + TH - 1) / TH; ty++)
                for (uint32_t tx = 0; tx < (PW + TW - 1) / TW; tx++) {
                    pw_vec3 radiance[SPP * TW * TH];
                    uint32_t next = 0;
                    pw_sample_pool pool = {tx * TW, ty * TH, 3, 5, 7, SPP, &next, radiance, NULL, NULL, NULL, 0, 0, 0,
                                           NULL, 0};
                    /* Tiles inside the image skip the pixel test, as the GPU's do. */
                    pool.whole = (tx + 1) * TW <= PW && (ty + 1) * TH <= PH;
                    pw_path_trace_pool(&r->job.view, prm, &pool, prm->split, kinds, &ext, &shadow);
                    for (uint32_t j = 0; j < TW * TH; j++) {
                        uint32_t x = pw_pool_x(&pool, j), y = pw_pool_y(&pool, j);
                        if (x >= PW || y >= PH)
                            continue;
                        pw_vec3 a = v3s(0.0f), b = v3s(0.0f);
                        for (uint32_t i = 0; i < SPP; i++)
                            pw_path_accumulate(&a, radiance[i * TW * TH + j]);
                        pw_path_trace_pixel(&r->job.view, prm, x, y, 7, SPP, prm->split, kinds, &b, &ext, &shadow);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_seed_same_image),
        cmocka_unit_test(thread_count_does_not_matter),
        cmocka_unit_test(different_seed_different_image),
        cmocka_unit_test(progressive_continues_the_sequence),
        cmocka_unit_test(bvh_layouts_agree),
        cmocka_unit_test(sample_pool_matches_pixels),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
