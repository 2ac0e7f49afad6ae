#include "core/tuning.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* $name, or NULL when unset or empty. */
static const char *knob(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* A whole decimal number in [lo, hi]. Decimal only: strtod would also take
 * hex ("0x10"), "inf" and leading blanks, and a value too small for a
 * double would pass as 0, which turns some knobs off. */
static int parse_whole(const char *v, double lo, double hi, double *out)
{
    if (strspn(v, "0123456789.eE+-") != strlen(v))
        return 0;
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno == ERANGE || x < lo || x > hi || x != floor(x))
        return 0;
    *out = x;
    return 1;
}

static pw_status bad(const char *name, const char *v, const char *takes)
{
    return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s='%s' is not %s", name, v, takes);
}

/* An integer knob in [lo, hi]; unset leaves *out as it is. */
static pw_status read_int(const char *name, double lo, double hi, int64_t *out)
{
    const char *v = knob(name);
    double x;
    if (!v)
        return PW_OK;
    if (!parse_whole(v, lo, hi, &x)) {
        char takes[96];
        snprintf(takes, sizeof takes, "a whole number in [%.0f, %.0f]", lo, hi);
        return bad(name, v, takes);
    }
    *out = (int64_t)x;
    return PW_OK;
}

static pw_status read_small(const char *name, int lo, int hi, int *out)
{
    int64_t x = *out;
    pw_status st = read_int(name, lo, hi, &x);
    *out = (int)x;
    return st;
}

static int is_pow2(unsigned x) { return x && !(x & (x - 1)); }

/* One side of a tile: 1 to 512, decimal digits only (no sign, no blank:
 * sscanf's %u would take "-16" and numbers past 2^32, cut to 32 bits). */
static int parse_side(const char *v, size_t n, unsigned *out)
{
    if (n == 0 || n > 3 || strspn(v, "0123456789") < n)
        return 0;
    unsigned x = 0;
    for (size_t i = 0; i < n; i++)
        x = 10 * x + (unsigned)(v[i] - '0');
    *out = x;
    return x >= 1 && x <= 512;
}

/* WxH, both powers of two, 8 to 512 pixels in all. */
static pw_status read_tile(const char *name, int *w, int *h)
{
    const char *v = knob(name);
    if (!v)
        return PW_OK;
    const char *x = strchr(v, 'x');
    unsigned tw = 0, th = 0;
    if (!x || !parse_side(v, (size_t)(x - v), &tw) || !parse_side(x + 1, strlen(x + 1), &th) || !is_pow2(tw) ||
        !is_pow2(th) || tw * th < 8 || tw * th > 512)
        return bad(name, v, "WxH with W and H powers of two and 8 to 512 pixels in all");
    *w = (int)tw, *h = (int)th;
    return PW_OK;
}

static pw_status read_bvh_width(const char *name, int *out)
{
    const char *v = knob(name);
    if (!v)
        return PW_OK;
    if (strcmp(v, "2") && strcmp(v, "8"))
        return bad(name, v, "2 (the GPU's trees) or 8 (the CPU's 8-wide BVH)");
    *out = atoi(v);
    return PW_OK;
}

static void defaults(pw_tuning *t)
{
    t->cpu_bvh_width = PW_TUNING_AUTO;
    t->cpu_wave_camera = 1;
    t->cuda_flat_max = PW_TUNING_AUTO;
    t->mega_tile_w = t->mega_tile_h = 0;
    t->mega_batch = 1;
    t->mega_stream = 1;
    t->wave_tail = PW_TUNING_AUTO;
    t->wave_graph = 1;
    t->wave_slots = 2;
    t->wave_halve = PW_TUNING_AUTO;
}

pw_status pw_tuning_read(pw_tuning *t)
{
    pw_tuning k;
    defaults(&k);
    defaults(t);
    pw_status st;
    if ((st = read_bvh_width("PATHWAVE_CPU_BVH", &k.cpu_bvh_width)) != PW_OK ||
        (st = read_small("PATHWAVE_CPU_WAVE_CAMERA", 0, 1, &k.cpu_wave_camera)) != PW_OK ||
        (st = read_small("PATHWAVE_CUDA_FLAT", 0, 1024, &k.cuda_flat_max)) != PW_OK ||
        (st = read_tile("PATHWAVE_MEGA_TILE", &k.mega_tile_w, &k.mega_tile_h)) != PW_OK ||
        (st = read_small("PATHWAVE_MEGA_BATCH", 0, 1, &k.mega_batch)) != PW_OK ||
        (st = read_small("PATHWAVE_MEGA_STREAM", 0, 1, &k.mega_stream)) != PW_OK ||
        (st = read_int("PATHWAVE_WAVE_TAIL", 0, (double)UINT32_MAX, &k.wave_tail)) != PW_OK ||
        (st = read_small("PATHWAVE_WAVE_GRAPH", 0, 1, &k.wave_graph)) != PW_OK ||
        (st = read_small("PATHWAVE_WAVE_SLOTS", 1, 2, &k.wave_slots)) != PW_OK ||
        (st = read_small("PATHWAVE_WAVE_HALVE", 0, 1, &k.wave_halve)) != PW_OK)
        return st;
    *t = k;
    return PW_OK;
}
