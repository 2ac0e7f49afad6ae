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

#include "shade/scene_view.h"
#include "shade/surface.h"

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
 * map_Kd), and with maps, metallic times the metallic-roughness texel's
 * blue, perceptual roughness times its green (so GGX alpha times green
 * squared), emission times the emission texel. m must be textured
 * (PW_MAT_IS_TEXTURED). */
PW_HD pw_material pw_material_textured(const pw_scene_view *s, const pw_material *m, float u, float v)
{
    pw_material mt = *m;
    if (PW_MAT_HAS_ALBEDO_TEX(m))
        mt.albedo = v3_mul(m->albedo, pw_texture_lookup(&s->textures[PW_MAT_ALBEDO_TEX(m)], s->texels, u, v));
    if (!PW_MAT_HAS_MAPS(m))
        return mt;
    uint32_t mr = PW_MAT_MR_MAP(m), em = PW_MAT_EMISSION_MAP(m);
    if (mr != 0u && m->type == PW_MAT_METALLIC_ROUGHNESS) {
        pw_vec3 t = pw_texture_lookup(&s->textures[mr - 1u], s->texels, u, v);
        mt.eta.x = m->eta.x * t.z;
        mt.roughness = m->roughness * t.y * t.y;
    }
    if (em != 0u)
        mt.emission = v3_mul(m->emission, pw_texture_lookup(&s->textures[em - 1u], s->texels, u, v));
    return mt;
}

/* maps: the shading normal bent by m's normal map at (u, v) on triangle hit
 * h. The tangent frame comes from the triangle: T along dp/du and B along
 * dp/dv (v up, which is where an OpenGL-convention map, glTF's, puts its
 * green axis), made orthogonal to the interpolated normal. The texel t
 * (linear) gives the tangent-space normal (2 t - 1) scaled by
 * PW_MAT_NORMAL_SCALE in x and y. Spheres, triangles without texture
 * coordinates or with degenerate ones, and bent normals that would face
 * away from the geometric normal keep the normal they had. */
PW_HD void pw_surface_normal_map(const pw_scene_view *s, const pw_hit *h, const pw_material *m, float u, float v,
                                 pw_surface *sf)
{
    uint32_t nm = PW_MAT_NORMAL_MAP(m);
    if (nm == 0u || h->prim < s->n_spheres || !s->uv)
        return;
    const uint32_t *ix = s->tri_idx + 3 * (h->prim - s->n_spheres);
    pw_vec3 p0 = s->pos[ix[0]];
    pw_vec3 e1 = v3_sub(s->pos[ix[1]], p0), e2 = v3_sub(s->pos[ix[2]], p0);
    const float *t0 = s->uv + 2 * ix[0], *t1 = s->uv + 2 * ix[1], *t2 = s->uv + 2 * ix[2];
    float du1 = t1[0] - t0[0], dv1 = t1[1] - t0[1], du2 = t2[0] - t0[0], dv2 = t2[1] - t0[1];
    float det = du1 * dv2 - dv1 * du2;
    if (!(fabsf(det) > 1e-12f))
        return;
    float inv = 1.0f / det;
    pw_vec3 dpdu = v3_scale(v3_sub(v3_scale(e1, dv2), v3_scale(e2, dv1)), inv);
    pw_vec3 dpdv = v3_scale(v3_sub(v3_scale(e2, du1), v3_scale(e1, du2)), inv);
    pw_vec3 n = sf->ns;
    pw_vec3 t = v3_sub(dpdu, v3_scale(n, v3_dot(n, dpdu)));
    float tl2 = v3_len2(t);
    if (!(tl2 > 0.0f))
        return;
    t = v3_scale(t, 1.0f / sqrtf(tl2));
    pw_vec3 b = v3_cross(n, t);
    if (v3_dot(b, dpdv) < 0.0f)
        b = v3_neg(b); /* mirrored texture coordinates */
    pw_vec3 c = pw_texture_lookup(&s->textures[nm - 1u], s->texels, u, v);
    float scale = PW_MAT_NORMAL_SCALE(m);
    float x = (2.0f * c.x - 1.0f) * scale, y = (2.0f * c.y - 1.0f) * scale, z = 2.0f * c.z - 1.0f;
    pw_vec3 bent = v3_add(v3_add(v3_scale(t, x), v3_scale(b, y)), v3_scale(n, z));
    float l2 = v3_len2(bent);
    if (!(l2 > 0.0f))
        return;
    bent = v3_scale(bent, 1.0f / sqrtf(l2));
    if (v3_dot(bent, sf->ng) > 0.0f)
        sf->ns = bent;
}

#endif
