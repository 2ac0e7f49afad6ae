/* pathwave's own PLY reader. PLY used to go through assimp, whose 5.2.5
 * (Debian's) aborts the whole process on damaged files: a truncated ASCII
 * file or a binary one with a zeroed block trips an assertion in its
 * triangulation (SIGABRT, nothing to catch), and it loads others wrongly
 * without a word (NUL bytes in ASCII data, a face that claims more indices
 * than its line holds). So this reader is strict: the header's counts are
 * checked against the bytes present before anything is allocated, ASCII
 * data is read one element to a line, every value is checked against its
 * declared type, and each failure names the file, the line (ASCII) or the
 * element and what is wrong. */
#include "scene/ply_read.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/file_read.h"

/* The scene's limits (pw_scene_add_vertices, pw_scene_add_triangle). */
#define PLY_MAX_VERTS 0x3fffffffu
#define PLY_MAX_TRIS 0x3fffffffu

enum ply_format { PLY_ASCII, PLY_LE, PLY_BE };

typedef enum ply_type { T_NONE, T_I8, T_U8, T_I16, T_U16, T_I32, T_U32, T_F32, T_F64 } ply_type;

static const struct ply_type_info {
    const char *name, *alias;
    unsigned size;
    double lo, hi; /* the range of an integer type */
} type_info[] = {
    [T_NONE] = {"", "", 0, 0, 0},
    [T_I8] = {"char", "int8", 1, -128.0, 127.0},
    [T_U8] = {"uchar", "uint8", 1, 0.0, 255.0},
    [T_I16] = {"short", "int16", 2, -32768.0, 32767.0},
    [T_U16] = {"ushort", "uint16", 2, 0.0, 65535.0},
    [T_I32] = {"int", "int32", 4, -2147483648.0, 2147483647.0},
    [T_U32] = {"uint", "uint32", 4, 0.0, 4294967295.0},
    [T_F32] = {"float", "float32", 4, 0.0, 0.0},
    [T_F64] = {"double", "float64", 8, 0.0, 0.0},
};

static int is_integer(ply_type t) { return t >= T_I8 && t <= T_U32; }

/* What a property means to the reader; R_NONE is read past. */
enum ply_role { R_NONE, R_X, R_Y, R_Z, R_NX, R_NY, R_NZ, R_U, R_V, R_INDICES, R_COUNT };

static const struct {
    const char *name;
    enum ply_role role;
} vertex_roles[] = {
    {"x", R_X}, {"y", R_Y}, {"z", R_Z}, {"nx", R_NX},       {"ny", R_NY},       {"nz", R_NZ},       {"u", R_U},
    {"v", R_V}, {"s", R_U}, {"t", R_V}, {"texture_u", R_U}, {"texture_v", R_V}, {"texture_s", R_U}, {"texture_t", R_V},
};

typedef struct ply_property {
    const char *name;
    int name_len;
    ply_type type;       /* a scalar's type, or a list's items' */
    ply_type count_type; /* a list's length type; T_NONE for a scalar */
    enum ply_role role;
} ply_property;

enum ply_kind { EL_OTHER, EL_VERTEX, EL_FACE };

typedef struct ply_element {
    const char *name;
    int name_len;
    enum ply_kind kind;
    uint64_t count;
    ply_property *props;
    uint32_t n_props, cap_props;
    int role_prop[R_COUNT]; /* the property of each role, -1 for none */
} ply_element;

typedef struct ply_header {
    const char *name; /* the file, for messages */
    pw_warning_fn warn;
    void *user;
    int has_format;
    enum ply_format format;
    ply_element *elems;
    uint32_t n_elems, cap_elems;
    int vertex, face; /* their elements, -1 for none */
    size_t data;      /* the offset of the first byte after the header */
    uint64_t lines;   /* the header's lines */
} ply_header;

static void warnf(pw_warning_fn warn, void *user, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void warnf(pw_warning_fn warn, void *user, const char *fmt, ...)
{
    if (!warn)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    warn(msg, user);
}

/* ---- the header ---- */

#define PLY_MAX_WORDS 6

typedef struct ply_words {
    const char *w[PLY_MAX_WORDS];
    int len[PLY_MAX_WORDS];
    int n; /* PLY_MAX_WORDS + 1 when the line has more */
} ply_words;

static void split_words(const char *s, size_t n, ply_words *out)
{
    out->n = 0;
    size_t i = 0;
    while (i < n) {
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == n)
            break;
        size_t start = i;
        while (i < n && s[i] != ' ' && s[i] != '\t')
            i++;
        if (out->n == PLY_MAX_WORDS) {
            out->n++;
            return;
        }
        out->w[out->n] = s + start;
        out->len[out->n++] = (int)(i - start);
    }
}

