/* The built-in Cornell box against the published reference render of the
 * same scene by an independent renderer (Tungsten; BENCHMARKS.md,
 * "Correctness anchors"): shared/scenes/bitterli-cornell-box/reference/
 * TungstenRender.exr, 1024x1024 linear RGB, box-filtered down to the size
 * rendered here.
 *
 * Bounds:
 * - the mean of each channel over the image within 2% of the reference's
 *   (the BENCHMARKS.md criterion);
 * - no region systematically off: the image is cut into 8x8 blocks, and
 *   each block's mean must lie within 4.5 standard errors of the
 *   reference's plus 0.5% of it. The standard error of a block comes from
 *   the render itself: it is rendered as two independent halves A and B
 *   (two seeds), and per pixel (A - B)^2 / 4 estimates the variance of the
 *   mean (A + B) / 2 (about 0.7% for a block of 16x16 pixels at 512 spp). The
 *   0.5% allows for what that estimate does not cover: the reference's own
 *   noise (64 spp per reference pixel, about 0.15% per block) and its tent
 *   reconstruction filter, which moves a little light across the sharp
 *   edges of the light and the boxes.
 *
 * Skipped when the reference file is absent. */
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
    if (!pw_test_shared_file("scenes/bitterli-cornell-box/reference/TungstenRender.exr", path, sizeof path))
        PW_SKIP("%s is absent (set PATHWAVE_SHARED to the shared folder)", path);
    float *ref_full;
    int rw, rh;
    if (pw_image_read(path, &ref_full, &rw, &rh) != PW_OK)
        fail_msg("reading the reference: %s", pw_last_error());
    assert_true(rw == rh && rw % RES == 0);
    const int f = rw / RES;
    double *ref = calloc(3 * RES * RES, sizeof *ref);
    for (int y = 0; y < rh; y++)
        for (int x = 0; x < rw; x++)
            for (int c = 0; c < 3; c++)
                ref[3 * ((y / f) * RES + x / f) + c] += ref_full[3 * ((size_t)y * rw + x) + c] / (double)(f * f);
    pw_free(ref_full);
    /* The left wall is red and the right one green in the reference (its
     * EXR stores B, G, R; the reader must map channels by name). */
    assert_true(ref[3 * (64 * RES + 4) + 0] > 2.0 * ref[3 * (64 * RES + 4) + 2]);
    assert_true(ref[3 * (64 * RES + 123) + 1] > 2.0 * ref[3 * (64 * RES + 123) + 0]);

    double t0 = test_now();
    float *a = render_half(1001), *b = render_half(2002);
    printf("render time %.1f s (printed, not checked)\n", test_now() - t0);

    int failures = 0;
    for (int c = 0; c < 3; c++) {
        double sum_img = 0, sum_ref = 0, sum_abs_rel = 0, noise_var = 0;
        for (int i = 0; i < RES * RES; i++) {
            double v = 0.5 * ((double)a[3 * i + c] + b[3 * i + c]);
            sum_img += v;
            sum_ref += ref[3 * i + c];
            sum_abs_rel += fabs(v - ref[3 * i + c]) / fmax(ref[3 * i + c], 1e-3);
            double d = (double)a[3 * i + c] - b[3 * i + c];
            noise_var += d * d / 4.0;
        }
        double rel = (sum_img - sum_ref) / sum_ref;
        double rel_se = sqrt(noise_var) / sum_ref;
        printf("channel %d: image mean %.5f, reference %.5f, relative difference %+.3f%% (noise %.3f%%); "
               "mean per-pixel |relative difference| %.2f%%\n",
               c, sum_img / (RES * RES), sum_ref / (RES * RES), 100.0 * rel, 100.0 * rel_se,
               100.0 * sum_abs_rel / (RES * RES));
        if (fabs(rel) >= 0.02) {
            printf("FAIL: channel %d mean differs from the reference by %.2f%% (bound 2%%)\n", c, 100.0 * rel);
            failures++;
        }
        /* Blocks. */
        const int bs = RES / BLOCKS;
        double worst_z = 0, worst_rel = 0;
        for (int by = 0; by < BLOCKS; by++)
            for (int bx = 0; bx < BLOCKS; bx++) {
                double si = 0, sr = 0, var = 0;
                for (int y = by * bs; y < (by + 1) * bs; y++)
                    for (int x = bx * bs; x < (bx + 1) * bs; x++) {
                        int i = y * RES + x;
                        double d = (double)a[3 * i + c] - b[3 * i + c];
                        si += 0.5 * ((double)a[3 * i + c] + b[3 * i + c]);
                        sr += ref[3 * i + c];
                        var += d * d / 4.0;
                    }
                double n = (double)bs * bs;
                double mi = si / n, mr = sr / n, se = sqrt(var) / n;
                double z = se > 0 ? (mi - mr) / se : 0, r = mr > 0 ? (mi - mr) / mr : 0;
                if (fabs(z) > fabs(worst_z))
                    worst_z = z;
                if (fabs(r) > fabs(worst_rel))
                    worst_rel = r;
                if (fabs(mi - mr) > K_SE * se + BLOCK_TOL * mr) {
                    printf("FAIL: channel %d, block (%d, %d): mean %.5f, reference %.5f (%+.2f%%, %.1f standard "
                           "errors of %.3f%%)\n", c, bx, by, mi, mr, 100.0 * r, z, 100.0 * se / mr);
                    failures++;
                }
            }
        printf("channel %d: %dx%d blocks: largest deviation %.2f standard errors, largest relative %+.2f%%\n", c,
               BLOCKS, BLOCKS, worst_z, 100.0 * worst_rel);
    }
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
