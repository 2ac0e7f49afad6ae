/* The host-side scene: growable flat arrays, camera and render defaults, and
 * what is derived from them before a render (BVH, light tables). */
#ifndef PW_SCENE_H
#define PW_SCENE_H

#include "pathwave.h"
#include "accel/bvh_build.h"
#include "shade/light_build.h"
#include "shade/scene_view.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pw_camera_desc {
    pw_vec3 look_from, look_at, up;
    float vfov_deg;    /* vertical field of view */
    float aperture;    /* lens diameter; 0 = pinhole */
    float focus_dist;  /* 0 = distance to look_at */
    int fov_short_axis; /* vfov_deg is the field of view of the shorter image axis (pbrt's fov) */
    int mirror_x;       /* image x runs along -(up x back): pbrt cameras whose transform keeps handedness */
} pw_camera_desc;

struct pw_scene {
    char name[256];
    /* The film's imaging ratio: every pixel value is multiplied by it when
     * the image is read (pbrt-v4's exposure time x ISO / 100 of its
     * default sensor). 1 unless the scene file sets it. */
    float film_scale;
    /* And where film_balanced is set, every pixel's linear sRGB is first
     * multiplied by the row-major matrix film_balance (the Film's white
     * balance, film/white_balance.h). */
    int film_balanced;
    float film_balance[9];
    pw_sphere *spheres;
    uint32_t *sphere_mat;
    uint32_t n_spheres, cap_spheres;
    pw_vec3 *pos, *nrm; /* nrm is NULL or has one entry per position */
    float *uv;          /* NULL or 2 texture coordinates per position */
    uint32_t n_verts, cap_verts;
    uint32_t *tri_idx, *tri_mat;
    uint32_t n_tris, cap_tris;
    pw_material *mats;
    uint32_t n_mats, cap_mats;

    /* textures: the table, what each entry was loaded from (the cache's
     * keys: one file is decoded once), and the pixel pool. */
    pw_texture *textures;
    char **tex_keys;
    uint32_t n_textures, cap_textures;
    float *texels; /* 3 floats per texel */
    uint32_t n_texels, cap_texels;

    /* lights: point, distant and spot lights (pw_light_type says which),
     * and a cone for each (zero but for spots). */
    pw_delta_light *delta_lights;
    pw_spot_cone *delta_cones;
    uint32_t *delta_type;
    uint32_t n_delta_lights, cap_delta_lights;

    uint32_t n_warnings;
    char warning_log[1024]; /* the first warnings, one per line */

    pw_env env; /* its folded sky (sky_mid, sky_slope) is set in views only */
    float *env_map, *env_marginal, *env_cond; /* owned arrays behind env when it is a map */
    pw_camera_desc cam;
    float t_min;
    pw_settings defaults;

    int prepared; /* bvh and lights below are current */
    pw_bvh bvh;
    pw_light_table lights;
};

/* The most vertices or triangles a scene holds: 3 * an index and the
 * arrays' byte sizes stay in range. */
#define PW_SCENE_MAX_ELEMENTS 0x3fffffffu

pw_scene *pw_scene_alloc(const char *name);
uint32_t pw_scene_push_material(pw_scene *s, pw_material m);
pw_status pw_scene_push_sphere(pw_scene *s, pw_vec3 c, float r, uint32_t mat);
/* Appends vertices; returns the index of the first, or UINT32_MAX on failure. */
uint32_t pw_scene_add_vertices(pw_scene *s, const pw_vec3 *p, const pw_vec3 *n, uint32_t count);
/* Texture coordinates (u, v pairs) of vertices [first, first + count). */
pw_status pw_scene_set_uvs(pw_scene *s, uint32_t first, const float *uv, uint32_t count);
pw_status pw_scene_add_triangle(pw_scene *s, uint32_t a, uint32_t b, uint32_t c, uint32_t mat);

/* textures: appends a w x h linear RGB image (row 0 at the top, texels
 * finite and not negative) to the texel pool; *out gets its texture index.
 * key (NULL for none) names it for pw_scene_find_texture. */
pw_status pw_scene_add_texture(pw_scene *s, const float *rgb, int w, int h, uint32_t wrap, const char *key,
                               uint32_t *out);
/* textures: the texture cached under key with this wrap, creating an entry
 * that shares the pixels when only the wrap differs; UINT32_MAX if none. */
uint32_t pw_scene_find_texture(pw_scene *s, const char *key, uint32_t wrap);
/* textures: an image file (8-bit sRGB decoded; .hdr, .exr, .pfm linear) as
 * a texture, decoded once per path however often it is asked for. */
pw_status pw_scene_load_texture(pw_scene *s, const char *path, uint32_t wrap, uint32_t *out);
/* pw_scene_set_environment with the map's layout (a pw_env_layout):
 * pbrt-v4's square maps are equal-area. */
pw_status pw_scene_load_environment(pw_scene *s, const char *path, float scale, uint32_t layout);
/* The loaded map's layout changed, its sampling tables remade for it. */
pw_status pw_scene_set_environment_layout(pw_scene *s, uint32_t layout);
/* Turns the scene's environment map: to_map's rows take a world direction
 * into the map's frame (a rotation). */
void pw_scene_rotate_environment(pw_scene *s, const pw_vec3 to_map[3]);
/* textures: w x h 8-bit sRGB texels (3 bytes each, row 0 at the top). */
pw_status pw_scene_add_texture_srgb8(pw_scene *s, const unsigned char *rgb8, int w, int h, uint32_t wrap,
                                     const char *key, uint32_t *out);
