/* The pbrt-v4 reader on small scenes written to temporary files: where
 * transformed geometry lands (against hand-computed positions), the
 * camera's field of view and handedness, materials (rough dielectric alpha,
 * coateddiffuse), area lights, point and distant lights against their
 * closed forms in a render, image textures (decoding options, a render of
 * a textured quad, a missing file), object instances, includes, the exact
 * file:line:column of syntax errors, and warnings reported once per
 * unsupported feature. */
#include "test_pbrt_util.h"

#include "film/tonemap.h"
#include "scene/pbrt/pbrt.h"
#include "scene/scene.h"
#include "test_render_util.h"

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

/* A PLY file next to the scene, read by pathwave's reader: its quad
 * arrives as two triangles under the shape's transform, with its uvs. */
static void plymesh_loads_relative_to_scene(void **state)
{
    (void)state;
    char ply[256], main_path[256];
    write_file("quad.ply",
               "ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
               "property float u\nproperty float v\n"
               "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
               "0 0 0 0.25 0.5\n1 0 0 0.75 0.5\n1 1 0 0.75 1\n0 1 0 0.25 1\n4 0 1 2 3\n",
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
    /* Its texture coordinates reach the scene's vertices: u = 0.25 + x / 2, v = 0.5 + y / 2. */
    assert_non_null(s->uv);
    for (uint32_t i = 0; i < 6; i++) {
        uint32_t v = s->tri_idx[i];
        pw_vec3 p = s->pos[v];
        if (fabsf(s->uv[2 * v] - (0.25f + 0.5f * p.x)) > 1e-6f || fabsf(s->uv[2 * v + 1] - (0.5f + 0.5f * p.y)) > 1e-6f)
            fail_msg("vertex (%g, %g): uv (%g, %g)", p.x, p.y, s->uv[2 * v], s->uv[2 * v + 1]);
    }
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

/* Linear value the reader gives an 8-bit code of a PNG written by pw_image_write. */
static float png_texel(const char *path, int i)
{
    float *rgb;
    int w, h;
    assert_int_equal(pw_image_read(path, &rgb, &w, &h), PW_OK);
    float v = rgb[i];
    free(rgb);
    return v;
}

/* An image map becomes a scene texture on a diffuse reflectance, decoded
 * as the file and the options say; elsewhere it is its mean, with a
 * warning; a missing file is one counted warning and a constant. */
static void image_texture_becomes_albedo_texture(void **state)
{
    (void)state;
    char img[256], png[256];
    write_image("tex.pfm", 4, 2, v3(1, 0, 0), v3(0, 0, 0.5f), img, sizeof img);
    write_image("tex.png", 2, 1, v3(0.2f, 0.2f, 0.2f), v3(0.8f, 0.8f, 0.8f), png, sizeof png);
    char text[2048];
    snprintf(text, sizeof text,
             "WorldBegin\n%s"
             "Texture \"t\" \"spectrum\" \"imagemap\" \"string filename\" \"tex.pfm\"\n"
             "Material \"diffuse\" \"texture reflectance\" \"t\"\nShape \"sphere\"\n"
             "Texture \"u\" \"spectrum\" \"imagemap\" \"string filename\" \"tex.png\" \"float scale\" 0.5\n"
             "  \"bool invert\" true \"string wrap\" \"clamp\"\n"
             "Material \"diffuse\" \"texture reflectance\" \"u\"\nShape \"sphere\"\n"
             "Texture \"lin\" \"spectrum\" \"imagemap\" \"string filename\" \"tex.png\" \"string encoding\" \"linear\"\n"
             "Texture \"g\" \"spectrum\" \"imagemap\" \"string filename\" \"tex.png\" \"string encoding\" \"gamma 3\"\n"
             "Texture \"k\" \"spectrum\" \"scale\" \"texture tex\" \"lin\" \"rgb scale\" [0.5 1 0.25]\n"
             "Material \"coateddiffuse\" \"texture reflectance\" \"k\" \"float roughness\" 0.01\nShape \"sphere\"\n"
             "Material \"diffuse\" \"texture reflectance\" \"g\"\nShape \"sphere\"\n"
             "Material \"conductor\" \"texture reflectance\" \"t\"\nShape \"sphere\"\n",
             lit);
    pw_scene *s = load_ok(text);
    for (int i = 0; i < warned.count && i < 8; i++)
        printf("warning: %s\n", warned.msg[i]);
    /* The texture stands for the whole colour: albedo 1 under it. */
    const pw_material *m0 = &s->mats[s->sphere_mat[0]];
    assert_int_equal(m0->type, PW_MAT_LAMBERT);
    assert_true(PW_MAT_HAS_ALBEDO_TEX(m0));
    assert_vec(m0->albedo, 1, 1, 1, 0);
    const pw_texture *t0 = &s->textures[PW_MAT_ALBEDO_TEX(m0)];
    assert_int_equal(t0->w, 4);
    assert_int_equal(t0->h, 2);
    assert_int_equal(t0->wrap, PW_WRAP_UV(PW_WRAP_REPEAT, PW_WRAP_REPEAT));
    const float *px = s->texels + 3 * (size_t)t0->offset;
    assert_vec(v3(px[0], px[1], px[2]), 1, 0, 0, 0);    /* linear PFM texels as they are */
    assert_vec(v3(px[9], px[10], px[11]), 0, 0, 0.5f, 0);
    /* scale and invert baked into the texels: 1 - 0.5 t; clamp kept. */
    const pw_material *m1 = &s->mats[s->sphere_mat[1]];
    assert_true(PW_MAT_HAS_ALBEDO_TEX(m1));
    const pw_texture *t1 = &s->textures[PW_MAT_ALBEDO_TEX(m1)];
    assert_int_equal(t1->wrap, PW_WRAP_UV(PW_WRAP_CLAMP, PW_WRAP_CLAMP));
    float dark = png_texel(png, 0), light = png_texel(png, 3);
    px = s->texels + 3 * (size_t)t1->offset;
    assert_true(fabsf(px[0] - (1.0f - 0.5f * dark)) < 1e-6f && fabsf(px[3] - (1.0f - 0.5f * light)) < 1e-6f);
    /* coateddiffuse: the glTF dielectric (F0 0.04) with the coat's alpha,
     * its base the texture (decoded linearly: the code over 255) times the
     * scale texture's colour times the coat's factor for the mean. */
    const pw_material *m2 = &s->mats[s->sphere_mat[2]];
    assert_int_equal(m2->type, PW_MAT_METALLIC_ROUGHNESS);
    assert_true(pw_material_metallic(m2) == 0.0f);
    assert_true(fabsf(m2->roughness - 0.1f) < 1e-6f);
    assert_true(PW_MAT_HAS_ALBEDO_TEX(m2));
    const pw_texture *t2 = &s->textures[PW_MAT_ALBEDO_TEX(m2)];
    px = s->texels + 3 * (size_t)t2->offset;
    float c_dark = pw_linear_to_srgb(dark), c_light = pw_linear_to_srgb(light);
    assert_true(fabsf(px[0] - c_dark) < 1e-6f && fabsf(px[3] - c_light) < 1e-6f);
    const float fdr = -1.440f / 2.25f + 0.710f / 1.5f + 0.668f + 0.0636f * 1.5f;
    const float k[3] = {0.5f, 1.0f, 0.25f};
    for (int c = 0; c < 3; c++) {
        float mean = k[c] * 0.5f * (c_dark + c_light);
        float want = k[c] * (1 - fdr) / (1 - mean * fdr);
        if (fabsf(v3_get(m2->albedo, c) - want) > 1e-5f)
            fail_msg("coateddiffuse base channel %d: %g, want %g", c, v3_get(m2->albedo, c), want);
    }
    /* gamma 3: code^3. */
    const pw_material *m3 = &s->mats[s->sphere_mat[3]];
    px = s->texels + 3 * (size_t)s->textures[PW_MAT_ALBEDO_TEX(m3)].offset;
    assert_true(fabsf(px[0] - powf(c_dark, 3.0f)) < 1e-6f);
    /* A conductor cannot take a texture: the mean, with one warning naming the parameter. */
    const pw_material *m4 = &s->mats[s->sphere_mat[4]];
    assert_int_equal(m4->type, PW_MAT_CONDUCTOR);
    assert_false(PW_MAT_HAS_ALBEDO_TEX(m4));
    assert_int_equal(warned.count, 3); /* coateddiffuse approximated, a textured sphere, the conductor */
    int found = 0;
    for (int i = 0; i < 3; i++)
        found += strstr(warned.msg[i], ":17: \"texture reflectance\": image texture \"t\" is used as its mean") != NULL;
    assert_int_equal(found, 1);
    pw_scene_free(s);

    /* A missing image: a counted warning naming the file, line and path;
     * the material keeps a constant colour. */
    s = load_ok("WorldBegin\nLightSource \"infinite\"\n"
                "Texture \"wood\" \"spectrum\" \"imagemap\" \"string filename\" \"no-such.png\"\n"
                "Material \"diffuse\" \"texture reflectance\" \"wood\"\n"
                "Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0]\n");
    assert_int_equal(warned.count, 1);
    assert_int_equal(s->n_warnings, 1);
    char expect[1024];
    snprintf(expect, sizeof expect,
             "%s/scene.pbrt:3: Texture \"wood\": image \"no-such.png\" not used (%s/no-such.png: cannot open (No "
             "such file or directory)); a constant 0.5 stands in",
             tmpdir, tmpdir);
    assert_string_equal(warned.msg[0], expect);
    assert_false(PW_MAT_HAS_ALBEDO_TEX(&s->mats[s->tri_mat[0]]));
    assert_vec(s->mats[s->tri_mat[0]].albedo, 0.5f, 0.5f, 0.5f, 0);
    assert_int_equal(s->n_textures, 0);
    pw_scene_free(s);
    unlink(img);
    unlink(png);
}

/* Pixel (column, row from the top) where the scene's camera sees point p. */
static void project(const pw_scene *s, pw_vec3 p, int w, int h, int *px, int *py)
{
    pw_camera c = pw_camera_make(&s->cam, (float)w / (float)h);
    pw_vec3 d = v3_sub(p, c.origin);
    float depth = -v3_dot(d, c.w), focus = -v3_dot(v3_sub(c.lower_left, c.origin), c.w);
    float x = focus * v3_dot(d, c.u) / depth, y = focus * v3_dot(d, c.v) / depth;
    float u = 0.5f + x / v3_len(c.horizontal), v = 0.5f + y / v3_len(c.vertical);
    *px = (int)floorf(u * (float)w);
    *py = (int)floorf((1.0f - v) * (float)h);
}

#define LIT_W 32
static const test_render lit_render = {LIT_W, LIT_W, 64, 1, 5, PW_LIGHT_MODE_MIS, 7, 0};

/* A 4 x 4 image of four 2 x 2 blocks (red, green / blue, grey from the top)
 * on the quad |x|, |z| <= 1 of the plane y = 0, lit straight down by a
 * distant light of irradiance pi: a Lambert point's radiance is exactly its
 * albedo. The texture's top-left block must show at -x, -z (v = 1 - z / 2
 * + 1/2: image row 0 at v = 1), each block's centre its texel. Once with
 * the uvs given, once from a bilinear patch's default uvs. */
static void image_texture_renders_on_quad(void **state)
{
    (void)state;
    static const pw_vec3 block[4] = {{0.8f, 0.1f, 0.1f}, {0.1f, 0.8f, 0.1f}, {0.1f, 0.1f, 0.8f}, {0.5f, 0.5f, 0.5f}};
    float rgb[4 * 4 * 3];
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 4; x++) {
            pw_vec3 c = block[(y / 2) * 2 + x / 2];
            rgb[3 * (y * 4 + x)] = c.x, rgb[3 * (y * 4 + x) + 1] = c.y, rgb[3 * (y * 4 + x) + 2] = c.z;
        }
    char png[256];
    snprintf(png, sizeof png, "%s/blocks.png", tmpdir);
    assert_int_equal(pw_image_write(png, rgb, 4, 4, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    static const char *const shapes[2] = {
        "Shape \"trianglemesh\" \"point3 P\" [-1 0 -1 1 0 -1 1 0 1 -1 0 1] \"integer indices\" [0 1 2 0 2 3]\n"
        "  \"point2 uv\" [0 1 1 1 1 0 0 0]\n",
        "Shape \"bilinearmesh\" \"point3 P\" [-1 0 1 1 0 1 -1 0 -1 1 0 -1]\n"};
    for (int k = 0; k < 2; k++) {
        char text[2048];
        snprintf(text, sizeof text,
                 "LookAt 0 4 0  0 0 0  0 0 -1\nCamera \"perspective\" \"float fov\" 40\n"
                 "Film \"rgb\" \"integer xresolution\" %d \"integer yresolution\" %d\n"
                 "WorldBegin\n"
                 "LightSource \"distant\" \"point3 from\" [0 1 0] \"point3 to\" [0 0 0] \"rgb L\" [%.9g %.9g %.9g]\n"
                 "Texture \"blocks\" \"spectrum\" \"imagemap\" \"string filename\" \"blocks.png\"\n"
                 "Material \"diffuse\" \"texture reflectance\" \"blocks\"\n%s",
                 LIT_W, LIT_W, M_PI, M_PI, M_PI, shapes[k]);
        pw_scene *s = load_ok(text);
        assert_int_equal(warned.count, 0);
        float *img = test_render_image(s, &lit_render);
        static const float cx[4] = {-0.5f, 0.5f, -0.5f, 0.5f}, cz[4] = {-0.5f, -0.5f, 0.5f, 0.5f};
        for (int b = 0; b < 4; b++) {
            int px, py;
            project(s, v3(cx[b], 0, cz[b]), LIT_W, LIT_W, &px, &py);
            /* The texel's value as the reader decodes it. */
            int texel = 3 * ((b / 2) * 2 * 4 + (b % 2) * 2);
            for (int c = 0; c < 3; c++) {
                float got = img[3 * (py * LIT_W + px) + c], want = png_texel(png, texel + c);
                if (fabsf(got - want) > 2e-3f * want + 1e-5f)
                    fail_msg("shape %d block %d pixel (%d, %d) channel %d: %g, texel %g", k, b, px, py, c, got,
                             want);
            }
        }
        free(img);
        pw_scene_free(s);
    }
    unlink(png);
}

/* A diffuse plane of reflectance a at y = 0 seen from (0, 4, 0) with a
 * 60 degree field of view. Pixel (px, py) covers x and z in
 * half * [2 px / W - 1, 2 (px + 1) / W - 1] up to the image's orientation,
 * which the radially symmetric point light below does not see. */
#define PLANE_SCENE                                                                                                  \
    "LookAt 0 4 0  0 0 0  0 0 -1\nCamera \"perspective\" \"float fov\" 60\n"                                           \
    "Film \"rgb\" \"integer xresolution\" 32 \"integer yresolution\" 32\n"                                             \
    "WorldBegin\nMaterial \"diffuse\" \"rgb reflectance\" [0.5 0.6 0.7]\n"                                           \
    "Shape \"trianglemesh\" \"point3 P\" [-3 0 -3 3 0 -3 3 0 3 -3 0 3] \"integer indices\" [0 2 1 0 3 2]\n"

static const float plane_albedo[3] = {0.5f, 0.6f, 0.7f};

/* LightSource "point": I times scale at the transformed "from"; "power"
 * sets I = power / (4 pi). Rendered over the plane from 1.5 above its
 * centre, every pixel is a / pi * I * h / d^3 averaged over the pixel
 * (16 x 16 midpoints), within 2%. */
static void point_light_matches_closed_form(void **state)
{
    (void)state;
    pw_scene *s = load_ok(PLANE_SCENE "AttributeBegin\nTranslate 0 1 0\n"
                                      "LightSource \"point\" \"point3 from\" [0 0.5 0] \"rgb I\" [5 10 15] "
                                      "\"float scale\" 2\nAttributeEnd\n");
    assert_int_equal(warned.count, 0);
    assert_int_equal(s->n_delta_lights, 1);
    assert_int_equal(s->delta_type[0], PW_LIGHT_POINT);
    assert_vec(s->delta_lights[0].v, 0, 1.5f, 0, 1e-6f);
    assert_vec(s->delta_lights[0].L, 10, 20, 30, 1e-5f);
    float *img = test_render_image(s, &lit_render);
    const double h = 1.5, half = 4.0 * tan(M_PI / 6.0);
    for (int py = 0; py < LIT_W; py++)
        for (int px = 0; px < LIT_W; px++)
            for (int c = 0; c < 3; c++) {
                double sum = 0.0;
                for (int j = 0; j < 16; j++)
                    for (int i = 0; i < 16; i++) {
                        double x = half * (2.0 * (px + (i + 0.5) / 16) / LIT_W - 1.0);
                        double z = half * (2.0 * (py + (j + 0.5) / 16) / LIT_W - 1.0);
                        double d = sqrt(x * x + z * z + h * h);
                        sum += plane_albedo[c] / M_PI * 10.0 * (c + 1) * h / (d * d * d);
                    }
                double want = sum / 256.0, got = img[3 * (py * LIT_W + px) + c];
                if (fabs(got - want) > 0.02 * want)
                    fail_msg("pixel (%d, %d) channel %d: %.6f, closed form %.6f", px, py, c, got, want);
            }
    free(img);
    pw_scene_free(s);
    s = load_ok("WorldBegin\nLightSource \"point\" \"float power\" 100\nShape \"sphere\"\n");
    assert_int_equal(warned.count, 0);
    float want = (float)(100.0 / (4.0 * M_PI));
    assert_vec(s->delta_lights[0].L, want, want, want, 1e-5f);
    pw_scene_free(s);
}

/* The film's imaging ratio, pbrt-v4's exposure time (shutterclose -
 * shutteropen) x ISO / 100 of its default sensor: the same render with
 * Film "iso" 200 is twice the default's, to the bit (a power of two), and
 * a shutter open for half the time halves it; a shutter that never opens
 * and a non-positive ISO are errors naming the line. */
#define FILM_SCENE(camera, film)                                                                                   \
    "LookAt 0 4 0  0 0 0  0 0 -1\nCamera \"perspective\" \"float fov\" 60 " camera "\n"                               \
    "Film \"rgb\" \"integer xresolution\" 8 \"integer yresolution\" 8 " film "\n"                                       \
    "WorldBegin\nMaterial \"diffuse\" \"rgb reflectance\" [0.5 0.6 0.7]\n"                                           \
    "Shape \"trianglemesh\" \"point3 P\" [-3 0 -3 3 0 -3 3 0 3 -3 0 3] \"integer indices\" [0 2 1 0 3 2]\n"          \
    "LightSource \"point\" \"point3 from\" [0 1.5 0] \"rgb I\" [5 10 15]\n"
static void film_iso_and_shutter_scale_the_image(void **state)
{
    (void)state;
    static const char *const texts[3] = {FILM_SCENE("", ""), FILM_SCENE("", "\"float iso\" 200"),
                                         FILM_SCENE("\"float shutteropen\" 0.25 \"float shutterclose\" 0.75", "")};
    const float want_scale[3] = {1.0f, 2.0f, 0.5f};
    const test_render tiny = {8, 8, 4, 1, 5, PW_LIGHT_MODE_MIS, 7, 0};
    float *img[3];
    for (int k = 0; k < 3; k++) {
        pw_scene *s = load_ok(texts[k]);
        assert_int_equal(warned.count, 0);
        assert_true(s->film_scale == want_scale[k]);
        img[k] = test_render_image(s, &tiny);
        pw_scene_free(s);
    }
    double mean = 0.0;
    for (int i = 0; i < 3 * 8 * 8; i++) {
        mean += img[0][i];
        if (img[1][i] != 2.0f * img[0][i] || img[2][i] != 0.5f * img[0][i])
            fail_msg("value %d: %g at iso 200 and %g at half the exposure, against %g", i, img[1][i], img[2][i],
                     img[0][i]);
    }
    assert_true(mean > 0.0);
    for (int k = 0; k < 3; k++)
        free(img[k]);
    char path[256];
    write_file("shut.pbrt", FILM_SCENE("\"float shutteropen\" 1 \"float shutterclose\" 1", ""), path, sizeof path);
    const char *msg = load_fails(path, PW_ERR_FORMAT);
    if (!strstr(msg, "shut.pbrt:2:") || !strstr(msg, "leave the shutter closed"))
        fail_msg("shutter message: %s", msg);
    write_file("iso.pbrt", FILM_SCENE("", "\"float iso\" -100"), path, sizeof path);
    msg = load_fails(path, PW_ERR_FORMAT);
    if (!strstr(msg, "iso.pbrt:") || !strstr(msg, "not a positive ISO"))
        fail_msg("iso message: %s", msg);
}

/* Film "whitebalance": each pixel of the render is the unbalanced one
 * through the balance matrix of film/white_balance.h (its own test checks
 * the matrix); a temperature off the daylight locus is an error naming
 * the line, and a measured sensor falls back to cie1931 with one warning. */
static void film_white_balance_applies_its_matrix(void **state)
{
    (void)state;
    const test_render tiny = {8, 8, 4, 1, 5, PW_LIGHT_MODE_MIS, 7, 0};
    pw_scene *s = load_ok(FILM_SCENE("", ""));
    float *plain = test_render_image(s, &tiny);
    pw_scene_free(s);
    s = load_ok(FILM_SCENE("", "\"float whitebalance\" 5000"));
    assert_int_equal(warned.count, 0);
    assert_true(s->film_balanced);
    float m[9];
    memcpy(m, s->film_balance, sizeof m);
    float *bal = test_render_image(s, &tiny);
    pw_scene_free(s);
    for (int p = 0; p < 8 * 8; p++)
        for (int i = 0; i < 3; i++) {
            const float *v = plain + 3 * p;
            float want = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
            if (fabsf(bal[3 * p + i] - want) > 1e-6f * fabsf(want) + 1e-12f)
                fail_msg("pixel %d channel %d: %g, the balanced unbalanced pixel is %g", p, i, bal[3 * p + i], want);
        }
    free(plain);
    free(bal);
    s = load_ok(FILM_SCENE("", "\"string sensor\" \"canon_eos_100d\""));
    assert_int_equal(warned.count, 1);
    assert_false(s->film_balanced);
    pw_scene_free(s);
    char path[256];
    write_file("wb.pbrt", FILM_SCENE("", "\"float whitebalance\" 1000"), path, sizeof path);
    const char *msg = load_fails(path, PW_ERR_FORMAT);
    if (!strstr(msg, "wb.pbrt:") || !strstr(msg, "outside the daylight locus"))
        fail_msg("white balance message: %s", msg);
}

/* LightSource "distant": irradiance L times scale travelling from "from"
 * toward "to" under the current transform; every pixel of the plane is
 * a / pi * E * cos(theta) to 1e-4. */
static void distant_light_matches_closed_form(void **state)
{
    (void)state;
    /* Rotate 90 about y takes the light-space direction (-2, -2, -1) to (-1, -2, 2). */
    pw_scene *s = load_ok(PLANE_SCENE "AttributeBegin\nRotate 90 0 1 0\n"
                                      "LightSource \"distant\" \"point3 from\" [2 2 1] \"point3 to\" [0 0 0] "
                                      "\"rgb L\" [3 2 1] \"float scale\" 0.5\nAttributeEnd\n");
    assert_int_equal(warned.count, 0);
    assert_int_equal(s->n_delta_lights, 1);
    assert_int_equal(s->delta_type[0], PW_LIGHT_DISTANT);
    /* Stored as the unit direction toward the light. */
    assert_vec(s->delta_lights[0].v, 1.0f / 3, 2.0f / 3, -2.0f / 3, 1e-6f);
    assert_vec(s->delta_lights[0].L, 1.5f, 1.0f, 0.5f, 1e-6f);
    float *img = test_render_image(s, &lit_render);
    const double e[3] = {1.5, 1.0, 0.5}, cos_t = 2.0 / 3.0;
    for (int i = 0; i < LIT_W * LIT_W; i++)
        for (int c = 0; c < 3; c++) {
            double want = plane_albedo[c] / M_PI * e[c] * cos_t, got = img[3 * i + c];
            if (fabs(got - want) > 1e-4 * want)
                fail_msg("pixel %d channel %d: %.7f, closed form %.7f", i, c, got, want);
        }
    free(img);
    pw_scene_free(s);
}

/* dielectric with roughness is the GGX rough dielectric with pbrt-v4's
 * alpha: sqrt(roughness) when remapped, the value itself when not;
 * anisotropic roughness takes the geometric mean of the two alphas, with
 * one warning; no roughness stays the smooth dielectric. */
static void rough_dielectric_alpha(void **state)
{
    (void)state;
    pw_scene *s = load_ok("WorldBegin\nLightSource \"infinite\"\n"
                          "Material \"dielectric\" \"float eta\" 1.4 \"float roughness\" 0.04\nShape \"sphere\"\n"
                          "Material \"dielectric\" \"float roughness\" 0.3 \"bool remaproughness\" false\n"
                          "Shape \"sphere\"\n"
                          "Material \"dielectric\" \"float uroughness\" 0.04 \"float vroughness\" 0.16\n"
                          "Shape \"sphere\"\n"
                          "Material \"dielectric\"\nShape \"sphere\"\n"
                          "Material \"dielectric\" \"float uroughness\" 0.09 \"float vroughness\" 0.01\n"
                          "Shape \"sphere\"\n");
    const pw_material *m = &s->mats[s->sphere_mat[0]];
    assert_int_equal(m->type, PW_MAT_ROUGH_DIELECTRIC);
    assert_true(m->ior == 1.4f);
    assert_true(fabsf(m->roughness - 0.2f) < 1e-6f);
    m = &s->mats[s->sphere_mat[1]];
    assert_int_equal(m->type, PW_MAT_ROUGH_DIELECTRIC);
    assert_true(m->ior == 1.5f);
    assert_true(fabsf(m->roughness - 0.3f) < 1e-6f);
    m = &s->mats[s->sphere_mat[2]];
    assert_int_equal(m->type, PW_MAT_ROUGH_DIELECTRIC);
    assert_true(fabsf(m->roughness - sqrtf(0.2f * 0.4f)) < 1e-6f);
    assert_int_equal(s->mats[s->sphere_mat[3]].type, PW_MAT_DIELECTRIC);
    assert_true(fabsf(s->mats[s->sphere_mat[4]].roughness - sqrtf(0.3f * 0.1f)) < 1e-6f);
    assert_int_equal(warned.count, 1);
    assert_non_null(strstr(warned.msg[0], "scene.pbrt:7: dielectric: anisotropic roughness approximated"));
    pw_scene_free(s);
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
    /* A square map is pbrt-v4's equal-area layout in the light's frame:
     * its centre texel is the light's +z, which Rotate -90 about x takes
     * to the world's +y; its left half is the light's -x side. */
    char sq[256];
    snprintf(sq, sizeof sq, "%s/square.pfm", tmpdir);
    float px[4 * 4 * 3];
    for (int i = 0; i < 16; i++)
        for (int ch = 0; ch < 3; ch++)
            px[3 * i + ch] = (i == 5 || i == 6 || i == 9 || i == 10) ? 7.0f : (i % 4 < 2 ? 1.0f : 2.0f);
    assert_int_equal(pw_image_write(sq, px, 4, 4, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    s = load_ok("WorldBegin\nAttributeBegin\nRotate -90 1 0 0\n"
                "LightSource \"infinite\" \"string filename\" \"square.pfm\"\nAttributeEnd\nShape \"sphere\"\n");
    assert_int_equal(warned.count, 0);
    assert_int_equal(s->env.layout, PW_ENV_EQUAL_AREA);
    assert_true(s->env.rotated);
    assert_true(pw_env_radiance(&s->env, v3(0, 1, 0)).x == 7.0f);  /* the light's +z: the centre */
    assert_true(pw_env_radiance(&s->env, v3(0, -1, 0)).x != 7.0f); /* -z: a corner */
    assert_true(pw_env_radiance(&s->env, v3(-0.8f, 0, -0.6f)).x == 1.0f); /* light -x, below the equator in y */
    assert_true(pw_env_radiance(&s->env, v3(0.8f, 0, -0.6f)).x == 2.0f);  /* light +x */
    pw_scene_free(s);
    s = load_ok("WorldBegin\nLightSource \"infinite\" \"string filename\" \"square.pfm\"\nShape \"sphere\"\n");
    assert_int_equal(warned.count, 0);
    assert_false(s->env.rotated);
    assert_true(pw_env_radiance(&s->env, v3(0, 0, 1)).x == 7.0f);
    pw_scene_free(s);
    unlink(sq);
    s = load_ok("WorldBegin\nLightSource \"infinite\" \"rgb L\" [0.1 0.2 0.3] \"float scale\" 2\nShape \"sphere\"\n");
    assert_int_equal(s->env.type, PW_ENV_CONSTANT);
    assert_vec(v3_scale(s->env.top, s->env.scale), 0.2f, 0.4f, 0.6f, 1e-6f);
    pw_scene_free(s);
    unlink(img);
}

/* pbrt-v4 looks named materials up once the whole file is read
 * (contemporary-bathroom names "light" above the Include that makes it):
 * shapes read before the MakeNamedMaterial get it, with the area light
 * they were read under, and so do an object's shapes and their instances. */
static void named_material_before_its_definition(void **state)
{
    (void)state;
    char mats[256], main_path[256];
    write_file("materials.pbrt",
               "MakeNamedMaterial \"light\" \"string type\" \"diffuse\" \"rgb reflectance\" [0.25 0.5 0.75]\n"
               "MakeNamedMaterial \"red\" \"string type\" \"conductor\" \"rgb eta\" [0.2 0.3 0.4] \"rgb k\" [3 2 1]\n",
               mats, sizeof mats);
    write_file("main.pbrt",
               "WorldBegin\n"
               "AttributeBegin\n"
               "  NamedMaterial \"light\"\n"
               "  AreaLightSource \"diffuse\" \"rgb L\" [2 3 4]\n"
               "  Shape \"trianglemesh\" \"point3 P\" [0 0 0 1 0 0 0 1 0] \"integer indices\" [0 1 2]\n"
               "AttributeEnd\n"
               "AttributeBegin\n"
               "  NamedMaterial \"red\"\n"
               "  Shape \"sphere\" \"float radius\" 1\n"
               "  ObjectBegin \"ball\"\n    Shape \"sphere\" \"float radius\" 2\n  ObjectEnd\n"
               "AttributeEnd\n"
               "Translate 5 0 0\nObjectInstance \"ball\"\n"
               "Include \"materials.pbrt\"\n",
               main_path, sizeof main_path);
    pw_scene *s = load_path_ok(main_path);
    assert_int_equal(warned.count, 0);
    assert_int_equal(s->n_tris, 1);
    const pw_material *light = &s->mats[s->tri_mat[0]];
    assert_int_equal(light->type, PW_MAT_LAMBERT);
    assert_vec(light->albedo, 0.25f, 0.5f, 0.75f, 0);
    assert_vec(light->emission, 2, 3, 4, 0);
    assert_int_equal(s->n_spheres, 2);
    assert_true(s->spheres[0].r == 1.0f && s->spheres[1].r == 2.0f);
    assert_vec(s->spheres[1].c, 5, 0, 0, 0);
    for (int i = 0; i < 2; i++) {
        const pw_material *red = &s->mats[s->sphere_mat[i]];
        assert_int_equal(red->type, PW_MAT_CONDUCTOR);
        assert_vec(red->eta, 0.2f, 0.3f, 0.4f, 1e-7f);
        assert_vec(red->k, 3, 2, 1, 1e-7f);
        assert_vec(red->emission, 0, 0, 0, 0); /* the area light ended with its attribute block */
    }
    pw_scene_free(s);
}

/* A name never made is still an error at the use, here in an included
 * file; a name made twice is an error, as in pbrt-v4. */
static void named_material_errors(void **state)
{
    (void)state;
    char use[256], main_path[256], expect[1100];
    write_file("use.pbrt", "AttributeBegin\nNamedMaterial \"ghost\"\nShape \"sphere\"\nAttributeEnd\n", use,
               sizeof use);
    write_file("main.pbrt",
               "WorldBegin\nInclude \"use.pbrt\"\nMakeNamedMaterial \"host\" \"string type\" \"diffuse\"\n", main_path,
               sizeof main_path);
    snprintf(expect, sizeof expect, "%s:2:15: NamedMaterial \"ghost\" was not defined", use);
    assert_string_equal(load_fails(main_path, PW_ERR_FORMAT), expect);
    write_file("main.pbrt",
               "WorldBegin\nMakeNamedMaterial \"a\" \"string type\" \"diffuse\"\nShape \"sphere\"\n"
               "MakeNamedMaterial \"a\" \"string type\" \"conductor\"\n",
               main_path, sizeof main_path);
    snprintf(expect, sizeof expect, "%s:4:1: MakeNamedMaterial \"a\": the name is already defined at %s:2", main_path,
             main_path);
    assert_string_equal(load_fails(main_path, PW_ERR_FORMAT), expect);
}

/* A parameter given twice in one list: pbrt-v4's lookups find the later
 * one; the earlier is reported as given twice, not as unsupported. */
static void repeated_parameter_later_wins(void **state)
{
    (void)state;
    char text[512], path[256], expect[1100];
    snprintf(text, sizeof text, "WorldBegin\n%sShape \"sphere\" \"float radius\" 1\n  \"float radius\" [ 2 ]\n", lit);
    pw_scene *s = load_ok(text);
    assert_int_equal(s->n_spheres, 1);
    assert_true(s->spheres[0].r == 2.0f);
    snprintf(path, sizeof path, "%s/scene.pbrt", tmpdir);
    snprintf(expect, sizeof expect,
             "%s:3: parameter \"radius\" is given twice in one list (again at %s:4): the later one is used, as in "
             "pbrt-v4",
             path, path);
    assert_int_equal(warned.count, 1);
    assert_string_equal(warned.msg[0], expect);
    pw_scene_free(s);
}

/* Names through the hash index as it grows: 300 named materials, used in
 * the reverse order, each shape with its own. */
static void many_named_materials(void **state)
{
    (void)state;
    enum { N = 300 };
    static char text[N * 160];
    int k = snprintf(text, sizeof text, "WorldBegin\n%s", lit);
    for (int i = 0; i < N; i++)
        k += snprintf(text + k, sizeof text - (size_t)k,
                      "MakeNamedMaterial \"m%d\" \"string type\" \"diffuse\" \"rgb reflectance\" [%d 0 0]\n", i,
                      i % 2);
    for (int i = N; i-- > 0;)
        k += snprintf(text + k, sizeof text - (size_t)k,
                      "NamedMaterial \"m%d\"\nShape \"sphere\" \"float radius\" %d\n", i, i + 1);
    assert_true((size_t)k < sizeof text);
    pw_scene *s = load_ok(text);
    assert_int_equal(s->n_spheres, N);
    for (uint32_t j = 0; j < N; j++) {
        int i = (int)s->spheres[j].r - 1;
        assert_true(s->mats[s->sphere_mat[j]].albedo.x == (float)(i % 2));
    }
    pw_scene_free(s);
}

/* A file that makes up parameter names gets 200 warnings and a line that
 * says the rest are not shown, not one per name. */
static void warnings_are_capped(void **state)
{
    (void)state;
    static char text[300 * 40];
    int k = snprintf(text, sizeof text, "WorldBegin\n%sShape \"sphere\"", lit);
    for (int i = 0; i < 300; i++)
        k += snprintf(text + k, sizeof text - (size_t)k, " \"float made_up%d\" 1", i);
    snprintf(text + k, sizeof text - (size_t)k, "\n");
    pw_scene *s = load_ok(text);
    assert_int_equal(warned.count, 201);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 201);
    pw_scene_free(s);
}

/* Any loader's warnings: past 256 for one scene they are counted, not
 * shown, with one line saying so (a damaged file may repeat one problem
 * a million times). */
static void scene_warnings_are_capped(void **state)
{
    (void)state;
    pw_scene *s = pw_scene_alloc("many.gltf");
    memset(&warned, 0, sizeof warned);
    for (int i = 0; i < 1000; i++)
        pw_scene_warn(s, "light %d does not exist", i);
    assert_int_equal(warned.count, 257);
    assert_string_equal(warned.msg[0], "light 0 does not exist");
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 1000);
    pw_scene_free(s);
    memset(&warned, 0, sizeof warned);
    s = pw_scene_alloc("many.gltf");
    for (int i = 0; i < 257; i++)
        pw_scene_warn(s, "light %d does not exist", i);
    assert_int_equal(warned.count, 257);
    pw_scene_free(s);
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
    /* The error comes at the end of the file (a later MakeNamedMaterial may
     * define it) and names the use. */
    {"WorldBegin\nNamedMaterial \"nope\"\nShape \"sphere\"\n", "2:15: NamedMaterial \"nope\" was not defined"},
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
                          "LightSource \"goniometric\" \"rgb I\" [1 1 1]\n"
                          "LightSource \"goniometric\" \"rgb I\" [1 1 1]\n"
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
        "%s:2: LightSource \"goniometric\" is not supported (pathwave has point, spot, distant and infinite "
        "lights): left out",
        path);
    assert_string_equal(warned.msg[0], expect);
    snprintf(expect, sizeof expect, "%s:4: Shape \"disk\" is not supported: left out", path);
    assert_string_equal(warned.msg[1], expect);
    snprintf(expect, sizeof expect, "%s:7: AreaLightSource: parameter \"power\" is not supported (ignored)", path);
    assert_string_equal(warned.msg[2], expect);
    assert_int_equal(s->n_spheres, 1);
    pw_scene_free(s);
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
        cmocka_unit_test(image_texture_becomes_albedo_texture),
        cmocka_unit_test(image_texture_renders_on_quad),
        cmocka_unit_test(point_light_matches_closed_form),
        cmocka_unit_test(distant_light_matches_closed_form),
        cmocka_unit_test(film_iso_and_shutter_scale_the_image),
        cmocka_unit_test(film_white_balance_applies_its_matrix),
        cmocka_unit_test(rough_dielectric_alpha),
        cmocka_unit_test(infinite_light_map_and_orientation),
        cmocka_unit_test(errors_name_file_line_column),
        cmocka_unit_test(unsupported_features_warn_once),
        cmocka_unit_test(named_material_before_its_definition),
        cmocka_unit_test(named_material_errors),
        cmocka_unit_test(repeated_parameter_later_wins),
        cmocka_unit_test(many_named_materials),
        cmocka_unit_test(warnings_are_capped),
        cmocka_unit_test(scene_warnings_are_capped),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, pbrt_tmpdir_setup, pbrt_tmpdir_teardown));
}
