/* The CPU's one parallel loop: body(ctx, begin, end) over chunks of
 * [0, n), taken by threads from an atomic counter. Each stage of the CPU
 * wavefront and the tiles of the CPU megakernel run through it. */
#ifndef PW_PARALLEL_FOR_H
#define PW_PARALLEL_FOR_H

#include <stdint.h>

#include "pathwave.h"

typedef void (*pw_range_fn)(void *ctx, uint32_t begin, uint32_t end);

/* threads <= 0 means all cores. The calling thread works too, so the loop
 * completes even if no other thread can be started. */
void pw_parallel_for(int threads, uint32_t n, uint32_t chunk, pw_range_fn body, void *ctx);
int pw_cpu_threads(int requested);

#endif
