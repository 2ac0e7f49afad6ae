/* glTF extensions: each implemented one on a small file written here with
 * known values (texture transforms against the specification's matrix and
 * the rendered texels, emissive strength, punctual lights against
 * E cos / d^2 on a Lambert quad, instances' triangles, quantized
 * attributes), the report of those not implemented (a warning each, an
 * error for a required one unless asked to go on), percent-encoded URIs,
 * and files that assimp 5.2.5 would crash on or that would expand without
 * end, refused with a message. */
#include "test_gltf_util.h"
#include "test_render_util.h"

#include <stb_image_write.h>

#include "shade/bsdf.h"

static void assert_near3(pw_vec3 got, double x, double y, double z, double tol)
{
    if (fabs(got.x - x) > tol || fabs(got.y - y) > tol || fabs(got.z - z) > tol)
        fail_msg("got (%.7g, %.7g, %.7g), expected (%.7g, %.7g, %.7g)", got.x, got.y, got.z, x, y, z);
}

/* A temporary folder with dir/name's path in path. */
typedef struct test_dir {
    char dir[64], path[700];
} test_dir;

static void make_dir(test_dir *t, const char *name)
{
    snprintf(t->dir, sizeof t->dir, "/tmp/pw_gltf_ext_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/%s", t->dir, name);
}

static pw_scene *load_ok(const char *path, const pw_load_options *o)
{
    pw_scene *s = NULL;
    if (pw_scene_load_with(path, o, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    return s;
}

/* The load fails with status st and a message naming the file and need. */
static void load_fails(const char *path, pw_status st, const char *need)
{
    pw_scene *s = (pw_scene *)1;
    pw_status got = pw_scene_load(path, &s);
    const char *msg = pw_last_error();
    printf("%s\n", msg);
    if (got != st || s != NULL || !strstr(msg, path) || !strstr(msg, need))
        fail_msg("status %d (expected %d), message '%s' (expected the file and '%s')", got, st, msg, need);
}

static uint32_t warnings_of(const pw_scene *s, const char **log)
{
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    *log = info.warning_log;
    return info.warnings;
}

/* The camera straight in front of the unit quad, which fills the image. */
static void face_quad(pw_scene *s)
{
    s->cam.look_from = v3(0, 0, 1.0f / tanf(20.0f * PW_PI / 180.0f));
    s->cam.look_at = v3s(0.0f);
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = 40.0f;
}

/* ---- KHR_texture_transform ---- */

typedef struct uv_xf {
    double offset[2], rotation, scale[2];
} uv_xf;

/* The specification's uv' = T R S uv, R = [cos sin; -sin cos]. */
static void spec_transform(const uv_xf *t, double u, double v, double *ou, double *ov)
{
    double su = t->scale[0] * u, sv = t->scale[1] * v, c = cos(t->rotation), s = sin(t->rotation);
    *ou = c * su + s * sv + t->offset[0];
    *ov = -s * su + c * sv + t->offset[1];
}

/* An 8 x 8 texture whose left half is red and right half blue. */
static void write_halves_png(const char *dir, const char *name)
{
    unsigned char px[8 * 8 * 3] = {0};
    for (int i = 0; i < 64; i++)
        px[3 * i + ((i % 8) < 4 ? 0 : 2)] = 255;
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_true(stbi_write_png(path, 8, 8, 3, px, 24));
}

/* The quad with an emissive texture of two halves under transform t, the
 * transform reading TEXCOORD_1 (texCoord override) while TEXCOORD_0 is all
 * zeros, so only the override gives the right coordinates. */
static void write_transformed_quad(const char *dir, const uv_xf *t)
{
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    const float zeros[8] = {0};
    int uv0 = tg_floats(&g, zeros, 4, 2);
    char body[4096];
    snprintf(body, sizeof body,
             "\"extensionsUsed\":[\"KHR_texture_transform\"],\"scene\":0,\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d,"
             "\"TEXCOORD_0\":%d,\"TEXCOORD_1\":%d},\"indices\":%d,\"material\":0}]}],"
             "\"materials\":[{\"name\":\"halves\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,0,0,1]},"
             "\"emissiveFactor\":[1,1,1],\"emissiveTexture\":{\"index\":0,\"texCoord\":0,\"extensions\":"
             "{\"KHR_texture_transform\":{\"offset\":[%.17g,%.17g],\"rotation\":%.17g,\"scale\":[%.17g,%.17g],"
             "\"texCoord\":1}}}}],\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"halves.png\"}]",
             q[0], q[1], uv0, q[2], q[3], t->offset[0], t->offset[1], t->rotation, t->scale[0], t->scale[1]);
    tg_write(&g, dir, "quad.gltf", body);
    write_halves_png(dir, "halves.png");
}

/* The transformed coordinates in the scene equal the specification's
 * matrix applied in glTF's UV space (pathwave keeps assimp's v = 1 - v),
 * and the rendered emission shows the texture's halves where that matrix
 * puts them: offset (0.5, 1), a quarter turn and scale (0.5, 1) put the
 * blue half over the quad's top half (glTF's v < 0.5) and the red one
 * below. With the operations in another order, or the turn the other way,
 * the halves land elsewhere. */
static void texture_transform(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "quad.gltf");
    const uv_xf xf = {{0.5, 1.0}, PW_PI / 2.0, {0.5, 1.0}};
    write_transformed_quad(t.dir, &xf);
    pw_scene *s = load_ok(t.path, NULL);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 0);
    assert_int_equal(s->n_verts, 4);
    const float corners[8] = {0, 1, 1, 1, 1, 0, 0, 0}; /* glTF (u, v) of the quad's corners, as written */
    for (uint32_t i = 0; i < 4; i++) {
        /* Vertices keep their positions' order; find this one's corner. */
        int c = (s->pos[i].x > 0) + 2 * (s->pos[i].y > 0);
        int k = c == 0 ? 0 : c == 1 ? 1 : c == 3 ? 2 : 3;
        double u, v;
        spec_transform(&xf, corners[2 * k], corners[2 * k + 1], &u, &v);
        assert_float_equal(s->uv[2 * i], u, 1e-6);
        assert_float_equal(s->uv[2 * i + 1], 1.0 - v, 1e-6);
    }
    face_quad(s);
    test_render o = {32, 32, 2, 0, 5, PW_LIGHT_MODE_MIS, 1, 2};
    float *rgb = test_render_image(s, &o);
    int checked = 0;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            double u, v;
            spec_transform(&xf, (x + 0.5) / 32.0, (y + 0.5) / 32.0, &u, &v);
            double f = u - floor(u); /* the texture repeats */
            if (fabs(f - 0.5) < 0.15 || f < 0.15 || f > 0.85)
                continue; /* near a texel boundary, where bilinear filtering blends */
            int blue = f >= 0.5;
            const float *p = rgb + 3 * (y * 32 + x);
            if (fabsf(p[0] - (blue ? 0.0f : 1.0f)) > 1e-5f || fabsf(p[2] - (blue ? 1.0f : 0.0f)) > 1e-5f)
                fail_msg("pixel (%d, %d): (%g, %g, %g), expected %s", x, y, p[0], p[1], p[2], blue ? "blue" : "red");
            checked++;
        }
    assert_true(checked > 300);
    /* The picture itself: the top rows blue, the bottom rows red. */
    assert_true(rgb[3 * (2 * 32 + 16) + 2] > 0.99f && rgb[3 * (29 * 32 + 16)] > 0.99f);
    free(rgb);
    pw_scene_free(s);
    remove_dir(t.dir);
}

