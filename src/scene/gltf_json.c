#include "scene/gltf_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"

static const char *const array_names[PW_GLTF_ARRAY_COUNT] = {
    "nodes", "meshes", "materials", "textures", "images", "cameras", "accessors", "bufferViews", "buffers", "scenes"};

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int pw_gltf_is_gltf_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (strcasecmp(dot, ".gltf") == 0 || strcasecmp(dot, ".glb") == 0);
}

#define GLB_MAGIC 0x46546C67u /* "glTF" */
#define GLB_JSON 0x4E4F534Au  /* "JSON" */
#define GLB_BIN 0x004E4942u   /* "BIN\0" */

/* The container of a .glb: a 12-byte header ("glTF", version 2, length),
 * then chunks of (length, type, bytes): JSON first, BIN optionally next.
 * *json and *n get the JSON chunk. */
static pw_status read_glb(pw_gltf_doc *d, const char **json, size_t *n)
{
    const unsigned char *p = d->file.data;
    size_t len = d->file.len;
    if (len < 12 || le32(p) != GLB_MAGIC)
        return pw_fail(PW_ERR_FORMAT, "%s: not a binary glTF file (no \"glTF\" magic at its start)", d->path);
    if (le32(p + 4) != 2)
        return pw_fail(PW_ERR_FORMAT, "%s: binary glTF version %u (pathwave reads version 2)", d->path, le32(p + 4));
    if (le32(p + 8) > len)
        return pw_fail(PW_ERR_FORMAT, "%s: truncated: its header says %u bytes, the file has %zu", d->path,
                       le32(p + 8), len);
    len = le32(p + 8);
    if (len < 20 || le32(p + 16) != GLB_JSON)
        return pw_fail(PW_ERR_FORMAT, "%s: binary glTF without a JSON chunk first", d->path);
    size_t jn = le32(p + 12);
    if (jn > len - 20)
        return pw_fail(PW_ERR_FORMAT, "%s: its JSON chunk of %zu bytes runs past the file's end", d->path, jn);
    *json = (const char *)p + 20;
    *n = jn;
    size_t at = 20 + ((jn + 3) & ~(size_t)3); /* chunks start 4-byte aligned */
    d->glb_rest = at < len ? at : len;
    d->glb_len = len;
    if (at + 8 <= len && le32(p + at + 4) == GLB_BIN) {
        size_t bn = le32(p + at);
        if (bn > len - at - 8)
            return pw_fail(PW_ERR_FORMAT, "%s: its BIN chunk of %zu bytes runs past the file's end", d->path, bn);
        d->bin = p + at + 8;
        d->bin_len = bn;
    }
    return PW_OK;
}

static pw_status parse_json(pw_gltf_doc *d, const char *text, size_t n)
{
    if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) /* a byte-order mark, which cJSON does not take */
        text += 3, n -= 3;
    const char *end = NULL;
    d->root = cJSON_ParseWithLengthOpts(text, n, &end, 0);
    if (!d->root) {
        size_t at = end && end >= text && end <= text + n ? (size_t)(end - text) : 0;
        return pw_fail(PW_ERR_FORMAT, "%s: its JSON does not parse (at byte %zu)", d->path, at);
    }
    if (!cJSON_IsObject(d->root))
        return pw_fail(PW_ERR_FORMAT, "%s: its JSON is not an object", d->path);
    return PW_OK;
}

static pw_status index_arrays(pw_gltf_doc *d)
{
    for (int a = 0; a < PW_GLTF_ARRAY_COUNT; a++) {
        const cJSON *arr = cJSON_GetObjectItemCaseSensitive(d->root, array_names[a]);
        if (!arr)
            continue;
        if (!cJSON_IsArray(arr))
            return pw_fail(PW_ERR_FORMAT, "%s: \"%s\" is not an array", d->path, array_names[a]);
        int n = cJSON_GetArraySize(arr);
        d->lists[a].items = n ? malloc((size_t)n * sizeof *d->lists[a].items) : NULL;
        if (n && !d->lists[a].items)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", d->path);
        int i = 0;
        for (const cJSON *c = arr->child; c && i < n; c = c->next)
            d->lists[a].items[i++] = c;
        d->lists[a].n = i;
    }
    int nb = d->lists[PW_GLTF_BUFFERS].n;
    if (nb) {
        d->buffers = calloc((size_t)nb, sizeof *d->buffers);
        d->buffer_state = calloc((size_t)nb, 1);
        if (!d->buffers || !d->buffer_state)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", d->path);
    }
    return PW_OK;
}

