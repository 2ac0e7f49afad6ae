/* Checks of the bytes stb_image would decode, made before it sees them,
 * for what Debian's stb_image 2.27 gets wrong (found by fuzzing,
 * tests/fuzz/fuzz_image.c, and by reading its source):
 *
 * - JPEG: a Huffman table (DHT segment) whose 16 code counts add up to
 *   more than 256 is written past arrays of 257 and 256 bytes (later
 *   versions refuse it as "bad DHT header"); a scan that names a table no
 *   DHT defined decodes through uninitialised memory; a file cut short decodes
 *   without complaint, the rest grey; a header may claim far more pixels
 *   than its data can code, which then costs seconds and gigabytes.
 * - PNG: a chunk's length is believed before the bytes are there, so a
 *   damaged one allocates gigabytes; the pixels' size is allocated whole
 *   before the data is inflated, however little data there is.
 * - BMP, TGA: data past the end reads as zeros (BMP, run-length TGA) or
 *   leaves the pixels uninitialised (uncompressed TGA), so a truncated file
 *   is a silently wrong image, and a 44-byte run-length TGA a 90-megapixel
 *   one.
 * - GIF, PSD, PIC, PNM: truncated data is padded the same ways; these are
 *   refused rather than checked (no model or scene pathwave reads uses
 *   them for textures).
 *
 * The JPEG walk finds every marker stb_image could reach: from the start
 * of image it steps over each marker segment by its length and through
 * everything else (entropy-coded data, bytes between segments) byte by
 * byte, up to the end of image. A Huffman table's counts are read as
 * stb_image reads them: from the bytes that follow, whatever the segment's
 * length says, zero past the end of the data. */
#include <stdint.h>
#include <string.h>

#include "core/error.h"
#include "film/image_decode.h"

/* The most pixels a byte of JPEG data can code: one bit a block of 64 at
 * the least (a DC code), doubled for headroom. */
#define JPEG_PIXELS_PER_BYTE 1024

static unsigned get16be(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }
static unsigned get16le(const unsigned char *p) { return (unsigned)p[1] << 8 | p[0]; }
static uint32_t get32le(const unsigned char *p) { return (uint32_t)get16le(p + 2) << 16 | get16le(p); }

/* ---- JPEG ---- */

/* Markers that stand alone, without a length: TEM, restarts, SOI, and FF 00
 * (a stuffed FF byte inside entropy-coded data). */
static int standalone(unsigned char m) { return m == 0x00 || m == 0x01 || (m >= 0xd0 && m <= 0xd8); }

/* Start-of-frame markers: C0..CF but DHT (C4), JPG (C8) and DAC (CC). */
static int start_of_frame(unsigned char m) { return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc; }

/* Whether every table of the DHT segment whose length field is at p has
 * at most 256 codes; the tables it defines are added to *defined, a bit
 * for each class (DC 0, AC 1) and id (0 to 3): class * 4 + id. */
static int huffman_tables_fit(const unsigned char *d, size_t n, size_t p, unsigned *defined)
{
    long left = (long)get16be(d + p) - 2;
    size_t q = p + 2;
    while (left > 0) {
        long codes = 0;
        for (size_t i = 1; i <= 16; i++)
            codes += q + i < n ? d[q + i] : 0;
        if (codes > 256)
            return 0;
        unsigned tc = q < n ? d[q] : 0;
        if ((tc >> 4) <= 1 && (tc & 15) <= 3)
            *defined |= 1u << ((tc >> 4) * 4 + (tc & 15));
        q += 17 + (size_t)codes;
        left -= 17 + codes;
    }
    return 1;
}

/* Whether the scan whose start-of-scan length field is at p uses only
 * Huffman tables defined before it. stb_image 2.27 leaves the tables of a
 * freshly allocated decoder uninitialised and decodes through whichever
 * the scan names, so an undefined one reads past its arrays. A scan with
 * spectral start 0 decodes DC coefficients, one with an end above 0 AC
 * ones (a baseline scan both). */
static int scan_tables_defined(const unsigned char *d, size_t n, size_t p, unsigned defined)
{
    if (p + 2 >= n)
        return 1; /* cut short: the end-of-image check refuses it */
    unsigned ns = d[p + 2];
    size_t spectral = p + 3 + 2 * (size_t)ns;
    if (spectral + 1 >= n)
        return 1;
    int dc = d[spectral] == 0, ac = d[spectral + 1] > 0;
    for (unsigned i = 0; i < ns; i++) {
        unsigned t = d[p + 4 + 2 * i];
        if ((dc && !(defined >> (t >> 4) & 1)) || (ac && !(defined >> (4 + (t & 15)) & 1)))
            return 0;
    }
    return 1;
}

