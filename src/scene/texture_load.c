/* Texture images into the scene's texel pool: files through pw_image_read,
 * compressed images in memory (a .glb's embedded PNG or JPEG) through
 * stb_image. Each file or embedded image is decoded once: later requests
 * find it in the scene's texture cache by its key. */
#include <stdlib.h>

#include <stb_image.h>

#include "core/error.h"
#include "film/tonemap.h"
#include "scene/scene.h"

pw_status pw_scene_load_texture(pw_scene *s, const char *path, uint32_t wrap, uint32_t *out)
{
    if ((*out = pw_scene_find_texture(s, path, wrap)) != UINT32_MAX)
        return PW_OK;
    float *rgb;
    int w, h;
    pw_status st = pw_image_read(path, &rgb, &w, &h);
    if (st != PW_OK)
        return st;
    st = pw_scene_add_texture(s, rgb, w, h, wrap, path, out);
    free(rgb);
    return st;
}

/* 8-bit sRGB to linear, once per code value rather than once per texel. */
static void srgb_bytes_to_linear(const unsigned char *px, size_t n, float *out)
{
    float table[256];
    for (int i = 0; i < 256; i++)
        table[i] = pw_srgb_to_linear((float)i / 255.0f);
    for (size_t i = 0; i < n; i++)
        out[i] = table[px[i]];
}

pw_status pw_scene_add_texture_srgb8(pw_scene *s, const unsigned char *rgb8, int w, int h, uint32_t wrap,
                                     const char *key, uint32_t *out)
{
    if (w < 1 || h < 1 || w > 32768 || h > 32768)
        return pw_fail(PW_ERR_FORMAT, "%s: texture size %dx%d out of range (1..32768)", key ? key : s->name, w, h);
    size_t n = (size_t)w * (size_t)h * 3;
    float *rgb = malloc(n * sizeof *rgb);
    if (!rgb)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %dx%d texture", key ? key : s->name, w, h);
    srgb_bytes_to_linear(rgb8, n, rgb);
    pw_status st = pw_scene_add_texture(s, rgb, w, h, wrap, key, out);
    free(rgb);
    return st;
}

pw_status pw_scene_decode_texture(pw_scene *s, const void *data, size_t n, uint32_t wrap, const char *key,
                                  uint32_t *out)
{
    if ((*out = pw_scene_find_texture(s, key, wrap)) != UINT32_MAX)
        return PW_OK;
    if (n == 0 || n > 0x7fffffffu)
        return pw_fail(PW_ERR_FORMAT, "%s: embedded image of %zu bytes", key, n);
    const unsigned char *bytes = data;
    int w, h, comp;
    float *rgb;
    if (stbi_is_hdr_from_memory(bytes, (int)n)) {
        rgb = stbi_loadf_from_memory(bytes, (int)n, &w, &h, &comp, 3);
        if (!rgb)
            return pw_fail(PW_ERR_FORMAT, "%s: cannot decode image (%s)", key, stbi_failure_reason());
    } else {
        unsigned char *px = stbi_load_from_memory(bytes, (int)n, &w, &h, &comp, 3);
        if (!px)
            return pw_fail(PW_ERR_FORMAT, "%s: cannot decode image (%s)", key, stbi_failure_reason());
        pw_status st = pw_scene_add_texture_srgb8(s, px, w, h, wrap, key, out);
        stbi_image_free(px);
        return st;
    }
    pw_status st = pw_scene_add_texture(s, rgb, w, h, wrap, key, out);
    free(rgb);
    return st;
}
