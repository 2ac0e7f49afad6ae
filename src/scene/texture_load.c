/* Texture images into the scene's texel pool: files through pw_image_read,
 * compressed images in memory (a .glb's embedded PNG or JPEG) through
 * stb_image. Each file or embedded image is decoded once: later requests
 * find it in the scene's texture cache by its key. Data textures (normal
 * and metallic-roughness maps) keep their 8-bit values linear, cached under
 * "linear:" and the key, apart from the same image read as colour. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* 8-bit texels converted to float: sRGB-decoded colour, or data (c / 255). */
static pw_status add_texture_bytes(pw_scene *s, const unsigned char *rgb8, int w, int h, uint32_t wrap,
                                   const char *key, uint32_t *out, int srgb)
{
    if (w < 1 || h < 1 || w > 32768 || h > 32768)
        return pw_fail(PW_ERR_FORMAT, "%s: texture size %dx%d out of range (1..32768)", key ? key : s->name, w, h);
    size_t n = (size_t)w * (size_t)h * 3;
    float *rgb = malloc(n * sizeof *rgb);
    if (!rgb)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %dx%d texture", key ? key : s->name, w, h);
    if (srgb)
        srgb_bytes_to_linear(rgb8, n, rgb);
    else
        for (size_t i = 0; i < n; i++)
            rgb[i] = (float)rgb8[i] / 255.0f;
    pw_status st = pw_scene_add_texture(s, rgb, w, h, wrap, key, out);
    free(rgb);
    return st;
}

pw_status pw_scene_add_texture_srgb8(pw_scene *s, const unsigned char *rgb8, int w, int h, uint32_t wrap,
                                     const char *key, uint32_t *out)
{
    return add_texture_bytes(s, rgb8, w, h, wrap, key, out, 1);
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
    stbi_image_free(rgb);
    return st;
}

/* 8-bit values taken as they are (c / 255): data, not colour. */
pw_status pw_scene_add_texture_unorm8(pw_scene *s, const unsigned char *rgb8, int w, int h, uint32_t wrap,
                                      const char *key, uint32_t *out)
{
    return add_texture_bytes(s, rgb8, w, h, wrap, key, out, 0);
}

/* The cache key of a data texture. */
static int linear_key(char *buf, size_t size, const char *key)
{
    return snprintf(buf, size, "linear:%s", key) < (int)size;
}

pw_status pw_scene_load_texture_linear(pw_scene *s, const char *path, uint32_t wrap, uint32_t *out)
{
    const char *dot = strrchr(path, '.');
    if (dot && (strcasecmp(dot, ".exr") == 0 || strcasecmp(dot, ".pfm") == 0 || strcasecmp(dot, ".hdr") == 0))
        return pw_scene_load_texture(s, path, wrap, out); /* linear already */
    char key[2100];
    if (!linear_key(key, sizeof key, path))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: path too long", path);
    if ((*out = pw_scene_find_texture(s, key, wrap)) != UINT32_MAX)
        return PW_OK;
    FILE *f = fopen(path, "rb");
    if (!f)
        return pw_fail(PW_ERR_NOT_FOUND, "%s: cannot open (%s)", path, strerror(errno));
    int w, h, comp;
    unsigned char *px = stbi_load_from_file(f, &w, &h, &comp, 3);
    fclose(f);
    if (!px)
        return pw_fail(PW_ERR_FORMAT, "%s: cannot read image (%s)", path, stbi_failure_reason());
    pw_status st = pw_scene_add_texture_unorm8(s, px, w, h, wrap, key, out);
    stbi_image_free(px);
    return st;
}

pw_status pw_scene_decode_texture_linear(pw_scene *s, const void *data, size_t n, uint32_t wrap, const char *key,
                                         uint32_t *out)
{
    char lkey[2100];
    if (!linear_key(lkey, sizeof lkey, key))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: name too long", key);
    if ((*out = pw_scene_find_texture(s, lkey, wrap)) != UINT32_MAX)
        return PW_OK;
    if (n == 0 || n > 0x7fffffffu)
        return pw_fail(PW_ERR_FORMAT, "%s: embedded image of %zu bytes", key, n);
    if (stbi_is_hdr_from_memory(data, (int)n))
        return pw_scene_decode_texture(s, data, n, wrap, key, out); /* linear already */
    int w, h, comp;
    unsigned char *px = stbi_load_from_memory(data, (int)n, &w, &h, &comp, 3);
    if (!px)
        return pw_fail(PW_ERR_FORMAT, "%s: cannot decode image (%s)", key, stbi_failure_reason());
    pw_status st = pw_scene_add_texture_unorm8(s, px, w, h, wrap, lkey, out);
    stbi_image_free(px);
    return st;
}