/* Textures of one material with different transforms: one warning naming
 * the material and the texture whose coordinates are used (the base
 * colour's, here none: the identity). */
static void texture_transforms_differ(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "differ.gltf");
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    char body[4096];
    snprintf(body, sizeof body,
             "\"extensionsUsed\":[\"KHR_texture_transform\"],\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"TEXCOORD_0\":%d},\"indices\":%d,"
             "\"material\":0}]}],\"materials\":[{\"name\":\"two\",\"pbrMetallicRoughness\":{\"baseColorTexture\":"
             "{\"index\":0}},\"emissiveFactor\":[1,1,1],\"emissiveTexture\":{\"index\":0,\"extensions\":"
             "{\"KHR_texture_transform\":{\"scale\":[2,2]}}}}],\"textures\":[{\"source\":0}],"
             "\"images\":[{\"uri\":\"halves.png\"}]",
             q[0], q[2], q[3]);
    tg_write(&g, t.dir, "differ.gltf", body);
    write_halves_png(t.dir, "halves.png");
    pw_scene *s = load_ok(t.path, NULL);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 1);
    printf("%s", log);
    assert_non_null(strstr(log, "material 0 ('two')"));
    assert_non_null(strstr(log, "differ; pathwave uses the base colour texture's"));
    float umax = 0.0f;
    for (uint32_t i = 0; i < s->n_verts; i++)
        umax = fmaxf(umax, s->uv[2 * i]);
    assert_float_equal(umax, 1.0f, 0.0f); /* not scaled */
    pw_scene_free(s);
    remove_dir(t.dir);
}

/* ---- KHR_materials_emissive_strength ---- */

/* A quad with emissiveFactor (0.5, 0.25, 1) and, when strength > 0, that
 * emissive strength. */
static pw_scene *load_emissive_quad(float strength)
{
    test_dir t;
    make_dir(&t, "lamp.gltf");
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    char ext[256] = "", body[4096];
    if (strength > 0.0f)
        snprintf(ext, sizeof ext, ",\"extensions\":{\"KHR_materials_emissive_strength\":{\"emissiveStrength\":%g}}",
                 strength);
    snprintf(body, sizeof body,
             "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":"
             "{\"POSITION\":%d,\"NORMAL\":%d},\"indices\":%d,\"material\":0}]}],\"materials\":[{\"name\":\"lamp\","
             "\"pbrMetallicRoughness\":{\"baseColorFactor\":[0,0,0,1]},\"emissiveFactor\":[0.5,0.25,1.0]%s}]",
             q[0], q[1], q[3], ext);
    tg_write(&g, t.dir, "lamp.gltf", body);
    pw_scene *s = load_ok(t.path, NULL);
    remove_dir(t.dir);
    return s;
}

/* Emission is the factor times the strength (assimp 5.2.5 drops the
 * strength: the file's JSON gives it), in the material and in the image,
 * and the lamp lights the model: no sky. */
