/* pathwave: a physically based path tracer with CPU and CUDA backends.
 *
 * The whole public API. Every function returns a pw_status (PW_OK on
 * success); on failure pw_last_error() gives a one-line message naming what
 * was wrong. Handles are opaque; all strings are UTF-8, all images linear
 * RGB float, row 0 at the top. */
#ifndef PATHWAVE_H
#define PATHWAVE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pw_status {
    PW_OK = 0,
    PW_ERR_INVALID_ARGUMENT, /* a setting or parameter out of range */
    PW_ERR_NOT_FOUND,        /* unknown scene name, missing file */
    PW_ERR_IO,               /* a file could not be read or written */
    PW_ERR_FORMAT,           /* a file is malformed */
    PW_ERR_OUT_OF_MEMORY,
    PW_ERR_NO_DEVICE,        /* the requested backend is not available here */
    PW_ERR_INTERRUPTED       /* pw_renderer_cancel() stopped the work */
} pw_status;

/* The message of the last failure on this thread. */
const char *pw_last_error(void);
const char *pw_version(void);
/* Warnings: things the library worked around while loading a scene (an
 * unsupported directive of a scene file, an approximated material), one
 * line each. By default they are printed to stderr; a handler replaces
 * that (NULL restores it). The handler is process-wide. */
typedef void (*pw_warning_fn)(const char *message, void *user);
void pw_set_warning_handler(pw_warning_fn fn, void *user);

/* ---- scenes ---- */
typedef struct pw_scene pw_scene;

int pw_builtin_scene_count(void);
/* Names of the generated scenes end in a parameter: "terrain:N". */
const char *pw_builtin_scene_name(int index);
const char *pw_builtin_scene_description(int index);
/* A built-in scene by name. Besides the fixed scenes there are generated
 * ones for scaling measurements, the same on every run:
 *   "terrain:N"        a displaced height field of exactly N triangles
 *                      (1 <= N <= PW_GENERATED_MAX_TRIANGLES);
 *   "bunnies:K[:FILE]" K copies of a mesh (default: the Stanford bunny under
 *                      $PATHWAVE_SHARED, else ../shared) in
 *                      a grid on a ground plane of 2 triangles;
 *   "bunnies-mixed:K[:FILE]" the same, the copies taking six materials in
 *                      turn (Lambert, toy metal, glass, GGX gold, rough
 *                      glass, glTF metallic-roughness).
 * A bad parameter gives PW_ERR_INVALID_ARGUMENT, an unknown name
 * PW_ERR_NOT_FOUND, a missing mesh file for bunnies PW_ERR_IO. */
pw_status pw_scene_builtin(const char *name, pw_scene **out);
#define PW_GENERATED_MAX_TRIANGLES 100000000u
/* A scene file. A .pbrt file is read as a pbrt-v4 scene (camera, film,
 * materials, lights; docs/PBRT.md says what is supported). Any other file is
 * a triangle mesh (OBJ, PLY, glTF, ...) read through assimp, with its
 * materials and, for glTF, its first perspective camera (else an automatic
 * camera frames the model), its punctual lights and the extensions
 * docs/MATERIALS.md lists; lit by a sky when nothing in it emits or
 * lights it. A glTF extension pathwave lacks is a warning, and an error
 * when the file requires it (see pw_load_options). */
pw_status pw_scene_load(const char *path, pw_scene **out);
/* How pw_scene_load_with reads a file. pw_load_options_default fills the
 * defaults, which pw_scene_load uses; set fields after it (fields added
 * later get defaults there too). */
