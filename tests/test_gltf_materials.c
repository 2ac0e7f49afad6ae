/* Materials of model files: glTF metallic-roughness factors and textures
 * (a real model and a minimal glTF written here, whose values are known
 * exactly), normal maps against the cosine law under a distant light, and
 * the MTL mapping of Ks, Ns, Ni, d, illum and Ke. */
#include "test_gltf_util.h"
#include "test_render_util.h"

#include <stb_image_write.h>

#include "shade/bsdf.h"
#include "shade/texture.h"

static void assert_vec_near(pw_vec3 got, float x, float y, float z, float tol)
{
    if (fabsf(got.x - x) > tol || fabsf(got.y - y) > tol || fabsf(got.z - z) > tol)
        fail_msg("got (%.7g, %.7g, %.7g), expected (%.7g, %.7g, %.7g)", got.x, got.y, got.z, x, y, z);
}

/* The sRGB transfer function, decoded (IEC 61966-2-1). */
static float srgb_decode(unsigned char c)
{
    float x = (float)c / 255.0f;
    return x <= 0.04045f ? x / 12.92f : powf((x + 0.055f) / 1.055f, 2.4f);
}

static double region_mean(const float *rgb, int w, int x0, int y0, int n, int c)
{
    double sum = 0.0;
    for (int y = y0; y < y0 + n; y++)
        for (int x = x0; x < x0 + n; x++)
            sum += rgb[3 * (y * w + x) + c];
    return sum / (n * n);
}

/* The mean of one channel over a whole texture. */
static double texture_mean(const pw_scene *s, uint32_t tex, int c)
{
    const pw_texture *t = &s->textures[tex];
    double sum = 0.0;
    for (size_t i = 0; i < (size_t)t->w * t->h; i++)
        sum += s->texels[3 * ((size_t)t->offset + i) + c];
    return sum / ((double)t->w * t->h);
}

/* DamagedHelmet: base colour, metallic-roughness, normal and emissive
 * textures, factors 1. The data maps are read linearly: a tangent-space
 * normal map's red and green sit around 0.5 (sRGB decoding would put them
 * near 0.2), its blue near 1. */