/* p just past the start-of-image marker. */
static pw_status check_jpeg(const char *name, const unsigned char *d, size_t n, size_t p)
{
    unsigned long long pixels = 0;
    unsigned defined = 0;
    while (p + 1 < n) {
        if (d[p] != 0xff || d[p + 1] == 0xff || standalone(d[p + 1])) {
            p++;
            continue;
        }
        unsigned char m = d[p + 1];
        if (m == 0xd9) {
            if (pixels > (unsigned long long)JPEG_PIXELS_PER_BYTE * n)
                return pw_fail(PW_ERR_FORMAT, "%s: damaged JPEG image (%llu pixels in %zu bytes)", name, pixels, n);
            return PW_OK;
        }
        if (p + 3 >= n)
            break;
        if (m == 0xc4 && !huffman_tables_fit(d, n, p + 2, &defined))
            return pw_fail(PW_ERR_FORMAT, "%s: damaged JPEG image (a Huffman table of more than 256 codes)", name);
        if (m == 0xda && !scan_tables_defined(d, n, p + 2, defined))
            return pw_fail(PW_ERR_FORMAT, "%s: damaged JPEG image (a scan uses a Huffman table never defined)", name);
        if (start_of_frame(m) && !pixels && p + 8 < n)
            pixels = (unsigned long long)get16be(d + p + 5) * get16be(d + p + 7);
        p += 2 + get16be(d + p + 2);
    }
    return pw_fail(PW_ERR_FORMAT, "%s: JPEG image is truncated (no end-of-image marker)", name);
}

/* ---- PNG ---- */

static uint32_t get32be(const unsigned char *p) { return (uint32_t)get16be(p) << 16 | get16be(p + 2); }

/* The chunks up to IEND must lie within the data, and the image data
 * (IDAT) be enough for the pixels at deflate's best, about 1032 to 1. */
static pw_status check_png(const char *name, const unsigned char *d, size_t n)
{
    uint64_t idat = 0, raw = 0;
    for (size_t p = 8; p + 8 <= n;) {
        uint64_t len = get32be(d + p);
        if (len > n - p - 8 || n - p - 8 - len < 4)
            break;
        const unsigned char *type = d + p + 4;
        if (memcmp(type, "IHDR", 4) == 0 && len >= 13 && !raw) {
            static const unsigned channels[7] = {1, 0, 3, 1, 2, 0, 4}; /* by colour type */
            uint64_t w = get32be(d + p + 8), h = get32be(d + p + 12), bits = d[p + 16], colour = d[p + 17];
            raw = h * (1 + (w * (colour < 7 ? channels[colour] : 4) * bits + 7) / 8);
        }
        if (memcmp(type, "IDAT", 4) == 0)
            idat += len;
        if (memcmp(type, "IEND", 4) == 0) {
            if (raw > 1100 * idat + 1024)
                return pw_fail(PW_ERR_FORMAT, "%s: damaged PNG image (%llu bytes of pixels from %llu of data)", name,
                               (unsigned long long)raw, (unsigned long long)idat);
            return PW_OK;
        }
        p += 12 + len;
    }
    return pw_fail(PW_ERR_FORMAT, "%s: PNG image is truncated (a chunk past the end of the data, or no end chunk)",
                   name);
}

/* ---- BMP ---- */

/* Bytes of one row of pixels, before its padding to 4 bytes. */
static uint64_t bmp_row_bytes(uint64_t w, unsigned bpp) { return (w * bpp + 7) / 8; }

static pw_status check_bmp(const char *name, const unsigned char *d, size_t n)
{
    if (n < 26)
        return pw_fail(PW_ERR_FORMAT, "%s: BMP header is truncated", name);
    uint32_t offset = get32le(d + 10), hsz = get32le(d + 14);
    int64_t w, h;
    unsigned bpp;
    if (hsz == 12) {
        w = get16le(d + 18), h = get16le(d + 20), bpp = get16le(d + 24);
    } else {
        if (n < 30)
            return pw_fail(PW_ERR_FORMAT, "%s: BMP header is truncated", name);
        w = (int32_t)get32le(d + 18), h = (int32_t)get32le(d + 22), bpp = get16le(d + 28);
    }
    if (h < 0)
        h = -h; /* rows top to bottom */
    pw_status st = pw_image_check_size(name, "BMP", w, h);
    if (st != PW_OK)
        return st;
    if (bpp == 0 || bpp > 32)
        return PW_OK; /* stb_image refuses these */
    uint64_t row = bmp_row_bytes((uint64_t)w, bpp), padded = (row + 3) / 4 * 4;
    uint64_t need = (uint64_t)offset + padded * (uint64_t)(h - 1) + row;
    if (need > n)
        return pw_fail(PW_ERR_FORMAT, "%s: BMP pixel data is truncated (%zu bytes, %llu needed)", name, n,
                       (unsigned long long)need);
    return PW_OK;
}