typedef struct pw_load_options {
    /* glTF: a file whose extensionsRequired names an extension pathwave
     * does not implement loads without it, with a warning, instead of
     * failing with PW_ERR_FORMAT (docs/MATERIALS.md lists the extensions). */
    int ignore_required_extensions;
} pw_load_options;
void pw_load_options_default(pw_load_options *opts);
/* pw_scene_load with options (NULL: the defaults). */
pw_status pw_scene_load_with(const char *path, const pw_load_options *opts, pw_scene **out);
void pw_scene_free(pw_scene *scene);
/* Lights the scene with an equirectangular environment map (.hdr, .exr,
 * .pfm or an 8-bit image), radiance times scale; +y is up. It is sampled
 * by luminance and weighted against BSDF sampling with MIS. */
pw_status pw_scene_set_environment(pw_scene *scene, const char *path, float scale);

typedef struct pw_scene_info {
    const char *name;
    uint32_t spheres, triangles, materials, lights;
    uint32_t textures;
    uint32_t warnings;        /* problems loading did not stop for (a missing texture, ...) */
    const char *warning_log;  /* the first of them (up to 1 KB), one per line ("" when none) */
    uint32_t bvh_nodes;       /* 0 until the scene is prepared (pw_renderer_create does it) */
    uint32_t bvh4_nodes;      /* nodes of the same tree collapsed 4-wide, which rays traverse */
    double bvh_build_ms;
    uint64_t scene_bytes;     /* host memory allocated for geometry, materials, environment and light tables */
    uint64_t bvh_bytes;       /* host memory of the BVH's nodes and primitive references (0 until prepared) */
} pw_scene_info;
void pw_scene_get_info(const pw_scene *scene, pw_scene_info *info);

/* The scene's camera: a thin lens at look_from aimed at look_at. */
typedef struct pw_camera_params {
    float look_from[3], look_at[3], up[3];
    float vfov_deg;   /* vertical field of view in degrees, in (0, 180) */
    float aperture;   /* lens diameter, >= 0; 0 = pinhole */
    float focus_dist; /* >= 0; 0 = the distance from look_from to look_at */
} pw_camera_params;
void pw_scene_get_camera(const pw_scene *scene, pw_camera_params *cam);
/* Replaces the camera (read it first to change only some values). Returns
 * PW_ERR_INVALID_ARGUMENT, and keeps the old camera, for a value that is not
 * finite, look_from == look_at, an up vector that is zero or parallel to
 * the view direction, a field of view outside (0, 180), or a negative
 * aperture or focus distance. */
pw_status pw_scene_set_camera(pw_scene *scene, const pw_camera_params *cam);

/* ---- building scenes in code ----
 * A scene made with pw_scene_new, filled with materials, geometry and
 * lights, then rendered like a loaded one (README, "The library"). Every
 * call checks all its arguments first: a bad one gives
 * PW_ERR_INVALID_ARGUMENT, a message naming it and why ("pw_scene_add_mesh:
 * indices[7] (triangle 2) is 9, out of range for 4 vertices"), and leaves
 * the scene as it was. These calls may also add to loaded and built-in
 * scenes. Build the scene before pw_renderer_create: a renderer uses the
 * scene's arrays as they were when it was made, so free a scene's renderers
 * before adding to it. Positions are world units, +y up. */

/* An empty scene named name (kept up to 255 bytes): no materials, geometry
 * or lights, a black sky, and a camera at (0, 0, 1) looking at the origin
 * with +y up, 40 degrees of vertical field of view. Its settings
 * (pw_settings_default) are 640x480, 64 samples per pixel, depth 8,
 * Russian roulette from bounce 3, light mode MIS. Free it with
 * pw_scene_free. A scene without geometry cannot be rendered
 * (pw_renderer_create reports PW_ERR_FORMAT). */
pw_status pw_scene_new(const char *name, pw_scene **out);