static void damaged_helmet(void **state)
{
    (void)state;
    char path[1024];
    if (!pw_test_shared_file("scenes/gltf-samples/DamagedHelmet.glb", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 0);
    assert_int_equal(info.textures, 4);
    const pw_material *m = &s->mats[s->tri_mat[0]];
    assert_int_equal(m->type, PW_MAT_METALLIC_ROUGHNESS);
    assert_float_equal(pw_material_metallic(m), 1.0f, 0.0f);
    assert_float_equal(m->roughness, 1.0f, 0.0f);
    assert_vec_near(m->albedo, 1, 1, 1, 0.0f);
    assert_vec_near(m->emission, 1, 1, 1, 0.0f);
    assert_true(PW_MAT_HAS_ALBEDO_TEX(m) && PW_MAT_HAS_MAPS(m));
    uint32_t maps[4] = {PW_MAT_ALBEDO_TEX(m), PW_MAT_MR_MAP(m) - 1u, PW_MAT_NORMAL_MAP(m) - 1u,
                        PW_MAT_EMISSION_MAP(m) - 1u};
    for (int i = 0; i < 4; i++) {
        assert_true(maps[i] < 4);
        for (int j = 0; j < i; j++)
            assert_int_not_equal(maps[i], maps[j]);
    }
    assert_float_equal(PW_MAT_NORMAL_SCALE(m), 1.0f, 0.0f);
    double nr = texture_mean(s, maps[2], 0), ng = texture_mean(s, maps[2], 1), nb = texture_mean(s, maps[2], 2);
    printf("normal map mean (%.3f, %.3f, %.3f)\n", nr, ng, nb);
    assert_true(fabs(nr - 0.5) < 0.1 && fabs(ng - 0.5) < 0.1 && nb > 0.8);
    /* Textured emission is not light-sampled, and the model gets the sky
     * that lights models without lamps. */
    assert_false(pw_material_is_light(m));
    assert_int_equal(s->env.type, PW_ENV_GRADIENT);
    pw_scene_free(s);
}

/* One-texel PNGs of the minimal glTF. */
static const unsigned char base_px[3] = {200, 100, 50}, mr_px[3] = {0, 191, 102}, normal_px[3] = {128, 64, 255},
                           emissive_px[3] = {128, 255, 64};

/* A unit quad (z = 0, facing +z) with every metallic-roughness texture,
 * its buffer embedded as base64, its images PNG files beside it. */
static void write_minimal_gltf(const char *dir)
{
    unsigned char buf[140];
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0}; /* glTF's v runs down */
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(buf, pos, 48);
    memcpy(buf + 48, nrm, 48);
    memcpy(buf + 96, uv, 32);
    memcpy(buf + 128, idx, 12);
    char b64[200], json[4096];
    base64(buf, sizeof buf, b64);
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[{\"mesh\":0}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"NORMAL\":1,\"TEXCOORD_0\":2},"
             "\"indices\":3,\"material\":0}]}],"
             "\"materials\":[{\"name\":\"m\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[0.5,0.8,1.0,1.0],"
             "\"baseColorTexture\":{\"index\":0},\"metallicFactor\":0.6,\"roughnessFactor\":0.7,"
             "\"metallicRoughnessTexture\":{\"index\":1}},\"normalTexture\":{\"index\":2,\"scale\":0.5},"
             "\"emissiveFactor\":[2.0,1.0,0.5],\"emissiveTexture\":{\"index\":3}}],"
             "\"textures\":[{\"source\":0},{\"source\":1},{\"source\":2},{\"source\":3}],"
             "\"images\":[{\"uri\":\"base.png\"},{\"uri\":\"mr.png\"},{\"uri\":\"normal.png\"},"
             "{\"uri\":\"emissive.png\"}],"
             "\"buffers\":[{\"byteLength\":140,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},"
             "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":96,\"byteLength\":32},"
             "{\"buffer\":0,\"byteOffset\":128,\"byteLength\":12}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
             "\"min\":[-1,-1,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5126,\"count\":4,"
             "\"type\":\"VEC3\"},{\"bufferView\":2,\"componentType\":5126,\"count\":4,\"type\":\"VEC2\"},"
             "{\"bufferView\":3,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]}",
             b64);
    write_file(dir, "quad.gltf", json, strlen(json));
    const char *names[4] = {"base.png", "mr.png", "normal.png", "emissive.png"};
    const unsigned char *px[4] = {base_px, mr_px, normal_px, emissive_px};
    for (int i = 0; i < 4; i++) {
        char path[700];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        assert_true(stbi_write_png(path, 1, 1, 3, px[i], 3));
    }
}

static void remove_minimal_gltf(char *dir)
{
    const char *names[5] = {"quad.gltf", "base.png", "mr.png", "normal.png", "emissive.png"};
    for (int i = 0; i < 5; i++)
        remove_file(dir, names[i]);
    rmdir(dir);
}

/* A glTF camera under a rotated, translated parent node: the camera node
 * (translation 0,0,5) sits under a node turned 90 degrees about +y and
 * moved to (1,2,3), so the camera is at (6,2,3) looking down -x, +y up;
 * yfov 0.5 rad, aspect ratio 2 (the default image 640 x 320). */
static void write_camera_gltf(const char *dir, double yfov)
{
    unsigned char buf[60];
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    memcpy(buf, pos, 48);
    memcpy(buf + 48, idx, 12);
    char b64[100], json[2048];
    base64(buf, sizeof buf, b64);
    const float h = 0.70710678f;
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
             "\"nodes\":[{\"mesh\":0},{\"rotation\":[0,%.8f,0,%.8f],\"translation\":[1,2,3],\"children\":[2]},"
             "{\"camera\":0,\"translation\":[0,0,5]}],"
             "\"cameras\":[{\"type\":\"perspective\",\"perspective\":{\"yfov\":%g,\"aspectRatio\":2.0,"
             "\"znear\":0.1}}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":1}]}],"
             "\"buffers\":[{\"byteLength\":60,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":48},"
             "{\"buffer\":0,\"byteOffset\":48,\"byteLength\":12}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"VEC3\","
             "\"min\":[-1,-1,0],\"max\":[1,1,0]},"
             "{\"bufferView\":1,\"componentType\":5123,\"count\":6,\"type\":\"SCALAR\"}]}",
             h, h, yfov, b64);
    write_file(dir, "cam.gltf", json, strlen(json));
}

