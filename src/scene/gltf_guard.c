#include "scene/gltf_guard.h"

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

static pw_status check_data_uris(const pw_gltf_doc *d, enum pw_gltf_array a, const char *what)
{
    for (long i = 0; i < d->lists[a].n; i++) {
        const char *uri = pw_gltf_string(pw_gltf_at(d, a, i), "uri", "");
        if (strncmp(uri, "data:", 5) == 0 && !valid_data_uri(uri))
            return pw_fail(PW_ERR_FORMAT, "%s: %s %ld: a data: URI that is not valid base64", d->path, what, i);
    }
    return PW_OK;
}

/* Accessors: assimp leaks what it allocated for a mesh whose indices
 * accessor runs past its bufferView (fuzz input: a count of 8 for 4
 * elements' bytes). Every accessor's layout is checked against its views
 * and buffer (their declared lengths; the bytes behind them are checked
 * when read). */
static pw_status check_accessors(const pw_gltf_doc *d)
{
    pw_gltf_layout l;
    for (long i = 0; i < d->lists[PW_GLTF_ACCESSORS].n; i++) {
        pw_status st = pw_gltf_accessor_layout(d, i, NULL, &l);
        if (st != PW_OK)
            return st;
    }
    return PW_OK;
}

pw_status pw_gltf_guard(const pw_gltf_doc *d)
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