static int word_is(const ply_words *w, int i, const char *s)
{
    return i < w->n && (size_t)w->len[i] == strlen(s) && memcmp(w->w[i], s, (size_t)w->len[i]) == 0;
}

static pw_status header_fail(const ply_header *h, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static pw_status header_fail(const ply_header *h, uint64_t line, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pw_fail(PW_ERR_FORMAT, "%s: header line %llu: %s", h->name, (unsigned long long)line, msg);
}

static ply_type type_of(const ply_words *w, int i)
{
    for (int t = T_I8; t <= T_F64; t++)
        if (word_is(w, i, type_info[t].name) || word_is(w, i, type_info[t].alias))
            return (ply_type)t;
    return T_NONE;
}

static pw_status format_line(ply_header *h, uint64_t line, const ply_words *w)
{
    static const char *const names[] = {"ascii", "binary_little_endian", "binary_big_endian"};
    if (h->has_format)
        return header_fail(h, line, "a second format line");
    if (w->n != 3)
        return header_fail(h, line, "expected 'format <ascii|binary_little_endian|binary_big_endian> 1.0'");
    for (int f = 0; f < 3; f++)
        if (word_is(w, 1, names[f])) {
            if (!word_is(w, 2, "1.0") && !word_is(w, 2, "1"))
                return header_fail(h, line, "format version %.*s (only 1.0 exists)", w->len[2], w->w[2]);
            h->format = (enum ply_format)f;
            h->has_format = 1;
            return PW_OK;
        }
    return header_fail(h, line, "unknown format '%.*s'", w->len[1], w->w[1]);
}

static pw_status element_line(ply_header *h, uint64_t line, const ply_words *w)
{
    if (w->n != 3)
        return header_fail(h, line, "expected 'element <name> <count>'");
    uint64_t count = 0;
    for (int i = 0; i < w->len[2]; i++) {
        char c = w->w[2][i];
        if (c < '0' || c > '9' || count > (UINT64_MAX - 9) / 10)
            return header_fail(h, line, "element count '%.*s' is not a whole number below 2^64", w->len[2], w->w[2]);
        count = count * 10 + (uint64_t)(c - '0');
    }
    enum ply_kind kind = word_is(w, 1, "vertex") ? EL_VERTEX : word_is(w, 1, "face") ? EL_FACE : EL_OTHER;
    int *slot = kind == EL_VERTEX ? &h->vertex : kind == EL_FACE ? &h->face : NULL;
    if (slot && *slot >= 0)
        return header_fail(h, line, "a second '%.*s' element", w->len[1], w->w[1]);
    if (h->n_elems == h->cap_elems) {
        uint32_t cap = h->cap_elems ? 2 * h->cap_elems : 4;
        ply_element *e = realloc(h->elems, cap * sizeof *e);
        if (!e)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory reading the header", h->name);
        h->elems = e;
        h->cap_elems = cap;
    }
    ply_element *e = &h->elems[h->n_elems];
    memset(e, 0, sizeof *e);
    for (int r = 0; r < R_COUNT; r++)
        e->role_prop[r] = -1;
    e->name = w->w[1];
    e->name_len = w->len[1];
    e->kind = kind;
    e->count = count;
    if (slot)
        *slot = (int)h->n_elems;
    h->n_elems++;
    return PW_OK;
}

static int is_index_list_name(const char *name, int len)
{
    ply_words w = {{name}, {len}, 1};
    return word_is(&w, 0, "vertex_indices") || word_is(&w, 0, "vertex_index");
}

static enum ply_role role_of(const ply_element *e, const char *name, int len)
{
    ply_words w = {{name}, {len}, 1};
    if (e->kind == EL_FACE)
        return is_index_list_name(name, len) ? R_INDICES : R_NONE;
    if (e->kind == EL_VERTEX)
        for (size_t i = 0; i < sizeof vertex_roles / sizeof *vertex_roles; i++)
            if (word_is(&w, 0, vertex_roles[i].name))
                return vertex_roles[i].role;
    return R_NONE;
}

/* A property with a role must have the right shape: positions, normals and
 * uvs are numbers, the face's vertex indices a list of integers. A second
 * property for a role taken is read past with a warning. */
static pw_status assign_role(ply_header *h, uint64_t line, ply_element *e, ply_property *p)
{
    p->role = role_of(e, p->name, p->name_len);
    if (p->role == R_NONE)
        return PW_OK;
    int is_list = p->count_type != T_NONE;
    if (p->role == R_INDICES && (!is_list || !is_integer(p->type)))
        return header_fail(h, line, "face property '%.*s' must be a list of integers", p->name_len, p->name);
    if (p->role != R_INDICES && is_list)
        return header_fail(h, line, "vertex property '%.*s' is a list; expected a number", p->name_len, p->name);
    int taken = e->role_prop[p->role];
    if (taken >= 0) {
        const ply_property *q = &e->props[taken];
        warnf(h->warn, h->user, "%s: header line %llu: %.*s property '%.*s' ignored: '%.*s' came first", h->name,
              (unsigned long long)line, e->name_len, e->name, p->name_len, p->name, q->name_len, q->name);
        p->role = R_NONE;
        return PW_OK;
    }
    e->role_prop[p->role] = (int)e->n_props;
    return PW_OK;
}

static pw_status property_line(ply_header *h, uint64_t line, const ply_words *w)
{
    if (h->n_elems == 0)
        return header_fail(h, line, "a property before any element");
    ply_element *e = &h->elems[h->n_elems - 1];
    ply_property p = {0};
    if (word_is(w, 1, "list")) {
        if (w->n != 5)
            return header_fail(h, line, "expected 'property list <count type> <item type> <name>'");
        p.count_type = type_of(w, 2);
        p.type = type_of(w, 3);
        if (p.count_type == T_NONE || p.type == T_NONE)
            return header_fail(h, line, "unknown type '%.*s'", w->len[p.count_type ? 3 : 2],
                               w->w[p.count_type ? 3 : 2]);
        if (!is_integer(p.count_type))
            return header_fail(h, line, "list '%.*s' has a length of type %.*s; expected an integer type", w->len[4],
                               w->w[4], w->len[2], w->w[2]);
        p.name = w->w[4];
        p.name_len = w->len[4];
    } else {
        if (w->n != 3)
            return header_fail(h, line, "expected 'property <type> <name>'");
        if ((p.type = type_of(w, 1)) == T_NONE)
            return header_fail(h, line, "unknown type '%.*s'", w->len[1], w->w[1]);
        p.name = w->w[2];
        p.name_len = w->len[2];
    }
    if (e->n_props == e->cap_props) {
        uint32_t cap = e->cap_props ? 2 * e->cap_props : 8;
        ply_property *np = realloc(e->props, cap * sizeof *np);
        if (!np)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory reading the header", h->name);
        e->props = np;
        e->cap_props = cap;
    }
    pw_status st = assign_role(h, line, e, &p);
    if (st == PW_OK)
        e->props[e->n_props++] = p;
    return st;
}

/* One header line after the magic; *done at end_header. */
static pw_status header_line(ply_header *h, uint64_t line, const ply_words *w, int *done)
{
    if (w->n == 0 || word_is(w, 0, "comment") || word_is(w, 0, "obj_info"))
        return PW_OK;
    if (word_is(w, 0, "format"))
        return format_line(h, line, w);
    if (!h->has_format)
        return header_fail(h, line, "expected the format line, found '%.*s'", w->len[0], w->w[0]);
    if (word_is(w, 0, "element"))
        return element_line(h, line, w);
    if (word_is(w, 0, "property"))
        return property_line(h, line, w);
    if (word_is(w, 0, "end_header")) {
        *done = 1;
        return w->n == 1 ? PW_OK : header_fail(h, line, "words after end_header");
    }
    return header_fail(h, line, "unknown keyword '%.*s'", w->len[0], w->w[0]);
}

/* The fewest bytes one instance of e takes: a scalar's size, or in ASCII
 * one character and a separator, a list its length alone. */
static uint64_t record_min_bytes(const ply_element *e, enum ply_format f)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < e->n_props; i++) {
        const ply_property *p = &e->props[i];
        n += f == PLY_ASCII ? 2 : type_info[p->count_type != T_NONE ? p->count_type : p->type].size;
    }
    return n;
}