pw_status pw_gltf_doc_parse(const char *path, pw_bytes bytes, pw_gltf_doc *d)
{
    memset(d, 0, sizeof *d);
    d->path = path;
    d->file = bytes;
    const char *dot = strrchr(path, '.');
    int glb = dot && strcasecmp(dot, ".glb") == 0;
    int magic = bytes.len >= 4 && le32(bytes.data) == GLB_MAGIC;
    const char *json = (const char *)bytes.data;
    size_t n = bytes.len;
    pw_status st = PW_OK;
    if (magic && !glb)
        st = pw_fail(PW_ERR_FORMAT, "%s: holds binary glTF (GLB) but is named as text glTF (rename it .glb)", path);
    else if (glb)
        st = read_glb(d, &json, &n);
    if (st == PW_OK)
        st = parse_json(d, json, n);
    if (st == PW_OK)
        st = index_arrays(d);
    if (st != PW_OK)
        pw_gltf_doc_close(d);
    return st;
}

pw_status pw_gltf_doc_open(const char *path, pw_gltf_doc *d)
{
    memset(d, 0, sizeof *d);
    pw_bytes b;
    pw_status st = pw_read_file(path, PW_FILE_MAX_BYTES, &b);
    return st != PW_OK ? st : pw_gltf_doc_parse(path, b, d);
}

void pw_gltf_doc_close(pw_gltf_doc *d)
{
    cJSON_Delete(d->root);
    for (int a = 0; a < PW_GLTF_ARRAY_COUNT; a++)
        free(d->lists[a].items);
    for (int i = 0; d->buffers && i < d->lists[PW_GLTF_BUFFERS].n; i++)
        pw_bytes_free(&d->buffers[i]);
    free(d->buffers);
    free(d->buffer_state);
    pw_bytes_free(&d->file);
    memset(d, 0, sizeof *d);
}

const cJSON *pw_gltf_at(const pw_gltf_doc *d, enum pw_gltf_array a, long i)
{
    return i >= 0 && i < d->lists[a].n ? d->lists[a].items[i] : NULL;
}

const cJSON *pw_gltf_get(const cJSON *obj, const char *key)
{
    return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

const cJSON *pw_gltf_extension(const cJSON *obj, const char *name)
{
    const cJSON *e = pw_gltf_get(pw_gltf_get(obj, "extensions"), name);
    return cJSON_IsObject(e) ? e : NULL;
}

int pw_gltf_as_index(const cJSON *v, long limit, long *out)
{
    if (!cJSON_IsNumber(v))
        return 0;
    double x = v->valuedouble;
    if (!(x >= 0.0 && x < (double)limit) || x != floor(x))
        return 0;
    *out = (long)x;
    return 1;
}

double pw_gltf_number(const cJSON *obj, const char *key, double def, int *bad)
{
    const cJSON *v = pw_gltf_get(obj, key);
    if (!v)
        return def;
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) {
        if (bad)
            *bad = 1;
        return def;
    }
    return v->valuedouble;
}

int pw_gltf_numbers(const cJSON *obj, const char *key, int n, double *out)
{
    const cJSON *v = pw_gltf_get(obj, key);
    if (!v)
        return 0;
    double tmp[16];
    if (n > 16 || !cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return -1;
    int i = 0;
    for (const cJSON *c = v->child; c; c = c->next, i++) {
        if (!cJSON_IsNumber(c) || !isfinite(c->valuedouble))
            return -1;
        tmp[i] = c->valuedouble;
    }
    memcpy(out, tmp, (size_t)n * sizeof *out);
    return 1;
}

const char *pw_gltf_string(const cJSON *obj, const char *key, const char *def)
{
    const cJSON *v = pw_gltf_get(obj, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : def;
}
