/* The scene as the integrator sees it: flat arrays behind plain pointers, the
 * same struct filled with host pointers by the CPU backends and with device
 * pointers by the CUDA backends. Every hot struct states its size. */
#ifndef PW_SCENE_VIEW_H
#define PW_SCENE_VIEW_H

#include "core/vec3.h"
#include "pathwave.h"

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

/* textures: 16 bytes. An image of w x h linear RGB texels in the scene's
 * texel pool (3 floats each), row 0 at the top, from texel `offset` on.
 * Several entries may share pixels (one file, different wrap modes). */
typedef struct pw_texture {
    uint32_t offset; /* first texel in the pool */
    uint32_t w, h;
    uint32_t wrap;   /* PW_WRAP_UV(wrap in u, wrap in v) */
} pw_texture;
PW_SIZE_CHECK(pw_texture, 16);

/* 16 bytes: centre and radius. Its material sits in sphere_mat[]. */
typedef struct pw_sphere {
    pw_vec3 c;
    float r;
} pw_sphere;
PW_SIZE_CHECK(pw_sphere, 16);

/* 48 bytes: a primitive as a BVH leaf tests it, kept in leaf order (leaf
 * slot i holds primitive prim_ref[i]), so traversal reads its geometry with
 * no index to follow first: one 16-byte load for a sphere (a second on a
 * hit, for its id), three for a triangle, instead of an index, then a
 * sphere or an index triple and three vertices. */
typedef struct pw_leaf_prim {
    float a[4];    /* sphere: centre and radius (> 0); triangle: vertex 0 and -1 */
    float b[3];    /* triangle: vertex 1 */
    uint32_t prim; /* the primitive id (spheres first, then triangles) */
    float c[4];    /* triangle: vertex 2 (c[3] unused) */
} pw_leaf_prim;
PW_SIZE_CHECK(pw_leaf_prim, 48);

/* The 4-wide BVH (accel/bvh4.h), 128 bytes a node. */
/* A child reference: a node index, or a leaf (PW_BVH4_LEAF set) holding
 * leaf slots first .. first + count - 1 of prim_ref and leaf_prims, with
 * count - 1 (the binary builder makes leaves of 1 to 4) in bits 29-30. */
#define PW_BVH4_LEAF 0x80000000u
#define PW_BVH4_COUNT_SHIFT 29u
#define PW_BVH4_FIRST_MASK 0x1fffffffu
#define PW_BVH4_EMPTY 0xffffffffu
/* The four children's bounds as structure of arrays, then their references. */
typedef struct pw_bvh4_node {
    float lo_x[4], lo_y[4], lo_z[4];
    float hi_x[4], hi_y[4], hi_z[4];
    uint32_t child[4];
    uint32_t pad[4];
} pw_bvh4_node;
PW_SIZE_CHECK(pw_bvh4_node, 128);

/* 32 bytes. Interior nodes have count == 0 and children at first, first+1;
 * leaves hold slots first .. first+count of prim_ref and leaf_prims. */
typedef struct pw_bvh_node {
    float bmin[3];
    uint32_t first;
    float bmax[3];
    uint32_t count;
} pw_bvh_node;
PW_SIZE_CHECK(pw_bvh_node, 32);

enum pw_env_type { PW_ENV_CONSTANT = 0, PW_ENV_GRADIENT = 1, PW_ENV_MAP = 2 };

/* Radiance arriving from directions that hit nothing. GRADIENT is the toy
 * scene's sky: lerp(bottom, top, 0.5 (dir.y + 1)) * scale. MAP is an
 * equirectangular image (row 0 looks up, +y), importance-sampled through a
 * 2D piecewise-constant distribution of luminance times sin(theta). */
typedef struct pw_env {
    uint32_t type;
    pw_vec3 bottom, top;
    float scale;
    /* CONSTANT and GRADIENT, set when the view is made (scene.c,
     * pw_scene_host_view; zero in a pw_scene's own env): the radiance is
     * sky_mid + sky_slope d.y (the gradient's lerp from bottom at d.y = -1
     * to top at 1, times scale, folded: 3 fused multiply-adds a miss). */
    pw_vec3 sky_mid, sky_slope;
    const float *map;      /* MAP: 3 floats per pixel, w x h */
    const float *marginal; /* MAP: h + 1 cumulative row weights, 0 .. 1 */
    const float *cond;     /* MAP: h rows of w + 1 cumulative weights, 0 .. 1 */
    uint32_t w, h;
    float total;           /* MAP: sum of the cell weights */
} pw_env;