/* Drops a partial set of normals or texture coordinates with a warning. */
static void require_all(ply_header *h, ply_element *v, enum ply_role first, int n, const char *names, const char *what)
{
    int have = 0;
    for (int r = 0; r < n; r++)
        have += v->role_prop[first + r] >= 0;
    if (have == 0 || have == n)
        return;
    warnf(h->warn, h->user, "%s: the vertex element has only some of %s: %s ignored", h->name, names, what);
    for (int r = 0; r < n; r++) {
        if (v->role_prop[first + r] >= 0)
            v->props[v->role_prop[first + r]].role = R_NONE;
        v->role_prop[first + r] = -1;
    }
}

/* Every element's instances must fit in the bytes after the header, so
 * that a count no file could hold fails here rather than in malloc. */
static pw_status check_sizes(const ply_header *h, size_t len)
{
    uint64_t left = len - h->data + (h->format == PLY_ASCII); /* the last line may lack its newline */
    for (uint32_t i = 0; i < h->n_elems; i++) {
        const ply_element *e = &h->elems[i];
        uint64_t m = record_min_bytes(e, h->format);
        if (e->count > 0 && m == 0)
            return pw_fail(PW_ERR_FORMAT, "%s: element '%.*s' has %llu instances but no properties", h->name,
                           e->name_len, e->name, (unsigned long long)e->count);
        if (e->count > 0 && e->count > left / m)
            return pw_fail(PW_ERR_FORMAT,
                           "%s: %llu '%.*s' elements (at least %llu bytes each) do not fit in the %zu bytes after "
                           "the header: the file is truncated or its header is wrong",
                           h->name, (unsigned long long)e->count, e->name_len, e->name, (unsigned long long)m,
                           len - h->data);
        left -= e->count * m;
    }
    return PW_OK;
}