/* textures: a compressed image in memory (PNG, JPEG, ... as embedded in a
 * .glb), cached under key. */
pw_status pw_scene_decode_texture(pw_scene *s, const void *data, size_t n, uint32_t wrap, const char *key,
                                  uint32_t *out);
/* maps: the same for data (normal and metallic-roughness maps): 8-bit
 * values are taken as c / 255, not sRGB-decoded, and cached apart from the
 * same image read as colour. */
pw_status pw_scene_add_texture_unorm8(pw_scene *s, const unsigned char *rgb8, int w, int h, uint32_t wrap,
                                      const char *key, uint32_t *out);
pw_status pw_scene_load_texture_linear(pw_scene *s, const char *path, uint32_t wrap, uint32_t *out);
pw_status pw_scene_decode_texture_linear(pw_scene *s, const void *data, size_t n, uint32_t wrap, const char *key,
                                         uint32_t *out);
/* Records a problem that does not stop loading (pw_scene_info.warnings)
 * and reports it through pw_warn (the warning handler, else stderr). */
void pw_scene_warn(pw_scene *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* lights: a point light at pos radiating intensity (W/sr per channel)
 * equally in all directions. */
pw_status pw_scene_add_point_light(pw_scene *s, pw_vec3 pos, pw_vec3 intensity);
/* lights: a distant light (a sun at infinity) whose light travels along
 * dir, giving irradiance on a surface that faces it (pbrt's "L" times its
 * scale). */
pw_status pw_scene_add_distant_light(pw_scene *s, pw_vec3 dir, pw_vec3 irradiance);
/* lights: a spot light at pos shining along dir (any length but zero), of
 * intensity (W/sr per channel) along its axis, falling off as pbrt-v4's
 * spot: smoothstep(cos_falloff_end, cos_falloff_start, cos theta) at angle
 * theta from the axis (both cosines in [-1, 1], cos_falloff_start >=
 * cos_falloff_end; equal ones cut off sharply). */
pw_status pw_scene_add_spot_light(pw_scene *s, pw_vec3 pos, pw_vec3 dir, float cos_falloff_end, float cos_falloff_start,
                                  pw_vec3 intensity);
/* lights: a spot's cone from pbrt-v4's angles in degrees (coneangle, the
 * cone's half-angle; conedeltaangle, the falloff band inside it) as the
 * cosines pw_scene_add_spot_light takes. Returns 1 when the angle lies
 * outside [0, 180], 2 when the band lies outside [0, 2 angle] (beyond it
 * pbrt-v4's falloff would start outside the cone and invert it), else 0. */
int pw_spot_cone_cosines(float angle_deg, float delta_deg, float *cos_end, float *cos_start);

pw_material pw_lambert(float r, float g, float b);
pw_material pw_metal(float r, float g, float b, float roughness);
pw_material pw_dielectric(float ior);
/* GGX conductor: complex IOR eta + i k per channel, roughness alpha. */
pw_material pw_conductor(pw_vec3 eta, pw_vec3 k, float alpha);
/* GGX rough dielectric of index ior (outside is 1), roughness alpha; below
 * PW_GGX_MIN_ALPHA it is the smooth pw_dielectric. */
pw_material pw_rough_dielectric(float ior, float alpha);
/* glTF 2.0 metallic-roughness: base colour, metallic and (perceptual)
 * roughness in [0, 1] as the glTF file gives them; GGX alpha = roughness^2. */
pw_material pw_metallic_roughness(pw_vec3 base_color, float metallic, float roughness);
pw_material pw_emissive(pw_material m, float r, float g, float b);

/* maps: the textures a material may carry besides its albedo texture. */
enum pw_map {
    PW_MAP_NORMAL = 0,             /* tangent-space normal map, linear (glTF normalTexture) */
    PW_MAP_METALLIC_ROUGHNESS = 1, /* linear; blue scales metallic, green perceptual roughness */
    PW_MAP_EMISSION = 2,           /* multiplies emission */
};
/* maps: gives m texture tex in the slot map (shade/material.h says where
 * it is kept). Returns 0, leaving m as it was, for a conductor (which uses
 * those fields) or an index out of range. */
int pw_material_set_map(pw_material *m, enum pw_map map, uint32_t tex);

/* Builds the BVH and light tables if the geometry changed. */
pw_status pw_scene_prepare(pw_scene *s, int threads);
/* Camera for an image of the given aspect ratio. */
pw_camera pw_camera_make(const pw_camera_desc *d, float aspect);
/* Sets the camera's raster fields for a render of width x height pixels:
 * pw_camera_ray then takes points in pixels. pw_camera_make sets them for
 * one pixel spanning the whole image (points from 0 to 1 across it). They
 * scale the lens's axes by lens_radius: a radius changed afterwards needs
 * another call. */
void pw_camera_set_raster(pw_camera *c, uint32_t width, uint32_t height);
/* A view of the scene's host arrays, its camera set for an image of
 * width x height pixels (the aspect ratio and the raster). */
pw_scene_view pw_scene_host_view(const pw_scene *s, uint32_t width, uint32_t height);

/* The scene's primitives, as the builders and pw_prim_bounds take them. */
pw_prims pw_scene_prims(const pw_scene *s);

#ifdef __cplusplus
}
#endif
#endif
