/* Checks of what assimp 5.2.5's OBJ importer reads, made before it reads
 * it (mesh_load.c and assimp_io.c hand it only checked bytes), where
 * damaged input crashes it or makes it leak:
 * - it builds a mesh per object or material, and when a later one refers
 *   to a vertex the file does not have (a face past the end of the vertex
 *   list, a negative index reaching before its start) or is a line of one
 *   vertex, it throws and leaks every mesh built so far. So the statements
 *   that carry vertex indices (f, l, p) and the vertex statements they
 *   count are checked, classified by assimp's rules (a line's first
 *   character decides what it is; "v" lines count only with 3, 4 or 6
 *   numbers). The check is strict where assimp would be silently wrong: a
 *   vertex of another count of numbers, which assimp skips, shifting every
 *   later index, and indices written with leading zeros or a '+', which
 *   its digit counting misreads.
 * - in a material library, a texture statement (map_Kd, bump, ...) before
 *   the first newmtl writes through a null material (SIGSEGV). So an MTL
 *   file must start its statements with a newmtl.
 * NUL bytes, which end its lines early, are refused in both. */
#include "scene/obj_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"

typedef struct obj_scan {
    const char *name;
    uint64_t line;      /* of the statement being checked */
    uint64_t verts;     /* vertices so far */
    uint64_t max_index; /* the largest positive vertex index, 1-based */
    uint64_t max_line;  /* where it is */
} obj_scan;

/* A logical line: [s, s + n), with backslash continuations joined. */
typedef struct obj_line {
    char *s;
    size_t n;
} obj_line;

static int is_line_end(unsigned char c) { return c == '\n' || c == '\r' || c == '\f'; }
/* Only these separate words: assimp splits the words of a statement at
 * other bytes in places too, so they fail the checks below instead. */
static int is_space(unsigned char c) { return c == ' ' || c == '\t'; }

/* The word starting at *p (after blanks) as [w, w + *wn); 0 at the end or a '#'. */
static int next_word(const char **p, const char *end, const char **w, size_t *wn)
{
    while (*p < end && is_space((unsigned char)**p))
        (*p)++;
    if (*p == end || **p == '#')
        return 0;
    *w = *p;
    while (*p < end && !is_space((unsigned char)**p) && **p != '#')
        (*p)++;
    *wn = (size_t)(*p - *w);
    return 1;
}

static int starts_number(const char *w, size_t n)
{
    char c = w[0];
    if ((c >= '0' && c <= '9') || c == '-' || c == '+')
        return 1;
    return n >= 3 && (strncasecmp(w, "nan", 3) == 0 || strncasecmp(w, "inf", 3) == 0);
}

static int is_number(const char *w, size_t n)
{
    char buf[64];
    if (n >= sizeof buf)
        return 0;
    memcpy(buf, w, n);
    buf[n] = '\0';
    char *end;
    (void)strtod(buf, &end);
    return end == buf + n;
}

/* "v x y z [w | r g b]": only 3, 4 or 6 numbers make a vertex to assimp. */
static pw_status check_vertex(obj_scan *sc, const char *p, const char *end)
{
    const char *w;
    size_t n, count = 0;
    while (next_word(&p, end, &w, &n)) {
        if (!starts_number(w, n) || !is_number(w, n))
            return pw_fail(PW_ERR_FORMAT, "%s: line %llu: vertex coordinate '%.*s' is not a number %s", sc->name,
                           (unsigned long long)sc->line, (int)(n > 32 ? 32 : n), w,
                           starts_number(w, n) ? "" : "that starts with a digit or sign");
        count++;
    }
    if (count != 3 && count != 4 && count != 6)
        return pw_fail(PW_ERR_FORMAT, "%s: line %llu: a vertex of %zu numbers (3, 4 or 6 expected)", sc->name,
                       (unsigned long long)sc->line, count);
    sc->verts++;
    return PW_OK;
}

/* One index: '-'? [1-9][0-9]* up to 2^31 - 1. */
static int parse_index(const char **p, const char *end, int64_t *v)
{
    int neg = *p < end && **p == '-';
    *p += neg;
    if (*p == end || **p < '1' || **p > '9')
        return 0;
    int64_t x = 0;
    while (*p < end && **p >= '0' && **p <= '9') {
        x = 10 * x + (**p - '0');
        if (x > INT32_MAX)
            return 0;
        (*p)++;
    }
    *v = neg ? -x : x;
    return 1;
}

/* "v", "v/vt", "v/vt/vn" or "v//vn": its vertex index into *v. */
static int parse_corner(const char *w, size_t n, int64_t *v)
{
    const char *p = w, *end = w + n;
    int64_t other;
    if (!parse_index(&p, end, v))
        return 0;
    for (int part = 1; part <= 2 && p < end; part++) {
        if (*p++ != '/')
            return 0;
        if (part == 1 && p < end && *p == '/')
            continue; /* v//vn */
        if (!parse_index(&p, end, &other))
            return 0;
    }
    return p == end;
}

/* A face (f), line (l) or point (p) statement: assimp reads any line that
 * starts with one of these letters as one, after its first word. */