/* Lists that carry geometry pathwave does not read: another element's
 * vertex lists (triangle strips), a face's per-corner texture coordinates. */
static void warn_unread_lists(const ply_header *h)
{
    for (uint32_t i = 0; i < h->n_elems; i++) {
        const ply_element *e = &h->elems[i];
        for (uint32_t j = 0; e->kind != EL_VERTEX && e->count > 0 && j < e->n_props; j++) {
            const ply_property *p = &e->props[j];
            if (p->count_type != T_NONE && p->role != R_INDICES &&
                (e->kind == EL_FACE || is_index_list_name(p->name, p->name_len)))
                warnf(h->warn, h->user, "%s: list '%.*s' of element '%.*s' is not read", h->name, p->name_len, p->name,
                      e->name_len, e->name);
        }
    }
}

static pw_status check_header(ply_header *h, size_t len)
{
    if (h->vertex < 0)
        return pw_fail(PW_ERR_FORMAT, "%s: the header declares no vertex element", h->name);
    ply_element *v = &h->elems[h->vertex];
    static const char *const xyz[] = {"x", "y", "z"};
    for (int r = 0; r < 3; r++)
        if (v->role_prop[R_X + r] < 0)
            return pw_fail(PW_ERR_FORMAT, "%s: the vertex element has no property %s", h->name, xyz[r]);
    if (h->face >= 0 && h->elems[h->face].role_prop[R_INDICES] < 0)
        return pw_fail(PW_ERR_FORMAT, "%s: the face element has no vertex_indices list", h->name);
    require_all(h, v, R_NX, 3, "nx, ny, nz", "normals");
    require_all(h, v, R_U, 2, "a texture coordinate pair", "texture coordinates");
    warn_unread_lists(h);
    pw_status st = check_sizes(h, len);
    if (st == PW_OK && v->count > PLY_MAX_VERTS)
        return pw_fail(PW_ERR_FORMAT, "%s: %llu vertices, more than the %u a mesh may have", h->name,
                       (unsigned long long)v->count, PLY_MAX_VERTS);
    return st;
}

static pw_status parse_header(ply_header *h, const unsigned char *data, size_t len)
{
    size_t pos = 0;
    for (uint64_t line = 1;; line++) {
        if (pos >= len)
            return line <= 1 ? pw_fail(PW_ERR_FORMAT, "%s: empty file, not a PLY file", h->name)
                             : pw_fail(PW_ERR_FORMAT, "%s: the header has no end_header line (truncated?)", h->name);
        const unsigned char *nl = memchr(data + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - data) : len, n = end - pos;
        const char *text = (const char *)data + pos;
        if (line == 1 && !(n >= 3 && memcmp(text, "ply", 3) == 0 && (n == 3 || (n == 4 && text[3] == '\r'))))
            return pw_fail(PW_ERR_FORMAT, "%s: not a PLY file (the first line is not 'ply')", h->name);
        if (memchr(text, '\0', n))
            return header_fail(h, line, "NUL byte in the header");
        if (n > 0 && text[n - 1] == '\r')
            n--;
        pos = nl ? end + 1 : len;
        if (line == 1)
            continue;
        ply_words w;
        split_words(text, n, &w);
        if (w.n > PLY_MAX_WORDS && !word_is(&w, 0, "comment") && !word_is(&w, 0, "obj_info"))
            return header_fail(h, line, "too many words");
        int done = 0;
        pw_status st = header_line(h, line, &w, &done);
        if (st != PW_OK)
            return st;
        if (done) {
            h->data = pos;
            h->lines = line;
            return check_header(h, len);
        }
    }
}

