/* The pbrt-v4 reader's shared types: tokens (pbrt_lex.c), parameter lists
 * (pbrt_params.c), transforms (pbrt_transform.c), the parser's state
 * (pbrt_parse.c) and the builders that turn pbrt entities into pathwave's
 * scene (pbrt_camera.c, pbrt_materials.c, pbrt_shapes.c, pbrt_lights.c). */
#ifndef PW_PBRT_INTERNAL_H
#define PW_PBRT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/file_read.h"
#include "scene/scene.h"

struct pbrt_ctx;

/* ---- tokens ---- */
typedef enum pbrt_tok { PBRT_EOF, PBRT_WORD, PBRT_STRING, PBRT_NUMBER, PBRT_LBRACK, PBRT_RBRACK } pbrt_tok;

typedef struct pbrt_token {
    pbrt_tok kind;
    const char *text; /* into the file's buffer; a string's text excludes its quotes */
    size_t len;
    const char *path; /* the file the token is in (Include splices files into one stream) */
    int line, col;    /* 1-based position of the token's first character */
    double num;       /* PBRT_NUMBER: its value, always finite */
} pbrt_token;

/* One file's text and the position reached in it. */
typedef struct pbrt_lexer {
    const char *path;
    pw_bytes file; /* owned */
    size_t pos;
    int line, col;
} pbrt_lexer;

#define PBRT_MAX_INCLUDE_DEPTH 32

/* The token stream of a file and what it includes: pbrt-v4's Include
 * splices the included file's tokens into the stream at the point of the
 * Include, so the stream is a stack of lexers, the top one read until its
 * tokens end, then the one below resumes. A directive, its parameter list
 * and even a bracketed list of values may thus run on from an included
 * file into the file that included it. */
typedef struct pbrt_tokens {
    pbrt_lexer files[PBRT_MAX_INCLUDE_DEPTH];
    int n;
    pbrt_token ahead;
    int has_ahead;
    /* Files whose tokens ended, kept until the directive that read their
     * last tokens is done with them (pbrt_tokens_release_ended). At most
     * n - 1 files end between two releases. */
    pw_bytes ended[PBRT_MAX_INCLUDE_DEPTH];
    int n_ended;
} pbrt_tokens;

void pbrt_tokens_init(pbrt_tokens *ts);
/* Puts file (whose bytes the stream now owns) on top of the stream; the
 * caller checks the depth first (PBRT_MAX_INCLUDE_DEPTH files). */
void pbrt_tokens_push(pbrt_tokens *ts, const char *path, pw_bytes file);
pw_status pbrt_next(pbrt_tokens *ts, pbrt_token *t);
pw_status pbrt_peek(pbrt_tokens *ts, pbrt_token *t);
/* Frees the files whose tokens have ended: call between directives, when
 * no token of theirs is in use any more. */
