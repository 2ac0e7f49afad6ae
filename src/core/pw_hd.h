/* Host/device qualifier: every function that decides what a path does is
 * written once as PW_HD and compiled by gcc for the CPU backends and by nvcc
 * for the CUDA backends. */
#ifndef PW_HD_H
#define PW_HD_H

#include <stdint.h>

#if defined(__CUDACC__)
#define PW_HD static inline __host__ __device__
#else
#define PW_HD static inline
#endif

#if defined(__CUDA_ARCH__)
#define PW_DEVICE_CODE 1
#else
#define PW_DEVICE_CODE 0
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

/* sin and cos of an angle in [0, 2 pi]: the GPU's hardware approximation
 * (absolute error about 2^-21 there) is ample for sampling directions and
 * several times faster than the precise routine. */
#if PW_DEVICE_CODE
#define pw_sincos(x, s, c) __sincosf((x), (s), (c))
#else
#define pw_sincos(x, s, c) sincosf((x), (s), (c))
#endif

/* Hot structs state their size where they are declared, and this checks it. */
#ifdef __cplusplus
#define PW_SIZE_CHECK(type, bytes) static_assert(sizeof(type) == (bytes), #type " is not " #bytes " bytes")
#else
#define PW_SIZE_CHECK(type, bytes) _Static_assert(sizeof(type) == (bytes), #type " is not " #bytes " bytes")
#endif

#define PW_PI 3.14159265358979323846f
#define PW_INV_PI 0.31830988618379067154f
#define PW_INF 3.402823466e+38f

#endif
