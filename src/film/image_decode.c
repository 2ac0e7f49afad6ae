/* One entry point for image bytes: Radiance HDR (#?), OpenEXR (76 2f 31
 * 01) and PFM (PF, Pf) by pathwave's own readers, PNG, JPEG, BMP and TGA
 * through stb_image. stb_image never sees Radiance data, whose reader in
 * Debian's version hangs on damaged files (hdr_read.c), nor bytes it
 * mishandles (stb_guard.c: overflowing JPEG tables, truncated data it
 * would pad, the formats it pads without a check here); its header is read
 * first, so the size limits hold before it allocates the pixels. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* Which of stb_image's formats the bytes are, for messages: pw_stb_guard
 * lets through only PNG, JPEG, BMP and what looks like TGA (which has no
 * magic number). */
static const char *stb_format_name(const unsigned char *d, size_t n)
{
    if (n >= 4 && memcmp(d, "\x89PNG", 4) == 0)
        return "PNG";
    if (n >= 2 && d[0] == 'B' && d[1] == 'M')
        return "BMP";
    return n >= 2 && d[0] == 0xff ? "JPEG" : "TGA";
}

/* stb_image keeps the reason of the last failure of any of its decoders,
 * so its word is quoted as its own, after what pathwave knows. */
static pw_status stb_error(const char *name, const unsigned char *data, size_t n)
{
    const char *why = stbi_failure_reason();
    return pw_fail(PW_ERR_FORMAT, "%s: cannot decode the %s image: damaged or unsupported (stb_image: %s)", name,
                   stb_format_name(data, n), why && *why ? why : "no reason given");
}

static pw_status decode_stb(const char *name, const unsigned char *data, size_t n, pw_decoded_image *out)
{
    if (n > INT_MAX)
        return pw_fail(PW_ERR_FORMAT, "%s: %zu bytes, more than the image reader takes", name, n);
    pw_status st = pw_stb_guard(name, data, n);
    if (st != PW_OK)
        return st;
    int w, h, comp;
    if (!stbi_info_from_memory(data, (int)n, &w, &h, &comp))
        return stb_error(name, data, n);
    st = pw_image_check_size(name, stb_format_name(data, n), w, h);
    if (st != PW_OK)
        return st;
    int lw, lh;
    unsigned char *px = stbi_load_from_memory(data, (int)n, &lw, &lh, &comp, 3);
    if (!px)
        return stb_error(name, data, n);
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
