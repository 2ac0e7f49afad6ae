#include "scene/gltf_guard.h"

#include <string.h>

#include "core/error.h"
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

pw_status pw_gltf_guard(const pw_gltf_doc *d)
{
    return pw_gltf_each_extension(d, check_extension, NULL);
}