static void header_free(ply_header *h)
{
    for (uint32_t i = 0; i < h->n_elems; i++)
        free(h->elems[i].props);
    free(h->elems);
}

/* ---- the data ---- */

typedef struct ply_reader {
    const char *name;
    const unsigned char *p, *end;
    enum ply_format format;
    int swap;      /* binary data in the byte order other than this machine's */
    uint64_t line; /* ASCII: the line being read */
    char tok[48];  /* ASCII: the last token, for messages */
    size_t tok_len;
} ply_reader;

/* What reading a value gave. */
enum { V_OK, V_END_DATA, V_END_LINE, V_NUL, V_LONG, V_BAD, V_RANGE };

static int binary_value(ply_reader *r, ply_type t, double *v)
{
    unsigned size = type_info[t].size;
    if ((size_t)(r->end - r->p) < size)
        return V_END_DATA;
    unsigned char b[8];
    for (unsigned i = 0; i < size; i++)
        b[i] = r->p[r->swap ? size - 1 - i : i];
    r->p += size;
    union {
        int8_t i8;
        uint8_t u8;
        int16_t i16;
        uint16_t u16;
        int32_t i32;
        uint32_t u32;
        float f32;
        double f64;
    } x;
    memcpy(&x, b, size);
    switch (t) {
    case T_I8: *v = x.i8; break;
    case T_U8: *v = x.u8; break;
    case T_I16: *v = x.i16; break;
    case T_U16: *v = x.u16; break;
    case T_I32: *v = x.i32; break;
    case T_U32: *v = x.u32; break;
    case T_F32: *v = x.f32; break;
    default: *v = x.f64; break;
    }
    return V_OK;
}

static int is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r'; }

/* The next token of the current line into r->tok. */
static int ascii_token(ply_reader *r)
{
    while (r->p < r->end && is_blank(*r->p))
        r->p++;
    if (r->p == r->end)
        return V_END_DATA;
    if (*r->p == '\n')
        return V_END_LINE;
    const unsigned char *s = r->p;
    while (r->p < r->end && !is_blank(*r->p) && *r->p != '\n' && *r->p != '\0')
        r->p++;
    if (r->p < r->end && *r->p == '\0')
        return V_NUL;
    r->tok_len = (size_t)(r->p - s);
    size_t n = r->tok_len < sizeof r->tok ? r->tok_len : sizeof r->tok - 1;
    memcpy(r->tok, s, n);
    r->tok[n] = '\0';
    return r->tok_len < sizeof r->tok ? V_OK : V_LONG;
}

static int ascii_value(ply_reader *r, ply_type t, double *v)
{
    int rc = ascii_token(r);
    if (rc != V_OK)
        return rc;
    char *end;
    errno = 0;
    if (is_integer(t)) {
        long long x = strtoll(r->tok, &end, 10);
        if (*end)
            return V_BAD;
        if (errno == ERANGE || (double)x < type_info[t].lo || (double)x > type_info[t].hi)
            return V_RANGE;
        *v = (double)x;
    } else {
        /* A float property rounds once, as a float, like a binary file's. */
        *v = t == T_F32 ? (double)strtof(r->tok, &end) : strtod(r->tok, &end);
        if (*end)
            return V_BAD;
    }
    return V_OK;
}

static int read_value(ply_reader *r, ply_type t, double *v)
{
    return r->format == PLY_ASCII ? ascii_value(r, t, v) : binary_value(r, t, v);
}

/* "file: line N: vertex 12: ..." (no line for binary data). */
static pw_status data_fail(const ply_reader *r, const ply_element *e, uint64_t i, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static pw_status data_fail(const ply_reader *r, const ply_element *e, uint64_t i, const char *fmt, ...)
{
    char msg[384], where[48] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->format == PLY_ASCII)
        snprintf(where, sizeof where, "line %llu: ", (unsigned long long)r->line);
    return pw_fail(PW_ERR_FORMAT, "%s: %s%.*s %llu: %s", r->name, where, e->name_len, e->name, (unsigned long long)i,
                   msg);
}