static void gltf_camera_transform(void **state)
{
    (void)state;
    char dir[] = "/tmp/pw_gltf_cam_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_camera_gltf(dir, 0.5);
    char path[700];
    snprintf(path, sizeof path, "%s/cam.gltf", dir);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    pw_vec3 d = v3_norm(v3_sub(s->cam.look_at, s->cam.look_from));
    assert_vec_near(s->cam.look_from, 6.0f, 2.0f, 3.0f, 1e-5f);
    assert_vec_near(d, -1.0f, 0.0f, 0.0f, 1e-5f);
    assert_vec_near(s->cam.up, 0.0f, 1.0f, 0.0f, 1e-5f);
    assert_true(fabsf(s->cam.vfov_deg - 0.5f * 180.0f / (float)PW_PI) < 1e-4f);
    assert_int_equal(s->defaults.height * 2, s->defaults.width);
    pw_scene_free(s);
    remove_file(dir, "cam.gltf");
    rmdir(dir);
}

/* A camera that cannot be used (yfov beyond pi) is a counted warning naming
 * the file, and the model is framed automatically (40 degrees). */
static void gltf_camera_unusable(void **state)
{
    (void)state;
    char dir[] = "/tmp/pw_gltf_cam_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_camera_gltf(dir, 4.0);
    char path[700];
    snprintf(path, sizeof path, "%s/cam.gltf", dir);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 1);
    assert_non_null(strstr(info.warning_log, "cam.gltf: camera 0"));
    assert_true(fabsf(s->cam.vfov_deg - 40.0f) < 1e-4f);
    pw_scene_free(s);
    remove_file(dir, "cam.gltf");
    rmdir(dir);
}

/* Factors times textures, exactly: base colour times the sRGB-decoded
 * texel; metallic times blue / 255 and perceptual roughness times
 * green / 255 (alpha its square), linear; emission times the sRGB-decoded
 * texel. A render of the quad's emission alone shows the last. */
