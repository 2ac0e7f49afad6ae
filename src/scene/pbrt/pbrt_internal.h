/* The pbrt-v4 reader's shared types: tokens (pbrt_lex.c), parameter lists
 * (pbrt_params.c), transforms (pbrt_transform.c), the parser's state
 * (pbrt_parse.c) and the builders that turn pbrt entities into pathwave's
 * scene (pbrt_camera.c, pbrt_materials.c, pbrt_shapes.c, pbrt_lights.c). */
#ifndef PW_PBRT_INTERNAL_H
#define PW_PBRT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "scene/scene.h"

/* ---- tokens ---- */
typedef enum pbrt_tok { PBRT_EOF, PBRT_WORD, PBRT_STRING, PBRT_NUMBER, PBRT_LBRACK, PBRT_RBRACK } pbrt_tok;

typedef struct pbrt_token {
    pbrt_tok kind;
    const char *text; /* into the file's buffer; a string's text excludes its quotes */
    size_t len;
    int line, col; /* 1-based position of the token's first character */
    double num;    /* PBRT_NUMBER: its value, always finite */
} pbrt_token;

typedef struct pbrt_lexer {
    const char *path;
    const char *buf;
    size_t len, pos;
    int line, col;
    pbrt_token ahead;
    int has_ahead;
} pbrt_lexer;

