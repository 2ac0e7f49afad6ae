/* One entry point for image bytes: Radiance HDR (#?), OpenEXR (76 2f 31
 * 01) and PFM (PF, Pf) by pathwave's own readers, everything else (PNG,
 * JPEG, BMP, TGA, GIF, PSD, PIC, PNM) through stb_image. stb_image never
 * sees Radiance data, whose reader in Debian's version hangs on damaged
 * files (hdr_read.c), and its header is read first, so the size limits
 * hold before it allocates the pixels. */
#include <limits.h>
#include <stdlib.h>

#include <stb_image.h>

#include "core/error.h"
#include "film/image_decode.h"
#include "film/tonemap.h"

pw_status pw_image_check_size(const char *name, const char *format, long long w, long long h)
{
    if (w < 1 || h < 1 || w > PW_IMAGE_MAX_SIDE || h > PW_IMAGE_MAX_SIDE ||
        (unsigned long long)w * (unsigned long long)h > PW_IMAGE_MAX_PIXELS)
        return pw_fail(PW_ERR_FORMAT, "%s: %s image size %lldx%lld is out of range (1..%d a side, at most %zu pixels)",
                       name, format, w, h, PW_IMAGE_MAX_SIDE, PW_IMAGE_MAX_PIXELS);
    return PW_OK;
}

int pw_image_is_float_format(const unsigned char *data, size_t n)
{
    return pw_hdr_is(data, n) || pw_exr_is(data, n) || pw_pfm_is(data, n);
}

static pw_status decode_stb(const char *name, const unsigned char *data, size_t n, pw_decoded_image *out)
{
    if (n > INT_MAX)
        return pw_fail(PW_ERR_FORMAT, "%s: %zu bytes, more than the image reader takes", name, n);
    int w, h, comp;
    if (!stbi_info_from_memory(data, (int)n, &w, &h, &comp))
        return pw_fail(PW_ERR_FORMAT, "%s: not an image pathwave reads (%s)", name, stbi_failure_reason());
    pw_status st = pw_image_check_size(name, "image", w, h);
    if (st != PW_OK)
        return st;
    int lw, lh;
    unsigned char *px = stbi_load_from_memory(data, (int)n, &lw, &lh, &comp, 3);
    if (!px)
        return pw_fail(PW_ERR_FORMAT, "%s: cannot decode image (%s)", name, stbi_failure_reason());
    if (lw != w || lh != h) {
        stbi_image_free(px);
        return pw_fail(PW_ERR_FORMAT, "%s: the image's header and its pixels disagree on its size", name);
    }
    out->w = w;
    out->h = h;
    out->rgb8 = px;
    return PW_OK;
}

pw_status pw_image_decode_any(const char *name, const unsigned char *data, size_t n, pw_decoded_image *out)
{
    out->w = out->h = 0;
    out->rgb = NULL;
    out->rgb8 = NULL;
    if (n == 0)
        return pw_fail(PW_ERR_FORMAT, "%s: empty image file", name);
    if (pw_hdr_is(data, n))
        return pw_hdr_decode(name, data, n, &out->rgb, &out->w, &out->h);
    if (pw_exr_is(data, n))
        return pw_exr_decode(name, data, n, &out->rgb, &out->w, &out->h);
    if (pw_pfm_is(data, n))
        return pw_pfm_decode(name, data, n, &out->rgb, &out->w, &out->h);
    return decode_stb(name, data, n, out);
}

void pw_decoded_image_free(pw_decoded_image *im)
{
    free(im->rgb);
    stbi_image_free(im->rgb8);
    im->rgb = NULL;
    im->rgb8 = NULL;
}

void pw_srgb8_to_linear(const unsigned char *px, size_t n, float *out)
{
    float table[256];
    for (int i = 0; i < 256; i++)
        table[i] = pw_srgb_to_linear((float)i / 255.0f);
    for (size_t i = 0; i < n; i++)
        out[i] = table[px[i]];
}

pw_status pw_image_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h)
{
    *rgb = NULL;
    pw_decoded_image im;
    pw_status st = pw_image_decode_any(name, data, n, &im);
    if (st != PW_OK)
        return st;
    *w = im.w;
    *h = im.h;
    if (im.rgb) {
        *rgb = im.rgb;
        return PW_OK;
    }
    size_t count = (size_t)im.w * (size_t)im.h * 3;
    float *out = malloc(count * sizeof *out);
    if (out)
        pw_srgb8_to_linear(im.rgb8, count, out);
    pw_decoded_image_free(&im);
    if (!out)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %dx%d image", name, *w, *h);
    *rgb = out;
    return PW_OK;
}
