#include "scene/gltf_accessor.h"

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

/* Components of the accessor types read here (matrices, whose columns
 * are padded, are not). */
static int components_of(const char *type)
{
    static const char *const names[] = {"SCALAR", "VEC2", "VEC3", "VEC4"};
    for (int i = 0; type && i < 4; i++)
        if (strcmp(type, names[i]) == 0)
            return i + 1;
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

/* Where an accessor's elements lie: the view's bytes from the accessor's
 * offset, and the stride between elements. */
typedef struct element_span {
    const unsigned char *data;
    size_t stride;
} element_span;

static pw_status locate(pw_gltf_doc *d, long index, const cJSON *a, size_t elem, uint32_t count, const char *what,
                        element_span *span)
{
    long v, offset = 0, view_offset = 0, view_len, stride = 0, buffer;
    const cJSON *view = NULL;
    if (!pw_gltf_as_index(pw_gltf_get(a, "bufferView"), d->lists[PW_GLTF_BUFFER_VIEWS].n, &v) ||
        !(view = pw_gltf_at(d, PW_GLTF_BUFFER_VIEWS, v)))
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld has no valid bufferView", d->path, what, index);
    const cJSON *o = pw_gltf_get(a, "byteOffset"), *vo = pw_gltf_get(view, "byteOffset"),
                *vs = pw_gltf_get(view, "byteStride");
    if ((o && !pw_gltf_as_index(o, (long)PW_FILE_MAX_BYTES, &offset)) ||
        (vo && !pw_gltf_as_index(vo, (long)PW_FILE_MAX_BYTES, &view_offset)) ||
        (vs && !pw_gltf_as_index(vs, 256, &stride)) ||
        !pw_gltf_as_index(pw_gltf_get(view, "byteLength"), (long)PW_FILE_MAX_BYTES + 1, &view_len) || view_len < 1 ||
        !pw_gltf_as_index(pw_gltf_get(view, "buffer"), d->lists[PW_GLTF_BUFFERS].n, &buffer))
        return pw_fail(PW_ERR_FORMAT, "%s: %s: bufferView %ld of accessor %ld is malformed", d->path, what, v, index);
    if (stride == 0)
        stride = (long)elem;
    if ((size_t)stride < elem)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: bufferView %ld's byteStride %ld is less than accessor %ld's element (%zu bytes)",
                       d->path, what, v, stride, index, elem);
    const pw_bytes *buf;
    pw_status st = load_buffer(d, buffer, &buf);
    if (st != PW_OK)
        return st;
    /* 64-bit sums of values below 2^31 and a count below 2^28: no overflow. */
    uint64_t view_end = (uint64_t)view_offset + (uint64_t)view_len;
    uint64_t need = (uint64_t)offset + (uint64_t)stride * (count - 1) + elem;
    if (view_end > buf->len || need > (uint64_t)view_len)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld (%u elements of %zu bytes, stride %ld) runs past its "
                       "bufferView %ld or the buffer", d->path, what, index, count, elem, stride, v);
    span->data = buf->data + view_offset + offset;
    span->stride = (size_t)stride;
    return PW_OK;
}

pw_status pw_gltf_read_accessor(pw_gltf_doc *d, long index, int ncomp, const char *what, float **out,
                                uint32_t *count)
{
    *out = NULL;
    *count = 0;
    const cJSON *a = pw_gltf_at(d, PW_GLTF_ACCESSORS, index);
    if (!a)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld does not exist", d->path, what, index);
    int type = pw_gltf_component_type(d, index), nc = components_of(pw_gltf_string(a, "type", NULL));
    long n;
    if (!type)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld has no valid componentType", d->path, what, index);
    if (nc != ncomp)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld has type %s, not %s", d->path, what, index,
                       pw_gltf_string(a, "type", "(none)"), ncomp == 1 ? "SCALAR" : ncomp == 2 ? "VEC2" : ncomp == 3 ? "VEC3" : "VEC4");
    if (!pw_gltf_as_index(pw_gltf_get(a, "count"), (long)PW_GLTF_MAX_ACCESSOR_COUNT + 1, &n) || n < 1)
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld has no valid count (1 to %u)", d->path, what, index,
                       PW_GLTF_MAX_ACCESSOR_COUNT);
    if (pw_gltf_get(a, "sparse"))
        return pw_fail(PW_ERR_FORMAT, "%s: %s: accessor %ld is sparse, which pathwave does not read", d->path, what,
                       index);
    int normalized = cJSON_IsTrue(pw_gltf_get(a, "normalized"));
    int cs = component_size(type);
    element_span span = {NULL, 0};
    pw_status st = locate(d, index, a, (size_t)cs * (size_t)nc, (uint32_t)n, what, &span);
    if (st != PW_OK)
        return st;
    float *f = malloc((size_t)n * (size_t)nc * sizeof *f);
    if (!f)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for accessor %ld", d->path, index);
    for (size_t i = 0; i < (size_t)n; i++)
        for (int c = 0; c < nc; c++)
            f[i * (size_t)nc + (size_t)c] = decode(span.data + i * span.stride + (size_t)c * (size_t)cs, type, normalized);
    *out = f;
    *count = (uint32_t)n;
    return PW_OK;
}
