/* Lights as the integrator reads them: the light table's entries and the
 * delta lights they point to. light_build.c fills the table,
 * light_sample.h draws from it. */
#ifndef PW_LIGHT_H
#define PW_LIGHT_H

#include "core/vec3.h"

/* lights: POINT, DISTANT and SPOT are delta lights (docs/TEXTURES_LIGHTS.md). */
enum pw_light_type {
    PW_LIGHT_SPHERE = 0,
    PW_LIGHT_TRIANGLE = 1,
    PW_LIGHT_POINT = 2,
    PW_LIGHT_DISTANT = 3,
    PW_LIGHT_SPOT = 4
};

/* 8 bytes: an emissive primitive. prim is in the unified primitive space
 * (spheres first, then triangles); for a delta light it is an index into
 * delta_lights (and delta_cones). */
typedef struct pw_light {
    uint32_t type;
    uint32_t prim;
} pw_light;
PW_SIZE_CHECK(pw_light, 8);

/* lights: 24 bytes. A light no ray can hit: a point or spot light (v:
 * position, L: intensity, W/sr per channel; a spot's along its axis) or a
 * distant light (v: unit direction toward it, L: irradiance on a surface
 * facing it). */
typedef struct pw_delta_light {
    pw_vec3 v;
    pw_vec3 L;
} pw_delta_light;
PW_SIZE_CHECK(pw_delta_light, 24);

/* lights: 20 bytes, a spot light's cone, kept apart from pw_delta_light
 * (an entry per delta light, read only for spots) so that point and
 * distant lights load what they did before. The intensity toward a
 * direction at angle theta from the axis is L * smoothstep(cos_end,
 * cos_start, cos theta), pbrt-v4's falloff: full within the start, none
 * beyond the end. */
typedef struct pw_spot_cone {
    pw_vec3 axis;    /* unit direction the spot shines along */
    float cos_end;   /* cosine of the cone's half-angle */
    float cos_start; /* cosine of the angle where the falloff starts (>= cos_end) */
} pw_spot_cone;
PW_SIZE_CHECK(pw_spot_cone, 20);

/* A primitive's entry in prim_light when it is no light. */
#define PW_NO_LIGHT 0xffffffffu

#endif