/* The failure of read_value (rc) where `what` was expected. */
static pw_status value_fail(const ply_reader *r, const ply_element *e, uint64_t i, int rc, const char *what)
{
    switch (rc) {
    case V_END_DATA: return data_fail(r, e, i, "expected %s, found end of data", what);
    case V_END_LINE: return data_fail(r, e, i, "expected %s, found end of line", what);
    case V_NUL: return data_fail(r, e, i, "NUL byte in ASCII data");
    case V_LONG: return data_fail(r, e, i, "expected %s, found a %zu-byte word", what, r->tok_len);
    case V_BAD: return data_fail(r, e, i, "expected %s, found '%s'", what, r->tok);
    default: return data_fail(r, e, i, "%s '%s' is out of range", what, r->tok);
    }
}

static pw_status property_fail(const ply_reader *r, const ply_element *e, uint64_t i, int rc, const ply_property *p,
                               int length)
{
    char what[160];
    snprintf(what, sizeof what, "%s '%.*s' (%s)", length ? "the length of list" : "property", p->name_len, p->name,
             type_info[length ? p->count_type : p->type].name);
    return value_fail(r, e, i, rc, what);
}

/* A list's length; lengths of a signed type may not be negative. */
static pw_status read_length(ply_reader *r, const ply_element *e, uint64_t i, const ply_property *p, uint64_t *k)
{
    double c;
    int rc = read_value(r, p->count_type, &c);
    if (rc != V_OK)
        return property_fail(r, e, i, rc, p, 1);
    if (c < 0)
        return data_fail(r, e, i, "list '%.*s' has length %.0f", p->name_len, p->name, c);
    *k = (uint64_t)c;
    if (r->format != PLY_ASCII && *k * type_info[p->type].size > (uint64_t)(r->end - r->p))
        return data_fail(r, e, i, "expected %llu %s, found end of data", (unsigned long long)*k,
                         p->role == R_INDICES ? "vertex indices" : "list items");
    return PW_OK;
}

/* The failure of reading item j of a list of k. */
static pw_status item_fail(const ply_reader *r, const ply_element *e, uint64_t i, int rc, uint64_t j, uint64_t k,
                           int indices)
{
    if (rc == V_END_LINE || rc == V_END_DATA)
        return data_fail(r, e, i, "expected %llu %s, found %llu", (unsigned long long)k,
                         indices ? "vertex indices" : "list items", (unsigned long long)j);
    return value_fail(r, e, i, rc, indices ? "a vertex index" : "a list item");
}

static pw_status skip_list(ply_reader *r, const ply_element *e, uint64_t i, const ply_property *p)
{
    uint64_t k;
    pw_status st = read_length(r, e, i, p, &k);
    if (st != PW_OK)
        return st;
    if (r->format != PLY_ASCII) {
        r->p += k * type_info[p->type].size;
        return PW_OK;
    }
    for (uint64_t j = 0; j < k; j++) {
        double x;
        int rc = ascii_value(r, p->type, &x);
        if (rc != V_OK)
            return item_fail(r, e, i, rc, j, k, 0);
    }
    return PW_OK;
}

/* The mesh being filled. */
typedef struct ply_build {
    pw_ply_mesh *m;
    uint32_t cap_tris;
} ply_build;

static pw_status push_triangle(const ply_reader *r, ply_build *b, uint32_t a, uint32_t c, uint32_t d)
{
    pw_ply_mesh *m = b->m;
    if (m->n_tris == b->cap_tris) {
        if (m->n_tris >= PLY_MAX_TRIS)
            return pw_fail(PW_ERR_FORMAT, "%s: more than %u triangles", r->name, PLY_MAX_TRIS);
        uint32_t cap = b->cap_tris > PLY_MAX_TRIS / 2 ? PLY_MAX_TRIS : b->cap_tris * 2 + 16;
        uint32_t *t = realloc(m->tri, (size_t)cap * 3 * sizeof *t);
        if (!t)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for %u triangles", r->name, cap);
        m->tri = t;
        b->cap_tris = cap;
    }
    uint32_t *t = m->tri + 3 * (size_t)m->n_tris++;
    t[0] = a;
    t[1] = c;
    t[2] = d;
    return PW_OK;
}

