/* OpenEXR images from memory through tinyexr's lower-level calls rather
 * than LoadEXRFromMemory, which leaks the parsed header when the pixels
 * fail to load or the R, G and B channels are missing, and takes 32-bit
 * integer channels for floats. Here the header is always freed, the size
 * is checked against pathwave's limits before any pixel is allocated, half
 * and float channels are read as float, integer ones converted, and a
 * tiled image's first level is assembled from its tiles. Single-part
 * scanline or tiled images with R, G and B channels (or one channel, read
 * as grey) are read; multi-part and deep images are refused. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <tinyexr.h>

#include "core/error.h"
#include "film/image_decode.h"

int pw_exr_is(const unsigned char *data, size_t n)
{
    return n >= 4 && data[0] == 0x76 && data[1] == 0x2f && data[2] == 0x31 && data[3] == 0x01;
}

/* The channels that become R, G and B: the ones so named, or the only one. */
static int pick_channels(const EXRHeader *hd, int idx[3])
{
    if (hd->num_channels == 1) {
        idx[0] = idx[1] = idx[2] = 0;
        return 1;
    }
    static const char *const names[3] = {"R", "G", "B"};
    for (int k = 0; k < 3; k++) {
        idx[k] = -1;
        for (int c = 0; c < hd->num_channels; c++)
            if (strcmp(hd->channels[c].name, names[k]) == 0)
                idx[k] = c;
        if (idx[k] < 0)
            return 0;
    }
    return 1;
}

/* Value i of a channel as tinyexr left it: float (half was asked for as
 * float) or 32-bit unsigned. */
static float channel_value(const unsigned char *plane, int type, size_t i)
{
    if (type == TINYEXR_PIXELTYPE_UINT) {
        uint32_t u;
        memcpy(&u, plane + 4 * i, 4);
        return (float)u;
    }
    float f;
    memcpy(&f, plane + 4 * i, 4);
    return f;
}

/* A block of pixels (the whole image, or one tile) of bw x bh at (x0, y0),
 * its planes stride pixels a row, cut to the image's w x h. */
typedef struct exr_block {
    unsigned char **planes;
    int x0, y0, bw, bh, stride;
} exr_block;

static void copy_block(const exr_block *b, const EXRHeader *hd, const int idx[3], int w, int h, float *rgb)
{
    for (int y = 0; y < b->bh && b->y0 + y < h; y++)
        for (int x = 0; x < b->bw && b->x0 + x < w; x++)
            for (int k = 0; k < 3; k++)
                rgb[3 * ((size_t)(b->y0 + y) * w + (size_t)(b->x0 + x)) + k] =
                    channel_value(b->planes[idx[k]], hd->requested_pixel_types[idx[k]], (size_t)y * b->stride + x);
}

static void copy_pixels(const EXRImage *im, const EXRHeader *hd, const int idx[3], int w, int h, float *rgb)
{
    if (!hd->tiled) {
        exr_block b = {im->images, 0, 0, w, h, w};
        copy_block(&b, hd, idx, w, h, rgb);
        return;
    }
    for (int t = 0; t < im->num_tiles; t++) {
        const EXRTile *tile = &im->tiles[t];
        if (tile->level_x != 0 || tile->level_y != 0 || tile->offset_x < 0 || tile->offset_y < 0)
            continue;
        long long x0 = (long long)tile->offset_x * hd->tile_size_x, y0 = (long long)tile->offset_y * hd->tile_size_y;
        if (!tile->images || x0 >= w || y0 >= h || tile->width > hd->tile_size_x || tile->height > hd->tile_size_y)
            continue;
        exr_block b = {tile->images, (int)x0, (int)y0, tile->width, tile->height, hd->tile_size_x};
        copy_block(&b, hd, idx, w, h, rgb);
    }
}

/* tinyexr's reason, without the line break it ends some with. */
static pw_status exr_error(const char *name, const char *what, const char *err)
{
    int len = err ? (int)strcspn(err, "\n") : 0;
    pw_status st = len ? pw_fail(PW_ERR_FORMAT, "%s: %s (%.*s)", name, what, len, err)
                       : pw_fail(PW_ERR_FORMAT, "%s: %s (tinyexr gave no reason)", name, what);
    if (err)
        FreeEXRErrorMessage(err);
    return st;
}

/* The header's pixels into a new float RGB image, given a parsed header. */
static pw_status load_pixels(const char *name, const unsigned char *data, size_t n, EXRHeader *hd, float **rgb,
                             int *w, int *h)
{
    long long lw = (long long)hd->data_window.max_x - hd->data_window.min_x + 1;
    long long lh = (long long)hd->data_window.max_y - hd->data_window.min_y + 1;
    pw_status st = pw_image_check_size(name, "EXR", lw, lh);
    if (st != PW_OK)
        return st;
    int idx[3];
    if (!pick_channels(hd, idx))
        return pw_fail(PW_ERR_FORMAT, "%s: EXR image has no R, G and B channels (and more than one channel)", name);
    for (int c = 0; c < hd->num_channels; c++)
        if (hd->pixel_types[c] == TINYEXR_PIXELTYPE_HALF)
            hd->requested_pixel_types[c] = TINYEXR_PIXELTYPE_FLOAT;
    EXRImage im;
    InitEXRImage(&im);
    /* On failure tinyexr frees what it allocated (without clearing the
     * pointers, so the image is not freed again here), but a scanline
     * image's planes only as far as the image's channel count, which it
     * sets on success: set beforehand, the planes of damaged pixel data
     * are freed too rather than leaked. */
    im.num_channels = hd->num_channels;
    const char *err = NULL;
    if (LoadEXRImageFromMemory(&im, hd, data, n, &err) != TINYEXR_SUCCESS)
        return exr_error(name, "cannot read EXR pixels", err);
    if (im.width != lw || im.height != lh || (hd->tiled ? !im.tiles : !im.images)) {
        FreeEXRImage(&im);
        return pw_fail(PW_ERR_FORMAT, "%s: EXR pixels do not match the header's data window", name);
    }
    float *out = calloc((size_t)lw * (size_t)lh * 3, sizeof *out);
    if (out)
        copy_pixels(&im, hd, idx, (int)lw, (int)lh, out);
    FreeEXRImage(&im);
    if (!out)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %lldx%lld image", name, lw, lh);
    *rgb = out;
    *w = (int)lw;
    *h = (int)lh;
    return PW_OK;
}

pw_status pw_exr_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h)
{
    *rgb = NULL;
    EXRVersion version;
    if (!pw_exr_is(data, n) || ParseEXRVersionFromMemory(&version, data, n) != TINYEXR_SUCCESS)
        return pw_fail(PW_ERR_FORMAT, "%s: not an OpenEXR file (no magic number and version)", name);
    if (version.multipart || version.non_image)
        return pw_fail(PW_ERR_FORMAT, "%s: multi-part and deep EXR images are not supported", name);
    EXRHeader hd;
    InitEXRHeader(&hd);
    const char *err = NULL;
    pw_status st;
    /* tinyexr fills the header even when parsing fails, so it is freed
     * either way. */
    if (ParseEXRHeaderFromMemory(&hd, &version, data, n, &err) != TINYEXR_SUCCESS)
        st = exr_error(name, "cannot read EXR header", err);
    else
        st = load_pixels(name, data, n, &hd, rgb, w, h);
    FreeEXRHeader(&hd);
    return st;
}
