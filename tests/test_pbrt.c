/* The pbrt-v4 reader on small scenes written to temporary files: where
 * transformed geometry lands (against hand-computed positions), the
 * camera's field of view and handedness, materials, area lights, object
 * instances, includes, the exact file:line:column of syntax errors, and
 * warnings reported once per unsupported feature. */
#include "test_common.h"

#include <unistd.h>

#include "scene/pbrt/pbrt.h"
#include "scene/scene.h"

static char tmpdir[64];

/* Writes text to tmpdir/name and returns the path in buf. */
static const char *write_file(const char *name, const char *text, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
    FILE *f = fopen(buf, "wb");
    assert_non_null(f);
    assert_true(fwrite(text, 1, strlen(text), f) == strlen(text));
    fclose(f);
    return buf;
}

typedef struct warnings {
    int count;
    char msg[8][512];
} warnings;

static warnings warned;

static void count_warning(const char *msg, void *user)
{
    (void)user;
    if (warned.count < 8)
        snprintf(warned.msg[warned.count], sizeof warned.msg[0], "%s", msg);
    warned.count++;
}

static pw_scene *load_ok(const char *text)
{
    char path[256];
    write_file("scene.pbrt", text, path, sizeof path);
    pw_scene *s = NULL;
    memset(&warned, 0, sizeof warned);
    if (pw_scene_load(path, &s) != PW_OK)
        fail_msg("loading failed: %s", pw_last_error());
    return s;
}

static void assert_vec(pw_vec3 v, float x, float y, float z, float tol)
{
    if (fabsf(v.x - x) > tol || fabsf(v.y - y) > tol || fabsf(v.z - z) > tol)
        fail_msg("(%g, %g, %g) is not (%g, %g, %g)", v.x, v.y, v.z, x, y, z);
}

static const char *const lit = "LightSource \"infinite\" \"rgb L\" [1 1 1]\n";

static void transforms_place_geometry(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "WorldBegin\n%s"
             "AttributeBegin\n"
             "  Translate 1 2 3\n  Rotate 90 0 0 1\n  Scale 2 2 2\n"
             "  Shape \"trianglemesh\" \"point3 P\" [1 0 0 0 1 0 0 0 1] \"integer indices\" [0 1 2]\n"
             "AttributeEnd\n"
             "TransformBegin\n"
             "  ConcatTransform [1 0 0 0 0 1 0 0 0 0 1 0 5 6 7 1]\n"
             "  Shape \"trianglemesh\" \"point3 P\" [1 0 0 0 1 0 0 0 1]\n"
             "TransformEnd\n"
             "Shape \"sphere\" \"float radius\" 0.5\n"
             "Translate 0 0 -1\nScale 3 3 3\nShape \"sphere\"\n"
             "Identity\nLookAt 0 0 0  1 0 0  0 1 0\n"
             "Shape \"trianglemesh\" \"point3 P\" [1 0 0 0 1 0 0 0 1]\n",
             lit);
    pw_scene *s = load_ok(text);
    assert_int_equal(warned.count, 0);
    assert_int_equal(s->n_tris, 3);
    /* Scale by 2, turn 90 degrees about z ((x, y) -> (-y, x)), move by (1, 2, 3). */
    assert_vec(s->pos[0], 1, 4, 3, 1e-5f);
    assert_vec(s->pos[1], -1, 2, 3, 1e-5f);
    assert_vec(s->pos[2], 1, 2, 5, 1e-5f);
    /* ConcatTransform's 16 values are the matrix column by column: a move by (5, 6, 7). */
    assert_vec(s->pos[3], 6, 6, 7, 1e-6f);
    assert_vec(s->pos[4], 5, 7, 7, 1e-6f);
    assert_vec(s->pos[5], 5, 6, 8, 1e-6f);
    /* TransformEnd and AttributeEnd restored the identity. */
    assert_int_equal(s->n_spheres, 2);
    assert_vec(s->spheres[0].c, 0, 0, 0, 0);
    assert_true(s->spheres[0].r == 0.5f);
    assert_vec(s->spheres[1].c, 0, 0, -1, 1e-6f);
    assert_true(fabsf(s->spheres[1].r - 3.0f) < 1e-6f);
    /* LookAt is camera-from-world: the eye looks down +z of its space, so
     * world +x (where it looks) becomes +z, and world +z becomes -x. */
    assert_vec(s->pos[6], 0, 0, 1, 1e-6f);
    assert_vec(s->pos[7], 0, 1, 0, 1e-6f);
    assert_vec(s->pos[8], -1, 0, 0, 1e-6f);
    pw_scene_free(s);
}

