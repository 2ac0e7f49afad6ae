/* Per-render settings the integrator reads, as the renderer (api/) hands
 * them to the backends. */
#ifndef PW_RENDER_PARAMS_H
#define PW_RENDER_PARAMS_H

#include <stdint.h>

#include "pathwave.h"

typedef struct pw_render_params {
    uint32_t width, height;
    uint32_t max_depth; /* bounces: a path has at most max_depth + 1 segments */
    uint32_t rr_depth;  /* Russian roulette starts at this bounce */
    uint32_t seed;
    uint32_t light_mode; /* a pw_light_mode, never PW_LIGHT_MODE_SCENE here */
    uint32_t split;     /* child paths per path at its first hit (1: no splitting) */
    uint32_t kinds;     /* PW_KINDS_BASIC, or PW_KINDS_ALL when the scene has microfacet materials (shade/bsdf.h) */
} pw_render_params;

#endif
