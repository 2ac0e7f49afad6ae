#include "scene/gltf_materials.h"

#include <math.h>
#include <string.h>

void pw_gltf_material_info_default(pw_gltf_material_info *info)
{
    info->emissive_strength = 1.0f;
    info->dielectric_f0 = 0.04f;
    info->uv_channel = 0;
    info->uv_identity = 1;
    const float id[6] = {1, 0, 0, 0, 1, 0};
    memcpy(info->uv, id, sizeof id);
}

void pw_gltf_uv_transform(const double offset[2], double rotation, const double scale[2], float out[6])
{
    /* glTF: uv' = T R S uv, R = [cos sin; -sin cos] (counter-clockwise in
     * UV space, whose v runs down the image), so
     *   u' =  sx cos(r) u + sy sin(r) v + ox
     *   v' = -sx sin(r) u + sy cos(r) v + oy.
     * assimp hands over v_a = 1 - v; substituting gives the map of v_a. */
    double c = cos(rotation), s = sin(rotation);
    double a00 = scale[0] * c, a01 = scale[1] * s, a10 = -scale[0] * s, a11 = scale[1] * c;
    out[0] = (float)a00;
    out[1] = (float)-a01;
    out[2] = (float)(a01 + offset[0]);
    out[3] = (float)-a10;
    out[4] = (float)a11;
    out[5] = (float)(1.0 - a11 - offset[1]);
}

/* One textureInfo's coordinates: texCoord, and the transform's. */
typedef struct tex_uv {
    double offset[2], rotation, scale[2];
    long channel;
} tex_uv;

static void read_tex_uv(const cJSON *info, tex_uv *t)
{
    t->offset[0] = t->offset[1] = 0.0;
    t->scale[0] = t->scale[1] = 1.0;
    t->rotation = 0.0;
    t->channel = 0;
    pw_gltf_as_index(pw_gltf_get(info, "texCoord"), 8, &t->channel);
    const cJSON *x = pw_gltf_extension(info, "KHR_texture_transform");
    if (!x)
        return;
    /* Malformed values were refused before assimp read the file
     * (gltf_guard.c); absent ones keep their defaults. */
    pw_gltf_numbers(x, "offset", 2, t->offset);
    pw_gltf_numbers(x, "scale", 2, t->scale);
    t->rotation = pw_gltf_number(x, "rotation", 0.0, NULL);
    pw_gltf_as_index(pw_gltf_get(x, "texCoord"), 8, &t->channel);
}

static int same_uv(const tex_uv *a, const tex_uv *b)
{
    return a->offset[0] == b->offset[0] && a->offset[1] == b->offset[1] && a->rotation == b->rotation &&
           a->scale[0] == b->scale[0] && a->scale[1] == b->scale[1] && a->channel == b->channel;
}

/* The textures pathwave reads, in the order that picks the one whose
 * coordinates serve all when they differ. */
static void choose_uv(const pw_gltf_doc *d, pw_scene *s, long m, const cJSON *mat, pw_gltf_material_info *info)
{
    const cJSON *pbr = pw_gltf_get(mat, "pbrMetallicRoughness");
    const cJSON *texs[4] = {pw_gltf_get(pbr, "baseColorTexture"), pw_gltf_get(pbr, "metallicRoughnessTexture"),
                            pw_gltf_get(mat, "normalTexture"), pw_gltf_get(mat, "emissiveTexture")};
    static const char *const names[4] = {"base colour", "metallic-roughness", "normal", "emissive"};
    int first = -1, differ = 0;
    tex_uv chosen, t;
    memset(&chosen, 0, sizeof chosen);
    for (int i = 0; i < 4; i++) {
        if (!cJSON_IsObject(texs[i]))
            continue;
        read_tex_uv(texs[i], &t);
        if (first < 0) {
            chosen = t;
            first = i;
        } else {
            differ |= !same_uv(&chosen, &t);
        }
    }
    if (first < 0)
        return;
    if (differ)
        pw_scene_warn(s, "%s: material %ld ('%s'): its textures' coordinates (texCoord, KHR_texture_transform) "
                      "differ; pathwave uses the %s texture's for all", d->path, m, pw_gltf_string(mat, "name", ""),
                      names[first]);
    info->uv_channel = (int)chosen.channel;
    info->uv_identity = chosen.offset[0] == 0.0 && chosen.offset[1] == 0.0 && chosen.rotation == 0.0 &&
                        chosen.scale[0] == 1.0 && chosen.scale[1] == 1.0;
    pw_gltf_uv_transform(chosen.offset, chosen.rotation, chosen.scale, info->uv);
}

/* KHR_materials_ior: the dielectric's F0 = ((ior - 1) / (ior + 1))^2. */
static void read_ior(const pw_gltf_doc *d, pw_scene *s, long m, const cJSON *mat, pw_gltf_material_info *info)
{
    const cJSON *x = pw_gltf_extension(mat, "KHR_materials_ior");
    if (!x)
        return;
    int bad = 0;
    double ior = pw_gltf_number(x, "ior", 1.5, &bad);
    if (bad || !(ior >= 1.0) || ior > 1e6) {
        pw_scene_warn(s, "%s: material %ld ('%s'): KHR_materials_ior's ior is not a number from 1 to 10^6 "
                      "(1.5 is used)", d->path, m, pw_gltf_string(mat, "name", ""));
        return;
    }
    double f0 = (ior - 1.0) / (ior + 1.0);
    info->dielectric_f0 = (float)(f0 * f0);
}

void pw_gltf_material_info_read(const pw_gltf_doc *d, pw_scene *s, long m, pw_gltf_material_info *info)
{
    pw_gltf_material_info_default(info);
    const cJSON *mat = pw_gltf_at(d, PW_GLTF_MATERIALS, m);
    if (!mat)
        return;
    const cJSON *es = pw_gltf_extension(mat, "KHR_materials_emissive_strength");
    if (es) {
        int bad = 0;
        double k = pw_gltf_number(es, "emissiveStrength", 1.0, &bad);
        if (bad || k < 0.0 || k > 3.4e38)
            pw_scene_warn(s, "%s: material %ld ('%s'): emissiveStrength is not a finite number of at least 0 "
                          "(1 is used)", d->path, m, pw_gltf_string(mat, "name", ""));
        else
            info->emissive_strength = (float)k;
    }
    choose_uv(d, s, m, mat, info);
    read_ior(d, s, m, mat, info);
}