static void emissive_strength(void **state)
{
    (void)state;
    pw_scene *s = load_emissive_quad(4.0f);
    const pw_material *m = &s->mats[s->tri_mat[0]];
    assert_near3(m->emission, 2.0, 1.0, 4.0, 0.0);
    assert_true(pw_material_is_light(m));
    assert_int_equal(s->env.type, PW_ENV_CONSTANT);
    assert_true(v3_is_zero(s->env.top) && v3_is_zero(s->env.bottom));
    face_quad(s);
    test_render o = {16, 16, 1, 0, 5, PW_LIGHT_MODE_MIS, 1, 2};
    float *rgb = test_render_image(s, &o);
    for (int c = 0; c < 3; c++)
        assert_float_equal(rgb[3 * (8 * 16 + 8) + c], c == 0 ? 2.0f : c == 1 ? 1.0f : 4.0f, 1e-6f);
    free(rgb);
    pw_scene_free(s);
    s = load_emissive_quad(0.0f);
    assert_near3(s->mats[s->tri_mat[0]].emission, 0.5, 0.25, 1.0, 0.0);
    pw_scene_free(s);
}

/* ---- KHR_lights_punctual ---- */

/* The quad and one light (lights[0] JSON) at a node (its JSON members)
 * under a parent node translated by (0, 0, 1). */
static pw_scene *load_lit_quad(const char *light, const char *node)
{
    test_dir t;
    make_dir(&t, "lit.gltf");
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    char body[4096];
    snprintf(body, sizeof body,
             "\"extensionsUsed\":[\"KHR_lights_punctual\"],\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[%s]}},"
             "\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"mesh\":0},{\"translation\":[0,0,1],\"children\":[2]},"
             "{%s,\"extensions\":{\"KHR_lights_punctual\":{\"light\":0}}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d},\"indices\":%d}]}]",
             light, node, q[0], q[1], q[3]);
    tg_write(&g, t.dir, "lit.gltf", body);
    pw_scene *s = load_ok(t.path, NULL);
    remove_dir(t.dir);
    return s;
}

/* The quad's radiance with a white Lambert material in place of the
 * file's, direct light only, 16 x 16 pixels of spp samples each; the
 * light is a delta light, so a sample's radiance varies only with where
 * in its pixel it lands. */
static float *render_on_lambert(pw_scene *s, int spp)
{
    for (uint32_t i = 0; i < s->n_mats; i++)
        s->mats[i] = pw_lambert(1, 1, 1);
    face_quad(s);
    test_render o = {16, 16, spp, 1, 5, PW_LIGHT_MODE_MIS, 1, 2};
    return test_render_image(s, &o);
}

/* The four centre pixels of render_on_lambert's image under a light of
 * intensity i x colour at (0, 0, 2) shining on them in full: each the mean
 * over its area (1/8 wide, a corner at the quad's centre) of
 * I cos / (pi d^2), cos = 2 / d. */
static void assert_centre_lit(const float *rgb, double i, pw_vec3 colour)
{
    double e = 0.0;
    for (int y = 0; y < 32; y++)
        for (int x = 0; x < 32; x++) {
            double px = (x + 0.5) / 256.0, py = (y + 0.5) / 256.0, d2 = 4.0 + px * px + py * py;
            e += i * (2.0 / sqrt(d2)) / d2 / PW_PI / 1024.0;
        }
    for (int y = 7; y <= 8; y++)
        for (int x = 7; x <= 8; x++) {
            const float *p = rgb + 3 * (y * 16 + x);
            assert_near3(v3(p[0], p[1], p[2]), e * colour.x, e * colour.y, e * colour.z, 1e-3 * e);
        }
}

/* A point light of intensity 10 and colour (1, 0.5, 0.25) at (0, 0, 2)
 * (its node at z = 1 under a parent at z = 1): the scene's light has
 * I = intensity x colour, taken as W/sr; on the white Lambert quad the
 * radiance is I cos / (pi d^2) = I / (4 pi) at the centre. The range is a
 * warning; the scene has no sky. */
static void point_light(void **state)
{
    (void)state;
    pw_scene *s = load_lit_quad("{\"type\":\"point\",\"color\":[1,0.5,0.25],\"intensity\":10,\"range\":50}",
                                "\"translation\":[0,0,1]");
    const char *log;
    assert_int_equal(warnings_of(s, &log), 1);
    assert_non_null(strstr(log, "range is ignored"));
    assert_int_equal(s->n_delta_lights, 1);
    assert_int_equal(s->delta_type[0], PW_LIGHT_POINT);
    assert_near3(s->delta_lights[0].v, 0, 0, 2, 1e-6);
    assert_near3(s->delta_lights[0].L, 10, 5, 2.5, 1e-6);
    assert_int_equal(s->env.type, PW_ENV_CONSTANT);
    assert_true(v3_is_zero(s->env.top));
    float *rgb = render_on_lambert(s, 64);
    assert_centre_lit(rgb, 10.0, v3(1, 0.5f, 0.25f));
    free(rgb);
    pw_scene_free(s);
}