static void minimal_gltf_factors_and_textures(void **state)
{
    (void)state;
    char dir[] = "/tmp/pw_gltf_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_minimal_gltf(dir);
    char path[700];
    snprintf(path, sizeof path, "%s/quad.gltf", dir);
    pw_scene *s;
    if (pw_scene_load(path, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 0);
    assert_int_equal(info.textures, 4);
    assert_int_equal(s->n_tris, 2);
    const pw_material *m = &s->mats[s->tri_mat[0]];
    assert_int_equal(m->type, PW_MAT_METALLIC_ROUGHNESS);
    assert_vec_near(m->albedo, 0.5f, 0.8f, 1.0f, 0.0f);
    assert_float_equal(pw_material_metallic(m), 0.6f, 0.0f);
    assert_float_equal(m->roughness, 0.7f * 0.7f, 1e-7f); /* alpha = roughness^2 */
    assert_vec_near(m->emission, 2.0f, 1.0f, 0.5f, 0.0f);
    assert_true(PW_MAT_HAS_ALBEDO_TEX(m) && PW_MAT_HAS_MAPS(m));
    assert_true(PW_MAT_MR_MAP(m) && PW_MAT_NORMAL_MAP(m) && PW_MAT_EMISSION_MAP(m));
    assert_float_equal(PW_MAT_NORMAL_SCALE(m), 0.5f, 0.0f);
    /* The normal map's texels are c / 255, not sRGB-decoded. */
    const float *nt = s->texels + 3 * s->textures[PW_MAT_NORMAL_MAP(m) - 1u].offset;
    assert_float_equal(nt[0], 128.0f / 255.0f, 1e-7f);
    assert_float_equal(nt[1], 64.0f / 255.0f, 1e-7f);
    assert_float_equal(nt[2], 1.0f, 1e-7f);
    assert_false(pw_material_is_light(m));

    pw_scene_view view = pw_scene_host_view(s, 1, 1);
    pw_material mt = pw_material_textured(&view, m, 0.3f, 0.6f);
    assert_vec_near(mt.albedo, 0.5f * srgb_decode(base_px[0]), 0.8f * srgb_decode(base_px[1]),
                    1.0f * srgb_decode(base_px[2]), 2e-6f);
    assert_float_equal(pw_material_metallic(&mt), 0.6f * mr_px[2] / 255.0f, 1e-6f);
    float r = 0.7f * mr_px[1] / 255.0f;
    assert_float_equal(mt.roughness, r * r, 1e-6f);
    assert_vec_near(mt.emission, 2.0f * srgb_decode(emissive_px[0]), 1.0f * srgb_decode(emissive_px[1]),
                    0.5f * srgb_decode(emissive_px[2]), 4e-6f);

    /* The camera straight in front; depth 0 counts emission only. */
    s->cam.look_from = v3(0, 0, 1.0f / tanf(20.0f * PW_PI / 180.0f));
    s->cam.look_at = v3s(0.0f);
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = 40.0f;
    test_render o = {32, 32, 2, 0, 5, PW_LIGHT_MODE_MIS, 1, 2};
    float *rgb = test_render_image(s, &o);
    for (int c = 0; c < 3; c++) {
        float want = (c == 0 ? 2.0f : c == 1 ? 1.0f : 0.5f) * srgb_decode(emissive_px[c]);
        assert_float_equal(region_mean(rgb, 32, 4, 4, 24, c), want, 1e-5 * want + 1e-6);
    }
    free(rgb);
    pw_scene_free(s);
    remove_minimal_gltf(dir);
}

/* A white Lambert quad in z = 0 with (u, v) along (x, y) and a constant
 * normal map tilting the normal by theta toward +x (tangent) or +y
 * (bitangent), lit by a distant light of irradiance 1 from angle phi
 * toward +x or +y, with nothing else: the radiance is
 * cos(shading normal, light) / pi, the same in every pixel. theta < 0
 * means no normal map. */
static float render_normal_mapped(float theta_deg, int tilt_y, float phi_deg, int light_y)
{
    pw_scene *s = pw_scene_alloc("normal map");
    s->env.type = PW_ENV_CONSTANT;
    s->env.top = s->env.bottom = v3s(0.0f);
    s->env.scale = 1.0f;
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = 40.0f;
    s->cam.look_at = v3s(0.0f);
    s->cam.look_from = v3(0, 0, 1.0f / tanf(20.0f * PW_PI / 180.0f));
    pw_material m = pw_lambert(1, 1, 1);
    if (theta_deg >= 0.0f) {
        float t = theta_deg * PW_PI / 180.0f;
        float sx = tilt_y ? 0.0f : sinf(t), sy = tilt_y ? sinf(t) : 0.0f;
        const float texel[3] = {0.5f * (sx + 1.0f), 0.5f * (sy + 1.0f), 0.5f * (cosf(t) + 1.0f)};
        uint32_t tex;
        assert_int_equal(pw_scene_add_texture(s, texel, 1, 1, 0, NULL, &tex), PW_OK);
        assert_true(pw_material_set_map(&m, PW_MAP_NORMAL, tex));
    }
    uint32_t mat = pw_scene_push_material(s, m);
    pw_vec3 p[4] = {v3(-1, -1, 0), v3(1, -1, 0), v3(1, 1, 0), v3(-1, 1, 0)};
    pw_vec3 n[4] = {v3(0, 0, 1), v3(0, 0, 1), v3(0, 0, 1), v3(0, 0, 1)};
    const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    uint32_t base = pw_scene_add_vertices(s, p, n, 4);
    assert_int_equal(pw_scene_set_uvs(s, base, uv, 4), PW_OK);
    assert_int_equal(pw_scene_add_triangle(s, base, base + 1, base + 2, mat), PW_OK);
    assert_int_equal(pw_scene_add_triangle(s, base, base + 2, base + 3, mat), PW_OK);
    float ph = phi_deg * PW_PI / 180.0f;
    pw_vec3 to_light = light_y ? v3(0, sinf(ph), cosf(ph)) : v3(sinf(ph), 0, cosf(ph));
    assert_int_equal(pw_scene_add_distant_light(s, v3_neg(to_light), v3s(1.0f)), PW_OK);
    test_render o = {32, 32, 2, 1, 5, PW_LIGHT_MODE_MIS, 1, 2};
    float *rgb = test_render_image(s, &o);
    float lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < 3 * 32 * 32; i++) {
        lo = fminf(lo, rgb[i]);
        hi = fmaxf(hi, rgb[i]);
    }
    free(rgb);
    pw_scene_free(s);
    assert_true(hi - lo <= 1e-5f * hi + 1e-7f); /* the same everywhere */
    return hi;
}

