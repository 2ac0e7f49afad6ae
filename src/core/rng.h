/* Counter-based random numbers: every number a path draws is a pure function
 * of (seed, pixel, sample, bounce, dimension), never of thread, warp or
 * scheduling order, so every backend traces the same paths. */
#ifndef PW_RNG_H
#define PW_RNG_H

#include "core/pw_hd.h"

/* A 32-bit integer finaliser with low bias (Wellons' "lowbias32"
 * constants); two multiply-xorshift rounds are enough for path tracing. */
PW_HD uint32_t pw_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

PW_HD uint32_t pw_hash_combine(uint32_t h, uint32_t v) { return pw_hash32(h ^ (v + 0x9e3779b9U + (h << 6) + (h >> 2))); }

/* The stream for one bounce of one path; dimensions are drawn in order. */
typedef struct pw_rng {
    uint32_t key;
    uint32_t dim;
} pw_rng;

/* Key of a whole path: hashed once when the path starts. */
PW_HD uint32_t pw_path_key(uint32_t seed, uint32_t pixel, uint32_t sample)
{
    return pw_hash_combine(pw_hash_combine(pw_hash32(seed), pixel), sample);
}

PW_HD pw_rng pw_rng_for_bounce(uint32_t path_key, uint32_t bounce)
{
    pw_rng r;
    r.key = pw_hash_combine(path_key, bounce);
    r.dim = 0;
    return r;
}

/* Uniform float in [0, 1): 24 random mantissa bits. */
PW_HD float pw_rng_next(pw_rng *r)
{
    uint32_t u = pw_hash32(r->key + r->dim * 0x9e3779b9U);
    r->dim++;
    return (float)(u >> 8) * (1.0f / 16777216.0f);
}

#endif