/* A spot light of 3 cd at (0, 0, 2) shining down its node's -z onto the
 * quad, cones of 0.2 and 0.5 rad: the scene's spot has the node's axis and
 * cosines of the cones (full within the inner, none beyond the outer); the
 * quad's centre is lit in full, its corners (more than 0.55 rad off the
 * axis) not at all. */
static void spot_light(void **state)
{
    (void)state;
    pw_scene *s = load_lit_quad("{\"type\":\"spot\",\"intensity\":3,\"spot\":{\"innerConeAngle\":0.2,"
                                "\"outerConeAngle\":0.5}}",
                                "\"translation\":[0,0,1]");
    const char *log;
    assert_int_equal(warnings_of(s, &log), 0);
    assert_int_equal(s->n_delta_lights, 1);
    assert_int_equal(s->delta_type[0], PW_LIGHT_SPOT);
    assert_near3(s->delta_lights[0].v, 0, 0, 2, 1e-6);
    assert_near3(s->delta_lights[0].L, 3, 3, 3, 1e-6);
    assert_near3(s->delta_cones[0].axis, 0, 0, -1, 1e-6);
    assert_float_equal(s->delta_cones[0].cos_end, cosf(0.5f), 1e-6f);
    assert_float_equal(s->delta_cones[0].cos_start, cosf(0.2f), 1e-6f);
    float *rgb = render_on_lambert(s, 64);
    assert_centre_lit(rgb, 3.0, v3s(1.0f));
    for (int c = 0; c < 3; c++)
        assert_float_equal(rgb[c], 0.0f, 0.0f);
    free(rgb);
    pw_scene_free(s);
}

/* A directional light of 2 lux whose node turns -z by 60 degrees about +y
 * toward -x: the light travels along (-sin 60, 0, -cos 60), and the quad's
 * radiance is E cos 60 / pi everywhere. */
static void directional_light(void **state)
{
    (void)state;
    char node[128];
    double a = PW_PI / 3.0;
    snprintf(node, sizeof node, "\"rotation\":[0,%.17g,0,%.17g]", sin(a / 2), cos(a / 2));
    pw_scene *s = load_lit_quad("{\"type\":\"directional\",\"intensity\":2}", node);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 0);
    assert_int_equal(s->n_delta_lights, 1);
    assert_int_equal(s->delta_type[0], PW_LIGHT_DISTANT);
    assert_near3(s->delta_lights[0].v, sin(a), 0, cos(a), 1e-6); /* stored toward the light */
    float *rgb = render_on_lambert(s, 1);
    double want = 2.0 * cos(a) / PW_PI;
    for (int i = 0; i < 16 * 16; i++)
        assert_near3(v3(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]), want, want, want, 1e-5 * want);
    free(rgb);
    pw_scene_free(s);
}

/* ---- EXT_mesh_gpu_instancing ---- */

/* Three instances of the quad, the node itself at z = -1: translations
 * (0,0,0), (5,0,0), (0,5,0); rotations (normalized shorts, as
 * KHR_mesh_quantization allows) none, a quarter turn about +z, none;
 * scales 1, 1 and (-2, 2, 2), which mirrors the third. Each instance is a
 * copy: 6 triangles at node T (T_i R_i S_i p), the mirrored copy wound the
 * other way round so that its triangles face its normals. */
