/* Image textures: bilinear lookup with repeat, clamp or mirror wrapping.
 *
 * Texture coordinates follow the OBJ / OpenGL convention: (0, 0) is the
 * bottom-left corner of the image and v grows upward, so image row 0 (the
 * top) is at v = 1. assimp hands glTF coordinates over already in this
 * convention (its glTF importer flips v). Texel (i, j) has its centre at
 * u = (i + 0.5) / w, v = 1 - (j + 0.5) / h, where the lookup returns it
 * exactly. */
#ifndef PW_TEXTURE_H
#define PW_TEXTURE_H

#include <stddef.h>

#include "scene/scene_view.h"

/* A coordinate folded into one period of its wrap mode: [0, 1) for repeat,
 * [0, 2) for mirror, [-1, 2] for clamp, so that the texel indices derived
 * from it stay small whatever the input. Non-finite input becomes 0. */
PW_HD float pw_wrap_coord(float c, uint32_t mode)
{
    if (!(fabsf(c) < 1e30f))
        return 0.0f;
    if (mode == PW_WRAP_CLAMP)
        return pw_minf(pw_maxf(c, -1.0f), 2.0f);
    float period = mode == PW_WRAP_MIRROR ? 2.0f : 1.0f;
    float r = c - period * floorf(c / period);
    return r < period ? r : 0.0f; /* c just below a multiple of the period can round up to it */
}

/* A texel index i (possibly outside 0..n-1) mapped into the image. */
PW_HD int32_t pw_wrap_index(int32_t i, int32_t n, uint32_t mode)
{
    if (mode == PW_WRAP_CLAMP)
        return i < 0 ? 0 : (i >= n ? n - 1 : i);
    if (mode == PW_WRAP_MIRROR) {
        int32_t p = i % (2 * n);
        p = p < 0 ? p + 2 * n : p;
        return p < n ? p : 2 * n - 1 - p;
    }
    int32_t r = i % n;
    return r < 0 ? r + n : r;
}

PW_HD pw_vec3 pw_texel(const float *texels, const pw_texture *t, int32_t x, int32_t y)
{
    const float *p = texels + 3 * ((size_t)t->offset + (size_t)y * t->w + (size_t)x);
    return v3(p[0], p[1], p[2]);
}

/* Bilinear interpolation of the four texels around (u, v). */
PW_HD pw_vec3 pw_texture_lookup(const pw_texture *t, const float *texels, float u, float v)
{
    uint32_t wu = t->wrap & 3u, wv = (t->wrap >> 2) & 3u;
    int32_t w = (int32_t)t->w, h = (int32_t)t->h;
    /* Image rows run downward, v upward; wrapping 1 - v is the same as
     * wrapping v and flipping, for every mode. */
    float x = pw_wrap_coord(u, wu) * (float)w - 0.5f;
    float y = pw_wrap_coord(1.0f - v, wv) * (float)h - 0.5f;
    float fx = floorf(x), fy = floorf(y);
    float ax = x - fx, ay = y - fy;
    int32_t x0 = pw_wrap_index((int32_t)fx, w, wu), x1 = pw_wrap_index((int32_t)fx + 1, w, wu);
    int32_t y0 = pw_wrap_index((int32_t)fy, h, wv), y1 = pw_wrap_index((int32_t)fy + 1, h, wv);
    pw_vec3 top = v3_lerp(pw_texel(texels, t, x0, y0), pw_texel(texels, t, x1, y0), ax);
    pw_vec3 bottom = v3_lerp(pw_texel(texels, t, x0, y1), pw_texel(texels, t, x1, y1), ax);
    return v3_lerp(top, bottom, ay);
}

/* The material m as seen at texture coordinates (u, v): albedo times the
 * albedo texture's texel (glTF's factor times texture; MTL's Kd times
 * map_Kd). m must have a texture. */
PW_HD pw_material pw_material_textured(const pw_scene_view *s, const pw_material *m, float u, float v)
{
    pw_material mt = *m;
    mt.albedo = v3_mul(m->albedo, pw_texture_lookup(&s->textures[PW_MAT_ALBEDO_TEX(m)], s->texels, u, v));
    return mt;
}

#endif