/* Material kinds (docs/MATERIALS.md has their models). */
typedef enum pw_material_kind {
    PW_MATERIAL_LAMBERT = 0,        /* ideal diffuse */
    PW_MATERIAL_METAL,              /* the toy tracer's metal: the mirror direction plus fuzz times a point
                                     * in the unit ball */
    PW_MATERIAL_DIELECTRIC,         /* smooth glass: Fresnel-weighted mirror reflection or refraction */
    PW_MATERIAL_CONDUCTOR,          /* GGX rough metal of complex index of refraction eta + i k */
    PW_MATERIAL_ROUGH_DIELECTRIC,   /* GGX rough glass */
    PW_MATERIAL_METALLIC_ROUGHNESS, /* the glTF 2.0 core material */
    PW_MATERIAL_KIND_COUNT
} pw_material_kind;

/* A material: its kind, that kind's member of the union, and an emission
 * that any kind may have. Colours are linear RGB. Reflectances (albedo,
 * base colour), fuzz, metallic and roughness lie in [0, 1]; indices of
 * refraction (ior, eta) are positive; k, alpha and emission are not
 * negative; everything is finite. A GGX alpha below 0.001 is a perfectly
 * smooth surface; a rough dielectric that smooth is the smooth
 * dielectric. Zero-initialise the struct, then set the fields: all zero is
 * a black Lambert that emits nothing. */
typedef struct pw_lambert_desc {
    float albedo[3];
} pw_lambert_desc;
typedef struct pw_metal_desc {
    float albedo[3];
    float fuzz; /* 0: a perfect mirror */
} pw_metal_desc;
typedef struct pw_dielectric_desc {
    float ior; /* inside; outside is 1 */
} pw_dielectric_desc;
typedef struct pw_conductor_desc {
    float eta[3], k[3]; /* per channel (gold: eta 0.143 0.375 1.442, k 3.983 2.386 1.603) */
    float alpha;        /* GGX roughness */
} pw_conductor_desc;
typedef struct pw_rough_dielectric_desc {
    float ior, alpha;
} pw_rough_dielectric_desc;
typedef struct pw_metallic_roughness_desc {
    float base_color[3];
    float metallic;  /* 0: dielectric, 1: metal */
    float roughness; /* perceptual, as glTF gives it: GGX alpha = roughness^2 */
} pw_metallic_roughness_desc;

typedef struct pw_material_desc {
    pw_material_kind kind;
    float emission[3]; /* emitted radiance per channel, W / (m^2 sr) */
    int two_sided;     /* nonzero: triangles emit from both faces; else from the front (the side
                        * (b - a) x (c - a) points to, for corners a, b, c); spheres emit outward */
    union {            /* the member named like kind */
        pw_lambert_desc lambert;
        pw_metal_desc metal;
        pw_dielectric_desc dielectric;
        pw_conductor_desc conductor;
        pw_rough_dielectric_desc rough_dielectric;
        pw_metallic_roughness_desc metallic_roughness;
    };
} pw_material_desc;

/* Adds a material; *out_id gets its id (0 for the first, then 1, 2, ...),
 * which geometry refers to. */
pw_status pw_scene_add_material(pw_scene *scene, const pw_material_desc *material, uint32_t *out_id);

/* A triangle mesh: vertex_count vertices and triangle_count triangles, both
 * at least 1. positions and indices are required, normals and uvs may be
 * NULL. Indices count from this mesh's first vertex. Positions, normals and
 * uvs must be finite; a triangle of zero area is accepted (rays miss it).
 * Normals are interpolated across a triangle and normalised, so they need
 * not be of unit length (a normal's squared length must be finite in
 * float); a zero normal means "use the triangle's own normal". */
typedef struct pw_mesh_desc {
    uint32_t vertex_count;
    const float *positions; /* 3 per vertex */
    const float *normals;   /* NULL, or 3 per vertex: shading normals */
    const float *uvs;       /* NULL, or 2 per vertex: texture coordinates */
    uint32_t triangle_count;
    const uint32_t *indices; /* 3 per triangle, each below vertex_count */
} pw_mesh_desc;

/* Adds a mesh whose triangles all have material id material. The arrays
 * are copied. A scene holds up to 2^30 vertices and 2^30 triangles. */
