/* Texture images into the scene's texel pool: files read through
 * pw_read_file, and every image, from a file or in memory (a .glb's
 * embedded PNG or JPEG), decoded by pw_image_decode_any. Each file or
 * embedded image is decoded once: later requests find it in the scene's
 * texture cache by its key. Data textures (normal and metallic-roughness
 * maps) keep their 8-bit values linear, cached under "linear:" and the
 * key, apart from the same image read as colour; float images are linear
 * either way and cached once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/file_read.h"
#include "film/image_decode.h"
#include "scene/scene.h"

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
        pw_srgb8_to_linear(rgb8, n, rgb);
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

/* 8-bit values taken as they are (c / 255): data, not colour. */
pw_status pw_scene_add_texture_unorm8(pw_scene *s, const unsigned char *rgb8, int w, int h, uint32_t wrap,
                                      const char *key, uint32_t *out)
{
    return add_texture_bytes(s, rgb8, w, h, wrap, key, out, 0);
}

/* Image bytes decoded and added under key: float pixels as they are,
 * 8-bit codes sRGB-decoded (srgb) or as data. */
static pw_status decode_and_add(pw_scene *s, const unsigned char *data, size_t n, uint32_t wrap, const char *key,
                                uint32_t *out, int srgb)
{
    pw_decoded_image im;
    pw_status st = pw_image_decode_any(key, data, n, &im);
    if (st != PW_OK)
        return st;
    st = im.rgb ? pw_scene_add_texture(s, im.rgb, im.w, im.h, wrap, key, out)
                : add_texture_bytes(s, im.rgb8, im.w, im.h, wrap, key, out, srgb);
    pw_decoded_image_free(&im);
    return st;
}

pw_status pw_scene_decode_texture(pw_scene *s, const void *data, size_t n, uint32_t wrap, const char *key,
                                  uint32_t *out)
{
    if ((*out = pw_scene_find_texture(s, key, wrap)) != UINT32_MAX)
        return PW_OK;
    return decode_and_add(s, data, n, wrap, key, out, 1);
}

/* The cache key of a data texture. */
static int linear_key(char *buf, size_t size, const char *key)
{
    return snprintf(buf, size, "linear:%s", key) < (int)size;
}

pw_status pw_scene_decode_texture_linear(pw_scene *s, const void *data, size_t n, uint32_t wrap, const char *key,
                                         uint32_t *out)
{
    /* Float pixels are linear already and go in as they are; they are
     * cached under the data key too, so a file read as data is found on its
     * next request (it is kept twice only if also read as colour). */
    char lkey[2100];
    if (!linear_key(lkey, sizeof lkey, key))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: name too long", key);
    if ((*out = pw_scene_find_texture(s, lkey, wrap)) != UINT32_MAX)
        return PW_OK;
    return decode_and_add(s, data, n, wrap, lkey, out, 0);
}

/* A file's bytes through decode (one of the two above), keyed by its path. */
static pw_status load_with(pw_scene *s, const char *path, uint32_t wrap, uint32_t *out,
                           pw_status (*decode)(pw_scene *, const void *, size_t, uint32_t, const char *, uint32_t *))
{
    pw_bytes bytes;
    pw_status st = pw_read_file(path, PW_FILE_MAX_BYTES, &bytes);
    if (st != PW_OK)
        return st;
    st = decode(s, bytes.data, bytes.len, wrap, path, out);
    pw_bytes_free(&bytes);
    return st;
}

pw_status pw_scene_load_texture(pw_scene *s, const char *path, uint32_t wrap, uint32_t *out)
{
    if ((*out = pw_scene_find_texture(s, path, wrap)) != UINT32_MAX)
        return PW_OK;
    return load_with(s, path, wrap, out, pw_scene_decode_texture);
}

pw_status pw_scene_load_texture_linear(pw_scene *s, const char *path, uint32_t wrap, uint32_t *out)
{
    char lkey[2100];
    if (linear_key(lkey, sizeof lkey, path) && (*out = pw_scene_find_texture(s, lkey, wrap)) != UINT32_MAX)
        return PW_OK;
    return load_with(s, path, wrap, out, pw_scene_decode_texture_linear);
}
