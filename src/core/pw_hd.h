/* Host/device qualifier: every function that decides what a path does is
 * written once as PW_HD and compiled by gcc for the CPU backends and by nvcc
 * for the CUDA backends. */
#ifndef PW_HD_H
#define PW_HD_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define PW_HD static inline __host__ __device__
#else
#define PW_HD static inline
#endif

/* PW_HD for a large body that more than one small wrapper calls (a
 * wavefront stage's path and camera versions): gcc inlined it into
 * neither once it had two callers, which made the CPU wavefront slower on
 * toy, so the host build forces it; nvcc inlines device code as before. */
#if defined(__CUDACC__)
#define PW_HD_INLINE PW_HD
#else
#define PW_HD_INLINE static inline __attribute__((always_inline))
#endif

#if defined(__CUDA_ARCH__)
#define PW_DEVICE_CODE 1
#else
#define PW_DEVICE_CODE 0
#endif

/* Alignment of a struct member, in C11 and in CUDA C++. */
#ifdef __cplusplus
#define PW_ALIGNAS(n) alignas(n)
#else
#define PW_ALIGNAS(n) _Alignas(n)
#endif

/* Whether x holds on any lane of the calling warp (every lane must call
 * it; on the host a "warp" is one path): a loop conditioned on it keeps a
 * warp's lanes together, so each pass starts converged. */
#if PW_DEVICE_CODE
#define PW_WARP_ANY(x) __any_sync(0xffffffffu, (x))
#else
#define PW_WARP_ANY(x) (x)
#endif

/* The calling thread's lane in its warp (GPU only). */
#if PW_DEVICE_CODE
static __device__ __forceinline__ unsigned pw_lane_id(void)
{
    unsigned lane;
    asm("mov.u32 %0, %%laneid;" : "=r"(lane));
    return lane;
}
#endif

/* min/max that compile to one instruction on both sides: fminf needs a
 * libm call on the host unless NaN semantics are given up globally. With a
 * NaN in a, the result is b (what the slab test wants). */
#if PW_DEVICE_CODE
#define pw_minf(a, b) fminf((a), (b))
#define pw_maxf(a, b) fmaxf((a), (b))
#else
#define pw_minf(a, b) ((a) < (b) ? (a) : (b))
#define pw_maxf(a, b) ((a) > (b) ? (a) : (b))
#endif

/* 1/sqrt(x) and 1/x for the hottest normalisations of shading (a sphere's
 * normal, the cosine-weighted direction, the direction to a sphere light,
 * an interpolated normal): on the GPU the hardware's approximations (about
 * 2 ulp and 1 ulp, subnormal input flushed), where sqrtf() and the
 * division are IEEE sequences of about ten instructions with a branch to a
 * slow path; the host computes them exactly. As with sin and cos below, a
 * direction then differs between the CPU and the GPU in its last bits, and
 * a path only where rounding sends a decision the other way (test_gpu
 * bounds how often). A triangle's normal keeps IEEE arithmetic on both
 * sides. The smooth glass's refraction and Fresnel terms kept it for a
 * while, as the furnace test's lossless glass cluster lost paths when they
 * were approximated; the cause was the reflection's drift off unit length,
 * and since that was fixed they take the approximations, the furnace
 * tests passing on both GPU backends (docs/PERFORMANCE.md; the microfacet
 * glass keeps IEEE: pw_fresnel_dielectric_ex). */
#if PW_DEVICE_CODE
static __device__ __forceinline__ float pw_rsqrt(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
static __device__ __forceinline__ float pw_rcp(float x)
{
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
/* a / b and sqrtf(x) where a few ulps do not matter (a sphere test's root,
 * light sampling's cone, a frame's axes, a direction map's texel): the
 * hardware's approximations on the GPU (about 2 ulp; the square root one
 * instruction, the IEEE sequences about ten with a branch), and exactly
 * these expressions on the host, so that the host's scalar code and its
 * 8-lane sphere tests (accel/bvh8_flat.h) agree to the bit. */
/* The product is rounded on its own (__fmul_rn), never fused into a
 * neighbouring add, so that every kernel computes the same value (the two
 * GPU backends agree to the bit). */
static __device__ __forceinline__ float pw_div_approx(float a, float b) { return __fmul_rn(a, pw_rcp(b)); }
static __device__ __forceinline__ float pw_sqrt_approx(float x)
{
    float y;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
/* a * b rounded on its own: nvcc fuses a product into the add that uses
 * it where it sees fit, and where the product has several uses it may fuse
 * it in one kernel and not in another, and the two GPU backends would
 * then trace different paths (the host never fuses: -ffp-contract=off). */
static __device__ __forceinline__ float pw_mul_rn(float a, float b) { return __fmul_rn(a, b); }
/* The cube root of x in [0, 1] (a radius drawn uniformly in volume) as
 * 2^(log2(x) / 3), two hardware approximations, where cbrtf is a long
 * sequence. Their forms that flush denormals to zero: the only x drawn is
 * 0 or at least 2^-24 (pw_sample_unit_ball's 24-bit number), and the
 * root at least 2^-8, so no denormal comes in or out, and the others'
 * rescaling of denormals (six instructions) is spared. */
static __device__ __forceinline__ float pw_cbrt_approx(float x)
{
    float l, y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l) : "f"(x));
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(__fmul_rn(l, 1.0f / 3.0f)));
    return y;
}
#else
static inline float pw_rsqrt(float x) { return 1.0f / sqrtf(x); }
static inline float pw_rcp(float x) { return 1.0f / x; }
static inline float pw_div_approx(float a, float b) { return a / b; }
static inline float pw_sqrt_approx(float x) { return sqrtf(x); }
static inline float pw_mul_rn(float a, float b) { return a * b; }
static inline float pw_cbrt_approx(float x) { return cbrtf(x); }
#endif