/* A face's vertex indices, as a fan of triangles around its first. */
static pw_status read_face(ply_reader *r, const ply_element *e, uint64_t i, const ply_property *p, ply_build *b)
{
    uint64_t k;
    pw_status st = read_length(r, e, i, p, &k);
    if (st != PW_OK)
        return st;
    if (k < 3)
        return data_fail(r, e, i, "%llu vertex indices; a face needs at least 3", (unsigned long long)k);
    uint32_t first = 0, prev = 0, nv = b->m->n_verts;
    for (uint64_t j = 0; j < k; j++) {
        double x;
        int rc = read_value(r, p->type, &x);
        if (rc != V_OK)
            return item_fail(r, e, i, rc, j, k, 1);
        if (x < 0 || x >= nv)
            return data_fail(r, e, i, "vertex index %.0f is out of range (%u vertices)", x, nv);
        uint32_t v = (uint32_t)x;
        if (j == 0)
            first = v;
        else if (j >= 2 && (st = push_triangle(r, b, first, prev, v)) != PW_OK)
            return st;
        prev = v;
    }
    return PW_OK;
}

static void skip_blank_lines(ply_reader *r)
{
    while (r->p < r->end && (is_blank(*r->p) || *r->p == '\n'))
        if (*r->p++ == '\n')
            r->line++;
}

/* ASCII: blank lines before an instance are passed over. */
static pw_status record_begin(ply_reader *r, const ply_element *e, uint64_t i)
{
    if (r->format == PLY_ASCII)
        skip_blank_lines(r);
    if (r->p == r->end)
        return data_fail(r, e, i, "found end of data (the header declares %llu)", (unsigned long long)e->count);
    return PW_OK;
}

/* ASCII: an instance is the whole of its line. */
static pw_status record_end(ply_reader *r, const ply_element *e, uint64_t i)
{
    if (r->format != PLY_ASCII)
        return PW_OK;
    int rc = ascii_token(r);
    if (rc == V_END_LINE) {
        r->p++;
        r->line++;
    } else if (rc == V_NUL) {
        return value_fail(r, e, i, rc, "");
    } else if (rc != V_END_DATA) {
        return data_fail(r, e, i, "more values than its %u properties ('%s' after them)", e->n_props, r->tok);
    }
    return PW_OK;
}

static pw_status store_vertex(const ply_reader *r, const ply_element *e, uint64_t i, const double *v, ply_build *b)
{
    pw_ply_mesh *m = b->m;
    pw_vec3 p = v3((float)v[R_X], (float)v[R_Y], (float)v[R_Z]);
    if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z))
        return data_fail(r, e, i, "position (%g, %g, %g) is not finite (NaN or infinity)", v[R_X], v[R_Y], v[R_Z]);
    m->pos[i] = p;
    if (m->nrm) {
        pw_vec3 n = v3((float)v[R_NX], (float)v[R_NY], (float)v[R_NZ]);
        if (!isfinite(n.x) || !isfinite(n.y) || !isfinite(n.z))
            return data_fail(r, e, i, "normal (%g, %g, %g) is not finite", v[R_NX], v[R_NY], v[R_NZ]);
        m->nrm[i] = n;
    }
    if (m->uv) {
        m->uv[2 * i] = (float)v[R_U];
        m->uv[2 * i + 1] = (float)v[R_V];
        if (!isfinite(m->uv[2 * i]) || !isfinite(m->uv[2 * i + 1]))
            return data_fail(r, e, i, "texture coordinates (%g, %g) are not finite", v[R_U], v[R_V]);
    }
    return PW_OK;
}

static pw_status read_record(ply_reader *r, const ply_element *e, uint64_t i, ply_build *b)
{
    pw_status st = record_begin(r, e, i);
    double v[R_COUNT] = {0};
    for (uint32_t j = 0; st == PW_OK && j < e->n_props; j++) {
        const ply_property *p = &e->props[j];
        if (p->role == R_INDICES) {
            st = read_face(r, e, i, p, b);
        } else if (p->count_type != T_NONE) {
            st = skip_list(r, e, i, p);
        } else {
            int rc = read_value(r, p->type, &v[p->role]);
            if (rc != V_OK)
                st = property_fail(r, e, i, rc, p, 0);
        }
    }
    if (st == PW_OK && e->kind == EL_VERTEX)
        st = store_vertex(r, e, i, v, b);
    return st == PW_OK ? record_end(r, e, i) : st;
}

