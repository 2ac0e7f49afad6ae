#include "scene/gltf_accessor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/uri_path.h"

static int base64_value(unsigned char c)
{
    return c >= 'A' && c <= 'Z'   ? c - 'A'
           : c >= 'a' && c <= 'z' ? c - 'a' + 26
           : c >= '0' && c <= '9' ? c - '0' + 52
           : c == '+' || c == '-' ? 62
           : c == '/' || c == '_' ? 63
                                  : -1;
}

/* Standard or URL-safe base64, '=' padding optional; 0 on a bad digit. */
static int base64_decode(const char *in, pw_bytes *out)
{
    size_t n = strlen(in);
    while (n && in[n - 1] == '=')
        n--;
    out->data = malloc(n / 4 * 3 + 3);
    out->len = 0;
    if (!out->data)
        return 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int v = base64_value((unsigned char)in[i]);
        if (v < 0) {
            pw_bytes_free(out);
            return 0;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out->data[out->len++] = (unsigned char)(acc >> bits);
        }
    }
    return 1;
}

/* The bytes behind buffer b (read once), at least its byteLength of them. */
static pw_status load_buffer(pw_gltf_doc *d, long b, const pw_bytes **out)
{
    const cJSON *buf = pw_gltf_at(d, PW_GLTF_BUFFERS, b);
    if (!buf)
        return pw_fail(PW_ERR_FORMAT, "%s: buffer %ld does not exist", d->path, b);
    if (d->buffer_state[b] == 2)
        return pw_fail(PW_ERR_FORMAT, "%s: buffer %ld cannot be read", d->path, b);
    if (d->buffer_state[b] == 1) {
        *out = &d->buffers[b];
        return PW_OK;
    }
    d->buffer_state[b] = 2;
    long len;
    if (!pw_gltf_as_index(pw_gltf_get(buf, "byteLength"), (long)PW_FILE_MAX_BYTES + 1, &len) || len < 1)
        return pw_fail(PW_ERR_FORMAT, "%s: buffer %ld has no valid byteLength", d->path, b);
    const char *uri = pw_gltf_string(buf, "uri", NULL);
    pw_bytes *bytes = &d->buffers[b];
    if (!uri) {
        if (b != 0 || !d->bin)
            return pw_fail(PW_ERR_FORMAT, "%s: buffer %ld has no uri (and is not a .glb's BIN chunk)", d->path, b);
        bytes->data = malloc(d->bin_len + 1);
        if (!bytes->data)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", d->path);
        memcpy(bytes->data, d->bin, d->bin_len);
        bytes->len = d->bin_len;
    } else if (strncmp(uri, "data:", 5) == 0) {
        const char *comma = strstr(uri, ";base64,");
        if (!comma || !base64_decode(comma + 8, bytes))
            return pw_fail(PW_ERR_FORMAT, "%s: buffer %ld: a data: URI that is not valid base64", d->path, b);
    } else {
        /* Beside the model even when it starts with '/': assimp, whose
         * meshes these bytes mend, joins every URI to the model's folder. */
        while (*uri == '/')
            uri++;
        char path[4096];
        if (!pw_uri_path(d->path, uri, path, sizeof path))
            return pw_fail(PW_ERR_FORMAT, "%s: buffer %ld: uri too long", d->path, b);
        pw_status st = pw_read_file(path, PW_FILE_MAX_BYTES, bytes);
        if (st != PW_OK)
            return pw_fail(st, "%s: buffer %ld: %s", d->path, b, pw_last_error());
    }
    if (bytes->len < (size_t)len)
        return pw_fail(PW_ERR_FORMAT, "%s: buffer %ld has %zu bytes, fewer than its byteLength %ld", d->path, b,
                       bytes->len, len);
    bytes->len = (size_t)len;
    d->buffer_state[b] = 1;
    *out = bytes;
    return PW_OK;
}