static pw_status check_face(obj_scan *sc, const char *p, const char *end, char kind)
{
    const char *w;
    size_t n, count = 0;
    next_word(&p, end, &w, &n); /* the statement's own name */
    while (next_word(&p, end, &w, &n)) {
        int64_t v;
        if (!parse_corner(w, n, &v))
            return pw_fail(PW_ERR_FORMAT, "%s: line %llu: '%.*s' is not a vertex reference (v, v/vt, v/vt/vn or v//vn)",
                           sc->name, (unsigned long long)sc->line, (int)(n > 32 ? 32 : n), w);
        if (v < 0 && (uint64_t)-v > sc->verts)
            return pw_fail(PW_ERR_FORMAT, "%s: line %llu: vertex %lld reaches before the first vertex (%llu so far)",
                           sc->name, (unsigned long long)sc->line, (long long)v, (unsigned long long)sc->verts);
        if (v > 0 && (uint64_t)v > sc->max_index) {
            sc->max_index = (uint64_t)v;
            sc->max_line = sc->line;
        }
        count++;
    }
    if (kind == 'l' && count == 1)
        return pw_fail(PW_ERR_FORMAT, "%s: line %llu: a line of one vertex", sc->name, (unsigned long long)sc->line);
    return PW_OK;
}

/* One statement, by its first character as assimp reads it. *cstype: in a
 * free-form geometry section ("cstype" to "end"), which assimp skips. */
static pw_status check_statement(obj_scan *sc, const char *s, size_t n, int *cstype)
{
    const char *end = s + n, *w, *p = s;
    size_t wn;
    if (n == 0)
        return PW_OK;
    if (*cstype) {
        *cstype = !(s[0] == 'e' && next_word(&p, end, &w, &wn) && wn == 3 && memcmp(w, "end", 3) == 0);
        return PW_OK;
    }
    switch (s[0]) {
    case 'v':
        if (n > 1 && (s[1] == ' ' || s[1] == '\t'))
            return check_vertex(sc, s + 1, end);
        return PW_OK; /* vt, vn and others carry no vertex */
    case 'f':
    case 'l':
    case 'p': return check_face(sc, s, end, s[0]);
    case 'c': *cstype = next_word(&p, end, &w, &wn) && wn == 6 && memcmp(w, "cstype", 6) == 0; return PW_OK;
    default: return PW_OK;
    }
}

/* The next logical line from *pos into buf (continuations joined). */
static size_t next_line(const unsigned char *data, size_t len, size_t *pos, char *buf, size_t cap, uint64_t *lines)
{
    size_t n = 0, i = *pos;
    while (i < len) {
        unsigned char c = data[i];
        if (c == '\\' && i + 1 < len && is_line_end(data[i + 1])) {
            while (i < len && data[i] != '\n')
                i++;
            i++;
            (*lines)++;
            continue;
        }
        if (is_line_end(c))
            break;
        if (n < cap)
            buf[n] = (char)c;
        n++;
        i++;
    }
    if (i < len && (data[i] != '\r' || i + 1 == len || data[i + 1] != '\n'))
        (*lines)++; /* CR LF counts once, at its LF */
    *pos = i + 1;
    return n;
}

static pw_status refuse_nul(const char *name, const unsigned char *data, size_t len, const char *what)
{
    const unsigned char *nul = memchr(data, '\0', len);
    if (!nul)
        return PW_OK;
    uint64_t line = 1;
    for (const unsigned char *c = data; c < nul; c++)
        line += *c == '\n';
    return pw_fail(PW_ERR_FORMAT, "%s: line %llu: NUL byte in %s text", name, (unsigned long long)line, what);
}

pw_status pw_obj_check(const char *name, const unsigned char *data, size_t len)
{
    pw_status nul = refuse_nul(name, data, len, "OBJ");
    if (nul != PW_OK)
        return nul;
    obj_scan sc = {name, 1, 0, 0, 0};
    size_t pos = len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0 ? 3 : 0; /* a UTF-8 byte order mark */
    uint64_t lines = 1;
    int cstype = 0;
    char *buf = malloc(len + 1);
    if (!buf)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory checking the file", name);
    pw_status st = PW_OK;
    while (st == PW_OK && pos < len) {
        sc.line = lines;
        size_t n = next_line(data, len, &pos, buf, len, &lines);
        st = check_statement(&sc, buf, n, &cstype);
    }
    free(buf);
    if (st == PW_OK && sc.max_index > sc.verts)
        st = pw_fail(PW_ERR_FORMAT, "%s: line %llu: vertex %llu of %llu", name, (unsigned long long)sc.max_line,
                     (unsigned long long)sc.max_index, (unsigned long long)sc.verts);
    return st;
}

/* assimp's material reader takes a line's first byte for what it is and
 * ends lines at CR, LF and form feed; "newmtl" here is the statement
 * both its spellings of the test agree on. */
static int is_newmtl(const unsigned char *s, size_t n)
{
    return n >= 6 && memcmp(s, "newmtl", 6) == 0 && (n == 6 || s[6] == ' ' || s[6] == '\t');
}

pw_status pw_mtl_check(const char *name, const unsigned char *data, size_t len)
{
    pw_status st = refuse_nul(name, data, len, "MTL");
    uint64_t line = 1;
    for (size_t pos = 0; st == PW_OK && pos < len;) {
        size_t n = 0;
        while (pos + n < len && !is_line_end(data[pos + n]))
            n++;
        const unsigned char *s = data + pos;
        if (is_newmtl(s, n))
            return PW_OK; /* a material exists from here on */
        size_t k = 0;
        while (k < n && is_space(s[k]))
            k++;
        if (k < n && s[k] != '#')
            st = pw_fail(PW_ERR_FORMAT, "%s: line %llu: '%.*s' before any newmtl", name, (unsigned long long)line,
                         (int)(n - k > 24 ? 24 : n - k), (const char *)s + k);
        pos += n;
        if (pos < len && (data[pos] != '\r' || pos + 1 == len || data[pos + 1] != '\n'))
            line++;
        pos++;
    }
    return st;
}