static void instancing(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "inst.gltf");
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    const float tr[9] = {0, 0, 0, 5, 0, 0, 0, 5, 0}, sc[9] = {1, 1, 1, 1, 1, 1, -2, 2, 2};
    const int16_t rot[12] = {0, 0, 0, 32767, 0, 0, 23170, 23170, 0, 0, 0, 32767};
    int at = tg_floats(&g, tr, 3, 3), as = tg_floats(&g, sc, 3, 3);
    int ar = tg_accessor(&g, rot, sizeof rot, 5122, 3, "VEC4", "\"normalized\":true");
    char body[4096];
    snprintf(body, sizeof body,
             "\"extensionsUsed\":[\"EXT_mesh_gpu_instancing\",\"KHR_mesh_quantization\"],\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0,\"translation\":[0,0,-1],\"extensions\":{\"EXT_mesh_gpu_instancing\":"
             "{\"attributes\":{\"TRANSLATION\":%d,\"ROTATION\":%d,\"SCALE\":%d}}}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d},\"indices\":%d}]}]",
             at, ar, as, q[0], q[1], q[3]);
    tg_write(&g, t.dir, "inst.gltf", body);
    pw_scene *s = load_ok(t.path, NULL);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 0);
    assert_int_equal(s->n_tris, 6);
    const float quad[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (uint32_t tri = 0; tri < 6; tri++) {
        int copy = (int)tri / 2;
        const uint32_t *ix = s->tri_idx + 3 * tri;
        for (int k = 0; k < 3; k++) {
            pw_vec3 p = s->pos[ix[k]];
            /* Undo the copy's transform and find a corner of the quad. */
            double x = p.x - tr[3 * copy], y = p.y - tr[3 * copy + 1], z = p.z + 1.0;
            if (copy == 1) {
                double r = x;
                x = y, y = -r; /* the quarter turn back */
            }
            x /= sc[3 * copy], y /= sc[3 * copy + 1];
            int corner = 0;
            for (int c = 0; c < 4; c++)
                corner |= fabs(x - quad[c][0]) < 1e-4 && fabs(y - quad[c][1]) < 1e-4;
            if (!corner || fabs(z) > 1e-5)
                fail_msg("triangle %u vertex %d at (%g, %g, %g) is no corner of copy %d", tri, k, p.x, p.y, p.z, copy);
        }
        pw_vec3 ng = v3_cross(v3_sub(s->pos[ix[1]], s->pos[ix[0]]), v3_sub(s->pos[ix[2]], s->pos[ix[0]]));
        pw_vec3 n = s->nrm[ix[0]];
        assert_true(v3_dot(ng, n) > 0.0f);
        assert_float_equal(fabsf(n.z), 1.0f, 1e-6f);
    }
    /* The mirrored copy's normals stay (0, 0, 1): x -> -x keeps a normal
     * along z. */
    assert_true(s->nrm[s->tri_idx[12]].z > 0.99f);
    pw_scene_free(s);

    /* An instance accessor that runs past its bufferView: an error naming
     * the file, the accessor and the bounds, no scene. */
    g.bin_len = 0;
    g.views[0] = g.accessors[0] = '\0';
    g.n = 0;
    tg_quad(&g, q);
    at = tg_accessor(&g, tr, sizeof tr, 5126, 30, "VEC3", NULL);
    snprintf(body, sizeof body,
             "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0,\"extensions\":{\"EXT_mesh_gpu_instancing\":"
             "{\"attributes\":{\"TRANSLATION\":%d}}}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"indices\":%d}]}]",
             at, q[0], q[3]);
    tg_write(&g, t.dir, "inst.gltf", body);
    load_fails(t.path, PW_ERR_FORMAT, "accessor 4: 360 bytes from byte 0 run past bufferView 4 (36 bytes)");

    /* 2^28 instances from an accessor without a bufferView (all zeros, so
     * no bytes behind them): refused before they are read, not ten
     * gigabytes of copies later. */
    g.bin_len = 0;
    g.views[0] = g.accessors[0] = '\0';
    g.n = 0;
    tg_quad(&g, q);
    size_t la = strlen(g.accessors);
    snprintf(g.accessors + la, sizeof g.accessors - la, ",{\"componentType\":5126,\"count\":268435456,\"type\":\"VEC3\"}");
    at = g.n++;
    snprintf(body, sizeof body,
             "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0,\"extensions\":{\"EXT_mesh_gpu_instancing\":"
             "{\"attributes\":{\"TRANSLATION\":%d}}}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"indices\":%d}]}]",
             at, q[0], q[3]);
    tg_write(&g, t.dir, "inst.gltf", body);
    load_fails(t.path, PW_ERR_FORMAT,
               "node 0: EXT_mesh_gpu_instancing TRANSLATION has 268435456 instances, more than the 1048576 pathwave "
               "copies");
    remove_dir(t.dir);
}

/* ---- KHR_mesh_quantization ---- */

/* Positions as shorts (-100..100, the node scaling them by 0.01), texture
 * coordinates as normalized unsigned shorts, normals as normalized bytes:
 * decoded exactly (assimp 5.2.5 reads their bytes as floats). */
static void quantized_attributes(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "quant.gltf");
    test_gltf g = {0};
    const int16_t pos[16] = {-100, -100, 0, 0, 100, -100, 0, 0, 100, 100, 0, 0, -100, 100, 0, 0};
    const uint16_t uv[8] = {0, 65535, 65535, 65535, 65535, 0, 0, 0};
    const int8_t nrm[16] = {0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 127, 0, 0, 0, 127, 0};
    const uint8_t idx[6] = {0, 1, 2, 0, 2, 3};
    /* Each short VEC3 padded to 8 bytes and each byte VEC3 to 4, as the
     * specification's alignment asks: a byteStride. */
    int ap = tg_accessor(&g, pos, sizeof pos, 5122, 4, "VEC3", "\"min\":[-100,-100,0],\"max\":[100,100,0]");
    int au = tg_accessor(&g, uv, sizeof uv, 5123, 4, "VEC2", "\"normalized\":true");
    int an = tg_accessor(&g, nrm, sizeof nrm, 5120, 4, "VEC3", "\"normalized\":true");
    int ai = tg_accessor(&g, idx, sizeof idx, 5121, 6, "SCALAR", NULL);
    /* The strides go on the views: insert them by rewriting the views. */
    snprintf(g.views, sizeof g.views,
             "{\"buffer\":0,\"byteOffset\":0,\"byteLength\":32,\"byteStride\":8},"
             "{\"buffer\":0,\"byteOffset\":32,\"byteLength\":16},"
             "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":16,\"byteStride\":4},"
             "{\"buffer\":0,\"byteOffset\":64,\"byteLength\":6}");
    char body[4096];
    snprintf(body, sizeof body,
             "\"extensionsUsed\":[\"KHR_mesh_quantization\"],\"extensionsRequired\":[\"KHR_mesh_quantization\"],"
             "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0,\"scale\":[0.01,0.01,0.01]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"NORMAL\":%d,\"TEXCOORD_0\":%d},"
             "\"indices\":%d}]}]",
             ap, an, au, ai);
    tg_write(&g, t.dir, "quant.gltf", body);
    pw_scene *s = load_ok(t.path, NULL);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 0);
    assert_int_equal(s->n_tris, 2);
    assert_int_equal(s->n_verts, 4);
    for (uint32_t i = 0; i < 4; i++) {
        pw_vec3 p = s->pos[i];
        assert_true(fabsf(fabsf(p.x) - 1.0f) < 1e-6f && fabsf(fabsf(p.y) - 1.0f) < 1e-6f && p.z == 0.0f);
        /* u = (x + 1) / 2 and pathwave's v = 1 - glTF's v = (y + 1) / 2. */
        assert_float_equal(s->uv[2 * i], 0.5f * (p.x + 1.0f), 1e-6f);
        assert_float_equal(s->uv[2 * i + 1], 0.5f * (p.y + 1.0f), 1e-6f);
        assert_near3(s->nrm[i], 0, 0, 1, 1e-6);
    }
    pw_scene_free(s);
    remove_dir(t.dir);
}

