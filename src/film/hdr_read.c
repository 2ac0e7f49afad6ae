/* Radiance HDR (RGBE) images, read by pathwave itself rather than by
 * stb_image: Debian's stb_image 2.27 loops forever on a truncated or
 * damaged run-length-encoded scanline (CVE-2021-42715: a zero count reads
 * no byte and never advances), which hung every load of such a file, even
 * of a pbrt texture nothing used.
 *
 * What is read: a first line "#?RADIANCE" or "#?RGBE"; header lines up to
 * a blank line, of which FORMAT must be 32-bit_rle_rgbe when present
 * (32-bit_rle_xyze is refused; EXPOSURE and the rest are ignored, as
 * stb_image ignores them); the resolution line "-Y H +X W", the standard
 * orientation (rows top to bottom, pixels left to right) and the only one
 * read: flipped or transposed ones ("+Y", "-X", "+X W -Y H", ...) are
 * refused by name. Each scanline is either new-style run-length encoded
 * (2, 2, then its length, then the four channels one after another as
 * runs and literal dumps) or flat pixels, where a pixel (1, 1, 1, n)
 * repeats the one before it n times (old-style runs, n shifted up 8 bits
 * for each such pixel in a row). Every run is bounded by its scanline and
 * every read by the data; a truncated file is an error naming it.
 *
 * The scanlines are walked once to check them before the pixels are
 * allocated, so a damaged file never costs the memory its header claims.
 * RGBE to float is stb_image's formula, m * 2^(e - 136), exact in float
 * for every mantissa and exponent, so the pixels equal stb_image's to the
 * bit. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "film/image_decode.h"

typedef struct hdr_reader {
    const unsigned char *p, *end;
} hdr_reader;

/* The next line without its '\n' (and a '\r' before it); 0 at the end of
 * the data before a '\n'. */
static int next_line(hdr_reader *r, const char **line, size_t *len)
{
    const unsigned char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
    if (!nl)
        return 0;
    *line = (const char *)r->p;
    *len = (size_t)(nl - r->p);
    if (*len && (*line)[*len - 1] == '\r')
        (*len)--;
    r->p = nl + 1;
    return 1;
}

static int line_is(const char *line, size_t len, const char *s) { return len == strlen(s) && memcmp(line, s, len) == 0; }

static int line_starts(const char *line, size_t len, const char *s)
{
    return len >= strlen(s) && memcmp(line, s, strlen(s)) == 0;
}

/* How much of a header line a message quotes. */
static int quoted(size_t len) { return len < 60 ? (int)len : 60; }

int pw_hdr_is(const unsigned char *data, size_t n) { return n >= 2 && data[0] == '#' && data[1] == '?'; }

/* The header lines after the first, up to the blank line. */
static pw_status read_header(const char *name, hdr_reader *r)
{
    const char *line;
    size_t len;
    if (!next_line(r, &line, &len) || !(line_is(line, len, "#?RADIANCE") || line_is(line, len, "#?RGBE")))
        return pw_fail(PW_ERR_FORMAT, "%s: not a Radiance HDR file (the first line is not #?RADIANCE or #?RGBE)",
                       name);
    for (;;) {
        if (!next_line(r, &line, &len))
            return pw_fail(PW_ERR_FORMAT, "%s: HDR header is truncated (no blank line before the resolution)", name);
        if (len == 0)
            return PW_OK;
        if (line_starts(line, len, "FORMAT=") && !line_is(line, len, "FORMAT=32-bit_rle_rgbe"))
            return pw_fail(PW_ERR_FORMAT, "%s: HDR pixel format '%.*s' is not supported (only 32-bit_rle_rgbe)",
                           name, quoted(len - 7), line + 7);
    }
}

/* A decimal size at *s (at most 9 digits, so no overflow), then skips the
 * spaces after it. */
static int parse_size(const char **s, const char *end, long long *out)
{
    const char *p = *s;
    long long v = 0;
    while (p < end && *p >= '0' && *p <= '9' && p - *s < 9)
        v = v * 10 + (*p++ - '0');
    if (p == *s || (p < end && *p >= '0' && *p <= '9'))
        return 0;
    while (p < end && *p == ' ')
        p++;
    *s = p;
    *out = v;
    return 1;
}

/* An axis token such as "-Y " at *s: sign and letter, spaces skipped. */
static int parse_axis(const char **s, const char *end, char *sign, char *axis)
{
    const char *p = *s;
    if (end - p < 3 || (p[0] != '-' && p[0] != '+') || (p[1] != 'X' && p[1] != 'Y') || p[2] != ' ')
        return 0;
    *sign = p[0];
    *axis = p[1];
    for (p += 2; p < end && *p == ' '; p++)
        ;
    *s = p;
    return 1;
}

static pw_status read_resolution(const char *name, hdr_reader *r, int *w, int *h)
{
    const char *line;
    size_t len;
    if (!next_line(r, &line, &len))
        return pw_fail(PW_ERR_FORMAT, "%s: HDR file is truncated (no resolution line)", name);
    const char *p = line, *end = line + len;
    char s1, a1, s2, a2;
    long long n1, n2;
    if (!parse_axis(&p, end, &s1, &a1) || !parse_size(&p, end, &n1) || !parse_axis(&p, end, &s2, &a2) ||
        !parse_size(&p, end, &n2) || p != end || a1 == a2)
        return pw_fail(PW_ERR_FORMAT, "%s: HDR resolution line '%.*s' is malformed (expected -Y H +X W)", name,
                       quoted(len), line);
    if (s1 != '-' || a1 != 'Y' || s2 != '+')
        return pw_fail(PW_ERR_FORMAT,
                       "%s: HDR orientation '%.*s' is not supported (only -Y H +X W: rows top to bottom, left to "
                       "right)",
                       name, quoted(len), line);
    pw_status st = pw_image_check_size(name, "HDR", n2, n1);
    if (st != PW_OK)
        return st;
    *w = (int)n2;
    *h = (int)n1;
    return PW_OK;
}