static void normal_map_cosine(void **state)
{
    (void)state;
    const float pi = PW_PI;
    /* Without a map, light at 60 degrees: cos 60 / pi. */
    float flat = render_normal_mapped(-1.0f, 0, 60.0f, 0);
    assert_float_equal(flat, 0.5f / pi, 1e-5f);
    /* A map flat in tangent space (0, 0, 1) changes nothing. */
    assert_float_equal(render_normal_mapped(0.0f, 0, 60.0f, 0), 0.5f / pi, 1e-5f);
    /* Tilted toward the light by 60 degrees: facing it. By 30: cos 30. */
    assert_float_equal(render_normal_mapped(60.0f, 0, 60.0f, 0), 1.0f / pi, 2e-5f);
    assert_float_equal(render_normal_mapped(30.0f, 0, 60.0f, 0), cosf(pi / 6.0f) / pi, 2e-5f);
    /* Tilted along the bitangent (+v = +y): toward a light from +y it
     * faces it; against a light from +x, cos^2 60. */
    assert_float_equal(render_normal_mapped(60.0f, 1, 60.0f, 1), 1.0f / pi, 2e-5f);
    assert_float_equal(render_normal_mapped(60.0f, 1, 60.0f, 0), 0.25f / pi, 2e-5f);
    /* Tilted away: a light at 20 degrees from the normal tilted 40 degrees
     * the other way is 60 degrees off. */
    assert_float_equal(render_normal_mapped(40.0f, 1, -20.0f, 1), 0.5f / pi, 2e-5f);
}

static void write_text(const char *dir, const char *name, const char *text)
{
    write_file(dir, name, text, strlen(text));
}

/* The MTL mapping: Kd alone is Lambert; Ks and Ns the metallic-roughness
 * material with base min(1, Kd + Ks), metallic lum(Ks) / (lum(Kd) +
 * lum(Ks)) and alpha sqrt(2 / (Ns + 2)); illum 7 and d < 1 a dielectric of
 * index Ni, smooth without Ns; Ke emission; norm a linear normal map. */
