/* The counter-based random numbers (core/rng.h): uniform in [0, 1), the
 * same for the same (key, bounce, dimension), never shared by two draws of
 * one path, and independent from bounce to bounce and from dimension to
 * dimension (a correlation between bounces would bias every estimate that
 * multiplies their samples). */
#include "test_common.h"

#include "core/rng.h"

#define N_KEYS 200000

/* Draw d of bounce b of the path with key `key`. */
static float draw(uint32_t key, uint32_t b, uint32_t d)
{
    pw_rng r = pw_rng_for_bounce(key, b);
    float u = 0.0f;
    for (uint32_t k = 0; k <= d; k++)
        u = pw_rng_next(&r);
    return u;
}

/* Mean and variance of U(0, 1) within 5 standard errors, and a chi-square
 * test over 64 bins (99.99% quantile of chi-square with 63 degrees of
 * freedom: about 118). */
static void uniform(void **state)
{
    (void)state;
    const uint32_t pairs[][2] = {{0, 0}, {0, 5}, {1, 0}, {3, 2}, {9, 63}, {1023, 7}};
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        double sum = 0.0, sum2 = 0.0;
        long bins[64] = {0};
        for (uint32_t i = 0; i < N_KEYS; i++) {
            float u = draw(pw_path_key(7, i, 3), pairs[p][0], pairs[p][1]);
            assert_true(u >= 0.0f && u < 1.0f);
            sum += u, sum2 += (double)u * u;
            bins[(int)(u * 64.0f)]++;
        }
        double mean = sum / N_KEYS, var = sum2 / N_KEYS - mean * mean, chi2 = 0.0, expect = N_KEYS / 64.0;
        for (int k = 0; k < 64; k++)
            chi2 += (bins[k] - expect) * (bins[k] - expect) / expect;
        printf("bounce %u, dimension %u: mean %.5f, variance %.5f, chi-square %.1f\n", pairs[p][0], pairs[p][1], mean,
               var, chi2);
        assert_true(fabs(mean - 0.5) < 5.0 * sqrt(1.0 / 12.0 / N_KEYS));
        assert_true(fabs(var - 1.0 / 12.0) < 5.0 * sqrt(1.0 / 180.0 / N_KEYS));
        assert_true(chi2 < 118.0);
    }
}

/* A pair of numbers of a path: from_key, the pixel's jitter (the path
 * key's own bits, pw_rng_pair), else a draw of pw_rng_next2. */
static void path_pair(uint32_t key, int from_key, float *a, float *b)
{
    pw_rng r = pw_rng_for_bounce(key, 2);
    if (from_key)
        pw_rng_pair(key, a, b);
    else
        pw_rng_next2(&r, a, b);
}

/* The two numbers of pw_rng_next2, and the pixel's jitter taken from the
 * path key over consecutive pixels: each inside (0, 1) and uniform (the
 * tests of `uniform`), and the pair uniform on the square (a chi-square
 * over 16 x 16 cells; 99.99% quantile with 255 degrees of freedom: about
 * 346), in its lowest bits too (the same over the lowest 4 bits of each
 * number's 16), and uncorrelated (within 5 standard errors). */
static void check_pairs(int from_key)
{
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, chi2 = 0.0, chi2_low = 0.0, expect = N_KEYS / 256.0;
    long cells[16][16] = {{0}}, low[16][16] = {{0}};
    for (uint32_t i = 0; i < N_KEYS; i++) {
        float a, b;
        path_pair(pw_path_key(7, i, 3), from_key, &a, &b);
        assert_true(a > 0.0f && a < 1.0f && b > 0.0f && b < 1.0f);
        sa += a, sb += b, saa += (double)a * a, sbb += (double)b * b, sab += (double)a * b;
        cells[(int)(a * 16.0f)][(int)(b * 16.0f)]++;
        low[(int)(a * 65536.0f) & 15][(int)(b * 65536.0f) & 15]++;
    }
    for (int x = 0; x < 16; x++)
        for (int y = 0; y < 16; y++) {
            chi2 += (cells[x][y] - expect) * (cells[x][y] - expect) / expect;
            chi2_low += (low[x][y] - expect) * (low[x][y] - expect) / expect;
        }
    double ma = sa / N_KEYS, mb = sb / N_KEYS, va = saa / N_KEYS - ma * ma, vb = sbb / N_KEYS - mb * mb;
    double corr = (sab / N_KEYS - ma * mb) / sqrt(va * vb);
    printf("%s: means %.5f %.5f, variances %.5f %.5f, correlation %+.5f, chi-square %.1f over 16 x 16 cells, "
           "%.1f over the low bits\n",
           from_key ? "jitter" : "pairs", ma, mb, va, vb, corr, chi2, chi2_low);
    assert_true(fabs(ma - 0.5) < 5.0 * sqrt(1.0 / 12.0 / N_KEYS) && fabs(mb - 0.5) < 5.0 * sqrt(1.0 / 12.0 / N_KEYS));
    assert_true(fabs(va - 1.0 / 12.0) < 5.0 * sqrt(1.0 / 180.0 / N_KEYS));
    assert_true(fabs(vb - 1.0 / 12.0) < 5.0 * sqrt(1.0 / 180.0 / N_KEYS));
    assert_true(fabs(corr) < 5.0 / sqrt((double)N_KEYS));
    assert_true(chi2 < 346.0 && chi2_low < 346.0);
}

static void pairs_uniform(void **state)
{
    (void)state;
    check_pairs(0);
    check_pairs(1);
}