static int component_size(int type)
{
    switch (type) {
    case PW_GLTF_BYTE:
    case PW_GLTF_UNSIGNED_BYTE:
        return 1;
    case PW_GLTF_SHORT:
    case PW_GLTF_UNSIGNED_SHORT:
        return 2;
    case PW_GLTF_UNSIGNED_INT:
    case PW_GLTF_FLOAT:
        return 4;
    default:
        return 0;
    }
}

static const char *const type_names[7] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};

/* An element's components and bytes; a matrix's columns start 4-byte
 * aligned (padding after the columns of 1- and 2-byte components). */
static int element_of(const char *type, int csize, int *ncomp, size_t *bytes)
{
    static const int comps[7] = {1, 2, 3, 4, 4, 9, 16}, cols[7] = {1, 1, 1, 1, 2, 3, 4};
    for (int i = 0; type && i < 7; i++)
        if (strcmp(type, type_names[i]) == 0) {
            size_t col = (size_t)(comps[i] / cols[i]) * (size_t)csize;
            if (i >= 4)
                col = (col + 3) & ~(size_t)3;
            *ncomp = comps[i];
            *bytes = col * (size_t)cols[i];
            return 1;
        }
    return 0;
}

/* One component at p as glTF defines it: normalized integers map to
 * [0, 1] (unsigned) or [-1, 1] (signed, the most negative value clamped). */
static float decode(const unsigned char *p, int type, int normalized)
{
    switch (type) {
    case PW_GLTF_BYTE: {
        int8_t v;
        memcpy(&v, p, 1);
        return normalized ? (v < -127 ? -1.0f : (float)v / 127.0f) : (float)v;
    }
    case PW_GLTF_UNSIGNED_BYTE:
        return normalized ? (float)p[0] / 255.0f : (float)p[0];
    case PW_GLTF_SHORT: {
        int16_t v;
        memcpy(&v, p, 2);
        return normalized ? (v < -32767 ? -1.0f : (float)v / 32767.0f) : (float)v;
    }
    case PW_GLTF_UNSIGNED_SHORT: {
        uint16_t v;
        memcpy(&v, p, 2);
        return normalized ? (float)v / 65535.0f : (float)v;
    }
    case PW_GLTF_UNSIGNED_INT: {
        uint32_t v;
        memcpy(&v, p, 4);
        return normalized ? (float)((double)v / 4294967295.0) : (float)v;
    }
    default: {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    }
}

int pw_gltf_component_type(const pw_gltf_doc *d, long index)
{
    const cJSON *a = pw_gltf_at(d, PW_GLTF_ACCESSORS, index);
    long t;
    return a && pw_gltf_as_index(pw_gltf_get(a, "componentType"), 6000, &t) && component_size((int)t) ? (int)t : 0;
}

/* need bytes from offset into bufferView v: the view's buffer and where in
 * it they start, checked against the view and the buffer's byteLength. */
static pw_status view_range(const pw_gltf_doc *d, long v, uint64_t offset, uint64_t need, const char *what,
                            long *buffer, size_t *at)
{
    const cJSON *view = pw_gltf_at(d, PW_GLTF_BUFFER_VIEWS, v);
    long view_offset = 0, view_len, buf_len;
    const cJSON *vo = pw_gltf_get(view, "byteOffset");
    if (!view || (vo && !pw_gltf_as_index(vo, (long)PW_FILE_MAX_BYTES, &view_offset)) ||
        !pw_gltf_as_index(pw_gltf_get(view, "byteLength"), (long)PW_FILE_MAX_BYTES + 1, &view_len) || view_len < 1 ||
        !pw_gltf_as_index(pw_gltf_get(view, "buffer"), d->lists[PW_GLTF_BUFFERS].n, buffer) ||
        !pw_gltf_as_index(pw_gltf_get(pw_gltf_at(d, PW_GLTF_BUFFERS, *buffer), "byteLength"),
                          (long)PW_FILE_MAX_BYTES + 1, &buf_len))
        return pw_fail(PW_ERR_FORMAT, "%s: %s: bufferView %ld (or its buffer) is missing or malformed", d->path, what,
                       v);
    /* Sums of values below 2^31 and products below 2^28 * 256: no overflow. */
    if ((uint64_t)view_offset + (uint64_t)view_len > (uint64_t)buf_len || offset + need > (uint64_t)view_len)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: %llu bytes from byte %llu run past bufferView %ld (%ld bytes) or its "
                       "buffer", d->path, what, (unsigned long long)need, (unsigned long long)offset, v, view_len);
    *at = (size_t)view_offset + (size_t)offset;
    return PW_OK;
}