/* Geometric normal of triangle t by its winding. */
static pw_vec3 tri_normal(const pw_scene *s, uint32_t t)
{
    const uint32_t *ix = s->tri_idx + 3 * t;
    return v3_norm(v3_cross(v3_sub(s->pos[ix[1]], s->pos[ix[0]]), v3_sub(s->pos[ix[2]], s->pos[ix[0]])));
}

static void winding_follows_pbrt_normals(void **state)
{
    (void)state;
    char text[2048];
    snprintf(
        text, sizeof text,
        "WorldBegin\n%s"
        "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\n"
        "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"normal N\" [0 0 -1 0 0 -1 0 0 -1]\n"
        "AttributeBegin\nReverseOrientation\nShape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\nAttributeEnd\n"
        "Shape \"bilinearmesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0 1 1 0]\n"
        "Scale 1 1 -1\nShape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\n",
        lit);
    pw_scene *s = load_ok(text);
    assert_vec(tri_normal(s, 0), 0, 0, 1, 1e-6f);  /* counter-clockwise: +z */
    assert_vec(tri_normal(s, 1), 0, 0, -1, 1e-6f); /* turned to face its normals */
    assert_vec(tri_normal(s, 2), 0, 0, -1, 1e-6f); /* ReverseOrientation */
    /* A bilinear patch (p00, p10, p01, p11) is two triangles facing dp/du x dp/dv. */
    assert_int_equal(s->n_tris, 6);
    assert_vec(tri_normal(s, 3), 0, 0, 1, 1e-6f);
    assert_vec(tri_normal(s, 4), 0, 0, 1, 1e-6f);
    /* A mirror keeps the object-space normal: +z mirrored to -z. */
    assert_vec(tri_normal(s, 5), 0, 0, -1, 1e-6f);
    pw_scene_free(s);
}

static pw_scene *camera_scene(const char *pre, int w, int h, const char *cam_params)
{
    char text[2048];
    snprintf(text, sizeof text,
             "%sCamera \"perspective\" %s\n"
             "Film \"rgb\" \"integer xresolution\" %d \"integer yresolution\" %d\n"
             "Sampler \"halton\" \"integer pixelsamples\" 7\nIntegrator \"path\" \"integer maxdepth\" 3\n"
             "WorldBegin\n%sShape \"sphere\"\n",
             pre, cam_params, w, h, lit);
    return load_ok(text);
}

static void camera_fov_on_shorter_axis(void **state)
{
    (void)state;
    const float t = tanf(15.0f * PW_PI / 180.0f);
    pw_scene *s = camera_scene("", 200, 100, "\"float fov\" 30");
    assert_int_equal(s->defaults.width, 200);
    assert_int_equal(s->defaults.height, 100);
    assert_int_equal(s->defaults.spp, 7);
    assert_int_equal(s->defaults.max_depth, 3);
    pw_camera c = pw_camera_make(&s->cam, 2.0f);
    /* Landscape: 30 degrees across the height. The image plane is at distance 1. */
    assert_true(fabsf(v3_len(c.vertical) - 2.0f * t) < 1e-5f);
    assert_true(fabsf(v3_len(c.horizontal) - 4.0f * t) < 1e-5f);
    pw_scene_free(s);

    s = camera_scene("", 100, 200, "\"float fov\" 30 \"float lensradius\" 0.1 \"float focaldistance\" 4");
    c = pw_camera_make(&s->cam, 0.5f);
    /* Portrait: 30 degrees across the width; the plane sits at the focal distance. */
    assert_true(fabsf(v3_len(c.horizontal) - 4.0f * 2.0f * t) < 1e-4f);
    assert_true(fabsf(v3_len(c.vertical) - 4.0f * 4.0f * t) < 1e-4f);
    assert_true(fabsf(c.lens_radius - 0.1f) < 1e-7f);
    pw_scene_free(s);
}