void pbrt_tokens_release_ended(pbrt_tokens *ts);
void pbrt_tokens_free(pbrt_tokens *ts);
/* "path:line:col: message" as a PW_ERR_FORMAT failure. */
pw_status pbrt_error_at(const char *path, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same at a token. */
pw_status pbrt_error_tok(const pbrt_token *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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
    const char *path; /* where it was given: a list may run on across an Include's end */
    int line, col;
    int used;
} pbrt_param;

typedef struct pbrt_params {
    pbrt_param *p;
    int n, cap;
    const char *path; /* the file and position of the directive that owns them */
    int line, col;
} pbrt_params;

/* Reads the list into ps. A parameter given twice is warned about and the
 * later one kept, as pbrt-v4 reads it (its lookups find the last one). */
pw_status pbrt_params_parse(struct pbrt_ctx *c, pbrt_tokens *ts, pbrt_params *ps);
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
#define PBRT_MAX_ATTRIBUTE_DEPTH 4096
/* Distinct warnings per load; a hostile file could otherwise make one per
 * parameter name it invents. */
#define PBRT_MAX_WARNINGS 200

typedef struct pbrt_area_light {
    int on;
    pw_vec3 L; /* radiance times scale */
    int two_sided;
} pbrt_area_light;

typedef struct pbrt_gstate {
    pbrt_mat4 ctm;
    uint32_t material; /* scene material, or UINT32_MAX for pbrt's default (diffuse 0.5) */
    /* A NamedMaterial whose MakeNamedMaterial comes later: its entry in
     * pbrt_ctx.mat_refs, else UINT32_MAX. pbrt-v4 looks names up once the
     * whole file is read, so a material may be named before it is made. */
    uint32_t material_ref;
    pbrt_area_light area;
    int reverse;    /* ReverseOrientation */
    char push_kind; /* on the stack: 'a' AttributeBegin, 't' TransformBegin, 'o' ObjectBegin */
} pbrt_gstate;

typedef struct pbrt_name_index {
    char *name;
    uint32_t index;
    const char *path; /* where the name was defined, for messages (NULL when not recorded) */
    int line;
} pbrt_name_index;

/* Names to indices, hashed: scenes name thousands of materials, and a
 * hostile file could name millions. */
typedef struct pbrt_names {
    pbrt_name_index *v;
    uint32_t n, cap;
    uint32_t *slots; /* open addressing: entry + 1, 0 for an empty slot */
    uint32_t n_slots;
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
    uint32_t material_ref; /* UINT32_MAX, or the named material it waits for (pbrt_gstate.material_ref) */
    int reverse;
} pbrt_shape_rec;

/* A NamedMaterial used before its MakeNamedMaterial: the name and where
 * it was used, for the error when it is never defined. */
typedef struct pbrt_material_ref {
    char *name;
    const char *path;
    int line, col;
} pbrt_material_ref;

/* A shape whose named material was not defined yet when the shape was
 * read: built at the end of the file (pbrt_forward.c). */
typedef struct pbrt_deferred_shape {
    pbrt_shape_rec rec; /* rec.ctm the shape's whole transform; type and params its own when object < 0 */
    int object;         /* else those of shape `shape` of this object, which outlives the list */
    uint32_t shape;
    pbrt_area_light area;
} pbrt_deferred_shape;

typedef struct pbrt_object {
    char *name;
    pbrt_shape_rec *shapes;
    uint32_t n, cap;
} pbrt_object;

typedef struct pbrt_camera_rec {
    int seen;
    pbrt_mat4 camera_from_world;
    float fov, lens_radius, focal_distance;
    float exposure; /* shutterclose - shutteropen: the film's exposure time */
    const char *path; /* where the Camera directive was, for messages */
    int line;
} pbrt_camera_rec;

typedef struct pbrt_ctx {
    pw_scene *scene;
    const char *main_path;
    char base_dir[4096]; /* relative file names resolve against the main file's folder, as in pbrt */
    int import_base;      /* files open in the token streams of the Imports around the current one */
    uint32_t attr_floor;  /* an Imported file may not pop the attribute stack below this */
    pbrt_gstate gs;
    pbrt_gstate *stack;
    uint32_t depth, cap_stack;
    int in_world;
    pbrt_names named_mats, textures_idx, coord_names, object_names;
    pbrt_material_ref *mat_refs;
    uint32_t n_mat_refs, cap_mat_refs;
    pbrt_deferred_shape *deferred;
    uint32_t n_deferred, cap_deferred;
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
    float iso; /* the Film's, for its imaging ratio (pbrt_camera_finish) */
    char **files; /* every file read, kept until the end: recorded shapes and messages point at these names */
    uint32_t n_files, cap_files;
    char **warned; /* keys already warned about, so each is reported once */
    uint32_t n_warned, cap_warned;
    int warnings_capped; /* PBRT_MAX_WARNINGS reached and said */
    int em_valid; /* the last emissive copy of a material, reused while nothing changes */
    uint32_t em_base, em_index;
    pbrt_area_light em_light;
    int emissive_lights; /* shapes with an area light, and infinite lights */
} pbrt_ctx;

/* ---- the directives of a stream (pbrt_parse.c); files (pbrt_include.c) ---- */
pw_status pbrt_parse_stream(pbrt_ctx *c, pbrt_tokens *ts);
/* The next token, which must be of kind: else an error naming what the
 * directive dir expected. */
pw_status pbrt_expect(pbrt_tokens *ts, pbrt_tok kind, const char *what, const pbrt_token *dir, pbrt_token *t);
/* What a file may not leave open at its end, beyond the attribute depth
 * and object it began with: an object definition (an error) and attribute
 * blocks (a warning). */
pw_status pbrt_file_end(pbrt_ctx *c, const char *path, uint32_t depth, int object);
/* Reads the main file and all it includes. */
pw_status pbrt_parse_main(pbrt_ctx *c, const char *path);
/* Include "file" (directive d): its tokens go on top of the stream. */
pw_status pbrt_include(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d);
/* Import "file": a stream of its own, under a copy of the graphics state. */
pw_status pbrt_import(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d);

/* Warns once per key: "path:line: message". */
void pbrt_warn_once(pbrt_ctx *c, const char *key, const char *path, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Warns once per unused parameter of a directive. */
void pbrt_warn_unused(pbrt_ctx *c, pbrt_params *ps, const char *what);
pw_status pbrt_set_coord(pbrt_ctx *c, const char *name, const pbrt_mat4 *m);
/* ---- names (pbrt_names.c) ---- */
int pbrt_names_find(const pbrt_names *t, const char *name, uint32_t *index);
const pbrt_name_index *pbrt_names_entry(const pbrt_names *t, const char *name);
/* Later definitions of a name replace earlier ones. */
pw_status pbrt_names_set(pbrt_names *t, const char *name, uint32_t index);
/* The same, recording where the name was defined. */
pw_status pbrt_names_set_at(pbrt_names *t, const char *name, uint32_t index, const char *path, int line);
void pbrt_names_free(pbrt_names *t);
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

/* ---- named materials used before they are made (pbrt_forward.c) ---- */
/* NamedMaterial "name" at token t: the material, or a reference to it when
 * it is not defined yet. */
pw_status pbrt_named_material_use(pbrt_ctx *c, const char *name, const pbrt_token *t);
/* Whether rec's named material is defined by now: if so it is put in
 * rec->material and rec->material_ref cleared. */
int pbrt_material_ref_resolve(pbrt_ctx *c, uint32_t *material, uint32_t *material_ref);
/* Keeps a shape (taking rec's type and params, or an object's recorded
 * shape when object >= 0) until the end of the file. */
pw_status pbrt_defer_shape(pbrt_ctx *c, pbrt_shape_rec *rec, int object, uint32_t shape);
/* Builds the deferred shapes, or fails naming the first NamedMaterial that
 * was never defined. */
pw_status pbrt_build_deferred(pbrt_ctx *c);
void pbrt_forward_free(pbrt_ctx *c);
pw_status pbrt_light_source(pbrt_ctx *c, const char *type, pbrt_params *ps);

#endif
