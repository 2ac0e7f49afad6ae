/* What a path carries from one stage to the next, declared once: the
 * table PW_PATH_STATE lists every field (its type, name, bytes and the
 * feature that needs it) and is expanded into pw_path, the state a
 * megakernel thread keeps in registers and the CPU keeps on its stack.
 * The wavefront stores the same fields in structure-of-arrays form
 * (backend/wavefront/wavefront.h, pw_wf_load and pw_wf_store). Adding a field is
 * a line in the table (and, for the wavefront, its place in a group). */
#ifndef PW_PATH_STATE_H
#define PW_PATH_STATE_H

#include "accel/trace.h"
#include "core/rng.h"
#include "integrator/render_params.h"

/* Path flags. */
#define PW_PATH_SPECULAR 1u        /* last vertex was the camera or a specular lobe: emission gets full weight */
#define PW_PATH_COUNT_EMISSION 2u  /* toy mode: emission is counted at the next hit */
/* Bits 8-15 of the flags: the ray's self hint for the accel layer (the
 * primitive it leaves, as pw_self_hint codes it: accel/trace.h). */
#define PW_PATH_SELF_SHIFT 8u
PW_STATIC_ASSERT(PW_PATH_SELF_SHIFT + PW_SELF_BITS <= 16u, "the self hint overflows the flags' 16 bits");

/* The stages a path goes through (integrator/path.h), as each stage
 * function names the one to run next: END and INTERSECT are 0 and 1, so
 * a stage's answer reads as whether the path goes on. Shade surface's
 * light samples are traced (stage shadow) before the next stage runs. */
typedef enum pw_next {
    PW_NEXT_END = 0,
    PW_NEXT_INTERSECT = 1,
    PW_NEXT_SHADE_SURFACE = 2,
    PW_NEXT_SHADE_BACKGROUND = 3
} pw_next;

/* X(type, name, bytes, feature): the path state. Features: ALL (every
 * path), MIS (multiple importance sampling against the lights). */
#define PW_PATH_STATE(X)                                                                                   \
    X(pw_ray, ray, 24, ALL)         /* the pending segment */                                              \
    X(pw_vec3, beta, 12, ALL)       /* throughput */                                                       \
    X(pw_vec3, L, 12, ALL)          /* radiance gathered so far */                                         \
    X(float, prev_pdf, 4, MIS)      /* solid-angle pdf of the BSDF sample that made ray */                 \
    X(uint32_t, depth, 4, ALL)      /* bounces done */                                                     \
    X(uint32_t, key, 4, ALL)        /* counter-based RNG key of (seed, pixel, sample) */                   \
    X(uint32_t, flags, 4, ALL)      /* PW_PATH_* and the ray's origin */

#define PW_PATH_STATE_MEMBER(type, name, bytes, feature) type name;
#define PW_PATH_STATE_BYTES(type, name, bytes, feature) +(bytes)
#define PW_PATH_STATE_FIELD_CHECK(type, name, bytes, feature)                                              \
    PW_STATIC_ASSERT(sizeof(type) == (bytes), "path state field " #name " is not " #bytes " bytes");

typedef struct pw_path {
    PW_PATH_STATE(PW_PATH_STATE_MEMBER)
} pw_path;
PW_PATH_STATE(PW_PATH_STATE_FIELD_CHECK)
/* The table's bytes are the struct's: no padding crept in. */
#define PW_PATH_BYTES (0 PW_PATH_STATE(PW_PATH_STATE_BYTES))
PW_STATIC_ASSERT(sizeof(pw_path) == PW_PATH_BYTES, "pw_path has padding the state table does not list");
PW_SIZE_CHECK(pw_path, 64);

PW_HD uint32_t pw_flags_self(uint32_t flags) { return flags >> PW_PATH_SELF_SHIFT & ((1u << PW_SELF_BITS) - 1u); }
PW_HD uint32_t pw_path_self(const pw_path *p) { return pw_flags_self(p->flags); }

/* A path that is no path: what a variable holds before its first begin. */
PW_HD pw_path pw_path_none(void)
{
    pw_path p;
    p.ray.o = p.ray.d = p.beta = p.L = v3s(0.0f);
    p.prev_pdf = 0.0f;
    p.depth = p.key = p.flags = 0;
    return p;
}

/* A path at the camera, with its camera ray and key. */
PW_HD pw_path pw_path_start(pw_ray ray, uint32_t key)
{
    pw_path p;
    p.ray = ray;
    p.key = key;
    p.beta = v3s(1.0f);
    p.L = v3s(0.0f);
    p.prev_pdf = 0.0f;
    p.depth = 0;
    p.flags = PW_PATH_SPECULAR | PW_PATH_COUNT_EMISSION | PW_SELF_CAMERA << PW_PATH_SELF_SHIFT;
    return p;
}

/* Ray splitting: child k of split children of a path at its first hit.
 * Each child shades that hit itself (emission, light sample, its own next
 * direction) with 1/split of the throughput and random numbers of its own,
 * so the children's radiance sums to an unbiased estimate of the path's. */
PW_HD pw_path pw_path_child(const pw_path *p, uint32_t k, uint32_t split)
{
    pw_path c = *p;
    c.beta = v3_scale(p->beta, 1.0f / (float)split);
    c.key = pw_hash_combine(p->key, 0x51f7c0deu + k);
    return c;
}

#endif