/* pbrt's camera space is left-handed: +x is the image's right. A LookAt
 * from +z toward the origin with +y up has its right at world -x (pbrt's
 * well-known mirror, undone in many scenes with Scale -1 1 1). */
static void camera_handedness(void **state)
{
    (void)state;
    pw_scene *s = camera_scene("LookAt 0 0 5  0 0 0  0 1 0\n", 100, 100, "");
    pw_camera c = pw_camera_make(&s->cam, 1.0f);
    assert_vec(c.origin, 0, 0, 5, 1e-6f);
    assert_vec(v3_norm(c.horizontal), -1, 0, 0, 1e-6f);
    assert_vec(v3_norm(c.vertical), 0, 1, 0, 1e-6f);
    pw_scene_free(s);
    s = camera_scene("Scale -1 1 1\nLookAt 0 0 5  0 0 0  0 1 0\n", 100, 100, "");
    c = pw_camera_make(&s->cam, 1.0f);
    assert_vec(v3_norm(c.horizontal), 1, 0, 0, 1e-6f);
    assert_vec(v3_norm(c.vertical), 0, 1, 0, 1e-6f);
    pw_scene_free(s);
    /* The Cornell box file's own matrix: a mirror in z, so right stays +x. */
    s = camera_scene("Transform [ 1 -0 -0 -0 -0 1 -0 -0 -0 -0 -1 -0 -0 -1 6.8 1 ]\n", 100, 100, "\"float fov\" 19.5");
    c = pw_camera_make(&s->cam, 1.0f);
    assert_vec(c.origin, 0, 1, 6.8f, 1e-6f);
    assert_vec(v3_norm(c.horizontal), 1, 0, 0, 1e-6f);
    assert_vec(v3_scale(c.w, -1.0f), 0, 0, -1, 1e-6f);
    pw_scene_free(s);
}

static void materials_and_area_lights(void **state)
{
    (void)state;
    pw_scene *s = load_ok("WorldBegin\n"
                          "MakeNamedMaterial \"red\" \"string type\" \"diffuse\" \"rgb reflectance\" [0.8 0.1 0.1]\n"
                          "MakeNamedMaterial \"gold\" \"string type\" \"conductor\" \"spectrum eta\" \"metal-Au-eta\"\n"
                          "  \"spectrum k\" \"metal-Au-k\" \"float roughness\" 0.04\n"
                          "MakeNamedMaterial \"raw\" \"string type\" \"conductor\" \"float roughness\" 0.04 \"bool "
                          "remaproughness\" false\n"
                          "MakeNamedMaterial \"glass\" \"string type\" \"dielectric\" \"float eta\" 1.33\n"
                          "NamedMaterial \"gold\"\n"
                          "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\n"
                          "NamedMaterial \"red\"\nShape \"sphere\"\n"
                          "NamedMaterial \"glass\"\nShape \"sphere\" \"float radius\" 2\n"
                          "AttributeBegin\n"
                          "  AreaLightSource \"diffuse\" \"rgb L\" [1 2 3] \"float scale\" 2 \"bool twosided\" true\n"
                          "  Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\n"
                          "AttributeEnd\n"
                          "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\n"
                          "NamedMaterial \"raw\"\nShape \"sphere\" \"float radius\" 3\n");
    assert_int_equal(warned.count, 0);
    const pw_material *gold = &s->mats[s->tri_mat[0]];
    assert_int_equal(gold->type, PW_MAT_CONDUCTOR);
    assert_vec(gold->eta, 0.143119f, 0.374957f, 1.442479f, 1e-6f);
    assert_vec(gold->k, 3.983160f, 2.385721f, 1.603215f, 1e-6f);
    /* pbrt-v4 remaps roughness to GGX alpha as its square root. */
    assert_true(fabsf(gold->roughness - 0.2f) < 1e-6f);
    assert_true(fabsf(s->mats[s->sphere_mat[2]].roughness - 0.04f) < 1e-7f);
    const pw_material *red = &s->mats[s->sphere_mat[0]];
    assert_int_equal(red->type, PW_MAT_LAMBERT);
    assert_vec(red->albedo, 0.8f, 0.1f, 0.1f, 1e-7f);
    const pw_material *glass = &s->mats[s->sphere_mat[1]];
    assert_int_equal(glass->type, PW_MAT_DIELECTRIC);
    assert_true(glass->ior == 1.33f);
    const pw_material *lamp = &s->mats[s->tri_mat[1]];
    assert_int_equal(lamp->type, PW_MAT_DIELECTRIC); /* the material of the moment, plus emission */
    assert_vec(lamp->emission, 2, 4, 6, 0);
    assert_true(lamp->flags & PW_MATF_TWO_SIDED);
    /* AttributeEnd ended the area light. */
    assert_true(v3_is_zero(s->mats[s->tri_mat[2]].emission));
    assert_int_equal(s->mats[s->tri_mat[2]].type, PW_MAT_DIELECTRIC);
    pw_scene_free(s);
}