/* ---- extensions pathwave lacks ---- */

/* A quad whose file declares used and required extensions (JSON arrays'
 * contents) and carries mat_ext on its material. */
static void write_ext_quad(const char *dir, const char *used, const char *required, const char *mat_ext)
{
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    char body[4096];
    snprintf(body, sizeof body,
             "\"extensionsUsed\":[%s],\"extensionsRequired\":[%s],\"scenes\":[{\"nodes\":[0]}],"
             "\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d},"
             "\"indices\":%d,\"material\":0}]}],\"materials\":[{\"name\":\"m\",\"extensions\":{%s}}]",
             used, required, q[0], q[3], mat_ext);
    tg_write(&g, dir, "ext.gltf", body);
}

/* Each unimplemented extension, declared or only found on a material, is
 * one warning naming it and what the render lacks. */
static void unimplemented_extensions_warn(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "ext.gltf");
    write_ext_quad(t.dir, "\"KHR_materials_clearcoat\",\"KHR_texture_transform\"", "",
                   "\"KHR_materials_clearcoat\":{\"clearcoatFactor\":1},\"KHR_materials_sheen\":{}");
    pw_scene *s = load_ok(t.path, NULL);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 2);
    printf("%s", log);
    assert_non_null(strstr(log, "ext.gltf: glTF extension KHR_materials_clearcoat is not implemented; materials "
                                "render without their clear coat"));
    assert_non_null(strstr(log, "glTF extension KHR_materials_sheen is not implemented"));
    assert_null(strstr(log, "KHR_texture_transform"));
    pw_scene_free(s);
    remove_dir(t.dir);
}

/* A required extension pathwave lacks fails the load (assimp 5.2.5 would
 * load such a file without a word) with a message naming the file, the
 * extensions and the way round it; with ignore_required_extensions the
 * file loads with a warning each. An implemented required extension is
 * fine. */
static void required_extensions(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "ext.gltf");
    write_ext_quad(t.dir, "\"KHR_foo\",\"KHR_texture_basisu\",\"KHR_materials_emissive_strength\"",
                   "\"KHR_foo\",\"KHR_texture_basisu\",\"KHR_materials_emissive_strength\"", "");
    load_fails(t.path, PW_ERR_FORMAT, "requires glTF extensions KHR_foo, KHR_texture_basisu, which pathwave does not "
                                      "implement");
    assert_non_null(strstr(pw_last_error(), "--ignore-required-extensions"));
    pw_load_options o;
    pw_load_options_default(&o);
    assert_int_equal(o.ignore_required_extensions, 0);
    o.ignore_required_extensions = 1;
    pw_scene *s = load_ok(t.path, &o);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 2);
    assert_non_null(strstr(log, "glTF extension KHR_foo is required by the file but not implemented; loaded anyway"));
    assert_non_null(strstr(log, "KHR_texture_basisu is required by the file but not implemented"));
    assert_int_equal(s->n_tris, 2);
    pw_scene_free(s);
    remove_dir(t.dir);
}

/* The specular reflectance of a black dielectric metallic-roughness
 * material at normal incidence, as the BSDF evaluates it: F0 times the
 * microfacet terms, which do not depend on F0. */
static float normal_reflectance(pw_material m)
{
    m.albedo = v3s(0.0f);
    float pdf;
    return pw_mr_eval(&m, v3(0, 0, 1), v3(0, 0, 1), &pdf).x;
}

/* KHR_materials_ior: the dielectric's F0 = ((ior - 1) / (ior + 1))^2,
 * 0.0816 for ior 1.8 against glTF's 0.04 for 1.5; the BSDF's reflectance
 * scales with it. An ior below 1 is a warning, and 1.5 is used. */
