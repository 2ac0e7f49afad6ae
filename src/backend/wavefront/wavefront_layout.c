#include "backend/wavefront/wavefront_layout.h"


#include <stdlib.h>
#include <string.h>

/* Walks the arrays in one fixed order; with w NULL it only measures. */
static size_t carve(pw_wave *w, char *base, uint32_t cap, uint32_t per_path)
{
    size_t off = 0;
    uint32_t sc = cap * per_path;
    pw_wave scratch; /* gives the element sizes when only measuring */
    pw_wave *t = w ? w : &scratch;
#define ARRAY(field, count)                                                   \
    do {                                                                      \
        if (w)                                                                \
            w->field = (void *)(base + off);                                  \
        off += ((size_t)(count) * sizeof *t->field + 255) & ~(size_t)255;      \
    } while (0)
#define STATE_ARRAY(g, vec, word, unpack) ARRAY(g[q], cap);
    for (int q = 0; q < 2; q++) {
        PW_WF_STATE(STATE_ARRAY)
        ARRAY(queue[q], cap);
    }
#undef STATE_ARRAY
    ARRAY(hit, cap); ARRAY(hit_uv, cap); ARRAY(rad, cap); ARRAY(to_connect, cap);
    ARRAY(shadow.org, sc); ARRAY(shadow.dir, sc); ARRAY(shadow.gb, sc);
    ARRAY(counters, PW_WF_COUNTERS);
#undef ARRAY
    if (w) {
        w->cap = cap;
        w->per = per_path;
    }
    return off;
}

size_t pw_wave_bytes(uint32_t cap, uint32_t shadows_per_path) { return carve(NULL, NULL, cap, shadows_per_path); }

/* Measured from the layout itself (over many paths, so the 256-byte
 * alignment of each array no longer shows), rounded up. */
size_t pw_wave_bytes_per_path(uint32_t shadows_per_path)
{
    const uint32_t n = 1u << 16;
    return (pw_wave_bytes(n, shadows_per_path) + n - 1) / n;
}

void pw_wave_carve(pw_wave *w, void *base, uint32_t cap, uint32_t shadows_per_path)
{
    memset(w, 0, sizeof *w);
    carve(w, base, cap, shadows_per_path);
}

/* The sphere lights the toy estimator casts a shadow ray to (pw_path_toy_lights). */
static uint32_t toy_lights(const pw_scene_view *s)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->n_lights; i++)
        n += s->lights[i].type == PW_LIGHT_SPHERE;
    return n;
}

int pw_wave_casts_shadows(const pw_scene_view *s, uint32_t light_mode)
{
    if (light_mode == PW_LIGHT_MODE_MIS)
        return s->n_lights > 0 || s->env_prob > 0.0f; /* pw_path_sample_light */
    return light_mode == PW_LIGHT_MODE_TOY && toy_lights(s) > 0;
}

uint32_t pw_wave_shadows_per_path(const pw_scene_view *s, uint32_t light_mode)
{
    if (light_mode == PW_LIGHT_MODE_TOY) {
        uint32_t n = toy_lights(s);
        return n < 1 ? 1 : (n > PW_MAX_SHADOW ? PW_MAX_SHADOW : n);
    }
    return 1;
}

uint32_t pw_wave_wanted_paths(uint32_t npix, uint32_t split, uint32_t max_paths)
{
    uint64_t want = split > 1 ? (uint64_t)npix * split : (uint64_t)npix * 32u;
    if (split <= 1 && want > max_paths)
        want = npix > max_paths ? npix : max_paths;
    return want > UINT32_MAX ? UINT32_MAX : (uint32_t)want;
}

void pw_wave_plan(uint32_t cap, uint32_t npix, uint32_t split, uint32_t spp_left, uint32_t *pixels,
                  uint32_t *samples)
{
    *samples = 1;
    *pixels = cap / split < npix ? cap / split : npix;
    if (split > 1 || cap < npix || spp_left <= 1)
        return;
    uint32_t most = cap / npix < spp_left ? cap / npix : spp_left;
    uint32_t waves = (spp_left + most - 1) / most;
    *samples = (spp_left + waves - 1) / waves;
}

uint32_t pw_wave_half_pixels(uint32_t width, uint32_t height)
{
    uint32_t rows = ((height + 1u) / 2u + PW_WF_TILE_H - 1u) / PW_WF_TILE_H * PW_WF_TILE_H;
    return (rows < height ? rows : height) * width;
}