static void object_instances_are_copied(void **state)
{
    (void)state;
    char text[2048];
    snprintf(text, sizeof text,
             "WorldBegin\n%s"
             "ObjectBegin \"tri\"\n  Translate 1 0 0\n"
             "  Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\nObjectEnd\n"
             "Shape \"sphere\"\n"
             "AttributeBegin\n  Translate 0 10 0\n  ObjectInstance \"tri\"\nAttributeEnd\n"
             "Translate 0 20 0\nObjectInstance \"tri\"\n",
             lit);
    pw_scene *s = load_ok(text);
    assert_int_equal(s->n_tris, 2); /* the definition itself adds nothing */
    assert_vec(s->spheres[0].c, 0, 0, 0, 0);
    /* The instance's transform, then the one inside the definition. */
    assert_vec(s->pos[0], 1, 10, 0, 0);
    assert_vec(s->pos[1], 2, 10, 0, 0);
    assert_vec(s->pos[2], 1, 11, 0, 0);
    assert_vec(s->pos[3], 1, 20, 0, 0);
    assert_vec(s->pos[5], 1, 21, 0, 0);
    pw_scene_free(s);
}

static void include_resolves_relative_paths(void **state)
{
    (void)state;
    char sub[256], part[256], obj[256], main_path[256];
    snprintf(sub, sizeof sub, "%s/sub", tmpdir);
    mkdir(sub, 0700);
    write_file("sub/part.pbrt", "Shape \"sphere\" \"float radius\" 4\n", part, sizeof part);
    write_file("sub/object.pbrt", "ObjectBegin \"ball\"\nShape \"sphere\" \"float shininess\" 1\nObjectEnd\n", obj,
               sizeof obj);
    write_file("main.pbrt",
               "WorldBegin\nLightSource \"infinite\"\nInclude \"sub/part.pbrt\"\nImport \"sub/part.pbrt\"\n"
               "Include \"sub/object.pbrt\"\nObjectInstance \"ball\"\n",
               main_path, sizeof main_path);
    pw_scene *s;
    memset(&warned, 0, sizeof warned);
    assert_int_equal(pw_scene_load(main_path, &s), PW_OK);
    assert_int_equal(s->n_spheres, 3);
    assert_true(s->spheres[1].r == 4.0f);
    /* The instance is built after its file was closed; the warning still names it. */
    char expect[512];
    snprintf(expect, sizeof expect, "%s:2: Shape \"sphere\": parameter \"shininess\" is not supported (ignored)", obj);
    assert_int_equal(warned.count, 1);
    assert_string_equal(warned.msg[0], expect);
    pw_scene_free(s);
    unlink(part);
    unlink(obj);
    unlink(main_path);
    rmdir(sub);
}

