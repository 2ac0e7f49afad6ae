/* Counter-based random numbers: every number a path draws is a pure function
 * of (seed, pixel, sample, bounce, dimension), never of thread, warp or
 * scheduling order, so every backend traces the same paths. */
#ifndef PW_RNG_H
#define PW_RNG_H

#include "core/pw_hd.h"

/* A 32-bit integer finaliser with low bias (Wellons' "lowbias32"
 * constants); two multiply-xorshift rounds are enough for path tracing. */
#define PW_HASH_M1 0x7feb352dU
#define PW_HASH_M2 0x846ca68bU
#define PW_GOLDEN 0x9e3779b9U /* 2^32 / golden ratio: steps between dimensions */

PW_HD uint32_t pw_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= PW_HASH_M1;
    x ^= x >> 15;
    x *= PW_HASH_M2;
    x ^= x >> 16;
    return x;
}

PW_HD uint32_t pw_hash_combine(uint32_t h, uint32_t v) { return pw_hash32(h ^ (v + PW_GOLDEN + (h << 6) + (h >> 2))); }

/* Host code with AVX2 hashes a bounce's first PW_RNG_BATCH dimensions in
 * one 8-lane pass of the same integer operations (a toy bounce with four
 * lights draws seven: one a light, two for a Lambert BSDF, one for Russian
 * roulette), so the numbers are bit-identical to the scalar ones the GPU
 * draws. */
#if !PW_DEVICE_CODE && !defined(__CUDACC__) && defined(__AVX2__)
#include <immintrin.h>
#define PW_RNG_BATCH 8
#endif

/* The stream for one bounce of one path; dimensions are drawn in order. */
typedef struct pw_rng {
    uint32_t key;
    uint32_t dim;
#ifdef PW_RNG_BATCH
    uint32_t batch[PW_RNG_BATCH]; /* the hashes of dimensions 0 .. PW_RNG_BATCH - 1 */
#endif
} pw_rng;

/* Key of a whole path: hashed once when the path starts, from the seed's
 * hash, the pixel, then the sample. (One hash of hash(seed) + pixel A +
 * sample B, A and B odd, saved toy-small nothing measurable and repeated
 * keys in a lattice: at 3840x2160, pixel p's sample s and pixel p +
 * 2,414,777's sample s + 97 shared every number; docs/PERFORMANCE.md.) */
PW_HD uint32_t pw_path_key(uint32_t seed, uint32_t pixel, uint32_t sample)
{
    return pw_hash_combine(pw_hash_combine(pw_hash32(seed), pixel), sample);
}

#ifdef PW_RNG_BATCH
/* pw_hash32 of 8 dimensions at once. */
static inline void pw_rng_fill_batch(pw_rng *r)
{
    const __m256i dims = _mm256_mullo_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int)PW_GOLDEN));
    __m256i x = _mm256_add_epi32(_mm256_set1_epi32((int)r->key), dims);
    x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
    x = _mm256_mullo_epi32(x, _mm256_set1_epi32((int)PW_HASH_M1));
    x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 15));
    x = _mm256_mullo_epi32(x, _mm256_set1_epi32((int)PW_HASH_M2));
    x = _mm256_xor_si256(x, _mm256_srli_epi32(x, 16));
    _mm256_storeu_si256((__m256i *)r->batch, x);
}
#endif

/* Dimensions one bounce may draw (toy shading with PW_MAX_SHADOW lights
 * draws 1 a light, 2 or 3 for the BSDF and 1 for Russian roulette). */
#define PW_RNG_BOUNCE_DIMS 64u

/* Draw d of bounce b of a path is pw_hash32(key + (64 b + d) G): one hash
 * a draw, and no two (b, d) with d < 64 share an input, as G is odd.
 * (Each bounce used to hash the key again first: without that the
 * megakernel runs a little faster on toy and toy-small;
 * docs/PERFORMANCE.md.) */
PW_HD uint32_t pw_bounce_key(uint32_t path_key, uint32_t bounce)
{
    return path_key + bounce * (PW_RNG_BOUNCE_DIMS * PW_GOLDEN);
}

PW_HD pw_rng pw_rng_for_bounce(uint32_t path_key, uint32_t bounce)
{
    pw_rng r;
    r.key = pw_bounce_key(path_key, bounce);
    r.dim = 0;
#ifdef PW_RNG_BATCH
    pw_rng_fill_batch(&r);
#endif
    return r;
}

/* The next dimension's 32 random bits. */
PW_HD uint32_t pw_rng_bits(pw_rng *r)
{
#ifdef PW_RNG_BATCH
    if (r->dim < PW_RNG_BATCH)
        return r->batch[r->dim++];
#endif
    uint32_t u = pw_hash32(r->key + r->dim * PW_GOLDEN);
    r->dim++;
    return u;
}

/* Uniform float in [0, 1): 24 random mantissa bits. */
PW_HD float pw_rng_next(pw_rng *r) { return (float)(pw_rng_bits(r) >> 8) * (1.0f / 16777216.0f); }

/* Two uniform numbers in (0, 1) from 32 random bits (pw_rng_pair; from
 * one dimension: pw_rng_next2): the high and low 16 bits, each the
 * midpoint of its 1/65,536 step. For the pairs that place a point on a
 * square by a smooth map (the lens, a toy light's cone; the pixel's
 * jitter, from the path key's own bits), where 65,536 steps a side are far
 * finer than any image shows; half the hashes of two numbers (the random
 * numbers were a notable share of toy-small's instructions;
 * docs/PERFORMANCE.md). Not for inverting a tabulated distribution (an
 * environment map's rows and columns), which would never reach entries of
 * mass under 1/65,536.
 * Midpoints, not the steps' starts: a 0 puts a whole step's probability
 * on one point, such as the pole of pw_sample_unit_sphere_surface, where a
 * direction cosine-sampled about a normal near the other pole comes out as
 * a tangent (test_furnace lost paths so while the BSDF drew a pair). */
PW_HD void pw_rng_pair(uint32_t u, float *a, float *b)
{
    /* (k + 0.5) / 65536 as one fused multiply-add, k / 65536 + 1 / 131072:
     * both forms are exact for k < 65536, so the numbers are the same, and
     * the GPU saves an instruction a number. */
    *a = fmaf((float)(u >> 16), 1.0f / 65536.0f, 0.5f / 65536.0f);
    *b = fmaf((float)(u & 0xffffu), 1.0f / 65536.0f, 0.5f / 65536.0f);
}

PW_HD void pw_rng_next2(pw_rng *r, float *a, float *b) { pw_rng_pair(pw_rng_bits(r), a, b); }

#endif