/* Pinhole or thin-lens camera; the image plane sits at the focus distance.
 * The raster fields (pw_camera_set_raster) place a render's pixels on that
 * plane: raster point (x, y), pixel (0, 0)'s top-left corner at (0, 0), is
 * corner + x pixel_dx + y pixel_dy, and the lens's axes come scaled by its
 * radius, so that a camera ray is a few fused multiply-adds (toy-small's
 * path start fell from 122 GPU instructions to 113 and its megakernel ran
 * 2% faster; docs/PERFORMANCE.md). */
typedef struct pw_camera {
    pw_vec3 origin, lower_left, horizontal, vertical;
    pw_vec3 u, v, w;
    float lens_radius;
    pw_vec3 corner, pixel_dx, pixel_dy, lens_u, lens_v;
} pw_camera;

/* lights: POINT, DISTANT and SPOT are delta lights (docs/TEXTURES_LIGHTS.md). */
enum pw_light_type {
    PW_LIGHT_SPHERE = 0,
    PW_LIGHT_TRIANGLE = 1,
    PW_LIGHT_POINT = 2,
    PW_LIGHT_DISTANT = 3,
    PW_LIGHT_SPOT = 4
};

/* 8 bytes: an emissive primitive. prim is in the unified primitive space
 * (spheres first, then triangles); for a delta light it is an index into
 * delta_lights (and delta_cones). */
typedef struct pw_light {
    uint32_t type;
    uint32_t prim;
} pw_light;
PW_SIZE_CHECK(pw_light, 8);

/* lights: 24 bytes. A light no ray can hit: a point or spot light (v:
 * position, L: intensity, W/sr per channel; a spot's along its axis) or a
 * distant light (v: unit direction toward it, L: irradiance on a surface
 * facing it). */
typedef struct pw_delta_light {
    pw_vec3 v;
    pw_vec3 L;
} pw_delta_light;
PW_SIZE_CHECK(pw_delta_light, 24);

/* lights: 20 bytes, a spot light's cone, kept apart from pw_delta_light
 * (an entry per delta light, read only for spots) so that point and
 * distant lights load what they did before. The intensity toward a
 * direction at angle theta from the axis is L * smoothstep(cos_end,
 * cos_start, cos theta), pbrt-v4's falloff: full within the start, none
 * beyond the end. */
typedef struct pw_spot_cone {
    pw_vec3 axis;    /* unit direction the spot shines along */
    float cos_end;   /* cosine of the cone's half-angle */
    float cos_start; /* cosine of the angle where the falloff starts (>= cos_end) */
} pw_spot_cone;
PW_SIZE_CHECK(pw_spot_cone, 20);


/* 32 bytes: a run of spheres and its box (accel/sphere_groups.h). */
typedef struct pw_sphere_group {
    float lo[3];
    uint32_t first; /* into group_spheres */
    float hi[3];
    uint32_t count;
} pw_sphere_group;
PW_SIZE_CHECK(pw_sphere_group, 32);

/* 32 bytes: the ball a direction map bounds (accel/sphere_dirmap.h), and
 * for a sphere light's or an origin map the sphere itself, which its masks
 * leave out. */
typedef struct pw_dirmap {
    pw_vec3 c;
    float rho;         /* its radius */
    float own_r;       /* the light's (or the origin map's sphere's) radius; 0: the camera's map */
    uint32_t own_slot; /* the light's (sphere's) group slot (0 in the camera's map, never used) */
    uint32_t outward;  /* an origin map of a sphere's ball: 1, and the next map is for rays that leave the sphere */
    uint32_t pad;
} pw_dirmap;
PW_SIZE_CHECK(pw_dirmap, 32);

/* A grid of direction maps over the surface of one sphere far larger
 * than the others (toy's ground): cells of a square grid in the plane
 * across the axis from its centre toward the others, each cell the map of
 * the ball around the sphere's surface above it (accel/sphere_dirmap.h). */
typedef struct pw_dirmap_cells {
    pw_vec3 c;               /* the sphere's centre */
    pw_vec3 t1, t2;          /* the grid's axes */
    float u0, v0, inv_size;  /* the grid's corner along t1 and t2, and 1 / cell size */
    uint32_t nu, nv, first;  /* cells along t1 and t2, and the map of cell 0 (cell (i, j): first + j nu + i) */
} pw_dirmap_cells;

/* How a sphere-only scene's rays find their hits (pw_scene_view.flat_spheres). */
#define PW_FLAT_NONE 0u   /* through the BVH */
#define PW_FLAT_LIST 1u   /* every sphere against every ray */
#define PW_FLAT_GROUPS 2u /* runs of spheres behind their boxes (accel/sphere_groups.h) */

