/* Image files: PNG through stb_image_write, EXR through tinyexr, PFM by hand
 * (a text header and raw floats); reading through stb_image and tinyexr. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stb_image.h>
#include <stb_image_write.h>
#include <tinyexr.h>

#include "core/error.h"
#include "film/tonemap.h"

static const char *extension(const char *path)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

pw_image_format pw_image_format_of(const char *path)
{
    const char *ext = path ? extension(path) : "";
    return strcasecmp(ext, "png") == 0   ? PW_IMAGE_PNG
           : strcasecmp(ext, "exr") == 0 ? PW_IMAGE_EXR
           : strcasecmp(ext, "pfm") == 0 ? PW_IMAGE_PFM
                                         : PW_IMAGE_UNKNOWN;
}

pw_status pw_tonemap_from_name(const char *name, pw_tonemap *out)
{
    if (!name)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "no tonemap name given");
    static const char *const names[] = {"clamp", "aces", "reinhard"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (pw_tonemap)i;
            return PW_OK;
        }
    return pw_fail(PW_ERR_INVALID_ARGUMENT, "unknown tonemap '%s' (clamp, aces, reinhard)", name);
}

static pw_status write_png(const char *path, const float *rgb, int w, int h, float exposure, pw_tonemap tm)
{
    unsigned char *px = malloc((size_t)w * (size_t)h * 3);
    if (!px)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (size_t i = 0; i < (size_t)w * (size_t)h * 3; i++) {
        float v = pw_linear_to_srgb(pw_tonemap_channel(rgb[i], exposure, (int)tm));
        px[i] = (unsigned char)(v * 255.0f + 0.5f);
    }
    int ok = stbi_write_png(path, w, h, 3, px, w * 3);
    free(px);
    return ok ? PW_OK : pw_fail(PW_ERR_IO, "%s: cannot write PNG (%s)", path, strerror(errno));
}

static pw_status write_exr(const char *path, const float *rgb, int w, int h)
{
    const char *err = NULL;
    int rc = SaveEXR(rgb, w, h, 3, 0, path, &err);
    if (rc == TINYEXR_SUCCESS)
        return PW_OK;
    pw_status st = pw_fail(PW_ERR_IO, "%s: cannot write EXR (%s)", path, err ? err : strerror(errno));
    if (err)
        FreeEXRErrorMessage(err);
    return st;
}

/* PFM stores rows bottom to top, little-endian when the scale is negative. */
static pw_status write_pfm(const char *path, const float *rgb, int w, int h)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return pw_fail(PW_ERR_IO, "%s: cannot write PFM (%s)", path, strerror(errno));
    int ok = fprintf(f, "PF\n%d %d\n-1.0\n", w, h) > 0;
    for (int y = h - 1; y >= 0 && ok; y--)
        ok = fwrite(rgb + (size_t)y * w * 3, sizeof(float), (size_t)w * 3, f) == (size_t)w * 3;
    if (fclose(f) != 0)
        ok = 0;
    return ok ? PW_OK : pw_fail(PW_ERR_IO, "%s: cannot write PFM (%s)", path, strerror(errno));
}

pw_status pw_image_write(const char *path, const float *rgb, int w, int h, float exposure, pw_tonemap tm)
{
    if (!path || !rgb || w < 1 || h < 1 || w > 32768 || h > 32768)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: no image or size %dx%d out of range", path ? path : "(null)", w, h);
    switch (pw_image_format_of(path)) {
    case PW_IMAGE_PNG:
        return write_png(path, rgb, w, h, exposure, tm);
    case PW_IMAGE_EXR:
        return write_exr(path, rgb, w, h);
    case PW_IMAGE_PFM:
        return write_pfm(path, rgb, w, h);
    default:
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: unknown image format '.%s' (use .png, .exr or .pfm)", path,
                       extension(path));
    }
}

static pw_status read_pfm(const char *path, float **out, int *w, int *h)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return pw_fail(PW_ERR_NOT_FOUND, "%s: cannot open (%s)", path, strerror(errno));
    char magic[3] = {0};
    float scale;
    if (fscanf(f, "%2s %d %d %f", magic, w, h, &scale) != 4 || strcmp(magic, "PF") != 0 || *w < 1 || *h < 1 ||
        *w > 32768 || *h > 32768 || scale >= 0.0f || fgetc(f) == EOF) {
        fclose(f);
        return pw_fail(PW_ERR_FORMAT, "%s: not a little-endian RGB PFM file", path);
    }
    size_t n = (size_t)*w * (size_t)*h * 3;
    float *rgb = malloc(n * sizeof *rgb);
    if (!rgb) {
        fclose(f);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %dx%d image", path, *w, *h);
    }
    int ok = 1;
    for (int y = *h - 1; y >= 0 && ok; y--)
        ok = fread(rgb + (size_t)y * *w * 3, sizeof(float), (size_t)*w * 3, f) == (size_t)*w * 3;
    fclose(f);
    if (!ok) {
        free(rgb);
        return pw_fail(PW_ERR_FORMAT, "%s: PFM data is truncated", path);
    }
    *out = rgb;
    return PW_OK;
}

static pw_status read_exr(const char *path, float **out, int *w, int *h)
{
    float *rgba = NULL;
    const char *err = NULL;
    if (LoadEXR(&rgba, w, h, path, &err) != TINYEXR_SUCCESS) {
        pw_status st = pw_fail(PW_ERR_FORMAT, "%s: cannot read EXR (%s)", path, err ? err : "unknown error");
        if (err)
            FreeEXRErrorMessage(err);
        return st;
    }
    size_t n = (size_t)*w * (size_t)*h;
    float *rgb = malloc(n * 3 * sizeof *rgb);
    if (!rgb) {
        free(rgba);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    for (size_t i = 0; i < n; i++)
        memcpy(rgb + 3 * i, rgba + 4 * i, 3 * sizeof *rgb);
    free(rgba);
    *out = rgb;
    return PW_OK;
}

pw_status pw_image_read(const char *path, float **out, int *w, int *h)
{
    *out = NULL;
    const char *ext = extension(path);
    if (strcasecmp(ext, "exr") == 0)
        return read_exr(path, out, w, h);
    if (strcasecmp(ext, "pfm") == 0)
        return read_pfm(path, out, w, h);
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return pw_fail(PW_ERR_NOT_FOUND, "%s: cannot open (%s)", path, strerror(errno));
    fclose(probe);
    int hdr = stbi_is_hdr(path);
    int comp;
    if (hdr) {
        float *rgb = stbi_loadf(path, w, h, &comp, 3);
        if (!rgb)
            return pw_fail(PW_ERR_FORMAT, "%s: cannot read image (%s)", path, stbi_failure_reason());
        *out = rgb;
        return PW_OK;
    }
    unsigned char *px = stbi_load(path, w, h, &comp, 3);
    if (!px)
        return pw_fail(PW_ERR_FORMAT, "%s: cannot read image (%s)", path, stbi_failure_reason());
    size_t n = (size_t)*w * (size_t)*h * 3;
    float *rgb = malloc(n * sizeof *rgb);
    if (rgb)
        for (size_t i = 0; i < n; i++)
            rgb[i] = pw_srgb_to_linear((float)px[i] / 255.0f);
    stbi_image_free(px);
    if (!rgb)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    *out = rgb;
    return PW_OK;
}
