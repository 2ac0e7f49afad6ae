/* Portable float maps from memory: "PF" (RGB) or "Pf" (grey), the width,
 * the height and a scale whose sign gives the byte order (negative:
 * little-endian), each separated by white space, one white-space byte,
 * then the rows bottom to top as 32-bit floats. The header's size is
 * checked against the bytes there before anything is allocated. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "film/image_decode.h"

static int is_space(unsigned char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int pw_pfm_is(const unsigned char *data, size_t n)
{
    return n >= 3 && data[0] == 'P' && (data[1] == 'F' || data[1] == 'f') && is_space(data[2]);
}

/* The next white-space-separated token of at most size - 1 bytes into buf;
 * *pos ends on the byte after it. */
static int next_token(const unsigned char *data, size_t n, size_t *pos, char *buf, size_t size)
{
    size_t p = *pos, len = 0;
    while (p < n && is_space(data[p]))
        p++;
    while (p < n && !is_space(data[p])) {
        if (len + 1 >= size)
            return 0;
        buf[len++] = (char)data[p++];
    }
    buf[len] = '\0';
    *pos = p;
    return len > 0;
}

static int parse_long(const char *s, long long *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*s < '0' || *s > '9' || *end != '\0')
        return 0;
    *out = v;
    return 1;
}

static float read_float(const unsigned char *p, int little_endian)
{
    uint32_t u = little_endian ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24
                               : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 | (uint32_t)p[0] << 24;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

pw_status pw_pfm_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h)
{
    *rgb = NULL;
    if (!pw_pfm_is(data, n))
        return pw_fail(PW_ERR_FORMAT, "%s: not a PFM file (it does not start with PF or Pf)", name);
    int channels = data[1] == 'F' ? 3 : 1;
    size_t pos = 2;
    char tw[32], th[32], ts[64];
    long long lw, lh;
    if (!next_token(data, n, &pos, tw, sizeof tw) || !next_token(data, n, &pos, th, sizeof th) ||
        !next_token(data, n, &pos, ts, sizeof ts) || pos >= n || !is_space(data[pos]) || !parse_long(tw, &lw) ||
        !parse_long(th, &lh))
        return pw_fail(PW_ERR_FORMAT, "%s: PFM header is malformed or truncated (expected PF, width, height, scale)",
                       name);
    char *end;
    double scale = strtod(ts, &end);
    if (*end != '\0' || !isfinite(scale) || scale == 0.0)
        return pw_fail(PW_ERR_FORMAT, "%s: PFM scale '%s' is not a finite non-zero number", name, ts);
    pw_status st = pw_image_check_size(name, "PFM", lw, lh);
    if (st != PW_OK)
        return st;
    pos++; /* the one white-space byte before the data */
    size_t px = (size_t)lw * (size_t)lh, need = px * (size_t)channels * 4;
    if (n - pos < need)
        return pw_fail(PW_ERR_FORMAT, "%s: PFM data is truncated (%zu bytes for a %lldx%lld image that needs %zu)",
                       name, n - pos, lw, lh, need);
    float *out = malloc(px * 3 * sizeof *out);
    if (!out)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %lldx%lld image", name, lw, lh);
    const unsigned char *p = data + pos;
    int little = scale < 0.0;
    for (long long y = lh - 1; y >= 0; y--)
        for (long long x = 0; x < lw; x++, p += 4 * channels) {
            float *o = out + 3 * ((size_t)y * (size_t)lw + (size_t)x);
            for (int c = 0; c < 3; c++)
                o[c] = read_float(p + 4 * (channels == 3 ? c : 0), little);
        }
    *rgb = out;
    *w = (int)lw;
    *h = (int)lh;
    return PW_OK;
}
