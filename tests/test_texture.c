/* Image textures: the bilinear lookup and its wrap modes against values
 * worked out by hand, sRGB decoding of 8-bit texels, the texture cache,
 * renders of a textured quad and sphere under a white sky (where a Lambert
 * surface's radiance is exactly its albedo), and textures in model files:
 * embedded in a .glb, beside an OBJ, and missing. */
#include "test_render_util.h"

#include <unistd.h>

#include <stb_image_write.h>

#include "shade/environment.h"
#include "shade/surface.h"
#include "shade/texture.h"

/* Linear values of 8-bit sRGB codes, from the sRGB transfer function. */
#define LIN_64 0.0512694702f
#define LIN_128 0.2158605001f
#define LIN_188 0.5028864580f

static pw_texture tex_of(uint32_t w, uint32_t h, uint32_t wrap)
{
    pw_texture t = {0, w, h, wrap};
    return t;
}

/* A 2x2 image with one distinct value per texel and channel. */
static const float quad_texels[12] = {
    1, 10, 100,  2, 20, 200, /* top row: (0, 0), (1, 0) */
    3, 30, 300,  4, 40, 400, /* bottom row */
};

static void assert_vec_near(pw_vec3 got, float x, float y, float z, float tol)
{
    if (fabsf(got.x - x) > tol || fabsf(got.y - y) > tol || fabsf(got.z - z) > tol)
        fail_msg("got (%.7g, %.7g, %.7g), expected (%.7g, %.7g, %.7g)", got.x, got.y, got.z, x, y, z);
}

/* Texel centres give the texel itself; points between them the weights
 * of bilinear interpolation. Row 0 is the top, at v near 1. */
static void bilinear_lookup(void **state)
{
    (void)state;
    pw_texture t = tex_of(2, 2, PW_WRAP_UV(PW_WRAP_CLAMP, PW_WRAP_CLAMP));
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.25f, 0.75f), 1, 10, 100, 0.0f);
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.75f, 0.75f), 2, 20, 200, 0.0f);
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.25f, 0.25f), 3, 30, 300, 0.0f);
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.75f, 0.25f), 4, 40, 400, 0.0f);
    /* Halfway between the top two; a quarter of the way from the top-left
     * toward the top-right; the middle of all four. */
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.5f, 0.75f), 1.5f, 15, 150, 1e-5f);
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.375f, 0.75f), 1.25f, 12.5f, 125, 1e-5f);
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.5f, 0.5f), 2.5f, 25, 250, 1e-5f);
    /* (0.375, 0.625): x = 0.25 past the left column, y = 0.25 below the
     * top row: 0.75 * 0.75 * 1 + 0.25 * 0.75 * 2 + 0.75 * 0.25 * 3 + 0.25 * 0.25 * 4 = 1.75. */
    assert_vec_near(pw_texture_lookup(&t, quad_texels, 0.375f, 0.625f), 1.75f, 17.5f, 175, 1e-4f);
    /* The pool offset selects the image: one texel further on. */
    pw_texture t1 = tex_of(1, 1, 0);
    t1.offset = 3;
    assert_vec_near(pw_texture_lookup(&t1, quad_texels, 0.1f, 0.9f), 4, 40, 400, 0.0f);
}