/* sin and cos of an angle in [-2 pi, 2 pi]: the GPU's hardware
 * approximation (absolute error about 2^-21 there) is ample for sampling
 * directions and several times faster than the precise routine. The host
 * gets an inline polynomial instead of libm's sincosf, a call of about 45
 * instructions: the angle is reduced to [-pi/4, pi/4] by a multiple of
 * pi/2 (in two parts, so the reduction is exact to float rounding), and
 * Cephes' minimax polynomials give sin and cos there to about 1 ulp; the
 * quadrant swaps and negates them. */
#if PW_DEVICE_CODE
#define pw_sincos(x, s, c) __sincosf((x), (s), (c))
#else
/* The reduction's constants (2/pi, and pi/2 as a float and the rest of
 * it) and Cephes' minimax coefficients for sin and cos on [-pi/4, pi/4]. */
#define PW_SINCOS_2_OVER_PI 0.636619772f
#define PW_SINCOS_PIO2_HI 1.57079637f
#define PW_SINCOS_PIO2_LO -4.37113883e-8f
#define PW_SINCOS_S0 -1.9515295891e-4f
#define PW_SINCOS_S1 8.3321608736e-3f
#define PW_SINCOS_S2 -1.6666654611e-1f
#define PW_SINCOS_C0 2.443315711809948e-5f
#define PW_SINCOS_C1 -1.388731625493765e-3f
#define PW_SINCOS_C2 4.166664568298827e-2f
static inline void pw_sincos_host(float x, float *s, float *c)
{
    float k = rintf(x * PW_SINCOS_2_OVER_PI);
    float r = fmaf(-k, PW_SINCOS_PIO2_HI, x);
    r = fmaf(-k, PW_SINCOS_PIO2_LO, r);
    float r2 = r * r;
    float sp = fmaf(r2 * r, fmaf(r2, fmaf(r2, PW_SINCOS_S0, PW_SINCOS_S1), PW_SINCOS_S2), r);
    float cp = fmaf(r2 * r2, fmaf(r2, fmaf(r2, PW_SINCOS_C0, PW_SINCOS_C1), PW_SINCOS_C2), fmaf(-0.5f, r2, 1.0f));
    int q = (int)k;
    float sv = (q & 1) ? cp : sp, cv = (q & 1) ? sp : cp;
    *s = (q & 2) ? -sv : sv;
    *c = ((q + 1) & 2) ? -cv : cv;
}
#define pw_sincos(x, s, c) pw_sincos_host((x), (s), (c))
#endif

/* Before a loop that the GPU compiler must keep rolled. nvcc unrolls
 * short loops and inlines everything, so a kernel carries many copies of
 * a test; past the instruction cache, warps stall fetching instructions
 * (on toy a notable share of the cycles between instructions), and a
 * rolled loop is the faster one (docs/PERFORMANCE.md). */
#if PW_DEVICE_CODE
#define PW_NO_UNROLL _Pragma("unroll 1")
#else
#define PW_NO_UNROLL
#endif

/* Index of the lowest, and of the highest, set bit of a non-zero mask
 * (the highest is one instruction on the GPU, FLO). */
#if PW_DEVICE_CODE
#define pw_lowest_bit(m) ((uint32_t)__ffs((int)(m)) - 1u)
#define pw_highest_bit(m) (31u - (uint32_t)__clz((int)(m)))
#else
#define pw_lowest_bit(m) ((uint32_t)__builtin_ctz((unsigned)(m)))
#define pw_highest_bit(m) (31u - (uint32_t)__builtin_clz((unsigned)(m)))
#endif

/* Hot structs state their size where they are declared, and this checks it. */
#ifdef __cplusplus
#define PW_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define PW_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif
#define PW_SIZE_CHECK(type, bytes) PW_STATIC_ASSERT(sizeof(type) == (bytes), #type " is not " #bytes " bytes")

#define PW_PI 3.14159265358979323846f
#define PW_INV_PI 0.31830988618379067154f
#define PW_INF 3.402823466e+38f

#endif