/* ---- TGA ---- */

/* The header fields stb_image reads, and its test of them (stbi__tga_test):
 * anything else is not a TGA file to it either. */
typedef struct tga_header {
    unsigned id_len, indexed, type, pal_start, pal_len, pal_bits, w, h, bpp;
} tga_header;

static int tga_parse(const unsigned char *d, size_t n, tga_header *t)
{
    if (n < 18)
        return 0;
    *t = (tga_header){d[0], d[1], d[2], get16le(d + 3), get16le(d + 5), d[7], get16le(d + 12), get16le(d + 14),
                      d[16]};
    int bits_ok = t->bpp == 8 || t->bpp == 15 || t->bpp == 16 || t->bpp == 24 || t->bpp == 32;
    if (t->indexed > 1 || t->w < 1 || t->h < 1 || !bits_ok)
        return 0;
    if (t->indexed)
        return (t->type == 1 || t->type == 9) && (t->bpp == 8 || t->bpp == 16) &&
               (t->pal_bits == 8 || t->pal_bits == 15 || t->pal_bits == 16 || t->pal_bits == 24 || t->pal_bits == 32);
    return t->type == 2 || t->type == 3 || t->type == 10 || t->type == 11;
}

/* Where the end of the run-length packets covering every pixel lies, or
 * SIZE_MAX when the data ends first. */
static size_t tga_rle_end(const unsigned char *d, size_t n, size_t p, uint64_t pixels, unsigned bytes)
{
    uint64_t done = 0;
    while (done < pixels) {
        if (p >= n)
            return SIZE_MAX;
        unsigned count = 1 + (d[p] & 127);
        p += 1 + (size_t)bytes * (d[p] & 128 ? 1 : count);
        done += count;
    }
    return p;
}

static pw_status check_tga(const char *name, const unsigned char *d, size_t n)
{
    tga_header t;
    if (!tga_parse(d, n, &t))
        return pw_fail(PW_ERR_FORMAT,
                       "%s: not an image pathwave reads (PNG, JPEG, BMP, TGA, Radiance HDR, OpenEXR or PFM)", name);
    pw_status st = pw_image_check_size(name, "TGA", t.w, t.h);
    if (st != PW_OK)
        return st;
    /* Pixels and palette entries take whole bytes (15 bits: 2). */
    unsigned bytes = (t.bpp + 7) / 8;
    size_t start = 18 + t.id_len + (t.indexed ? t.pal_start + (size_t)t.pal_len * ((t.pal_bits + 7) / 8) : 0);
    uint64_t pixels = (uint64_t)t.w * t.h;
    size_t end = t.type >= 9 ? tga_rle_end(d, n, start, pixels, bytes) : start + pixels * bytes;
    if (end > n)
        return pw_fail(PW_ERR_FORMAT, "%s: TGA pixel data is truncated", name);
    return PW_OK;
}

pw_status pw_stb_guard(const char *name, const unsigned char *d, size_t n)
{
    static const struct {
        const char *magic, *name;
        size_t len;
    } refused[] = {{"GIF8", "GIF", 4}, {"8BPS", "PSD", 4}, {"\x53\x80\xf6\x34", "PIC", 4}, {"P5", "PGM", 2},
                   {"P6", "PPM", 2}};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
        if (n >= refused[i].len && memcmp(d, refused[i].magic, refused[i].len) == 0)
            return pw_fail(PW_ERR_FORMAT,
                           "%s: %s images are not read (PNG, JPEG, BMP, TGA, Radiance HDR, OpenEXR and PFM are)",
                           name, refused[i].name);
    if (n >= 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0)
        return check_png(name, d, n);
    if (n >= 2 && d[0] == 'B' && d[1] == 'M')
        return check_bmp(name, d, n);
    size_t p = 0;
    while (p < n && d[p] == 0xff) /* stb_image takes any number of FF before a marker */
        p++;
    if (p > 0 && p < n && d[p] == 0xd8)
        return check_jpeg(name, d, n, p + 1);
    return check_tga(name, d, n);
}
