/* Comparison of a render of Bitterli's Cornell box with the published
 * reference render of the same scene by an independent renderer (Tungsten;
 * BENCHMARKS.md, "Correctness anchors"): shared/scenes/bitterli-cornell-box/
 * reference/TungstenRender.exr, 1024x1024 linear RGB, box-filtered down to
 * the size rendered.
 *
 * Bounds:
 * - the mean of each channel over the image within 2% of the reference's
 *   (the BENCHMARKS.md criterion);
 * - no region systematically off: the image is cut into blocks, and each
 *   block's mean must lie within k_se standard errors of the reference's
 *   plus block_tol of it. The standard error of a block comes from the
 *   render itself: it is rendered as two independent halves A and B (two
 *   seeds), and per pixel (A - B)^2 / 4 estimates the variance of the mean
 *   (A + B) / 2. block_tol allows for what that estimate does not cover:
 *   the reference's own noise (64 spp per reference pixel) and its tent
 *   reconstruction filter, which moves a little light across the sharp
 *   edges of the light and the boxes. */
#ifndef PW_TEST_REFERENCE_H
#define PW_TEST_REFERENCE_H

#include "test_common.h"

#include "pathwave.h"

/* The reference box-filtered to res x res (free it), or NULL when the file
 * is absent (path then names it). Fails the test when it cannot be read. */
static inline double *test_cornell_reference(int res, char *path, size_t n)
{
    if (!pw_test_shared_file("scenes/bitterli-cornell-box/reference/TungstenRender.exr", path, n))
        return NULL;
    float *full;
    int rw, rh;
    if (pw_image_read(path, &full, &rw, &rh) != PW_OK)
        fail_msg("reading the reference: %s", pw_last_error());
    assert_true(rw == rh && rw % res == 0);
    const int f = rw / res;
    double *ref = calloc(3 * (size_t)res * res, sizeof *ref);
    assert_non_null(ref);
    for (int y = 0; y < rh; y++)
        for (int x = 0; x < rw; x++)
            for (int c = 0; c < 3; c++)
                ref[3 * ((y / f) * res + x / f) + c] += full[3 * ((size_t)y * rw + x) + c] / (double)(f * f);
    pw_free(full);
    /* The left wall is red and the right one green in the reference (its
     * EXR stores B, G, R; the reader must map channels by name). */
    assert_true(ref[3 * (res / 2 * res + res / 32) + 0] > 2.0 * ref[3 * (res / 2 * res + res / 32) + 2]);
    assert_true(ref[3 * (res / 2 * res + res - 1 - res / 32) + 1] >
                2.0 * ref[3 * (res / 2 * res + res - 1 - res / 32) + 0]);
    return ref;
}

/* The two halves a and b against ref; prints the statistics and returns
 * the number of failed checks. */
static inline int test_compare_reference(const float *a, const float *b, const double *ref, int res, int blocks,
                                         double block_tol, double k_se)
{
    int failures = 0;
    const int n = res * res;
    for (int c = 0; c < 3; c++) {
        double sum_img = 0, sum_ref = 0, sum_abs_rel = 0, noise_var = 0;
        for (int i = 0; i < n; i++) {
            double v = 0.5 * ((double)a[3 * i + c] + b[3 * i + c]);
            sum_img += v;
            sum_ref += ref[3 * i + c];
            sum_abs_rel += fabs(v - ref[3 * i + c]) / fmax(ref[3 * i + c], 1e-3);
            double d = (double)a[3 * i + c] - b[3 * i + c];
            noise_var += d * d / 4.0;
        }
        double rel = (sum_img - sum_ref) / sum_ref;
        printf("channel %d: image mean %.5f, reference %.5f, relative difference %+.3f%% (noise %.3f%%); "
               "mean per-pixel |relative difference| %.2f%%\n",
               c, sum_img / n, sum_ref / n, 100.0 * rel, 100.0 * sqrt(noise_var) / sum_ref, 100.0 * sum_abs_rel / n);
        if (fabs(rel) >= 0.02) {
            printf("FAIL: channel %d mean differs from the reference by %.2f%% (bound 2%%)\n", c, 100.0 * rel);
            failures++;
        }
        const int bs = res / blocks;
        double worst_z = 0, worst_rel = 0;
        for (int by = 0; by < blocks; by++)
            for (int bx = 0; bx < blocks; bx++) {
                double si = 0, sr = 0, var = 0;
                for (int y = by * bs; y < (by + 1) * bs; y++)
                    for (int x = bx * bs; x < (bx + 1) * bs; x++) {
                        int i = y * res + x;
                        double d = (double)a[3 * i + c] - b[3 * i + c];
                        si += 0.5 * ((double)a[3 * i + c] + b[3 * i + c]);
                        sr += ref[3 * i + c];
                        var += d * d / 4.0;
                    }
                double nb = (double)bs * bs;
                double mi = si / nb, mr = sr / nb, se = sqrt(var) / nb;
                double z = se > 0 ? (mi - mr) / se : 0, r = mr > 0 ? (mi - mr) / mr : 0;
                if (fabs(z) > fabs(worst_z))
                    worst_z = z;
                if (fabs(r) > fabs(worst_rel))
                    worst_rel = r;
                if (fabs(mi - mr) > k_se * se + block_tol * mr) {
                    printf("FAIL: channel %d, block (%d, %d): mean %.5f, reference %.5f (%+.2f%%, %.1f standard "
                           "errors of %.3f%%)\n",
                           c, bx, by, mi, mr, 100.0 * r, z, 100.0 * se / mr);
                    failures++;
                }
            }
        printf("channel %d: %dx%d blocks: largest deviation %.2f standard errors, largest relative %+.2f%%\n", c,
               blocks, blocks, worst_z, 100.0 * worst_rel);
    }
    return failures;
}

#endif
