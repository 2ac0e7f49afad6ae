/* What a glTF material's extensions add that assimp 5.2.5 does not give
 * (checked against it with small files: it fills neither
 * AI_MATKEY_EMISSIVE_INTENSITY nor the texture transform's texCoord, and
 * its aiUVTransform is in a space of its own), read from the file's JSON:
 * KHR_materials_emissive_strength, KHR_texture_transform and texCoord, and
 * KHR_materials_ior, which is approximated. */
#ifndef PW_GLTF_MATERIALS_H
#define PW_GLTF_MATERIALS_H

#include "scene/gltf_json.h"
#include "scene/scene.h"

typedef struct pw_gltf_material_info {
    float emissive_strength; /* multiplies emissiveFactor */
    float dielectric_f0;     /* KHR_materials_ior's ((ior - 1) / (ior + 1))^2, else 0.04 */
    int uv_channel;          /* the texture coordinates the material's textures use (TEXCOORD_n) */
    int uv_identity;         /* uv below is the identity */
    /* The texture transform in assimp's UV space (v = 1 - glTF's v), which
     * the mesh's coordinates get at load: u' = uv[0] u + uv[1] v + uv[2],
     * v' = uv[3] u + uv[4] v + uv[5]. pathwave's materials carry no
     * transform of their own, so one transform serves all of a material's
     * textures. */
    float uv[6];
} pw_gltf_material_info;

/* The identity: strength 1, F0 0.04, TEXCOORD_0, no transform. */
void pw_gltf_material_info_default(pw_gltf_material_info *info);
/* The info of the file's material index m. Warnings through s: textures of
 * the material whose transforms or texCoord differ (one is used, named),
 * values out of range. */
void pw_gltf_material_info_read(const pw_gltf_doc *doc, pw_scene *s, long m, pw_gltf_material_info *info);

/* A texture transform (glTF's offset, rotation, scale) as the affine map
 * of assimp's UV space described above. */
void pw_gltf_uv_transform(const double offset[2], double rotation, const double scale[2], float out[6]);

#endif