static void ior_sets_f0(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "ext.gltf");
    write_ext_quad(t.dir, "\"KHR_materials_ior\"", "", "\"KHR_materials_ior\":{\"ior\":1.8}");
    pw_scene *s = load_ok(t.path, NULL);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 0);
    assert_int_equal(s->mats[0].type, PW_MAT_METALLIC_ROUGHNESS);
    const float f0 = (0.8f / 2.8f) * (0.8f / 2.8f);
    assert_float_equal(pw_material_dielectric_f0(&s->mats[0]), f0, 1e-6f);
    pw_material plain = s->mats[0];
    pw_material_set_dielectric_f0(&plain, 0.04f);
    assert_float_equal(normal_reflectance(s->mats[0]) / normal_reflectance(plain), f0 / 0.04f, 1e-4f);
    pw_scene_free(s);
    write_ext_quad(t.dir, "\"KHR_materials_ior\"", "", "\"KHR_materials_ior\":{\"ior\":0.5}");
    s = load_ok(t.path, NULL);
    assert_int_equal(warnings_of(s, &log), 1);
    assert_non_null(strstr(log, "material 0 ('m'): KHR_materials_ior's ior is not a number from 1 to 10^6 (1.5 is used)"));
    assert_float_equal(pw_material_dielectric_f0(&s->mats[0]), 0.04f, 0.0f);
    pw_scene_free(s);
    remove_dir(t.dir);
}

/* ---- URIs ---- */

/* Percent-encoded URIs name files with spaces (Khronos' "Box With
 * Spaces"): the buffer "quad%20data.bin" is "quad data.bin", the image
 * likewise. */
static void percent_encoded_uris(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "spaces.gltf");
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    write_file(t.dir, "quad data.bin", g.bin, g.bin_len);
    write_halves_png(t.dir, "a texture.png");
    static char json[20000];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d,\"TEXCOORD_0\":%d},\"indices\":%d,"
             "\"material\":0}]}],\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
             "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"a%%20texture.png\"}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"quad%%20data.bin\"}],\"bufferViews\":[%s],\"accessors\":[%s]}",
             q[0], q[2], q[3], g.bin_len, g.views, g.accessors);
    write_file(t.dir, "spaces.gltf", json, strlen(json));
    pw_scene *s = load_ok(t.path, NULL);
    const char *log;
    assert_int_equal(warnings_of(s, &log), 0);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.textures, 1);
    assert_int_equal(s->n_tris, 2);
    pw_scene_free(s);
    remove_dir(t.dir);
}

/* A buffer that is not a regular file (/dev/zero would be read without
 * end) is refused, and the message says so. assimp joins every URI to the
 * model's folder, so the way there is up from the folder. */
static void buffer_not_a_file(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "zero.gltf");
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    static char json[20000];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d},\"indices\":%d}]}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"../../dev/zero\"}],\"bufferViews\":[%s],\"accessors\":[%s]}",
             q[0], q[3], g.bin_len, g.views, g.accessors);
    write_file(t.dir, "zero.gltf", json, strlen(json));
    load_fails(t.path, PW_ERR_FORMAT, "/../../dev/zero: not a regular file");
    remove_dir(t.dir);
}

/* ---- files assimp cannot take ---- */

/* The quad as mesh 0 of the given nodes; prim_extra adds members to its
 * primitive, top_extra to the file. */
static void write_nodes(const char *dir, const char *scene_nodes, const char *nodes, const char *prim_extra,
                        const char *top_extra)
{
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    static char body[60000];
    snprintf(body, sizeof body,
             "\"scenes\":[{\"nodes\":[%s]}],\"nodes\":[%s],\"meshes\":[{\"primitives\":[{\"attributes\":"
             "{\"POSITION\":%d,\"TEXCOORD_0\":%d},\"indices\":%d%s}]}]%s",
             scene_nodes, nodes, q[0], q[2], q[3], prim_extra, top_extra);
    tg_write(&g, dir, "bad.gltf", body);
}

/* What would abort assimp (a KHR_texture_transform offset of one number:
 * it indexes the array unchecked), crash it (an image's media type without
 * '/', which it reads past), overflow its stack (a deep or cyclic tree) or
 * take it exponentially long (nodes naming the next twice, 2^21 visits) is
 * refused with a message first. */
static void refused_before_assimp(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "bad.gltf");
    write_nodes(t.dir, "0", "{\"mesh\":0}", ",\"material\":0",
                ",\"extensionsUsed\":[\"KHR_texture_transform\"],\"materials\":[{\"pbrMetallicRoughness\":"
                "{\"baseColorTexture\":{\"index\":0,\"extensions\":{\"KHR_texture_transform\":{\"offset\":[1]}}}}}],"
                "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"none.png\"}]");
    load_fails(t.path, PW_ERR_FORMAT, "KHR_texture_transform whose offset or scale is not 2 numbers");

    write_nodes(t.dir, "0", "{\"mesh\":0}", ",\"material\":0",
                ",\"materials\":[{\"pbrMetallicRoughness\":{\"baseColorTexture\":{\"index\":0}}}],"
                "\"textures\":[{\"source\":0}],\"images\":[{\"uri\":\"data:image.png;base64,AAAA\"}]");
    load_fails(t.path, PW_ERR_FORMAT, "image 0: a media type without '/'");

    write_nodes(t.dir, "0", "{\"mesh\":0,\"children\":[1]},{\"children\":[0]}", "", "");
    load_fails(t.path, PW_ERR_FORMAT, "node 0 is its own ancestor");

    static char nodes[50000];
    size_t n = 0;
    for (int i = 0; i < 300; i++)
        n += (size_t)snprintf(nodes + n, sizeof nodes - n, "%s{\"mesh\":0,\"children\":[%d]}", i ? "," : "", i + 1);
    snprintf(nodes + n, sizeof nodes - n, ",{\"mesh\":0}");
    write_nodes(t.dir, "0", nodes, "", "");
    load_fails(t.path, PW_ERR_FORMAT, "nodes nested deeper than 256");

    n = 0;
    for (int i = 0; i < 21; i++)
        n += (size_t)snprintf(nodes + n, sizeof nodes - n, "%s{\"children\":[%d,%d]}", i ? "," : "", i + 1, i + 1);
    snprintf(nodes + n, sizeof nodes - n, ",{\"mesh\":0}");
    write_nodes(t.dir, "0", nodes, "", "");
    load_fails(t.path, PW_ERR_FORMAT, "expands to more than 1048576 nodes");
    remove_dir(t.dir);
}