void pbrt_lex_init(pbrt_lexer *lx, const char *path, const char *buf, size_t len);
pw_status pbrt_lex_next(pbrt_lexer *lx, pbrt_token *t);
pw_status pbrt_lex_peek(pbrt_lexer *lx, pbrt_token *t);
/* "path:line:col: message" as a PW_ERR_FORMAT failure. */
pw_status pbrt_error_at(const char *path, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A token's text for messages: quoted and cut to a readable length. */
const char *pbrt_tok_show(const pbrt_token *t, char *buf, size_t n);
int pbrt_tok_is(const pbrt_token *t, const char *word);

/* ---- parameter lists: "type name" [ values ] ---- */
typedef enum pbrt_ptype {
    PBRT_P_INTEGER,
    PBRT_P_FLOAT,
    PBRT_P_POINT2,
    PBRT_P_VECTOR2,
    PBRT_P_POINT3,
    PBRT_P_VECTOR3,
    PBRT_P_NORMAL,
    PBRT_P_RGB,
    PBRT_P_SPECTRUM,
    PBRT_P_BLACKBODY,
    PBRT_P_STRING,
    PBRT_P_BOOL,
    PBRT_P_TEXTURE,
    PBRT_P_COUNT
} pbrt_ptype;

typedef struct pbrt_param {
    pbrt_ptype type;
    char name[64];
    double *num; /* numeric and bool values (bools as 0/1) */
    char **str;  /* string and texture values; a spectrum given by name */
    uint32_t n;
    int line, col;
    int used;
} pbrt_param;

typedef struct pbrt_params {
    pbrt_param *p;
    int n, cap;
    const char *path; /* the file and position of the directive that owns them */
    int line, col;
} pbrt_params;

pw_status pbrt_params_parse(pbrt_lexer *lx, pbrt_params *ps);
void pbrt_params_free(pbrt_params *ps);
const char *pbrt_ptype_name(pbrt_ptype t);
/* The parameter called name, marked used; NULL when absent. */
pbrt_param *pbrt_param_find(pbrt_params *ps, const char *name);
/* Typed lookups: the default when absent, an error naming the parameter
 * when it has another type or the wrong number of values. */
pw_status pbrt_get_float(pbrt_params *ps, const char *name, float def, float *out);
pw_status pbrt_get_int(pbrt_params *ps, const char *name, int def, int *out);
pw_status pbrt_get_bool(pbrt_params *ps, const char *name, int def, int *out);
pw_status pbrt_get_string(pbrt_params *ps, const char *name, const char *def, const char **out);
/* An array of type (a multiple of its arity); *n = 0 when absent. */
pw_status pbrt_get_array(pbrt_params *ps, const char *name, pbrt_ptype type, const double **v, uint32_t *n);
pw_status pbrt_param_error(const pbrt_param *p, const pbrt_params *ps, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- transforms: row-major 4x4, points are columns ---- */
typedef struct pbrt_mat4 {
    double m[4][4];
} pbrt_mat4;

pbrt_mat4 pbrt_mat_identity(void);
pbrt_mat4 pbrt_mat_mul(const pbrt_mat4 *a, const pbrt_mat4 *b);
pbrt_mat4 pbrt_mat_translate(double x, double y, double z);
pbrt_mat4 pbrt_mat_scale(double x, double y, double z);
/* Rotation by deg degrees about axis (counter-clockwise looking down the axis); 0 for a zero axis. */
int pbrt_mat_rotate(double deg, double x, double y, double z, pbrt_mat4 *out);
/* pbrt's LookAt: camera-from-world; 0 when up is parallel to the view direction. */
int pbrt_mat_look_at(const double v[9], pbrt_mat4 *out);
/* 0 when m is singular. */
int pbrt_mat_inverse(const pbrt_mat4 *m, pbrt_mat4 *out);
pw_vec3 pbrt_xform_point(const pbrt_mat4 *m, pw_vec3 p);
pw_vec3 pbrt_xform_vector(const pbrt_mat4 *m, pw_vec3 v);
double pbrt_mat_det3(const pbrt_mat4 *m);

/* ---- the parser's state ---- */
#define PBRT_MAX_INCLUDE_DEPTH 32
#define PBRT_MAX_ATTRIBUTE_DEPTH 4096

typedef struct pbrt_area_light {
    int on;
    pw_vec3 L; /* radiance times scale */
    int two_sided;
} pbrt_area_light;

typedef struct pbrt_gstate {
    pbrt_mat4 ctm;
    uint32_t material; /* scene material, or UINT32_MAX for pbrt's default (diffuse 0.5) */
    pbrt_area_light area;
    int reverse;    /* ReverseOrientation */
    char push_kind; /* on the stack: 'a' AttributeBegin, 't' TransformBegin, 'o' ObjectBegin */
} pbrt_gstate;

typedef struct pbrt_name_index {
    char *name;
    uint32_t index;
} pbrt_name_index;

typedef struct pbrt_names {
    pbrt_name_index *v;
    uint32_t n, cap;
} pbrt_names;

/* A texture as far as pathwave uses it: an image map's scene texture (a
 * diffuse reflectance becomes that texture times tint), and the constant
 * every other use reads (a colour, or an image's mean times tint). */
typedef struct pbrt_texture {
    pw_vec3 value;
    uint32_t image; /* scene texture index, UINT32_MAX for a constant */
    pw_vec3 tint;   /* multiplies the image ("scale" textures over an image map) */
    char *filename;
} pbrt_texture;

/* A shape recorded inside ObjectBegin/ObjectEnd, replayed per instance. */
typedef struct pbrt_shape_rec {
    char *type;
    pbrt_params params;
    pbrt_mat4 ctm;
    uint32_t material;
    int reverse;
} pbrt_shape_rec;

typedef struct pbrt_object {
    char *name;
    pbrt_shape_rec *shapes;
    uint32_t n, cap;
} pbrt_object;

typedef struct pbrt_camera_rec {
    int seen;
    pbrt_mat4 camera_from_world;
    float fov, lens_radius, focal_distance;
    const char *path; /* where the Camera directive was, for messages */
    int line;
} pbrt_camera_rec;

typedef struct pbrt_ctx {
    pw_scene *scene;
    const char *main_path;
    char base_dir[4096]; /* relative file names resolve against the main file's folder, as in pbrt */
    int include_depth;
    pbrt_gstate gs;
    pbrt_gstate *stack;
    uint32_t depth, cap_stack;
    int in_world;
    pbrt_names named_mats, textures_idx, coord_names;
    pbrt_texture *textures;
    uint32_t n_tex, cap_tex;
    pbrt_mat4 *coords;
    uint32_t n_coords, cap_coords;
    pbrt_object *objects;
    uint32_t n_objects, cap_objects;
    int current_object; /* index into objects while inside ObjectBegin, else -1 */
    uint32_t default_mat;
    pbrt_camera_rec cam;
    int xres, yres;
    char **files; /* every file read, kept until the end: recorded shapes and messages point at these names */
    uint32_t n_files, cap_files;
    char **warned; /* keys already warned about, so each is reported once */
    uint32_t n_warned, cap_warned;
    int em_valid; /* the last emissive copy of a material, reused while nothing changes */
    uint32_t em_base, em_index;
    pbrt_area_light em_light;
    int emissive_lights; /* shapes with an area light, and infinite lights */
} pbrt_ctx;

/* Warns once per key: "path:line: message". */
void pbrt_warn_once(pbrt_ctx *c, const char *key, const char *path, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Warns once per unused parameter of a directive. */
void pbrt_warn_unused(pbrt_ctx *c, pbrt_params *ps, const char *what);
pw_status pbrt_set_coord(pbrt_ctx *c, const char *name, const pbrt_mat4 *m);
int pbrt_names_find(const pbrt_names *t, const char *name, uint32_t *index);
pw_status pbrt_names_set(pbrt_names *t, const char *name, uint32_t index);
/* name resolved against the main file's folder into buf; 0 when too long. */
int pbrt_resolve_path(const pbrt_ctx *c, const char *name, char *buf, size_t n);

/* ---- colours and spectra (pbrt_spectrum.c) ---- */
/* RGB of a named spectrum ("metal-Cu-eta", "glass-BK7", ...); 0 if unknown. */
int pbrt_named_spectrum(const char *name, pw_vec3 *rgb);
/* Linear sRGB of a blackbody at kelvin, scaled to luminance 1 (pbrt-v4
 * normalises emission spectra to one nit before "scale"). */
pw_vec3 pbrt_blackbody_rgb(double kelvin);
/* Linear sRGB of a sampled spectrum given as (wavelength nm, value) pairs:
 * for a reflectance each channel is normalised so that a constant spectrum
 * keeps its value; for an illuminant the result has the spectrum's
 * luminance normalised to 1, as pbrt-v4 does for lights. */
pw_vec3 pbrt_sampled_rgb(const double *pairs, uint32_t n_pairs, int illuminant);

typedef enum pbrt_color_use { PBRT_ALBEDO, PBRT_ILLUMINANT, PBRT_UNBOUNDED } pbrt_color_use;
/* A colour parameter: rgb, spectrum (named or sampled), blackbody, a
 * texture (its constant stand-in) or a float. *found says whether it was given. */
pw_status pbrt_get_color(pbrt_ctx *c, pbrt_params *ps, const char *name, pw_vec3 def, pbrt_color_use use, pw_vec3 *out,
                         int *found);
/* A reflectance that may be an image texture: *tex gets its scene texture
 * (UINT32_MAX for none) and *out the colour that multiplies it, or the
 * constant colour when there is no image; *mean (may be NULL) the mean
 * reflectance either way. */
pw_status pbrt_get_albedo(pbrt_ctx *c, pbrt_params *ps, const char *name, pw_vec3 def, pw_vec3 *out, uint32_t *tex,
                         pw_vec3 *mean);
/* A float parameter that may also name a float texture. */
pw_status pbrt_get_float_tex(pbrt_ctx *c, pbrt_params *ps, const char *name, float def, float *out);

/* ---- builders ---- */
pw_status pbrt_camera(pbrt_ctx *c, const char *type, pbrt_params *ps);
pw_status pbrt_film(pbrt_ctx *c, const char *type, pbrt_params *ps);
pw_status pbrt_sampler(pbrt_ctx *c, const char *type, pbrt_params *ps);
pw_status pbrt_integrator(pbrt_ctx *c, const char *type, pbrt_params *ps);
/* Sets the scene's camera from the recorded Camera once the film is known. */
pw_status pbrt_camera_finish(pbrt_ctx *c);

pw_status pbrt_material(pbrt_ctx *c, const char *type, pbrt_params *ps, pw_material *out);
pw_status pbrt_texture_define(pbrt_ctx *c, const char *name, const char *kind, const char *cls, pbrt_params *ps);
/* The material a shape gets: the current one, with the area light's emission when one is active. */
pw_status pbrt_shape_material(pbrt_ctx *c, uint32_t *out);

pw_status pbrt_shape(pbrt_ctx *c, const char *type, pbrt_params *ps, const pbrt_mat4 *ctm, uint32_t mat, int reverse);

pw_status pbrt_area_light_source(pbrt_ctx *c, const char *type, pbrt_params *ps);
pw_status pbrt_light_source(pbrt_ctx *c, const char *type, pbrt_params *ps);

#endif