/* A PLY file next to the scene, read through assimp: its quad arrives as
 * two triangles under the shape's transform. */
static void plymesh_loads_relative_to_scene(void **state)
{
    (void)state;
    char ply[256], main_path[256];
    write_file("quad.ply",
               "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
               "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
               "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n",
               ply, sizeof ply);
    char text[512];
    snprintf(text, sizeof text, "WorldBegin\n%sTranslate 0 0 2\nShape \"plymesh\" \"string filename\" \"quad.ply\"\n",
             lit);
    write_file("main.pbrt", text, main_path, sizeof main_path);
    pw_scene *s;
    if (pw_scene_load(main_path, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    assert_int_equal(s->n_tris, 2);
    float zmin = PW_INF, zmax = -PW_INF, xmax = -PW_INF;
    for (uint32_t i = 0; i < 6; i++) {
        pw_vec3 p = s->pos[s->tri_idx[i]];
        zmin = fminf(zmin, p.z), zmax = fmaxf(zmax, p.z), xmax = fmaxf(xmax, p.x);
    }
    assert_true(zmin == 2.0f && zmax == 2.0f && xmax == 1.0f);
    pw_scene_free(s);
    unlink(ply);
    unlink(main_path);
}

/* Writes a w x h image whose left half is a and right half b. */
static void write_image(const char *name, int w, int h, pw_vec3 a, pw_vec3 b, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", tmpdir, name);
    float *rgb = malloc(sizeof(float) * 3 * (size_t)w * h);
    for (int i = 0; i < w * h; i++) {
        pw_vec3 c = i % w < w / 2 ? a : b;
        rgb[3 * i] = c.x, rgb[3 * i + 1] = c.y, rgb[3 * i + 2] = c.z;
    }
    assert_int_equal(pw_image_write(path, rgb, w, h, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    free(rgb);
}

/* Until pathwave has textures, an image texture stands in as its mean colour, with one warning. */
static void image_texture_is_its_mean(void **state)
{
    (void)state;
    char img[256];
    write_image("tex.pfm", 4, 2, v3(1, 0, 0), v3(0, 0, 0.5f), img, sizeof img);
    char text[1024];
    snprintf(text, sizeof text,
             "WorldBegin\n%s"
             "Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"tex.pfm\"\n"
             "Material \"diffuse\" \"texture reflectance\" \"t\"\nShape \"sphere\"\n"
             "Texture \"u\" \"spectrum\" \"imagemap\" \"string filename\" \"tex.pfm\" \"float scale\" 2\n"
             "Material \"diffuse\" \"texture reflectance\" \"u\"\nShape \"sphere\"\n",
             lit);
    pw_scene *s = load_ok(text);
    assert_vec(s->mats[s->sphere_mat[0]].albedo, 0.5f, 0, 0.25f, 1e-6f);
    assert_vec(s->mats[s->sphere_mat[1]].albedo, 1.0f, 0, 0.5f, 1e-6f);
    assert_int_equal(warned.count, 1);
    assert_non_null(strstr(warned.msg[0], "scene.pbrt:3: Texture \"imagemap\": pathwave has no textures yet"));
    pw_scene_free(s);
    unlink(img);
}

/* pbrt's environment has +z up; Rotate -90 1 0 0 makes it pathwave's +y up. */
static void infinite_light_map_and_orientation(void **state)
{
    (void)state;
    char img[256];
    write_image("sky.pfm", 8, 4, v3(1, 1, 1), v3(2, 2, 2), img, sizeof img);
    pw_scene *s = load_ok("WorldBegin\nAttributeBegin\nRotate -90 1 0 0\n"
                          "LightSource \"infinite\" \"string filename\" \"sky.pfm\" \"float scale\" 3\n"
                          "AttributeEnd\nShape \"sphere\"\n");
    assert_int_equal(warned.count, 0);
    assert_int_equal(s->env.type, PW_ENV_MAP);
    assert_int_equal(s->env.w, 8);
    assert_true(s->env.scale == 3.0f);
    pw_scene_free(s);
    s = load_ok("WorldBegin\nLightSource \"infinite\" \"string filename\" \"sky.pfm\"\nShape \"sphere\"\n");
    assert_int_equal(warned.count, 1);
    assert_non_null(strstr(warned.msg[0], "puts the map's up (+z) at (0, 0, 1)"));
    pw_scene_free(s);
    s = load_ok("WorldBegin\nLightSource \"infinite\" \"rgb L\" [0.1 0.2 0.3] \"float scale\" 2\nShape \"sphere\"\n");
    assert_int_equal(s->env.type, PW_ENV_CONSTANT);
    assert_vec(v3_scale(s->env.top, s->env.scale), 0.2f, 0.4f, 0.6f, 1e-6f);
    pw_scene_free(s);
    unlink(img);
}

static const struct {
    const char *text, *where; /* the message after "path:" */
} bad[] = {
    {"Foo 1 2\n", "1:1: unknown directive 'Foo'"},
    {"WorldBegin\nShape \"sphere", "2:7: unterminated string (the file ends inside it)"},
    {"WorldBegin\nShape \"sphere\n\"", "2:7: unterminated string (a string ends on its line)"},
    {"WorldBegin\nShape \"sphere\" \"float radius\" [ 1\n",
     "3:1: \"float radius\": expected ']' to close the values opened at 2:16"},
    {"Camera \"perspective\" \"float fov\" \"wide\"\n", "1:34: \"float fov\": expected a number, got \"wide\""},
    {"Camera \"perspective\" \"integer fov\" 45\n", "1:22: \"integer fov\": should be of type float"},
    {"WorldBegin\nShape \"trianglemesh\" \"point3 P\" [ nan 0 0 1 0 0 0 1 0 ]\n",
     "2:35: \"point3 P\": expected a number, got 'nan'"},
    {"Translate 1e999 0 0\n", "1:11: number '1e999' is not finite"},
    {"Translate 1.5x 0 0\n", "1:11: expected a number, got '1.5x'"},
    {"Translate 1 2\nWorldBegin\n", "2:1: expected 3 numbers after Translate, got 'WorldBegin'"},
    {"WorldBegin\nAttributeEnd\n", "2:1: AttributeEnd without a matching AttributeBegin"},
    {"WorldBegin\nAttributeBegin\nTransformEnd\n", "3:1: TransformEnd closes a AttributeBegin"},
    {"WorldBegin\nShape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"integer indices\" [0 1 3]\n",
     "2:53: \"integer indices\": index 2 is 3, but there are 3 vertices"},
    {"WorldBegin\nShape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0 1 1 1]\n",
     "2:1: \"integer indices\" is missing (allowed only for a single triangle of 3 vertices)"},
    {"Film \"rgb\" \"integer xresolution\" [ 100000000 ]\n",
     "1:12: \"integer xresolution\": 100000000 is out of range 1..32768"},
    {"WorldBegin\nNamedMaterial \"nope\"\n", "2:15: NamedMaterial \"nope\" was not defined"},
    {"Shape \"sphere\"\n", "1:1: Shape must come after WorldBegin"},
    {"WorldBegin\nShape \"sphere\" \"radius\" 1\n",
     "2:16: expected a parameter declaration \"type name\", got \"radius\""},
    {"WorldBegin\nShape \"sphere\" \"real radius\" 1\n", "2:16: unknown parameter type 'real'"},
    {"WorldBegin\nMaterial \"diffuse\" \"rgb reflectance\" [ 1 1 ]\n",
     "2:20: \"rgb reflectance\": needs 3 values, got 2"},
    {"WorldBegin\nObjectInstance \"ghost\"\n", "2:16: ObjectInstance of unknown object \"ghost\""},
};

static void errors_name_file_line_column(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char path[256], expect[512];
        write_file("bad.pbrt", bad[i].text, path, sizeof path);
        pw_scene *s = (pw_scene *)&s;
        pw_status st = pw_scene_load(path, &s);
        snprintf(expect, sizeof expect, "%s:%s", path, bad[i].where);
        if (st != PW_ERR_FORMAT || strcmp(pw_last_error(), expect) != 0)
            fail_msg("case %zu: status %d, message\n  %s\nexpected\n  %s", i, st, pw_last_error(), expect);
        assert_null(s);
    }
    /* A missing Include names the directive that asked for it. */
    char path[256], expect[600];
    write_file("inc.pbrt", "Include \"nothere.pbrt\"\n", path, sizeof path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_ERR_FORMAT);
    snprintf(expect, sizeof expect, "%s:1:9: %s/nothere.pbrt: cannot open (No such file or directory)", path, tmpdir);
    assert_string_equal(pw_last_error(), expect);
    /* A file that includes itself stops at the depth limit. */
    write_file("self.pbrt", "Include \"self.pbrt\"\n", path, sizeof path);
    assert_int_equal(pw_scene_load(path, &s), PW_ERR_FORMAT);
    snprintf(expect, sizeof expect, "%s:1:1: Include nested deeper than 32 files (does a file include itself?)", path);
    assert_string_equal(pw_last_error(), expect);
}

static void unsupported_features_warn_once(void **state)
{
    (void)state;
    pw_scene *s = load_ok("WorldBegin\n"
                          "LightSource \"point\" \"rgb I\" [1 1 1]\n"
                          "LightSource \"point\" \"rgb I\" [1 1 1]\n"
                          "Shape \"disk\"\n"
                          "Shape \"disk\"\n"
                          "AttributeBegin\n"
                          "AreaLightSource \"diffuse\" \"rgb L\" [1 1 1] \"float power\" 10\n"
                          "Shape \"sphere\"\n"
                          "AttributeEnd\n"
                          "AreaLightSource \"diffuse\" \"rgb L\" [1 1 1] \"float power\" 10\n");
    char path[256];
    snprintf(path, sizeof path, "%s/scene.pbrt", tmpdir);
    assert_int_equal(warned.count, 3);
    char expect[512];
    snprintf(
        expect, sizeof expect,
        "%s:2: LightSource \"point\" is not supported (pathwave has no point, spot or distant lights yet): left out",
        path);
    assert_string_equal(warned.msg[0], expect);
    snprintf(expect, sizeof expect, "%s:4: Shape \"disk\" is not supported: left out", path);
    assert_string_equal(warned.msg[1], expect);
    snprintf(expect, sizeof expect, "%s:7: AreaLightSource: parameter \"power\" is not supported (ignored)", path);
    assert_string_equal(warned.msg[2], expect);
    assert_int_equal(s->n_spheres, 1);
    pw_scene_free(s);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pw_pbrt_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    pw_set_warning_handler(count_warning, NULL);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    static const char *const files[] = {"scene.pbrt", "bad.pbrt", "inc.pbrt", "self.pbrt"};
    char path[256];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, files[i]);
        unlink(path);
    }
    rmdir(tmpdir);
    pw_set_warning_handler(NULL, NULL);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(transforms_place_geometry),
        cmocka_unit_test(winding_follows_pbrt_normals),
        cmocka_unit_test(camera_fov_on_shorter_axis),
        cmocka_unit_test(camera_handedness),
        cmocka_unit_test(materials_and_area_lights),
        cmocka_unit_test(object_instances_are_copied),
        cmocka_unit_test(include_resolves_relative_paths),
        cmocka_unit_test(plymesh_loads_relative_to_scene),
        cmocka_unit_test(image_texture_is_its_mean),
        cmocka_unit_test(infinite_light_map_and_orientation),
        cmocka_unit_test(errors_name_file_line_column),
        cmocka_unit_test(unsupported_features_warn_once),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