pw_status pw_scene_add_mesh(pw_scene *scene, const pw_mesh_desc *mesh, uint32_t material);
/* Adds a sphere: a finite centre, a finite radius > 0. */
pw_status pw_scene_add_sphere(pw_scene *scene, const float centre[3], float radius, uint32_t material);

typedef enum pw_light_kind {
    PW_LIGHT_KIND_POINT = 0, /* at position, the same intensity in every direction */
    PW_LIGHT_KIND_DISTANT,   /* a sun at infinity: parallel light travelling along direction */
    PW_LIGHT_KIND_SPOT,      /* at position, shining along direction within a cone */
    PW_LIGHT_KIND_COUNT
} pw_light_kind;

/* A point, distant or spot light (emitting surfaces are materials with
 * emission; the sky is pw_scene_set_sky or pw_scene_set_environment). A
 * spot falls off as pbrt-v4's: full intensity out to cone_angle_deg -
 * cone_delta_deg from its axis, a smoothstep in the cosine of the angle
 * down to nothing at cone_angle_deg. */
typedef struct pw_light_desc {
    pw_light_kind kind;
    float intensity[3];   /* per channel, not negative: point and spot, W/sr (on a spot's axis);
                           * distant, the irradiance (W/m^2) of a surface facing the light */
    float position[3];    /* point and spot */
    float direction[3];   /* distant and spot: where the light travels (any length but zero) */
    float cone_angle_deg; /* spot: the cone's half-angle in degrees, in [0, 180] (pbrt's coneangle) */
    float cone_delta_deg; /* spot: the falloff band inside it, in [0, 2 cone_angle_deg] (pbrt's conedeltaangle;
                           * beyond cone_angle_deg the band reaches past the axis, as in pbrt-v4) */
} pw_light_desc;

/* Adds a light; the fields a kind does not use are ignored. */
pw_status pw_scene_add_light(pw_scene *scene, const pw_light_desc *light);

/* Lights the scene with a sky: radiance top * scale looking straight up
 * (+y), bottom * scale straight down, linear in the direction's y between
 * (top == bottom: a uniform sky). Colours and scale are finite and not
 * negative; all zero is the black sky a new scene has. Replaces an
 * environment map (pw_scene_set_environment) and is replaced by one. */
pw_status pw_scene_set_sky(pw_scene *scene, const float top[3], const float bottom[3], float scale);

/* ---- rendering ---- */
typedef enum pw_backend {
    PW_BACKEND_AUTO = 0, /* the GPU when one is usable, else the CPU */
    PW_BACKEND_CPU,      /* CPU megakernel: one thread walks a whole path */
    PW_BACKEND_CUDA_MEGA, /* CUDA megakernel: one GPU thread walks a whole path */
    PW_BACKEND_CPU_WAVE,  /* CPU wavefront: paths advance a bounce at a time through queues */
    PW_BACKEND_CUDA_WAVE, /* CUDA wavefront: a kernel per stage over device queues */
    PW_BACKEND_COUNT
} pw_backend;

const char *pw_backend_name(pw_backend backend);
/* Parses "auto", "cpu", "cuda-mega", "cpu-wave", "cuda-wave"; returns
 * PW_ERR_INVALID_ARGUMENT otherwise. */
pw_status pw_backend_from_name(const char *name, pw_backend *out);

typedef enum pw_light_mode {
    PW_LIGHT_MODE_SCENE = -1, /* whatever the scene asks for */
    PW_LIGHT_MODE_MIS = 0,    /* one power-proportional light sample per hit, MIS with the BSDF */
    PW_LIGHT_MODE_TOY = 1,    /* the 46-sphere toy tracer's estimator (sphere lights only) */
    PW_LIGHT_MODE_NONE = 2    /* no light sampling: emission counted when a path hits it */
} pw_light_mode;