/* Room for the faces' triangles: one each, as far as the bytes left can
 * hold faces of three indices; polygons grow it. */
static pw_status reserve_triangles(const ply_reader *r, const ply_element *e, ply_build *b)
{
    const ply_property *p = &e->props[e->role_prop[R_INDICES]];
    uint64_t per_face = record_min_bytes(e, r->format) + 3 * (r->format == PLY_ASCII ? 2 : type_info[p->type].size);
    uint64_t n = (uint64_t)(r->end - r->p) / per_face + 1;
    if (n > e->count)
        n = e->count;
    if (n > PLY_MAX_TRIS)
        n = PLY_MAX_TRIS;
    if (n <= b->cap_tris)
        return PW_OK;
    uint32_t *t = realloc(b->m->tri, (size_t)n * 3 * sizeof *t);
    if (!t)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for %llu faces", r->name, (unsigned long long)n);
    b->m->tri = t;
    b->cap_tris = (uint32_t)n;
    return PW_OK;
}

static pw_status read_elements(ply_reader *r, const ply_header *h, ply_build *b)
{
    pw_status st = PW_OK;
    for (uint32_t k = 0; st == PW_OK && k < h->n_elems; k++) {
        const ply_element *e = &h->elems[k];
        if (e->kind == EL_FACE)
            st = reserve_triangles(r, e, b);
        for (uint64_t i = 0; st == PW_OK && i < e->count; i++)
            st = read_record(r, e, i, b);
    }
    return st;
}

/* Bytes after the last element: the counts and the data disagree, but
 * everything the header declares was read. */
static void check_tail(ply_reader *r, const ply_header *h)
{
    if (r->format == PLY_ASCII) {
        skip_blank_lines(r);
        if (r->p < r->end)
            warnf(h->warn, h->user, "%s: line %llu: data after the last element ignored", r->name,
                  (unsigned long long)r->line);
    } else if (r->p < r->end) {
        warnf(h->warn, h->user, "%s: %zu bytes after the last element ignored", r->name, (size_t)(r->end - r->p));
    }
}

static pw_status alloc_vertices(const char *name, const ply_element *v, pw_ply_mesh *m)
{
    m->n_verts = (uint32_t)v->count;
    size_t n = m->n_verts ? m->n_verts : 1;
    m->pos = malloc(n * sizeof *m->pos);
    if (v->role_prop[R_NX] >= 0)
        m->nrm = malloc(n * sizeof *m->nrm);
    if (v->role_prop[R_U] >= 0)
        m->uv = malloc(n * 2 * sizeof *m->uv);
    if (!m->pos || (v->role_prop[R_NX] >= 0 && !m->nrm) || (v->role_prop[R_U] >= 0 && !m->uv))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for %u vertices", name, m->n_verts);
    return PW_OK;
}

static int host_is_big_endian(void)
{
    const uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 0;
}

pw_status pw_ply_parse(const char *name, const unsigned char *data, size_t len, pw_warning_fn warn, void *user,
                       pw_ply_mesh *out)
{
    memset(out, 0, sizeof *out);
    ply_header h = {.name = name, .warn = warn, .user = user, .vertex = -1, .face = -1};
    pw_status st = parse_header(&h, data, len);
    if (st == PW_OK)
        st = alloc_vertices(name, &h.elems[h.vertex], out);
    if (st == PW_OK) {
        ply_reader r = {.name = name, .p = data + h.data, .end = data + len, .format = h.format, .line = h.lines + 1};
        r.swap = h.format != PLY_ASCII && (h.format == PLY_BE) != host_is_big_endian();
        ply_build b = {out, 0};
        st = read_elements(&r, &h, &b);
        if (st == PW_OK)
            check_tail(&r, &h);
    }
    header_free(&h);
    if (st != PW_OK)
        pw_ply_free(out);
    return st;
}

pw_status pw_ply_read(const char *path, pw_warning_fn warn, void *user, pw_ply_mesh *out)
{
    memset(out, 0, sizeof *out);
    pw_bytes b;
    pw_status st = pw_read_file(path, PW_FILE_MAX_BYTES, &b);
    if (st != PW_OK)
        return st;
    st = pw_ply_parse(path, b.data, b.len, warn, user, out);
    pw_bytes_free(&b);
    return st;
}

void pw_ply_free(pw_ply_mesh *m)
{
    free(m->pos);
    free(m->nrm);
    free(m->uv);
    free(m->tri);
    memset(m, 0, sizeof *m);
}