/* A sparse accessor's indices and values lie within their views. */
static pw_status check_sparse(const pw_gltf_doc *d, const cJSON *sp, pw_gltf_layout *l, const char *what)
{
    long n, iv, vv, io = 0, vo = 0, it;
    const cJSON *ix = pw_gltf_get(sp, "indices"), *va = pw_gltf_get(sp, "values");
    const cJSON *iof = pw_gltf_get(ix, "byteOffset"), *vof = pw_gltf_get(va, "byteOffset");
    if (!pw_gltf_as_index(pw_gltf_get(sp, "count"), (long)l->count + 1, &n) || n < 1 ||
        !pw_gltf_as_index(pw_gltf_get(ix, "bufferView"), d->lists[PW_GLTF_BUFFER_VIEWS].n, &iv) ||
        !pw_gltf_as_index(pw_gltf_get(va, "bufferView"), d->lists[PW_GLTF_BUFFER_VIEWS].n, &vv) ||
        !pw_gltf_as_index(pw_gltf_get(ix, "componentType"), 6000, &it) ||
        (it != PW_GLTF_UNSIGNED_BYTE && it != PW_GLTF_UNSIGNED_SHORT && it != PW_GLTF_UNSIGNED_INT) ||
        (iof && !pw_gltf_as_index(iof, (long)PW_FILE_MAX_BYTES, &io)) ||
        (vof && !pw_gltf_as_index(vof, (long)PW_FILE_MAX_BYTES, &vo)))
        return pw_fail(PW_ERR_FORMAT, "%s: %s: its sparse part is malformed", d->path, what);
    long buffer;
    size_t at;
    l->sparse_count = (uint32_t)n;
    l->sparse_index_type = (int)it;
    pw_status st = view_range(d, iv, (uint64_t)io, (uint64_t)n * (uint64_t)component_size((int)it), what,
                              &l->sparse_buffer, &l->sparse_at);
    return st != PW_OK ? st : view_range(d, vv, (uint64_t)vo, (uint64_t)n * l->elem, what, &buffer, &at);
}

pw_status pw_gltf_check_sparse_indices(pw_gltf_doc *d, long index, const pw_gltf_layout *l)
{
    if (!l->sparse)
        return PW_OK;
    const pw_bytes *buf;
    pw_status st = load_buffer(d, l->sparse_buffer, &buf);
    if (st != PW_OK)
        return st;
    int cs = component_size(l->sparse_index_type);
    for (uint32_t i = 0; i < l->sparse_count; i++) {
        float v = decode(buf->data + l->sparse_at + (size_t)i * (size_t)cs, l->sparse_index_type, 0);
        if (!(v < (float)l->count))
            return pw_fail(PW_ERR_FORMAT, "%s: accessor %ld: sparse index %u is %.0f, beyond its %u elements", d->path,
                           index, i, (double)v, l->count);
    }
    return PW_OK;
}