static void mtl_materials(void **state)
{
    (void)state;
    char dir[] = "/tmp/pw_mtl_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const unsigned char npx[3] = {128, 128, 255};
    char png[700];
    snprintf(png, sizeof png, "%s/n.png", dir);
    assert_true(stbi_write_png(png, 1, 1, 3, npx, 3));
    write_text(dir, "m.obj",
               "mtllib m.mtl\nv -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\nvt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
               "usemtl diffuse\nf 1/1 2/2 3/3\nusemtl glossy\nf 1/1 3/3 4/4\nusemtl glass\nf 1/1 2/2 4/4\n"
               "usemtl frosted\nf 2/2 3/3 4/4\nusemtl lamp\nf 1/1 2/2 3/3\nusemtl bumpy\nf 1/1 3/3 4/4\n");
    write_text(dir, "m.mtl",
               "newmtl diffuse\nKd 0.6 0.5 0.4\nKs 0 0 0\nNs 10\nillum 2\n"
               "newmtl glossy\nKd 0.5 0.5 0.5\nKs 0.5 0.5 0.5\nNs 98\nillum 2\n"
               "newmtl glass\nKd 0 0 0\nKs 1 1 1\nNi 1.45\nillum 7\n"
               "newmtl frosted\nKd 0.8 0.8 0.8\nNi 1.33\nNs 200\nd 0.5\nillum 2\n"
               "newmtl lamp\nKd 0 0 0\nKe 1 2 3\n"
               "newmtl bumpy\nKd 0.3 0.3 0.3\nnorm n.png\n");
    char obj[700];
    snprintf(obj, sizeof obj, "%s/m.obj", dir);
    pw_scene *s;
    if (pw_scene_load(obj, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 0);
    assert_int_equal(s->n_tris, 6);
    /* Triangles keep the order of the faces, one material each. */
    const pw_material *d = &s->mats[s->tri_mat[0]], *g = &s->mats[s->tri_mat[1]], *gl = &s->mats[s->tri_mat[2]],
                      *fr = &s->mats[s->tri_mat[3]], *la = &s->mats[s->tri_mat[4]], *bu = &s->mats[s->tri_mat[5]];
    assert_int_equal(d->type, PW_MAT_LAMBERT);
    assert_vec_near(d->albedo, 0.6f, 0.5f, 0.4f, 0.0f);
    assert_false(PW_MAT_IS_TEXTURED(d));

    assert_int_equal(g->type, PW_MAT_METALLIC_ROUGHNESS);
    assert_vec_near(g->albedo, 1, 1, 1, 1e-7f);
    assert_float_equal(pw_material_metallic(g), 0.5f, 1e-6f);
    assert_float_equal(g->roughness, sqrtf(2.0f / 100.0f), 1e-6f);

    assert_int_equal(gl->type, PW_MAT_DIELECTRIC);
    assert_float_equal(gl->ior, 1.45f, 0.0f);
    assert_int_equal(fr->type, PW_MAT_ROUGH_DIELECTRIC);
    assert_float_equal(fr->ior, 1.33f, 0.0f);
    assert_float_equal(fr->roughness, sqrtf(2.0f / 202.0f), 1e-6f);

    assert_vec_near(la->emission, 1, 2, 3, 0.0f);
    assert_true(pw_material_is_light(la));

    assert_int_equal(bu->type, PW_MAT_LAMBERT);
    assert_true(PW_MAT_HAS_MAPS(bu) && PW_MAT_NORMAL_MAP(bu) == 1u);
    assert_false(PW_MAT_HAS_ALBEDO_TEX(bu));
    assert_float_equal(s->texels[3 * s->textures[0].offset], 128.0f / 255.0f, 1e-7f);
    pw_scene_free(s);
    remove_file(dir, "m.obj");
    remove_file(dir, "m.mtl");
    remove_file(dir, "n.png");
    rmdir(dir);
}

/* Maps are refused on a conductor, whose k they would overwrite, and a
 * scene naming a missing map is refused before rendering. */
static void maps_on_materials(void **state)
{
    (void)state;
    pw_material c = pw_conductor(v3s(0.2f), v3s(3.0f), 0.1f);
    assert_false(pw_material_set_map(&c, PW_MAP_NORMAL, 0));
    assert_float_equal(c.k.x, 3.0f, 0.0f);
    pw_material m = pw_metallic_roughness(v3s(0.5f), 0.25f, 0.5f);
    assert_true(pw_material_set_map(&m, PW_MAP_EMISSION, 7));
    assert_int_equal(PW_MAT_EMISSION_MAP(&m), 8);
    assert_int_equal(PW_MAT_NORMAL_MAP(&m), 0);
    assert_float_equal(pw_material_metallic(&m), 0.25f, 0.0f);
    assert_true(pw_material_set_map(&m, PW_MAP_NORMAL, PW_MAT_MAX_TEXTURES - 1u));
    assert_int_equal(PW_MAT_NORMAL_MAP(&m), PW_MAT_MAX_TEXTURES); /* exact in a float */
    assert_int_equal(PW_MAT_EMISSION_MAP(&m), 8);
    assert_false(pw_material_set_map(&m, PW_MAP_NORMAL, PW_MAT_MAX_TEXTURES));

    pw_scene *s = pw_scene_alloc("missing map");
    pw_material l = pw_lambert(1, 1, 1);
    assert_true(pw_material_set_map(&l, PW_MAP_NORMAL, 3));
    assert_int_equal(pw_scene_push_sphere(s, v3s(0.0f), 1.0f, pw_scene_push_material(s, l)), PW_OK);
    s->cam.look_from = v3(0, 0, 4);
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = 40.0f;
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = st.height = 8;
    pw_renderer *r = NULL;
    assert_int_equal(pw_renderer_create(s, &st, &r), PW_ERR_FORMAT);
    assert_non_null(strstr(pw_last_error(), "names texture 3 of 0"));
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maps_on_materials),
        cmocka_unit_test(gltf_camera_transform),
        cmocka_unit_test(gltf_camera_unusable),
        cmocka_unit_test(minimal_gltf_factors_and_textures),
        cmocka_unit_test(normal_map_cosine),
        cmocka_unit_test(mtl_materials),
        cmocka_unit_test(damaged_helmet),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
