/* Records in structure-of-arrays form and appends to a queue from many
 * threads at once: what the wavefront's queues are made of, and the
 * records shading puts its shadow rays straight into (stage_shadow.h's
 * pw_shadow_sink). */
#ifndef PW_WAVE_QUEUE_H
#define PW_WAVE_QUEUE_H

#include "geom/ray.h"

/* 16 bytes, 16-byte aligned: one load or store of a group of four fields. */
typedef struct pw_f4 {
    PW_ALIGNAS(16) float x;
    float y, z, w;
} pw_f4;
PW_SIZE_CHECK(pw_f4, 16);

PW_HD pw_f4 pw_f4_load(const pw_f4 *p)
{
#if PW_DEVICE_CODE
    float4 q = *(const float4 *)p;
    pw_f4 r;
    r.x = q.x, r.y = q.y, r.z = q.z, r.w = q.w;
    return r;
#else
    return *p;
#endif
}

PW_HD void pw_f4_store(pw_f4 *p, float x, float y, float z, float w)
{
#if PW_DEVICE_CODE
    *(float4 *)p = make_float4(x, y, z, w);
#else
    p->x = x, p->y = y, p->z = z, p->w = w;
#endif
}

/* 8 bytes, 8-byte aligned: one load or store of two fields. */
typedef struct pw_f2 {
    PW_ALIGNAS(8) float x;
    float y;
} pw_f2;
PW_SIZE_CHECK(pw_f2, 8);

PW_HD pw_f2 pw_f2_load(const pw_f2 *p)
{
#if PW_DEVICE_CODE
    float2 q = *(const float2 *)p;
    pw_f2 r;
    r.x = q.x, r.y = q.y;
    return r;
#else
    return *p;
#endif
}

PW_HD void pw_f2_store(pw_f2 *p, float x, float y)
{
#if PW_DEVICE_CODE
    *(float2 *)p = make_float2(x, y);
#else
    p->x = x, p->y = y;
#endif
}

/* Integer fields ride in the float lanes as bit patterns (pw_int_as_float
 * copies bits). They are only moved, never computed with, so a NaN pattern
 * stays intact: GPU loads and stores and x86-64 SSE moves do not quiet
 * signalling NaNs (x87 loads would; no build of ours uses x87 floats). */
PW_HD pw_f4 pw_f4_u(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    pw_f4 r;
    r.x = pw_int_as_float((int32_t)a), r.y = pw_int_as_float((int32_t)b);
    r.z = pw_int_as_float((int32_t)c), r.w = pw_int_as_float((int32_t)d);
    return r;
}

PW_HD uint32_t pw_f4_bits(float f) { return (uint32_t)pw_float_as_int(f); }

/* Shadow records: a shadow ray and what it adds where it is unoccluded,
 * 40 bytes a ray in three arrays (the 10 floats it needs, where three
 * groups of four took 48): org: origin, tmax 16; dir: direction, the
 * contribution's red 16; gb: its green and blue 8. The ray is read first;
 * the rest of the contribution only where the ray is unoccluded. */
typedef struct pw_shadow_records {
    pw_f4 *org, *dir;
    pw_f2 *gb;
} pw_shadow_records;

PW_HD void pw_records_put(const pw_shadow_records *r, uint32_t j, pw_vec3 o, pw_vec3 d, float tmax, pw_vec3 contrib)
{
    pw_f4_store(&r->org[j], o.x, o.y, o.z, tmax);
    pw_f4_store(&r->dir[j], d.x, d.y, d.z, contrib.x);
    pw_f2_store(&r->gb[j], contrib.y, contrib.z);
}

/* Record j's ray and tmax; *red: its contribution's red. */
PW_HD pw_ray pw_records_ray(const pw_shadow_records *r, uint32_t j, float *tmax, float *red)
{
    pw_f4 o = pw_f4_load(&r->org[j]), d = pw_f4_load(&r->dir[j]);
    pw_ray ray;
    ray.o = v3(o.x, o.y, o.z);
    ray.d = v3(d.x, d.y, d.z);
    *tmax = o.w;
    *red = d.w;
    return ray;
}

/* Record j's contribution, given its red (pw_records_ray). */
PW_HD pw_vec3 pw_records_contrib(const pw_shadow_records *r, uint32_t j, float red)
{
    pw_f2 gb = pw_f2_load(&r->gb[j]);
    return v3(red, gb.x, gb.y);
}

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
