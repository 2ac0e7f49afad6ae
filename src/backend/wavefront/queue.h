/* Appends to a queue from many threads at once: on the GPU one atomic a
 * warp for all its lanes' items, on the CPU one a call. The wavefront's
 * queues and connect list grow through these. */
#ifndef PW_WAVE_QUEUE_H
#define PW_WAVE_QUEUE_H

#include "core/pw_hd.h"

/* Appends n items to the queue counted by *counter; returns the first slot.
 * On the GPU the active lanes of a warp (any subset of them) sum their
 * requests and the lowest one does a single atomic for all. Requests of 0 or
 * 1 item, the common case, are ranked with one ballot; larger ones gather
 * every active lane's request by shuffles. */
PW_HD uint32_t pw_wf_alloc(uint32_t *counter, uint32_t n)
{
#if PW_DEVICE_CODE
    unsigned mask = __activemask();
    unsigned lane = pw_lane_id();
    unsigned below = mask & ((1u << lane) - 1u);
    uint32_t prefix = 0, total = 0;
    if (__all_sync(mask, n <= 1u)) {
        unsigned want = __ballot_sync(mask, n == 1u);
        prefix = (uint32_t)__popc(want & below);
        total = (uint32_t)__popc(want);
    } else {
        for (unsigned m = mask; m; m &= m - 1u) {
            unsigned src = pw_lowest_bit(m);
            uint32_t v = __shfl_sync(mask, n, (int)src);
            prefix += src < lane ? v : 0u;
            total += v;
        }
    }
    unsigned leader = pw_lowest_bit(mask);
    uint32_t base = 0;
    if (lane == leader && total)
        base = atomicAdd(counter, total);
    base = __shfl_sync(mask, base, (int)leader);
    return base + prefix;
#else
    return __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
#endif
}

/* Two appends of 0 or 1 item each, to the queues counted by pair[0] and
 * pair[1] (8-byte aligned), with one atomic for both on the GPU (two on
 * the host); *a_at and *b_at
 * receive the slots (meaningful where a or b is set). Shade takes a
 * path's entries in the connect list and in the next ray queue together:
 * taken one after the other, each atomic's wait came in turn (Nsight
 * Compute: a quarter of the shade stage's stalls on toy). */
PW_HD void pw_wf_alloc_pair(uint32_t *pair, int a, int b, uint32_t *a_at, uint32_t *b_at)
{
#if PW_DEVICE_CODE
    unsigned mask = __activemask();
    unsigned lane = pw_lane_id();
    unsigned below = mask & ((1u << lane) - 1u);
    unsigned wa = __ballot_sync(mask, a), wb = __ballot_sync(mask, b);
    unsigned leader = pw_lowest_bit(mask);
    unsigned long long base = 0;
    if (lane == leader && (wa | wb))
        base = atomicAdd((unsigned long long *)pair,
                         (unsigned long long)__popc(wa) | (unsigned long long)__popc(wb) << 32);
    base = __shfl_sync(mask, base, (int)leader);
    *a_at = (uint32_t)base + (uint32_t)__popc(wa & below);
    *b_at = (uint32_t)(base >> 32) + (uint32_t)__popc(wb & below);
#else
    *a_at = __atomic_fetch_add(&pair[0], a ? 1u : 0u, __ATOMIC_RELAXED);
    *b_at = __atomic_fetch_add(&pair[1], b ? 1u : 0u, __ATOMIC_RELAXED);
#endif
}

/* Adds n to *counter, a count nobody waits for: on the GPU a warp's lanes
 * sum theirs and one adds the sum. */
PW_HD void pw_wf_count(uint32_t *counter, uint32_t n)
{
#if PW_DEVICE_CODE
    unsigned mask = __activemask();
    uint32_t total = __reduce_add_sync(mask, n);
    unsigned lane = pw_lane_id();
    if (lane == pw_lowest_bit(mask) && total)
        atomicAdd(counter, total);
#else
    __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
#endif
}

#endif