/* A sparse accessor replacing quad vertex 1 by (5, 5, 5) (assimp applies
 * it), and one whose second index (9) is beyond the quad's 4 vertices,
 * where assimp would write out of bounds: refused first. */
static void sparse_accessors(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "sparse.gltf");
    for (int bad = 0; bad < 2; bad++) {
        test_gltf g = {0};
        const uint16_t sparse_idx[2] = {1, 9}, idx[6] = {0, 1, 2, 0, 2, 3};
        const float vals[6] = {5, 5, 5, 7, 7, 7}, pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
        int vi = tg_accessor(&g, sparse_idx, sizeof sparse_idx, 5123, 2, "SCALAR", NULL);
        int vv = tg_floats(&g, vals, 2, 3);
        char sparse[256];
        snprintf(sparse, sizeof sparse,
                 "\"sparse\":{\"count\":%d,\"indices\":{\"bufferView\":%d,\"componentType\":5123},"
                 "\"values\":{\"bufferView\":%d}}",
                 bad ? 2 : 1, vi, vv);
        int ap = tg_accessor(&g, pos, sizeof pos, 5126, 4, "VEC3", sparse);
        int ai = tg_accessor(&g, idx, sizeof idx, 5123, 6, "SCALAR", NULL);
        char body[1024];
        snprintf(body, sizeof body,
                 "\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],\"meshes\":[{\"primitives\":"
                 "[{\"attributes\":{\"POSITION\":%d},\"indices\":%d}]}]",
                 ap, ai);
        tg_write(&g, t.dir, "sparse.gltf", body);
        if (bad) {
            load_fails(t.path, PW_ERR_FORMAT, "accessor 2: sparse index 1 is 9, beyond its 4 elements");
            continue;
        }
        pw_scene *s = load_ok(t.path, NULL);
        int moved = 0;
        for (uint32_t i = 0; i < s->n_verts; i++)
            moved += s->pos[i].x == 5.0f && s->pos[i].y == 5.0f && s->pos[i].z == 5.0f;
        assert_int_equal(moved, 1);
        pw_scene_free(s);
    }
    remove_dir(t.dir);
}

/* A skin without inverseBindMatrices (which the specification allows:
 * identity matrices) crashes assimp 5.2.5; pathwave reads no skins, so
 * assimp gets the file without them, text or binary, and the quad loads
 * as it is. */
static void skin_without_bind_matrices(void **state)
{
    (void)state;
    test_dir t;
    make_dir(&t, "skin.gltf");
    test_gltf g = {0};
    int q[4];
    tg_quad(&g, q);
    char body[4096];
    snprintf(body, sizeof body,
             "\"scenes\":[{\"nodes\":[0,1]}],\"nodes\":[{\"mesh\":0,\"skin\":0},{\"name\":\"joint\"}],"
             "\"skins\":[{\"joints\":[1]}],\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":%d},"
             "\"indices\":%d}]}]",
             q[0], q[3]);
    for (int glb = 0; glb < 2; glb++) {
        const char *name = glb ? "skin.glb" : "skin.gltf";
        (glb ? tg_write_glb : tg_write)(&g, t.dir, name, body);
        snprintf(t.path, sizeof t.path, "%s/%s", t.dir, name);
        pw_scene *s = load_ok(t.path, NULL);
        assert_int_equal(s->n_tris, 2);
        for (uint32_t i = 0; i < s->n_verts; i++)
            assert_true(fabsf(fabsf(s->pos[i].x) - 1.0f) < 1e-7f && fabsf(fabsf(s->pos[i].y) - 1.0f) < 1e-7f);
        pw_scene_free(s);
    }
    remove_dir(t.dir);
}

int main(void)
{
    pw_set_warning_handler(NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(texture_transform),
        cmocka_unit_test(texture_transforms_differ),
        cmocka_unit_test(emissive_strength),
        cmocka_unit_test(point_light),
        cmocka_unit_test(spot_light),
        cmocka_unit_test(directional_light),
        cmocka_unit_test(instancing),
        cmocka_unit_test(quantized_attributes),
        cmocka_unit_test(unimplemented_extensions_warn),
        cmocka_unit_test(required_extensions),
        cmocka_unit_test(ior_sets_f0),
        cmocka_unit_test(percent_encoded_uris),
        cmocka_unit_test(buffer_not_a_file),
        cmocka_unit_test(refused_before_assimp),
        cmocka_unit_test(skin_without_bind_matrices),
        cmocka_unit_test(sparse_accessors),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
