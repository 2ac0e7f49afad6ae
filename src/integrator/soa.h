/* Records in structure-of-arrays form: groups of four or two 4-byte
 * fields read and written at once. What the wavefront's path state is
 * made of, and the records shading puts its shadow rays straight into
 * (stage_shadow.h's pw_shadow_sink). */
#ifndef PW_SOA_H
#define PW_SOA_H

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
/* A shadow record's bytes: its org and dir groups and its gb pair. */
#define PW_SHADOW_RECORD_BYTES (2 * sizeof(pw_f4) + sizeof(pw_f2))
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

#endif