typedef struct pw_scene_view {
    const pw_sphere *spheres;
    const uint32_t *sphere_mat;
    uint32_t n_spheres;

    const pw_vec3 *pos;       /* vertex positions */
    const pw_vec3 *nrm;       /* per-vertex shading normals, or NULL */
    const float *uv;          /* per-vertex texture coordinates (u, v), or NULL */
    const uint32_t *tri_idx;  /* 3 vertex indices per triangle */
    const uint32_t *tri_mat;  /* material per triangle */
    uint32_t n_tris;

    const pw_material *mats;
    uint32_t n_mats;

    const pw_texture *textures; /* textures: the table materials index */
    const float *texels;        /* textures: the pixel pool, 3 floats per texel */
    uint32_t n_textures;

    const pw_bvh_node *nodes;
    const uint32_t *prim_ref; /* BVH leaf order -> primitive id */
    const pw_leaf_prim *leaf_prims; /* the same order: the primitives' geometry */
    const pw_bvh4_node *nodes4;     /* the same tree 4-wide (root at 0), traced when wide_bvh is set */

    const pw_light *lights;
    const float *light_pmf;       /* selection probability of each light */
    const float *alias_prob;      /* alias table for O(1) power-proportional selection */
    const uint32_t *alias_idx;
    const uint32_t *prim_light;   /* primitive id -> light index, or PW_NO_LIGHT */
    uint32_t n_lights;
    const pw_delta_light *delta_lights; /* lights: point, distant and spot lights, which lights[] index */
    const pw_spot_cone *delta_cones;    /* lights: by the same index, the spots' cones */

    const void *cpu_bvh8; /* CPU only: an 8-wide BVH traced instead of nodes (accel/bvh8_cpu.h) */
    uint32_t wide_bvh;     /* trace nodes4 rather than nodes (the renderer picks, docs/PERFORMANCE.md) */
    uint32_t bvh4_sorted;  /* host: closest-hit walks of nodes4 push children in order of distance, as the GPU's always do */
    uint32_t flat_spheres; /* a PW_FLAT_*: spheres only and few of them, no BVH (the GPU keeps them in shared memory) */
    const pw_sphere_group *groups;    /* PW_FLAT_GROUPS: the runs */
    const pw_sphere *group_spheres;   /* their spheres in run order */
    const uint32_t *group_prims;      /* and those spheres' ids */
    uint32_t n_groups;
    const pw_dirmap *dirmaps;      /* PW_FLAT_GROUPS, optional: the camera's, the sphere lights' and the origin maps */
    const uint64_t *dirmap_masks;  /* PW_DIRMAP_TEXELS masks of group slots each */
    uint32_t n_dirmaps;            /* the camera's and the lights' (origin maps follow them) */
    uint32_t dirmap_camera;        /* closest-hit rays from the lens use dirmaps[0] */
    const uint32_t *dirmap_origin; /* optional, by sphere id: the map of rays that leave it, PW_DIRMAP_CELLS or PW_NO_DIRMAP */
    pw_dirmap_cells dirmap_cells;  /* the cells of PW_DIRMAP_CELLS */

    pw_env env;
    float env_prob; /* probability that a light sample goes to the environment map (0 without one) */
    pw_camera cam;
    float t_min; /* minimum hit distance on top of the origin offset (the toy scene's 0.001) */
} pw_scene_view;

/* Whether primitive prim is a sphere. A kernel compiled for sphere-only
 * scenes sets n_tris to a literal 0, one for meshes n_spheres, so every
 * triangle or sphere branch behind this test is compiled out. */
PW_HD int pw_prim_is_sphere(const pw_scene_view *s, uint32_t prim)
{
    return s->n_tris == 0 || (s->n_spheres != 0 && prim < s->n_spheres);
}

/* The material of primitive prim. */
PW_HD uint32_t pw_prim_material(const pw_scene_view *s, uint32_t prim)
{
    return pw_prim_is_sphere(s, prim) ? s->sphere_mat[prim] : s->tri_mat[prim - s->n_spheres];
}

#define PW_NO_LIGHT 0xffffffffu

/* Per-render settings the integrator reads. */
typedef struct pw_render_params {
    uint32_t width, height;
    uint32_t max_depth; /* bounces: a path has at most max_depth + 1 segments */
    uint32_t rr_depth;  /* Russian roulette starts at this bounce */
    uint32_t seed;
    uint32_t light_mode; /* a pw_light_mode, never PW_LIGHT_MODE_SCENE here */
    uint32_t split;     /* child paths per path at its first hit (1: no splitting) */
    uint32_t kinds;     /* PW_KINDS_BASIC, or PW_KINDS_ALL when the scene has microfacet materials */
} pw_render_params;

#endif
