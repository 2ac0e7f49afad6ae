#include "scene/gltf_guard.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/gltf_accessor.h"
#include "scene/gltf_extensions.h"

/* KHR_texture_transform: assimp reads offset[0], offset[1], scale[0] and
 * scale[1] of whatever arrays it finds ({"offset": [1]} aborts it). */
static pw_status check_texture_transform(const pw_gltf_doc *d, const cJSON *x)
{
    double v[2];
    long i;
    const cJSON *tc = pw_gltf_get(x, "texCoord");
    if (!cJSON_IsObject(x) || pw_gltf_numbers(x, "offset", 2, v) < 0 || pw_gltf_numbers(x, "scale", 2, v) < 0 ||
        (pw_gltf_get(x, "rotation") && !cJSON_IsNumber(pw_gltf_get(x, "rotation"))) ||
        (tc && !pw_gltf_as_index(tc, 1L << 30, &i)))
        return pw_fail(PW_ERR_FORMAT, "%s: a KHR_texture_transform whose offset or scale is not 2 numbers, rotation "
                       "not a number or texCoord not an index", d->path);
    return PW_OK;
}

static pw_status check_extension(const pw_gltf_doc *d, const char *name, const cJSON *value, void *user)
{
    (void)user;
    if (strcmp(name, "KHR_texture_transform") == 0)
        return check_texture_transform(d, value);
    return PW_OK;
}

/* data: URIs of buffers and images: assimp leaks what it decoded so far
 * when it meets a byte that is not base64 (fuzz input: 0xff bytes in a
 * buffer's data), and keeps the offsets of the URI's parts in chars, which
 * a media type of more than a hundred bytes overflows (fuzz input: 0xff
 * bytes before ";base64,"). Only base64 data: URIs are taken, with a short
 * printable media type and standard base64 digits, '=' padding at the
 * end. */