pw_status pw_gltf_accessor_layout(const pw_gltf_doc *d, long index, const char *what, pw_gltf_layout *l)
{
    memset(l, 0, sizeof *l);
    l->buffer = -1;
    char name[160];
    snprintf(name, sizeof name, "%s%saccessor %ld", what ? what : "", what ? ": " : "", index);
    const cJSON *a = pw_gltf_at(d, PW_GLTF_ACCESSORS, index);
    if (!a)
        return pw_fail(PW_ERR_FORMAT, "%s: %s does not exist", d->path, name);
    l->component_type = pw_gltf_component_type(d, index);
    int csize = component_size(l->component_type);
    long n, v, offset = 0, stride = 0;
    if (!csize || !element_of(pw_gltf_string(a, "type", NULL), csize, &l->ncomp, &l->elem))
        return pw_fail(PW_ERR_FORMAT, "%s: %s has no valid componentType or type", d->path, name);
    if (!pw_gltf_as_index(pw_gltf_get(a, "count"), (long)PW_GLTF_MAX_ACCESSOR_COUNT + 1, &n) || n < 1)
        return pw_fail(PW_ERR_FORMAT, "%s: %s has no valid count (1 to %u)", d->path, name, PW_GLTF_MAX_ACCESSOR_COUNT);
    l->count = (uint32_t)n;
    l->normalized = cJSON_IsTrue(pw_gltf_get(a, "normalized"));
    const cJSON *o = pw_gltf_get(a, "byteOffset"), *bv = pw_gltf_get(a, "bufferView"), *sp = pw_gltf_get(a, "sparse");
    l->sparse = sp != NULL;
    if (sp) {
        pw_status st = check_sparse(d, sp, l, name);
        if (st != PW_OK)
            return st;
    }
    if (!bv)
        return PW_OK; /* all zeros (and a sparse part) */
    if (!pw_gltf_as_index(bv, d->lists[PW_GLTF_BUFFER_VIEWS].n, &v) ||
        (o && !pw_gltf_as_index(o, (long)PW_FILE_MAX_BYTES, &offset)))
        return pw_fail(PW_ERR_FORMAT, "%s: %s has no valid bufferView or byteOffset", d->path, name);
    const cJSON *vs = pw_gltf_get(pw_gltf_at(d, PW_GLTF_BUFFER_VIEWS, v), "byteStride");
    if (vs && (!pw_gltf_as_index(vs, 256, &stride) || (stride && (size_t)stride < l->elem)))
        return pw_fail(PW_ERR_FORMAT, "%s: %s: bufferView %ld's byteStride is not at least the element's %zu bytes "
                       "(and below 256)", d->path, name, v, l->elem);
    l->stride = stride ? (size_t)stride : l->elem;
    return view_range(d, v, (uint64_t)offset, (uint64_t)l->stride * (l->count - 1) + l->elem, name, &l->buffer,
                      &l->offset);
}

pw_status pw_gltf_read_accessor(pw_gltf_doc *d, long index, int ncomp, const char *what, float **out,
                                uint32_t *count)
{
    *out = NULL;
    *count = 0;
    pw_gltf_layout l;
    pw_status st = pw_gltf_accessor_layout(d, index, what, &l);
    if (st != PW_OK)
        return st;
    const cJSON *a = pw_gltf_at(d, PW_GLTF_ACCESSORS, index);
    if (l.ncomp != ncomp || strncmp(pw_gltf_string(a, "type", ""), "MAT", 3) == 0)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld has type %s, not %s", d->path, what, index,
                       pw_gltf_string(a, "type", ""), type_names[ncomp - 1]);
    if (l.sparse)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld is sparse, which pathwave does not read", d->path, what,
                       index);
    const pw_bytes *buf = NULL;
    if (l.buffer >= 0 && (st = load_buffer(d, l.buffer, &buf)) != PW_OK)
        return st;
    float *f = calloc((size_t)l.count * (size_t)ncomp, sizeof *f);
    if (!f)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for accessor %ld", d->path, index);
    int cs = component_size(l.component_type);
    for (size_t i = 0; buf && i < l.count; i++)
        for (int c = 0; c < ncomp; c++)
            f[i * (size_t)ncomp + (size_t)c] =
                decode(buf->data + l.offset + i * l.stride + (size_t)c * (size_t)cs, l.component_type, l.normalized);
    *out = f;
    *count = l.count;
    return PW_OK;
}
