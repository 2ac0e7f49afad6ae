/* A glTF file's camera: the first perspective camera of the file, placed
 * by its node in assimp's node tree (glTF cameras sit at their node's
 * origin looking down -z with +y up), its vertical field of view read from
 * the file's own JSON. assimp's aiCamera is not used for either: its
 * mHorizontalFOV holds yfov x aspect in some versions and a true horizontal
 * angle in others, and its mPosition repeats the node's translation, which
 * pre-transforming the vertices would then apply twice. */
#include <assimp/cimport.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "scene/gltf_camera.h"

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The JSON text of a .gltf file, or the JSON chunk of a .glb; NULL if the
 * file cannot be read (assimp has read it already, so that is unexpected). */
static cJSON *read_json(const char *path, int glb)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    cJSON *j = NULL;
    if (!glb) {
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        char *text = n > 0 ? malloc((size_t)n + 1) : NULL;
        if (text && fread(text, 1, (size_t)n, f) == (size_t)n) {
            text[n] = '\0';
            j = cJSON_Parse(text);
        }
        free(text);
    } else {
        /* 12-byte header ("glTF", version, length), then the first chunk:
         * its length, its type ("JSON") and its bytes. */
        unsigned char h[20];
        if (fread(h, 1, sizeof h, f) == sizeof h && le32(h) == 0x46546C67u && le32(h + 16) == 0x4E4F534Au) {
            uint32_t n = le32(h + 12);
            char *text = n > 0 && n <= le32(h + 8) ? malloc((size_t)n + 1) : NULL;
            if (text && fread(text, 1, n, f) == n) {
                text[n] = '\0';
                j = cJSON_Parse(text);
            }
            free(text);
        }
    }
    fclose(f);
    return j;
}

static const struct aiNode *find_node(const struct aiNode *n, const char *name)
{
    if (strcmp(n->mName.data, name) == 0)
        return n;
    for (unsigned i = 0; i < n->mNumChildren; i++) {
        const struct aiNode *c = find_node(n->mChildren[i], name);
        if (c)
            return c;
    }
    return NULL;
}

static int finite_vec(pw_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

int pw_gltf_camera(pw_scene *s, const char *path, const struct aiScene *as)
{
    if (!(has_suffix(path, ".gltf") || has_suffix(path, ".glb")) || as->mNumCameras == 0)
        return 0;
    cJSON *j = read_json(path, has_suffix(path, ".glb"));
    const cJSON *cams = cJSON_GetObjectItemCaseSensitive(j, "cameras");
    int found = 0;
    for (unsigned i = 0; i < as->mNumCameras && i < (unsigned)cJSON_GetArraySize(cams) && !found; i++) {
        const cJSON *c = cJSON_GetArrayItem(cams, (int)i);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(c, "type");
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "perspective") != 0) {
            pw_scene_warn(s, "%s: camera %u is not a perspective camera (not supported; skipped)", path, i);
            continue;
        }
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "perspective");
        const cJSON *yfov = cJSON_GetObjectItemCaseSensitive(p, "yfov");
        const cJSON *aspect = cJSON_GetObjectItemCaseSensitive(p, "aspectRatio");
        const struct aiNode *n = find_node(as->mRootNode, as->mCameras[i]->mName.data);
        if (!cJSON_IsNumber(yfov) || !(yfov->valuedouble > 0.0 && yfov->valuedouble < PW_PI) || !n) {
            pw_scene_warn(s, "%s: camera %u has no usable yfov or node (skipped)", path, i);
            continue;
        }
        /* The node's transform to the scene's root, parent first. */
        struct aiMatrix4x4 g = n->mTransformation;
        for (const struct aiNode *q = n->mParent; q; q = q->mParent) {
            struct aiMatrix4x4 t = q->mTransformation;
            aiMultiplyMatrix4(&t, &g);
            g = t;
        }
        pw_vec3 eye = v3(g.a4, g.b4, g.c4), dir = v3(-g.a3, -g.b3, -g.c3), up = v3(g.a2, g.b2, g.c2);
        if (!finite_vec(eye) || !(v3_len(dir) > 0.0f) || !(v3_len(v3_cross(dir, up)) > 0.0f)) {
            pw_scene_warn(s, "%s: camera %u has a degenerate transform (skipped)", path, i);
            continue;
        }
        s->cam.look_from = eye;
        s->cam.look_at = v3_add(eye, v3_norm(dir));
        s->cam.up = v3_norm(up);
        s->cam.vfov_deg = (float)(yfov->valuedouble * 180.0 / PW_PI);
        s->cam.aperture = 0.0f;
        s->cam.focus_dist = 0.0f;
        if (cJSON_IsNumber(aspect) && aspect->valuedouble > 0.05 && aspect->valuedouble < 20.0)
            s->defaults.height = (int)lround(s->defaults.width / aspect->valuedouble);
        found = 1;
    }
    cJSON_Delete(j);
    return found;
}
