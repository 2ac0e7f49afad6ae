/* Image files: PNG through stb_image_write, EXR through tinyexr, PFM by hand
 * (a text header and raw floats), each encoded in memory and written
 * through pw_write_file (a temporary file renamed into place); reading
 * through pw_read_file and pw_image_decode (image_decode.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <stb_image_write.h>
#include <tinyexr.h>

#include "core/error.h"
#include "core/file_read.h"
#include "core/file_write.h"
#include "film/image_decode.h"
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

/* Bytes that stb_image_write hands over, gathered in memory. */
typedef struct byte_sink {
    unsigned char *data;
    size_t len, cap;
    int failed;
} byte_sink;

static void sink_append(void *user, void *data, int size)
{
    byte_sink *b = user;
    if (b->failed || size <= 0)
        return;
    if (b->len + (size_t)size > b->cap) {
        size_t cap = (b->len + (size_t)size) * 2;
        unsigned char *p = realloc(b->data, cap);
        if (!p) {
            b->failed = 1;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, (size_t)size);
    b->len += (size_t)size;
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
    byte_sink png = {0};
    int ok = stbi_write_png_to_func(sink_append, &png, w, h, 3, px, w * 3) && !png.failed;
    free(px);
    pw_status st = ok ? pw_write_file(path, "PNG", png.data, png.len)
                      : pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory encoding the PNG", path);
    free(png.data);
    return st;
}

/* Float R, G and B planes, stored B, G, R (the order OpenEXR viewers
 * expect, as tinyexr's SaveEXR writes them), ZIP-compressed from 16
 * pixels a side. */
static pw_status write_exr(const char *path, const float *rgb, int w, int h, const pw_image_attribute *attrs,
                           int n_attrs)
{
    EXRAttribute custom[PW_IMAGE_MAX_ATTRIBUTES];
    for (int i = 0; i < n_attrs; i++) {
        memset(&custom[i], 0, sizeof custom[i]);
        snprintf(custom[i].name, sizeof custom[i].name, "%s", attrs[i].name);
        snprintf(custom[i].type, sizeof custom[i].type, "string");
        custom[i].value = (unsigned char *)(uintptr_t)attrs[i].value; /* tinyexr only reads it */
        custom[i].size = (int)strlen(attrs[i].value);
    }
    size_t n = (size_t)w * (size_t)h;
    float *planes = malloc(3 * n * sizeof *planes);
    if (!planes)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            planes[(2 - c) * n + i] = rgb[3 * i + c];
    float *ptrs[3] = {planes, planes + n, planes + 2 * n};
    EXRChannelInfo channels[3];
    memset(channels, 0, sizeof channels);
    int types[3] = {TINYEXR_PIXELTYPE_FLOAT, TINYEXR_PIXELTYPE_FLOAT, TINYEXR_PIXELTYPE_FLOAT};
    for (int c = 0; c < 3; c++)
        channels[c].name[0] = "BGR"[c];
    EXRImage image;
    InitEXRImage(&image);
    image.images = (unsigned char **)ptrs;
    image.width = w;
    image.height = h;
    image.num_channels = 3;
    EXRHeader header;
    InitEXRHeader(&header);
    header.num_channels = 3;
    header.channels = channels;
    header.pixel_types = types;
    header.requested_pixel_types = types;
    header.compression_type = w < 16 && h < 16 ? TINYEXR_COMPRESSIONTYPE_NONE : TINYEXR_COMPRESSIONTYPE_ZIP;
    header.num_custom_attributes = n_attrs;
    header.custom_attributes = n_attrs ? custom : NULL;
    unsigned char *mem = NULL;
    const char *err = NULL;
    size_t len = SaveEXRImageToMemory(&image, &header, &mem, &err);
    free(planes);
    pw_status st = len ? pw_write_file(path, "EXR", mem, len)
                       : pw_fail(PW_ERR_IO, "%s: cannot encode EXR (%s)", path, err ? err : "tinyexr gave no reason");
    if (err)
        FreeEXRErrorMessage(err);
    free(mem);
    return st;
}

/* PFM stores rows bottom to top, little-endian when the scale is negative. */
static pw_status write_pfm(const char *path, const float *rgb, int w, int h)
{
    char head[64];
    int hn = snprintf(head, sizeof head, "PF\n%d %d\n-1.0\n", w, h);
    size_t row = (size_t)w * 3 * sizeof *rgb, len = (size_t)hn + row * (size_t)h;
    unsigned char *buf = malloc(len);
    if (!buf)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    memcpy(buf, head, (size_t)hn);
    for (int y = 0; y < h; y++)
        memcpy(buf + hn + row * (size_t)(h - 1 - y), rgb + (size_t)y * w * 3, row);
    pw_status st = pw_write_file(path, "PFM", buf, len);
    free(buf);
    return st;
}

pw_status pw_image_write(const char *path, const float *rgb, int w, int h, float exposure, pw_tonemap tm)
{
    return pw_image_write_attributes(path, rgb, w, h, exposure, tm, NULL, 0);
}

/* An attribute EXR can hold: a name of 1 to 255 bytes, a value up to 64 KiB
 * (far above any command line: a header must stay small), neither NULL. */
static pw_status check_attributes(const char *path, const pw_image_attribute *attrs, int n)
{
    if (n < 0 || n > PW_IMAGE_MAX_ATTRIBUTES || (n && !attrs))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %d image attributes (0 to %d)", path, n, PW_IMAGE_MAX_ATTRIBUTES);
    for (int i = 0; i < n; i++) {
        size_t nl = attrs[i].name ? strlen(attrs[i].name) : 0;
        if (nl < 1 || nl > 255 || !attrs[i].value || strlen(attrs[i].value) > 65536)
            return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: image attribute %d has no name, a name over 255 bytes or no "
                           "value (or one over 64 KiB)", path, i);
    }
    return PW_OK;
}

pw_status pw_image_write_attributes(const char *path, const float *rgb, int w, int h, float exposure, pw_tonemap tm,
                                    const pw_image_attribute *attrs, int n_attrs)
{
    if (!path || !rgb || w < 1 || h < 1 || w > 32768 || h > 32768)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: no image or size %dx%d out of range", path ? path : "(null)", w, h);
    pw_status st = check_attributes(path, attrs, n_attrs);
    if (st != PW_OK)
        return st;
    switch (pw_image_format_of(path)) {
    case PW_IMAGE_PNG:
        return write_png(path, rgb, w, h, exposure, tm);
    case PW_IMAGE_EXR:
        return write_exr(path, rgb, w, h, attrs, n_attrs);
    case PW_IMAGE_PFM:
        return write_pfm(path, rgb, w, h);
    default:
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: unknown image format '.%s' (use .png, .exr or .pfm)", path,
                       extension(path));
    }
}

pw_status pw_image_read(const char *path, float **out, int *w, int *h)
{
    *out = NULL;
    pw_bytes bytes;
    pw_status st = pw_read_file(path, PW_FILE_MAX_BYTES, &bytes);
    if (st != PW_OK)
        return st;
    st = pw_image_decode(path, bytes.data, bytes.len, out, w, h);
    pw_bytes_free(&bytes);
    return st;
}