/* The most bounces a render may take (pw_settings.max_depth). */
#define PW_MAX_DEPTH_LIMIT 1024
/* The largest image a render makes (pw_settings.width and height): 32768
 * pixels a side and 2^26 = 67,108,864 pixels in all (8192 x 8192). */
#define PW_MAX_IMAGE_SIDE 32768
#define PW_MAX_IMAGE_PIXELS (1u << 26)

typedef struct pw_settings {
    int width, height;
    int spp;         /* samples per pixel the CLI renders in all */
    int max_depth;   /* bounces, 0 .. PW_MAX_DEPTH_LIMIT */
    int rr_depth;    /* Russian roulette from this bounce on */
    uint32_t seed;
    int threads;     /* CPU threads; 0 = all cores */
    pw_backend backend;
    pw_light_mode light_mode;
    int stage_stats;   /* wavefront: time each stage (see pw_renderer_stage_stats) */
    int wave_paths;    /* wavefront: most paths in flight (0: as many as memory allows, up to one per pixel) */
    int split;         /* ray splitting: child paths per path at its first hit, 1..64 (1: off) */
} pw_settings;

/* The scene's own defaults (resolution, spp, depth, light mode). */
void pw_settings_default(const pw_scene *scene, pw_settings *settings);
/* The checks pw_renderer_create makes of the settings alone, before any
 * work on the scene: image size (PW_MAX_IMAGE_SIDE a side,
 * PW_MAX_IMAGE_PIXELS in all), depth, split, threads and the enums.
 * PW_ERR_INVALID_ARGUMENT with the message for the first value out of
 * range. */
pw_status pw_settings_check(const pw_settings *settings);

typedef struct pw_renderer pw_renderer;

pw_status pw_renderer_create(pw_scene *scene, const pw_settings *settings, pw_renderer **out);
void pw_renderer_free(pw_renderer *r);
/* Adds spp samples to every pixel. Safe to call repeatedly (progressive). */
pw_status pw_renderer_render(pw_renderer *r, int spp);
/* Asks a running pw_renderer_render to stop soon; async-signal-safe. Pixels
 * keep what they accumulated; the image stays correct (per-pixel counts). */
void pw_renderer_cancel(pw_renderer *r);
/* Progress of pw_renderer_render: with a callback set, a call renders its
 * spp in passes, each adding samples to every pixel (first 1, then twice as
 * many while a pass takes under a tenth of a second), and after each pass
 * calls fn(done, total, user) on the calling thread, done being this
 * call's samples per pixel so far and total its spp (done == total after
 * the last pass). Returning nonzero stops the render as pw_renderer_cancel
 * does: the call returns PW_ERR_INTERRUPTED and pixels keep the passes
 * done (after the last pass there is nothing left to stop). fn may read
 * the image (pw_renderer_image) and statistics, but must not render with,
 * change or free r. The passes take the same samples, in the same order,
 * as one call: on the CPU backends the image is the same to the bit; a GPU
 * may run other kernels for other pass sizes, whose float rounding
 * differs in the last bits. NULL fn turns progress off. */
typedef int (*pw_progress_fn)(int done, int total, void *user);
pw_status pw_renderer_set_progress(pw_renderer *r, pw_progress_fn fn, void *user);
pw_backend pw_renderer_backend(const pw_renderer *r);

typedef struct pw_render_stats {
    uint64_t camera_rays, bounce_rays, shadow_rays;
    uint64_t samples;       /* pixel samples traced */
    double render_seconds;  /* wall time inside pw_renderer_render */
    double device_seconds;  /* time of the work itself: CUDA events on the GPU, wall time on the CPU */
    uint64_t device_bytes;  /* CUDA backends: device memory allocated for scene, image and queues (0 on the CPU) */
    uint64_t cpu_bvh_bytes; /* CPU backends: host memory of the CPU's own 8-wide BVH (0 without one) */
    double cpu_bvh_ms;      /* and the time its conversion from the shared BVH took */
} pw_render_stats;
void pw_renderer_get_stats(const pw_renderer *r, pw_render_stats *stats);