/* Why a scanline could not be read; NULL when it was. */
typedef const char *hdr_error;
static const char hdr_truncated[] = "truncated";

/* One channel of a new-style run-length-encoded scanline into scan[4 i + k]:
 * a count byte above 128 is a run of count - 128 copies of the next byte,
 * any other a dump of that many literal bytes. */
static hdr_error read_rle_channel(hdr_reader *r, int w, int k, unsigned char *scan)
{
    int i = 0;
    while (i < w) {
        if (r->p >= r->end)
            return hdr_truncated;
        int count = *r->p++;
        int run = count > 128;
        if (run)
            count -= 128;
        if (count == 0)
            return "a dump of zero bytes";
        if (count > w - i)
            return "a run longer than its scanline";
        if (r->end - r->p < (run ? 1 : count))
            return hdr_truncated;
        for (int z = 0; z < count; z++, i++)
            scan[4 * i + k] = r->p[run ? 0 : z];
        r->p += run ? 1 : count;
    }
    return NULL;
}

/* Flat pixels, with old-style runs: (1, 1, 1, n) repeats the pixel before
 * it n << shift times, the shift growing by 8 for each run in a row. */
static hdr_error read_flat_scanline(hdr_reader *r, int w, unsigned char *scan)
{
    int i = 0, shift = 0;
    while (i < w) {
        if (r->end - r->p < 4)
            return hdr_truncated;
        const unsigned char *px = r->p;
        r->p += 4;
        if (px[0] == 1 && px[1] == 1 && px[2] == 1) {
            uint64_t count = shift < 32 ? (uint64_t)px[3] << shift : (px[3] ? UINT64_MAX : 0);
            if (i == 0 && count)
                return "a run with no pixel before it";
            if (count > (uint64_t)(w - i))
                return "a run longer than its scanline";
            for (uint64_t z = 0; z < count; z++, i++)
                memcpy(scan + 4 * i, scan + 4 * (i - 1), 4);
            shift += 8;
        } else {
            memcpy(scan + 4 * i++, px, 4);
            shift = 0;
        }
    }
    return NULL;
}

/* A scanline of RGBE pixels into scan (4 w bytes). Widths outside
 * 8..32767 cannot be run-length encoded, so they are always flat. */
static hdr_error read_scanline(hdr_reader *r, int w, unsigned char *scan)
{
    const unsigned char *p = r->p;
    int rle = w >= 8 && w < 32768 && r->end - p >= 4 && p[0] == 2 && p[1] == 2 && !(p[2] & 0x80);
    if (!rle)
        return read_flat_scanline(r, w, scan);
    if ((p[2] << 8 | p[3]) != w)
        return "its encoded length differs from the image width";
    r->p += 4;
    for (int k = 0; k < 4; k++) {
        hdr_error e = read_rle_channel(r, w, k, scan);
        if (e)
            return e;
    }
    return NULL;
}

/* stb_image's conversion: a zero exponent is black, else each mantissa
 * times 2^(e - 136). */
static void rgbe_to_float(const unsigned char *scan, int w, float *out)
{
    for (int i = 0; i < w; i++, scan += 4, out += 3) {
        if (scan[3] == 0) {
            out[0] = out[1] = out[2] = 0.0f;
            continue;
        }
        float f = (float)ldexp(1.0, scan[3] - 136);
        for (int c = 0; c < 3; c++)
            out[c] = (float)scan[c] * f;
    }
}

/* Every scanline, converted into rgb when it is not NULL. */
static pw_status read_pixels(const char *name, hdr_reader r, int w, int h, unsigned char *scan, float *rgb)
{
    for (int j = 0; j < h; j++) {
        hdr_error e = read_scanline(&r, w, scan);
        if (e == hdr_truncated)
            return pw_fail(PW_ERR_FORMAT, "%s: HDR pixel data is truncated (scanline %d of %d)", name, j + 1, h);
        if (e)
            return pw_fail(PW_ERR_FORMAT, "%s: HDR scanline %d of %d is damaged (%s)", name, j + 1, h, e);
        if (rgb)
            rgbe_to_float(scan, w, rgb + (size_t)j * w * 3);
    }
    return PW_OK;
}

pw_status pw_hdr_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h)
{
    *rgb = NULL;
    hdr_reader r = {data, data + n};
    pw_status st = read_header(name, &r);
    if (st == PW_OK)
        st = read_resolution(name, &r, w, h);
    if (st != PW_OK)
        return st;
    unsigned char *scan = malloc((size_t)*w * 4);
    if (!scan)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a scanline of %d pixels", name, *w);
    st = read_pixels(name, r, *w, *h, scan, NULL);
    float *out = st == PW_OK ? malloc((size_t)*w * (size_t)*h * 3 * sizeof *out) : NULL;
    if (st == PW_OK && !out)
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %dx%d image", name, *w, *h);
    if (st == PW_OK)
        st = read_pixels(name, r, *w, *h, scan, out);
    free(scan);
    if (st != PW_OK) {
        free(out);
        return st;
    }
    *rgb = out;
    return PW_OK;
}