/* Every 16-bit step of a pair is the midpoint (k + 1/2) / 65536, exactly:
 * never 0 or 1 (the constants of pw_rng_pair's fused form). */
static void pair_steps_are_midpoints(void **state)
{
    (void)state;
    for (uint32_t k = 0; k < 65536u; k++) {
        float a, b, want = ((float)k + 0.5f) / 65536.0f;
        pw_rng_pair(k << 16 | (65535u - k), &a, &b);
        if (a != want || b != ((float)(65535u - k) + 0.5f) / 65536.0f)
            fail_msg("step %u: pair (%.9g, %.9g), want (%.9g, %.9g)", k, a, b, want,
                     ((float)(65535u - k) + 0.5f) / 65536.0f);
    }
}

/* The jitter, from the key's bits, against the path's draws that hash the
 * key (the lens's pair at bounce 0, the first BSDF draw at bounce 1):
 * correlations within 5 standard errors of 0, as in `independent`. */
static void jitter_independent(void **state)
{
    (void)state;
    for (int against = 0; against < 2; against++) {
        double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        for (uint32_t i = 0; i < N_KEYS; i++) {
            uint32_t key = pw_path_key(11, i, 0);
            float jx, jy, l1, l2;
            pw_rng_pair(key, &jx, &jy);
            pw_rng lens = pw_rng_for_bounce(key, 0);
            pw_rng_next2(&lens, &l1, &l2);
            double x = jx, y = against ? draw(key, 1, 0) : l1;
            sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
        }
        double cov = sxy / N_KEYS - sx * sy / N_KEYS / N_KEYS;
        double r = cov / sqrt((sxx / N_KEYS - sx * sx / N_KEYS / N_KEYS) * (syy / N_KEYS - sy * sy / N_KEYS / N_KEYS));
        printf("jitter against %s: correlation %.5f\n", against ? "bounce 1's first draw" : "the lens", r);
        assert_true(fabs(r) < 5.0 / sqrt((double)N_KEYS));
    }
}

/* Every draw is the hash of key + d G, whichever way it was computed (the
 * AVX2 host hashes a bounce's first draws eight at a time). */
static void draws_are_hashes(void **state)
{
    (void)state;
    for (uint32_t k = 0; k < 1000; k++) {
        uint32_t key = pw_bounce_key(pw_path_key(3, k, k / 7), k % 5);
        pw_rng r = pw_rng_for_bounce(pw_path_key(3, k, k / 7), k % 5);
        for (uint32_t d = 0; d < 16; d++)
            assert_int_equal(pw_rng_bits(&r), pw_hash32(key + d * PW_GOLDEN));
    }
}

/* Correlations between draws of one path within 5 standard errors of 0
 * (the sample correlation of independent draws has standard error
 * 1 / sqrt(N)): the same dimension at the next bounces, neighbouring
 * dimensions, and the last dimension of a bounce against the first of the
 * next, whose hash inputs are neighbours. */
static void independent(void **state)
{
    (void)state;
    const uint32_t pairs[][4] = {{1, 0, 2, 0}, {1, 0, 1, 1}, {0, 0, 1, 0}, {2, 3, 3, 3}, {1, 63, 2, 0}, {5, 1, 6, 1}};
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
        double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
        for (uint32_t i = 0; i < N_KEYS; i++) {
            uint32_t key = pw_path_key(11, i, 0);
            double x = draw(key, pairs[p][0], pairs[p][1]), y = draw(key, pairs[p][2], pairs[p][3]);
            sx += x, sy += y, sxx += x * x, syy += y * y, sxy += x * y;
        }
        double cov = sxy / N_KEYS - sx * sy / N_KEYS / N_KEYS;
        double r = cov / sqrt((sxx / N_KEYS - sx * sx / N_KEYS / N_KEYS) * (syy / N_KEYS - sy * sy / N_KEYS / N_KEYS));
        printf("(bounce %u, dim %u) against (bounce %u, dim %u): correlation %.5f\n", pairs[p][0], pairs[p][1],
               pairs[p][2], pairs[p][3], r);
        assert_true(fabs(r) < 5.0 / sqrt((double)N_KEYS));
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* No two draws of a path share a hash input: bounces up to 1024 (the
 * settings' bound on depth) and the PW_RNG_BOUNCE_DIMS dimensions of each,
 * for a few keys. */
static void distinct_inputs(void **state)
{
    (void)state;
    const uint32_t n = 1025 * PW_RNG_BOUNCE_DIMS;
    uint32_t *in = (uint32_t *)malloc(n * sizeof *in);
    assert_non_null(in);
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t key = pw_path_key(k, 17, 5);
        for (uint32_t b = 0; b <= 1024; b++) {
            pw_rng r = pw_rng_for_bounce(key, b);
            for (uint32_t d = 0; d < PW_RNG_BOUNCE_DIMS; d++)
                in[b * PW_RNG_BOUNCE_DIMS + d] = r.key + d * PW_GOLDEN; /* what pw_rng_next hashes */
        }
        qsort(in, n, sizeof *in, cmp_u32);
        for (uint32_t i = 1; i < n; i++)
            assert_true(in[i] != in[i - 1]);
    }
    free(in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(uniform),
        cmocka_unit_test(pairs_uniform),
        cmocka_unit_test(pair_steps_are_midpoints),
        cmocka_unit_test(jitter_independent),
        cmocka_unit_test(draws_are_hashes),
        cmocka_unit_test(independent),
        cmocka_unit_test(distinct_inputs),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