/* A row of four texels 0, 1, 2, 3 read at and beyond its ends. */
static float row_at(uint32_t mode, float u)
{
    static const float row[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    pw_texture t = tex_of(4, 1, PW_WRAP_UV(mode, PW_WRAP_CLAMP));
    pw_vec3 c = pw_texture_lookup(&t, row, u, 0.5f);
    assert_true(c.x == c.y && c.y == c.z);
    return c.x;
}

static void wrap_modes(void **state)
{
    (void)state;
    const float tol = 1e-5f;
    /* Repeat: whole periods away is the same texel; at u = 0 the edge
     * texels 3 and 0 blend half and half. */
    assert_float_equal(row_at(PW_WRAP_REPEAT, 0.125f + 1.0f), 0.0f, tol);
    assert_float_equal(row_at(PW_WRAP_REPEAT, 0.625f - 3.0f), 2.0f, tol);
    assert_float_equal(row_at(PW_WRAP_REPEAT, 0.0f), 1.5f, tol);
    assert_float_equal(row_at(PW_WRAP_REPEAT, 1.0f), 1.5f, tol);
    /* Clamp: the edge texel beyond the ends, no blending across them. */
    assert_float_equal(row_at(PW_WRAP_CLAMP, 0.0f), 0.0f, tol);
    assert_float_equal(row_at(PW_WRAP_CLAMP, -3.0f), 0.0f, tol);
    assert_float_equal(row_at(PW_WRAP_CLAMP, 7.5f), 3.0f, tol);
    /* Mirror: reflected at every integer u. */
    assert_float_equal(row_at(PW_WRAP_MIRROR, 1.125f), 3.0f, tol);
    assert_float_equal(row_at(PW_WRAP_MIRROR, 1.375f), 2.0f, tol);
    assert_float_equal(row_at(PW_WRAP_MIRROR, -0.375f), 1.0f, tol);
    assert_float_equal(row_at(PW_WRAP_MIRROR, 2.125f), 0.0f, tol);
    assert_float_equal(row_at(PW_WRAP_MIRROR, 0.0f), 0.0f, tol);
    /* Far out and non-finite coordinates stay inside the image. */
    for (uint32_t mode = 0; mode < 3; mode++) {
        float far[] = {1e9f, -1e9f, 3e38f, INFINITY, -INFINITY, NAN};
        for (int i = 0; i < 6; i++) {
            float c = row_at(mode, far[i]);
            assert_true(c >= 0.0f && c <= 3.0f);
        }
    }
    /* The v axis wraps on its own: a column 0 (top), 1, 2, 3 (bottom). */
    static const float col[12] = {0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
    pw_texture t = tex_of(1, 4, PW_WRAP_UV(PW_WRAP_CLAMP, PW_WRAP_REPEAT));
    assert_float_equal(pw_texture_lookup(&t, col, 0.5f, 0.875f).x, 0.0f, tol);
    assert_float_equal(pw_texture_lookup(&t, col, 0.5f, 0.125f).x, 3.0f, tol);
    assert_float_equal(pw_texture_lookup(&t, col, 0.5f, 2.875f).x, 0.0f, tol);
    assert_float_equal(pw_texture_lookup(&t, col, 0.5f, 1.0f).x, 1.5f, tol);
    t.wrap = PW_WRAP_UV(PW_WRAP_CLAMP, PW_WRAP_MIRROR);
    assert_float_equal(pw_texture_lookup(&t, col, 0.5f, 1.125f).x, 0.0f, tol);
    assert_float_equal(pw_texture_lookup(&t, col, 0.5f, -0.125f).x, 3.0f, tol);
}

/* 8-bit texels are sRGB-encoded; HDR and float texels are taken as they are. */
static void srgb_decoding(void **state)
{
    (void)state;
    pw_scene *s = pw_scene_alloc("srgb");
    const unsigned char codes[6] = {0, 64, 128, 188, 255, 255};
    uint32_t t;
    assert_int_equal(pw_scene_add_texture_srgb8(s, codes, 2, 1, 0, NULL, &t), PW_OK);
    const float expect[6] = {0.0f, LIN_64, LIN_128, LIN_188, 1.0f, 1.0f};
    for (int i = 0; i < 6; i++)
        assert_float_equal(s->texels[3 * s->textures[t].offset + i], expect[i], 2e-6f);
    /* The same codes through a PNG file on disk. */
    char path[256];
    snprintf(path, sizeof path, "/tmp/pw_tex_srgb_%d.png", (int)getpid());
    assert_true(stbi_write_png(path, 2, 1, 3, codes, 6));
    uint32_t tf;
    assert_int_equal(pw_scene_load_texture(s, path, 0, &tf), PW_OK);
    unlink(path);
    assert_int_not_equal(tf, t);
    for (int i = 0; i < 6; i++)
        assert_float_equal(s->texels[3 * s->textures[tf].offset + i], expect[i], 2e-6f);
    /* Float texels that are negative or not finite are refused by name. */
    float bad[6] = {0.5f, 0.5f, 0.5f, 0.5f, NAN, 0.5f};
    assert_int_equal(pw_scene_add_texture(s, bad, 2, 1, 0, "bad.exr", &t), PW_ERR_FORMAT);
    assert_non_null(strstr(pw_last_error(), "bad.exr: texel (1, 0)"));
    pw_scene_free(s);
}

/* One file is decoded once: asking again gives the same texture; another
 * wrap mode gives a new entry over the same pixels. */
static void texture_cache(void **state)
{
    (void)state;
    char path[256];
    snprintf(path, sizeof path, "/tmp/pw_tex_cache_%d.png", (int)getpid());
    const unsigned char px[12] = {255, 0, 0, 0, 255, 0, 0, 0, 255, 128, 128, 128};
    assert_true(stbi_write_png(path, 2, 2, 3, px, 6));
    pw_scene *s = pw_scene_alloc("cache");
    uint32_t a, b, c;
    assert_int_equal(pw_scene_load_texture(s, path, PW_WRAP_UV(PW_WRAP_REPEAT, PW_WRAP_REPEAT), &a), PW_OK);
    assert_int_equal(pw_scene_load_texture(s, path, PW_WRAP_UV(PW_WRAP_REPEAT, PW_WRAP_REPEAT), &b), PW_OK);
    assert_int_equal(a, b);
    assert_int_equal(s->n_texels, 4);
    assert_int_equal(pw_scene_load_texture(s, path, PW_WRAP_UV(PW_WRAP_CLAMP, PW_WRAP_MIRROR), &c), PW_OK);
    assert_int_not_equal(a, c);
    assert_int_equal(s->n_texels, 4);
    assert_int_equal(s->textures[c].offset, s->textures[a].offset);
    assert_int_equal(s->n_textures, 2);
    unlink(path);
    /* The file is gone, but a cached texture is not read again. */
    assert_int_equal(pw_scene_load_texture(s, path, PW_WRAP_UV(PW_WRAP_REPEAT, PW_WRAP_REPEAT), &b), PW_OK);
    assert_int_equal(a, b);
    snprintf(path, sizeof path, "/nonexistent/dir/t.png");
    assert_int_equal(pw_scene_load_texture(s, path, 0, &c), PW_ERR_NOT_FOUND);
    assert_non_null(strstr(pw_last_error(), "/nonexistent/dir/t.png"));
    pw_scene_free(s);
}

/* Spheres: u is the environment map's longitude, v runs from 0 at the
 * bottom pole to 1 at the top. */
static void sphere_uv(void **state)
{
    (void)state;
    pw_sphere sp = {v3(1, 2, 3), 2.0f};
    uint32_t mat = 0;
    pw_scene_view view;
    memset(&view, 0, sizeof view);
    view.spheres = &sp;
    view.sphere_mat = &mat;
    view.n_spheres = 1;
    test_rng g = {7};
    for (int i = 0; i < 1000; i++) {
        pw_vec3 n = v3_norm(v3(trng_range(&g, -1, 1), trng_range(&g, -1, 1), trng_range(&g, -1, 1)));
        pw_surface sf;
        memset(&sf, 0, sizeof sf);
        sf.ng = n;
        sf.p = v3_madd(sp.c, n, sp.r);
        pw_hit h = {1.0f, 0, 0.0f, 0.0f};
        float u, v, eu, ev;
        pw_surface_uv(&view, &h, &sf, &u, &v);
        pw_env_dir_to_uv(n, &eu, &ev);
        assert_float_equal(u, eu, 1e-6f);
        assert_float_equal(v, 1.0f - ev, 1e-6f);
    }
    pw_surface sf;
    memset(&sf, 0, sizeof sf);
    pw_hit h = {1.0f, 0, 0.0f, 0.0f};
    float u, v;
    sf.ng = v3(0, 1, 0);
    pw_surface_uv(&view, &h, &sf, &u, &v);
    assert_float_equal(v, 1.0f, 1e-6f);
    sf.ng = v3(1, 0, 0);
    pw_surface_uv(&view, &h, &sf, &u, &v);
    assert_float_equal(u, 0.75f, 1e-6f);
    assert_float_equal(v, 0.5f, 1e-6f);
    sf.ng = v3(0, 0, -1);
    pw_surface_uv(&view, &h, &sf, &u, &v);
    assert_float_equal(u, 0.5f, 1e-6f);
}

/* A scene lit only by a constant white sky: a convex Lambert surface
 * reflects exactly its albedo, with no noise. */
static pw_scene *white_sky_scene(const char *name)
{
    pw_scene *s = pw_scene_alloc(name);
    s->env.type = PW_ENV_CONSTANT;
    s->env.top = s->env.bottom = v3s(1.0f);
    s->env.scale = 1.0f;
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = 40.0f;
    s->cam.look_at = v3s(0.0f);
    return s;
}

static double region_mean(const float *rgb, int w, int x0, int y0, int n, int c)
{
    double sum = 0.0;
    for (int y = y0; y < y0 + n; y++)
        for (int x = x0; x < x0 + n; x++)
            sum += rgb[3 * (y * w + x) + c];
    return sum / (n * n);
}

#define CHECK_SQUARES 4
#define SQUARE_TEXELS 4
#define RENDER_SIZE 64

/* The checkerboard: white and dark (code 64) squares of 4x4 texels, with a
 * red square at the top left to tell the image's orientation. */
static void checker_colour(int kx, int ky, unsigned char out[3])
{
    int white = (kx + ky) % 2 == 0;
    out[0] = white ? 255 : 64;
    out[1] = kx == 0 && ky == 0 ? 0 : out[0];
    out[2] = out[1];
}

/* A unit quad facing the camera and filling the image exactly, textured
 * with the checkerboard from a PNG: each square's inner pixels (half a
 * texel clear of its edges, past which bilinear filtering blends in the
 * neighbour) have the square's linear albedo, the top-left one red. */
static void textured_quad_render(void **state)
{
    (void)state;
    const int n = CHECK_SQUARES * SQUARE_TEXELS;
    unsigned char px[16 * 16 * 3];
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            checker_colour(x / SQUARE_TEXELS, y / SQUARE_TEXELS, px + 3 * (y * n + x));
    char path[256];
    snprintf(path, sizeof path, "/tmp/pw_tex_checker_%d.png", (int)getpid());
    assert_true(stbi_write_png(path, n, n, 3, px, 3 * n));

    pw_scene *s = white_sky_scene("textured quad");
    uint32_t tex;
    assert_int_equal(pw_scene_load_texture(s, path, PW_WRAP_UV(PW_WRAP_REPEAT, PW_WRAP_REPEAT), &tex), PW_OK);
    unlink(path);
    pw_material m = pw_lambert(1, 1, 1);
    PW_MAT_SET_ALBEDO_TEX(&m, tex);
    assert_true(PW_MAT_HAS_ALBEDO_TEX(&m) && PW_MAT_ALBEDO_TEX(&m) == tex);
    uint32_t mat = pw_scene_push_material(s, m);
    pw_vec3 p[4] = {v3(-1, -1, 0), v3(1, -1, 0), v3(1, 1, 0), v3(-1, 1, 0)};
    const float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    uint32_t base = pw_scene_add_vertices(s, p, NULL, 4);
    assert_int_equal(pw_scene_set_uvs(s, base, uv, 4), PW_OK);
    assert_int_equal(pw_scene_add_triangle(s, base, base + 1, base + 2, mat), PW_OK);
    assert_int_equal(pw_scene_add_triangle(s, base, base + 2, base + 3, mat), PW_OK);
    /* At distance 1 / tan(20 deg) a 40 degree view spans the quad's height. */
    s->cam.look_from = v3(0, 0, 1.0f / tanf(20.0f * PW_PI / 180.0f));

    test_render o = {RENDER_SIZE, RENDER_SIZE, 4, 8, 3, PW_LIGHT_MODE_MIS, 1, 2};
    float *rgb = test_render_image(s, &o);
    const int sq = RENDER_SIZE / CHECK_SQUARES, margin = 3;
    double white = 0.0, dark = 0.0;
    int n_white = 0, n_dark = 0;
    for (int ky = 0; ky < CHECK_SQUARES; ky++)
        for (int kx = 0; kx < CHECK_SQUARES; kx++) {
            unsigned char code[3];
            checker_colour(kx, ky, code);
            for (int c = 0; c < 3; c++) {
                double got = region_mean(rgb, RENDER_SIZE, kx * sq + margin, ky * sq + margin, sq - 2 * margin, c);
                double want = code[c] == 255 ? 1.0 : code[c] == 64 ? LIN_64 : 0.0;
                if (fabs(got - want) > 1e-4)
                    fail_msg("square (%d, %d) channel %d: %.6f, expected %.6f", kx, ky, c, got, want);
            }
            double g = region_mean(rgb, RENDER_SIZE, kx * sq + margin, ky * sq + margin, sq - 2 * margin, 1);
            if (code[1] == 255)
                white += g, n_white++;
            else if (code[1] == 64)
                dark += g, n_dark++;
        }
    double ratio = (white / n_white) / (dark / n_dark);
    printf("white / dark squares: %.4f (expected %.4f)\n", ratio, 1.0 / LIN_64);
    assert_float_equal(ratio, 1.0 / LIN_64, 1e-3 / LIN_64);
    free(rgb);
    pw_scene_free(s);
}

/* A sphere whose texture is white in its upper half and dark in its lower
 * half looks so from the side: spherical uv reaches the renderer. */
static void textured_sphere_render(void **state)
{
    (void)state;
    enum { W = 1, H = 64 };
    unsigned char px[W * H * 3];
    for (int y = 0; y < H; y++)
        memset(px + 3 * W * y, y < H / 2 ? 255 : 64, 3 * W);
    pw_scene *s = white_sky_scene("textured sphere");
    uint32_t tex;
    assert_int_equal(pw_scene_add_texture_srgb8(s, px, W, H, PW_WRAP_UV(PW_WRAP_REPEAT, PW_WRAP_CLAMP), NULL, &tex),
                     PW_OK);
    pw_material m = pw_lambert(0.5f, 1.0f, 1.0f); /* the factor multiplies the texel */
    PW_MAT_SET_ALBEDO_TEX(&m, tex);
    assert_int_equal(pw_scene_push_sphere(s, v3s(0.0f), 1.0f, pw_scene_push_material(s, m)), PW_OK);
    s->cam.look_from = v3(0, 0, 4);
    test_render o = {RENDER_SIZE, RENDER_SIZE, 4, 8, 3, PW_LIGHT_MODE_MIS, 1, 2};
    float *rgb = test_render_image(s, &o);
    /* Points at latitude +-45 degrees on the side facing the camera project
     * to rows 32 -+ 32 * (0.707 / 3.293) / tan(20 deg), about 13 and 51. */
    const double top[3] = {0.5, 1.0, 1.0}, bottom[3] = {0.5 * LIN_64, LIN_64, LIN_64};
    for (int c = 0; c < 3; c++) {
        assert_float_equal(region_mean(rgb, RENDER_SIZE, 29, 10, 6, c), top[c], 1e-4);
        assert_float_equal(region_mean(rgb, RENDER_SIZE, 29, 48, 6, c), bottom[c], 1e-4);
    }
    free(rgb);
    pw_scene_free(s);
}

/* BoxTextured.glb embeds its base colour texture as a PNG ("*0"). */
static void gltf_embedded_texture(void **state)
{
    (void)state;
    char path[1024];
    if (!pw_test_shared_file("scenes/gltf-samples/BoxTextured.glb", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 0);
    assert_int_equal(info.textures, 1);
    assert_int_equal(s->textures[0].w, 256);
    assert_int_equal(s->textures[0].h, 256);
    /* Every triangle uses the textured material, its factor white. */
    for (uint32_t t = 0; t < s->n_tris; t++) {
        const pw_material *m = &s->mats[s->tri_mat[t]];
        assert_true(PW_MAT_HAS_ALBEDO_TEX(m));
        assert_int_equal(PW_MAT_ALBEDO_TEX(m), 0);
        assert_vec_near(m->albedo, 1, 1, 1, 0.0f);
    }
    /* A real image: texels in [0, 1] and not all alike. */
    float lo = 1.0f, hi = 0.0f;
    for (uint32_t i = 0; i < 3 * s->n_texels; i++) {
        lo = fminf(lo, s->texels[i]);
        hi = fmaxf(hi, s->texels[i]);
    }
    assert_true(lo >= 0.0f && hi <= 1.0f && hi - lo > 0.5f);
    pw_scene_free(s);
}

/* DamagedHelmet's emission is factor (1, 1, 1) times an emissive texture
 * (black but for a few lamps): the material keeps the factor and carries
 * the texture, with no warning, beside its base colour texture. */
static void gltf_emissive_texture(void **state)
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
    const pw_material *m = &s->mats[s->tri_mat[0]];
    assert_vec_near(m->emission, 1, 1, 1, 0.0f);
    assert_true(PW_MAT_HAS_MAPS(m) && PW_MAT_EMISSION_MAP(m) != 0);
    assert_true(PW_MAT_HAS_ALBEDO_TEX(m));
    assert_int_not_equal(PW_MAT_EMISSION_MAP(m) - 1u, PW_MAT_ALBEDO_TEX(m));
    pw_scene_free(s);
}

/* Writes dir/name with the given text. */
static void write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const char quad_obj[] = "mtllib quad.mtl\n"
                               "v -1 -1 0\nv 1 -1 0\nv 1 1 0\nv -1 1 0\n"
                               "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                               "usemtl a\nf 1/1 2/2 3/3\nusemtl b\nf 1/1 3/3 4/4\n";

/* An OBJ whose MTL names one texture for two materials and a missing one
 * for a third: the file is decoded once, and the missing one is one
 * warning naming the model and the texture, its material keeping Kd. */
static void obj_textures_and_missing_texture(void **state)
{
    (void)state;
    char dir[] = "/tmp/pw_tex_obj_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[600];
    snprintf(sub, sizeof sub, "%s/maps", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    const unsigned char px[3] = {128, 64, 188};
    char png[700];
    snprintf(png, sizeof png, "%s/grey.png", sub);
    assert_true(stbi_write_png(png, 1, 1, 3, px, 3));
    write_text(dir, "quad.obj", quad_obj);
    write_text(dir, "quad.mtl",
               "newmtl a\nKd 0.8 0.8 0.8\nmap_Kd maps/grey.png\n"
               "newmtl b\nKd 0.7 0.2 0.1\nmap_Kd maps/missing.png\n"
               "newmtl c\nKd 0.5 0.5 0.5\nmap_Kd maps/grey.png\n");
    char obj[600];
    snprintf(obj, sizeof obj, "%s/quad.obj", dir);
    pw_scene *s;
    assert_int_equal(pw_scene_load(obj, &s), PW_OK);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 1);
    printf("warning: %s", info.warning_log);
    assert_non_null(strstr(info.warning_log, obj));
    assert_non_null(strstr(info.warning_log, "maps/missing.png"));
    assert_int_equal(info.textures, 1);
    assert_int_equal(s->n_texels, 1);
    int textured = 0, fallback = 0;
    for (uint32_t i = 0; i < s->n_mats; i++) {
        const pw_material *m = &s->mats[i];
        if (PW_MAT_HAS_ALBEDO_TEX(m)) {
            /* map_Kd replaces Kd. */
            textured++;
            assert_int_equal(PW_MAT_ALBEDO_TEX(m), 0);
            assert_vec_near(m->albedo, 1, 1, 1, 0.0f);
        } else if (m->albedo.x == 0.7f && m->albedo.y == 0.2f && m->albedo.z == 0.1f) {
            fallback++;
        }
    }
    assert_int_equal(textured, 2);
    assert_int_equal(fallback, 1);
    assert_float_equal(s->texels[0], LIN_128, 2e-6f);
    assert_float_equal(s->texels[1], LIN_64, 2e-6f);
    assert_float_equal(s->texels[2], LIN_188, 2e-6f);
    pw_scene_free(s);
    unlink(png);
    rmdir(sub);
    char mtl[600];
    snprintf(mtl, sizeof mtl, "%s/quad.mtl", dir);
    unlink(mtl);
    unlink(obj);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bilinear_lookup),
        cmocka_unit_test(wrap_modes),
        cmocka_unit_test(srgb_decoding),
        cmocka_unit_test(texture_cache),
        cmocka_unit_test(sphere_uv),
        cmocka_unit_test(textured_quad_render),
        cmocka_unit_test(textured_sphere_render),
        cmocka_unit_test(gltf_embedded_texture),
        cmocka_unit_test(gltf_emissive_texture),
        cmocka_unit_test(obj_textures_and_missing_texture),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