static int valid_data_uri(const char *uri)
{
    const char *b = strstr(uri, ";base64,");
    if (!b || b - uri > 100)
        return 0;
    for (const char *c = uri; c < b; c++)
        if (*c <= ' ' || *c > '~')
            return 0;
    b += 8;
    size_t n = strlen(b), pad = 0;
    while (n > 0 && b[n - 1] == '=' && pad < 2)
        n--, pad++;
    for (size_t i = 0; i < n; i++) {
        char c = b[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/'))
            return 0;
    }
    return 1;
}

/* An image's media type (its mimeType, or its data: URI's): assimp looks
 * for the part after '/' with strchr and reads from one past the NULL it
 * gets when there is none (fuzz input: "data:image.png;base64,..."). */
static int valid_media_type(const char *type, size_t n)
{
    return n == 0 || memchr(type, '/', n) != NULL;
}

static pw_status check_data_uris(const pw_gltf_doc *d, enum pw_gltf_array a, const char *what)
{
    for (long i = 0; i < d->lists[a].n; i++) {
        const cJSON *item = pw_gltf_at(d, a, i);
        const char *uri = pw_gltf_string(item, "uri", ""), *mime = pw_gltf_string(item, "mimeType", "");
        int data = strncmp(uri, "data:", 5) == 0;
        if (data && !valid_data_uri(uri))
            return pw_fail(PW_ERR_FORMAT, "%s: %s %ld: a data: URI that is not valid base64", d->path, what, i);
        size_t n = data ? strcspn(uri + 5, ";,") : 0;
        if (a == PW_GLTF_IMAGES && (!valid_media_type(mime, strlen(mime)) || !valid_media_type(uri + 5, n)))
            return pw_fail(PW_ERR_FORMAT, "%s: image %ld: a media type without '/' (such as image/png)", d->path, i);
    }
    return PW_OK;
}

/* Accessors: assimp leaks what it allocated for a mesh whose indices
 * accessor runs past its bufferView (fuzz input: a count of 8 for 4
 * elements' bytes), and writes a sparse accessor's values where its
 * indices say, unchecked. Every accessor's layout is checked against its
 * views and buffer (their declared lengths; the bytes behind them are
 * checked when read), and sparse indices against the accessor's count. */
static pw_status check_accessors(pw_gltf_doc *d)
{
    pw_gltf_layout l;
    for (long i = 0; i < d->lists[PW_GLTF_ACCESSORS].n; i++) {
        pw_status st = pw_gltf_accessor_layout(d, i, NULL, &l);
        if (st == PW_OK)
            st = pw_gltf_check_sparse_indices(d, i, &l);
        if (st != PW_OK)
            return st;
    }
    return PW_OK;
}

pw_status pw_gltf_guard(pw_gltf_doc *d)
{
    pw_status st = pw_gltf_each_extension(d, check_extension, NULL);
    if (st == PW_OK)
        st = check_accessors(d);
    if (st == PW_OK)
        st = check_data_uris(d, PW_GLTF_BUFFERS, "buffer");
    if (st == PW_OK)
        st = check_data_uris(d, PW_GLTF_IMAGES, "image");
    return st;
}

/* The JSON text of root in a .glb container like doc's: the new JSON chunk
 * (padded with spaces to 4 bytes), then doc's other chunks as they were. */
static pw_status wrap_glb(const pw_gltf_doc *d, const char *json, pw_bytes *out)
{
    size_t jn = strlen(json), padded = (jn + 3) & ~(size_t)3, rest = d->glb_len - d->glb_rest;
    size_t total = 20 + padded + rest;
    if (total > 0xffffffffu)
        return pw_fail(PW_ERR_FORMAT, "%s: too large for a binary glTF container", d->path);
    out->data = malloc(total + 1);
    if (!out->data)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", d->path);
    const uint32_t head[5] = {0x46546C67u, 2, (uint32_t)total, (uint32_t)padded, 0x4E4F534Au};
    for (int i = 0; i < 5; i++)
        for (int b = 0; b < 4; b++)
            out->data[4 * i + b] = (unsigned char)(head[i] >> (8 * b));
    memcpy(out->data + 20, json, jn);
    memset(out->data + 20 + jn, ' ', padded - jn);
    memcpy(out->data + 20 + padded, d->file.data + d->glb_rest, rest);
    out->data[total] = '\0';
    out->len = total;
    return PW_OK;
}

/* Whether the file has what assimp is not to read (below). */
static int has_unread_parts(const pw_gltf_doc *d)
{
    if (pw_gltf_get(d->root, "skins") || pw_gltf_get(d->root, "animations"))
        return 1;
    for (long i = 0; i < d->lists[PW_GLTF_NODES].n; i++)
        if (pw_gltf_get(pw_gltf_at(d, PW_GLTF_NODES, i), "skin"))
            return 1;
    for (long m = 0; m < d->lists[PW_GLTF_MESHES].n; m++) {
        const cJSON *prims = pw_gltf_get(pw_gltf_at(d, PW_GLTF_MESHES, m), "primitives");
        for (const cJSON *p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next)
            if (pw_gltf_get(p, "targets"))
                return 1;
    }
    return 0;
}

static void delete_in_each(cJSON *array, const char *key)
{
    for (cJSON *c = cJSON_IsArray(array) ? array->child : NULL; c; c = c->next)
        if (cJSON_IsObject(c))
            cJSON_DeleteItemFromObjectCaseSensitive(c, key);
}

pw_status pw_gltf_assimp_bytes(const pw_gltf_doc *d, pw_bytes *out)
{
    out->data = NULL;
    out->len = 0;
    if (!has_unread_parts(d))
        return PW_OK;
    cJSON *copy = cJSON_Duplicate(d->root, 1);
    if (copy) {
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "skins");
        cJSON_DeleteItemFromObjectCaseSensitive(copy, "animations");
        delete_in_each(cJSON_GetObjectItemCaseSensitive(copy, "nodes"), "skin");
        cJSON *meshes = cJSON_GetObjectItemCaseSensitive(copy, "meshes");
        for (cJSON *m = cJSON_IsArray(meshes) ? meshes->child : NULL; m; m = m->next)
            delete_in_each(cJSON_GetObjectItemCaseSensitive(m, "primitives"), "targets");
    }
    char *json = copy ? cJSON_PrintUnformatted(copy) : NULL;
    cJSON_Delete(copy);
    if (!json)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", d->path);
    pw_status st = PW_OK;
    if (d->glb_len) {
        st = wrap_glb(d, json, out);
        free(json);
    } else {
        out->data = (unsigned char *)json;
        out->len = strlen(json);
    }
    return st;
}
