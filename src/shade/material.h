/* Materials as the integrator reads them, and the texture table they
 * index: the types and the accessors of their packed fields. Building them
 * is the scene's (pw_lambert and its siblings, scene/scene.h); shading
 * with them is bsdf.h's and texture.h's. */
#ifndef PW_MATERIAL_H
#define PW_MATERIAL_H

#include "core/vec3.h"

enum pw_material_type {
    PW_MAT_LAMBERT = 0,
    PW_MAT_METAL = 1,      /* mirror direction + roughness * point in unit ball (toy scene's metal) */
    PW_MAT_DIELECTRIC = 2, /* smooth, Fresnel-weighted reflection or refraction */
    PW_MAT_CONDUCTOR = 3,  /* GGX microfacets (alpha = roughness), Fresnel from complex IOR eta + i k */
    PW_MAT_ROUGH_DIELECTRIC = 4,   /* GGX microfacets (alpha = roughness) reflecting and refracting, index ior */
    PW_MAT_METALLIC_ROUGHNESS = 5, /* glTF 2.0 core: GGX specular (Schlick) + Lambert (albedo = base colour) */
    PW_MAT_COUNT
};
/* Types from PW_MAT_CONDUCTOR on are microfacet materials (PW_KINDS_ALL). */

/* 64 bytes. Any material may emit; emission is one-sided (front face)
 * unless PW_MATF_TWO_SIDED is set. Spheres are always seen from outside.
 * flags: bit 0 PW_MATF_TWO_SIDED; bit 1 PW_MATF_MAPS; bits 8..31 an albedo
 * texture (index + 1, 0 for none; PW_MAT_ALBEDO_TEX below), whose texel
 * multiplies albedo.
 *
 * maps: only the conductor reads k, and eta but for metallic's eta.x, so
 * every other type may carry further textures there, flagged by
 * PW_MATF_MAPS: k.x the normal map, k.y the metallic-roughness texture,
 * k.z the emission texture, each as (index + 1) in a float (0 for none;
 * exact, as indices stay below 2^24), and eta.y the normal map's scale.
 * PW_MAT_NORMAL_MAP and its siblings below read them; pw_material_set_map
 * (scene.h) writes them. */
typedef struct pw_material {
    pw_vec3 albedo;   /* 12: reflectance or tint */
    uint32_t type;    /*  4: enum pw_material_type */
    pw_vec3 emission; /* 12: emitted radiance */
    float roughness;  /*  4: toy metal's perturbation; GGX alpha for the microfacet materials */
    float ior;        /*  4: dielectric index of refraction (outside is 1) */
    uint32_t flags;   /*  4 */
    pw_vec3 eta, k;   /* 24: conductor's complex index of refraction per channel;
                       *     metallic-roughness keeps metallic in eta.x (pw_material_metallic)
                       *     and its dielectric F0 in eta.z (pw_material_dielectric_f0),
                       *     as only the conductor reads eta and k */
} pw_material;
PW_SIZE_CHECK(pw_material, 64);

/* PW_MAT_METALLIC_ROUGHNESS: the glTF metallic factor, 0 (dielectric) to 1 (metal). */
PW_HD float pw_material_metallic(const pw_material *m) { return m->eta.x; }
/* PW_MAT_METALLIC_ROUGHNESS: the dielectric's reflectance at normal
 * incidence, ((ior - 1) / (ior + 1))^2: glTF's 0.04 (ior 1.5) unless
 * KHR_materials_ior says otherwise. Kept in eta.z, which that type does
 * not otherwise read. */
PW_HD float pw_material_dielectric_f0(const pw_material *m) { return m->eta.z; }
PW_HD void pw_material_set_dielectric_f0(pw_material *m, float f0) { m->eta.z = f0; }

#define PW_MATF_TWO_SIDED 1u

/* textures: the albedo texture in bits 8..31 of a material's flags. */
#define PW_MATF_TEX_SHIFT 8u
#define PW_MAT_MAX_TEXTURES 0xfffffeu
#define PW_MAT_HAS_ALBEDO_TEX(m) (((m)->flags >> PW_MATF_TEX_SHIFT) != 0u)
#define PW_MAT_ALBEDO_TEX(m) (((m)->flags >> PW_MATF_TEX_SHIFT) - 1u) /* valid when PW_MAT_HAS_ALBEDO_TEX */
#define PW_MAT_SET_ALBEDO_TEX(m, tex)                                                                         \
    ((m)->flags = ((m)->flags & ((1u << PW_MATF_TEX_SHIFT) - 1u)) | (((uint32_t)(tex) + 1u) << PW_MATF_TEX_SHIFT))

/* maps: further textures in a material's k (see pw_material); the
 * accessors give index + 1, 0 for none, and are valid when PW_MAT_HAS_MAPS. */
#define PW_MATF_MAPS 2u
#define PW_MAT_HAS_MAPS(m) (((m)->flags & PW_MATF_MAPS) != 0u)
#define PW_MAT_NORMAL_MAP(m) ((uint32_t)(m)->k.x)
#define PW_MAT_MR_MAP(m) ((uint32_t)(m)->k.y)       /* glTF: metallic in blue, roughness in green */
#define PW_MAT_EMISSION_MAP(m) ((uint32_t)(m)->k.z) /* multiplies emission */
#define PW_MAT_NORMAL_SCALE(m) ((m)->eta.y)         /* glTF normalTexture.scale on x and y */
/* textures: the material reads a texture at the hit (albedo or maps), which
 * only kernels of PW_KINDS_ALL do. */
#define PW_MAT_IS_TEXTURED(m) (PW_MAT_HAS_ALBEDO_TEX(m) || PW_MAT_HAS_MAPS(m))

/* lights: whether the light tables hold a material's surfaces. Emission
 * that varies over a surface (an emission texture) is not light-sampled:
 * BSDF sampling alone finds it, with full weight. */
PW_HD int pw_material_is_light(const pw_material *m)
{
    return !v3_is_zero(m->emission) && !(PW_MAT_HAS_MAPS(m) && PW_MAT_EMISSION_MAP(m) != 0u);
}

/* textures: how coordinates outside [0, 1) map into an image. */
enum pw_wrap { PW_WRAP_REPEAT = 0, PW_WRAP_CLAMP = 1, PW_WRAP_MIRROR = 2 };
#define PW_WRAP_UV(wu, wv) ((uint32_t)(wu) | ((uint32_t)(wv) << 2))

/* textures: 16 bytes, an entry of the table that materials index. An
 * image of w x h linear RGB texels in the scene's texel pool (3 floats
 * each), row 0 at the top, from texel `offset` on. Several entries may
 * share pixels (one file, different wrap modes). */
typedef struct pw_texture {
    uint32_t offset; /* first texel in the pool */
    uint32_t w, h;
    uint32_t wrap;   /* PW_WRAP_UV(wrap in u, wrap in v) */
} pw_texture;
PW_SIZE_CHECK(pw_texture, 16);

#endif