/* Wavefront backends: time and items of each stage, per bounce, summed
 * over every pw_renderer_render call. Bounces past the last row are added
 * into it. GPU stage times are taken with CUDA events only when
 * settings.stage_stats is set, since they cost a little. PW_STAGE_TAIL is
 * the CUDA wavefront's tail kernel, which runs a wave's last paths to
 * their ends: its row is the bounce whose queue it took, its items the
 * paths it took, and its time includes the one-thread kernel that closes
 * the bounce before it. */
enum { PW_STAGE_GENERATE, PW_STAGE_EXTEND, PW_STAGE_SHADE, PW_STAGE_CONNECT, PW_STAGE_TAIL, PW_STAGE_COUNT };
#define PW_STATS_BOUNCES 64
typedef struct pw_stage_stats {
    double seconds[PW_STAGE_COUNT];
    uint64_t items[PW_STAGE_COUNT];
} pw_stage_stats;
const char *pw_stage_name(int stage);
/* Rows of per-bounce stage statistics; *bounces gets their number. */
const pw_stage_stats *pw_renderer_stage_stats(const pw_renderer *r, int *bounces);

/* Mean linear radiance per pixel into rgb (3 * width * height floats). */
pw_status pw_renderer_image(pw_renderer *r, float *rgb);
/* Why --backend auto chose the CPU ("" otherwise). */
const char *pw_renderer_backend_note(const pw_renderer *r);
void pw_renderer_size(const pw_renderer *r, int *width, int *height);

/* ---- images ---- */
typedef enum pw_tonemap { PW_TONEMAP_CLAMP = 0, PW_TONEMAP_ACES, PW_TONEMAP_REINHARD } pw_tonemap;
pw_status pw_tonemap_from_name(const char *name, pw_tonemap *out);

/* The formats pw_image_write writes, and which one a path's extension
 * (case-insensitive) picks. */
typedef enum pw_image_format { PW_IMAGE_UNKNOWN = 0, PW_IMAGE_PNG, PW_IMAGE_EXR, PW_IMAGE_PFM } pw_image_format;
pw_image_format pw_image_format_of(const char *path);

/* Writes linear RGB to path; the format follows the extension: .png
 * (exposure, tonemap, sRGB, 8 bit), .exr (linear float), .pfm (linear).
 * The image goes to a temporary file renamed over path once whole (a
 * device such as /dev/null is written in place), so a failed write leaves
 * what was there. */
pw_status pw_image_write(const char *path, const float *rgb, int width, int height, float exposure, pw_tonemap tm);
/* A string attribute of an EXR file's header: its name (1 to 255 bytes)
 * and value, both NUL-terminated. */
typedef struct pw_image_attribute {
    const char *name, *value;
} pw_image_attribute;
#define PW_IMAGE_MAX_ATTRIBUTES 64
/* pw_image_write, with n_attributes (at most PW_IMAGE_MAX_ATTRIBUTES)
 * string attributes in an EXR file's header, after its required ones (how
 * the image was made: pathwave's CLI records the samples per pixel, seed,
 * render time, backend, version and command). PNG and PFM files have no
 * place for them and are written without. */
pw_status pw_image_write_attributes(const char *path, const float *rgb, int width, int height, float exposure,
                                    pw_tonemap tm, const pw_image_attribute *attributes, int n_attributes);
/* Reads an OpenEXR, Radiance HDR, PFM or 8-bit image (sRGB decoded; the
 * format from the file's bytes, gzip inflated) into linear RGB; free the
 * result with pw_free. */
pw_status pw_image_read(const char *path, float **rgb, int *width, int *height);
void pw_free(void *p);

#ifdef __cplusplus
}
#endif
#endif
