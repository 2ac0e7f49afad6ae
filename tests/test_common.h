/* Helpers shared by the test programs: where third-party data lives, how a
 * test reports itself skipped to ctest, a deterministic random generator and
 * the noise statistics the statistical tests state their bounds with. */
#ifndef PW_TEST_COMMON_H
#define PW_TEST_COMMON_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "core/vec3.h"

/* ctest treats this exit status as "Skipped" (SKIP_RETURN_CODE in
 * tests/CMakeLists.txt). */
#define PW_TEST_SKIP_CODE 77

#ifndef PW_SHARED_DIR
#define PW_SHARED_DIR "../shared"
#endif

static int pw_test_skipped_count;

/* Marks the running test skipped (cmocka's skip()) and remembers it, so main
 * can exit with PW_TEST_SKIP_CODE instead of 0. */
#define PW_SKIP(...)                                                                                                   \
    do {                                                                                                               \
        printf("SKIPPED: ");                                                                                           \
        printf(__VA_ARGS__);                                                                                           \
        printf("\n");                                                                                                  \
        fflush(stdout);                                                                                                \
        pw_test_skipped_count++;                                                                                       \
        skip();                                                                                                        \
    } while (0)

/* Exit status for main: failures first, then "everything skipped". */
static inline int pw_test_exit(int failed)
{
    if (failed)
        return 1;
    return pw_test_skipped_count ? PW_TEST_SKIP_CODE : 0;
}

/* The folder third-party scenes are read from: $PATHWAVE_SHARED, else the
 * PW_SHARED_DIR the build was configured with. */
static inline const char *pw_test_shared_dir(void)
{
    const char *e = getenv("PATHWAVE_SHARED");
    return e && *e ? e : PW_SHARED_DIR;
}

/* Writes shared_dir/rel into buf; returns 1 if that is a readable file. */
static inline int pw_test_shared_file(const char *rel, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", pw_test_shared_dir(), rel);
    struct stat st;
    return stat(buf, &st) == 0 && S_ISREG(st.st_mode);
}

/* A test-local generator (splitmix64): the tests' random rays and scenes are
 * the same on every run and independent of the renderer's own RNG. */
typedef struct test_rng {
    uint64_t s;
} test_rng;

static inline uint64_t trng_u64(test_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform double in [0, 1). */
static inline double trng_unif(test_rng *r) { return (double)(trng_u64(r) >> 11) * (1.0 / 9007199254740992.0); }

static inline float trng_range(test_rng *r, float lo, float hi) { return lo + (hi - lo) * (float)trng_unif(r); }

/* A uniformly random unit direction (rejection from the cube). */
static inline pw_vec3 trng_dir(test_rng *g)
{
    for (;;) {
        pw_vec3 d = v3(trng_range(g, -1, 1), trng_range(g, -1, 1), trng_range(g, -1, 1));
        float l2 = v3_len2(d);
        if (l2 > 1e-4f && l2 <= 1.0f)
            return v3_scale(d, 1.0f / sqrtf(l2));
    }
}

/* Mean and standard error of the mean of n values. */
typedef struct test_stats {
    double mean, sd, se;
    size_t n;
} test_stats;

static inline test_stats test_stats_of(const double *v, size_t n)
{
    test_stats s = {0, 0, 0, n};
    for (size_t i = 0; i < n; i++)
        s.mean += v[i];
    s.mean /= (double)n;
    double ss = 0.0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0.0;
    s.se = s.sd / sqrt((double)n);
    return s;
}

/* Seconds of a monotonic clock, for printing only (no test asserts on time). */
#include <time.h>
static inline double test_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
