/* The public scene-building API (pw_scene_new, pw_scene_add_material,
 * pw_scene_add_mesh, pw_scene_add_sphere, pw_scene_add_light,
 * pw_scene_set_sky) and the progress callback of pw_renderer_render.
 *
 * Scenes built only through the public calls are rendered against closed
 * forms: a white furnace (a Lambert sphere and a Lambert cube mesh of
 * albedo a under a uniform sky L, no Russian roulette: every sample is
 * exactly a L), a Lambert plane under a gradient sky (a (mid +- 2/3 slope)
 * from above and below), and a plane under a point, a distant and a spot
 * light given in degrees (each sample exact at its hit point, so a pixel
 * lies between the least and the most the closed form takes over it).
 * Scenes built through the API equal, to the bit, the built-in toy-small
 * scene and a pbrt file of the same lights, materials and shapes. Every
 * bad argument gives PW_ERR_INVALID_ARGUMENT with its exact message and
 * leaves the scene as it was. The progress callback sees the passes of
 * each call in order, may read the image between them, stops the render
 * when it returns nonzero or calls pw_renderer_cancel, and leaves the image
 * bit for bit what one call gives. */
#include "test_render_util.h"
#include "test_scene_build.h"

#include <unistd.h>

#include "shade/camera.h"

#define W 32
#define H 32

/* ---- building through the public API ---- */

static uint32_t add_lambert(pw_scene *s, float r, float g, float b)
{
    return test_add_material(s, test_lambert(r, g, b));
}

/* The square |x|, |z| <= half in the plane y = 0, its front facing +y. */
static void add_ground(pw_scene *s, float half, uint32_t mat)
{
    const float q[12] = {-half, 0, -half, -half, 0, half, half, 0, half, half, 0, -half};
    test_add_quad(s, q, mat);
}

/* The cube [-1, 1]^3: six faces of four vertices with the face's normal
 * and uvs, wound counter-clockwise seen from outside, and a 13th triangle
 * of zero area (all three corners one vertex). */
typedef struct cube {
    float pos[72], nrm[72], uv[48];
    uint32_t idx[39];
} cube;

static void make_cube(cube *c)
{
    static const float cu[4] = {-1, 1, 1, -1}, cv[4] = {-1, -1, 1, 1};
    memset(c, 0, sizeof *c);
    for (int f = 0; f < 6; f++) {
        int axis = f / 2, u = (axis + 1) % 3, v = (axis + 2) % 3;
        float sign = f % 2 ? -1.0f : 1.0f;
        for (int k = 0; k < 4; k++) {
            int i = 4 * f + k;
            c->pos[3 * i + axis] = sign;
            c->pos[3 * i + u] = sign * cu[k]; /* mirrored on the far side, which keeps the winding outward */
            c->pos[3 * i + v] = cv[k];
            c->nrm[3 * i + axis] = sign;
            c->uv[2 * i] = 0.5f * (cu[k] + 1.0f);
            c->uv[2 * i + 1] = 0.5f * (cv[k] + 1.0f);
        }
        const uint32_t quad[6] = {0, 1, 2, 0, 2, 3};
        for (int k = 0; k < 6; k++)
            c->idx[6 * f + k] = 4u * (uint32_t)f + quad[k];
    }
    c->idx[36] = c->idx[37] = c->idx[38] = 5;
}

static pw_mesh_desc cube_desc(const cube *c)
{
    pw_mesh_desc m = {24, c->pos, c->nrm, c->uv, 13, c->idx};
    return m;
}

/* Renders s with the given settings on backend b, a progress callback
 * fn(user) when fn is not NULL; returns the image (free it). */
static float *render_on(pw_scene *s, const test_render *o, pw_backend b, pw_progress_fn fn, void *user)
{
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = o->width;
    st.height = o->height;
    st.max_depth = o->max_depth;
    st.rr_depth = o->rr_depth;
    st.light_mode = o->light_mode;
    st.seed = o->seed;
    st.backend = b;
    pw_renderer *r;
    if (pw_renderer_create(s, &st, &r) != PW_OK)
        fail_msg("pw_renderer_create: %s", pw_last_error());
    assert_int_equal(pw_renderer_set_progress(r, fn, user), PW_OK);
    if (pw_renderer_render(r, o->spp) != PW_OK)
        fail_msg("pw_renderer_render: %s", pw_last_error());
    float *img = malloc(sizeof *img * 3 * (size_t)o->width * (size_t)o->height);
    assert_int_equal(pw_renderer_image(r, img), PW_OK);
    pw_renderer_free(r);
    return img;
}

/* ---- the white furnace ---- */

static const float furnace_albedo[3] = {0.25f, 0.5f, 0.75f};
static const float furnace_sky[3] = {1.0f, 0.5f, 0.25f}, furnace_scale = 2.0f; /* L = (2, 1, 0.5) */

/* A uniform sky and a camera at (0, 0, 5) whose whole frame the unit
 * sphere (or the cube's face z = 1) fills: half-diagonal 9.9 degrees. */
static pw_scene *furnace(const char *name)
{
    pw_scene *s = test_new_scene(name);
    assert_int_equal(pw_scene_set_sky(s, furnace_sky, furnace_sky, furnace_scale), PW_OK);
    const float from[3] = {0, 0, 5}, at[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    test_set_camera(s, from, at, up, 14.0f);
    return s;
}

static const test_render furnace_render = {W, H, 8, 8, 1000, PW_LIGHT_MODE_MIS, 3, 0};

/* Every channel of every pixel exactly a L: one bounce off a convex
 * object, which escapes to the sky with weight a. */
static void expect_furnace_image(const float *img, const char *what)
{
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 3; c++) {
            double want = (double)furnace_albedo[c] * furnace_sky[c] * furnace_scale;
            if (fabs(img[3 * i + c] - want) > 1e-6 * want)
                fail_msg("%s: pixel %d channel %d = %.8g, expected a L = %.8g", what, i, c, img[3 * i + c], want);
        }
}

static void furnace_sphere_and_cube(void **state)
{
    (void)state;
    pw_scene *s = furnace("API furnace sphere");
    const float centre[3] = {0, 0, 0};
    uint32_t m = add_lambert(s, furnace_albedo[0], furnace_albedo[1], furnace_albedo[2]);
    assert_int_equal(pw_scene_add_sphere(s, centre, 1.0f, m), PW_OK);
    float *img = test_render_image(s, &furnace_render);
    expect_furnace_image(img, "Lambert sphere in a uniform sky");
    free(img);
    pw_scene_free(s);

    s = furnace("API furnace cube");
    cube c;
    make_cube(&c);
    pw_mesh_desc md = cube_desc(&c);
    test_add_mesh(s, &md, add_lambert(s, furnace_albedo[0], furnace_albedo[1], furnace_albedo[2]));
    img = test_render_image(s, &furnace_render);
    expect_furnace_image(img, "Lambert cube mesh (normals, uvs, a zero-area triangle) in a uniform sky");
    free(img);
    pw_scene_free(s);
    printf("a Lambert sphere and a Lambert cube of albedo a in a uniform sky L are a L in every pixel\n");
}

/* ---- a gradient sky ---- */

/* A Lambert plane under the sky mid + slope d.y (pw_scene_set_sky: mid =
 * scale (top + bottom) / 2, slope = scale (top - bottom) / 2) reflects
 * a (mid + 2/3 slope) from above, where the cosine-weighted mean of d.y
 * over the upper hemisphere is 2/3, and a (mid - 2/3 slope) from below
 * (two-sided shading). One bounce a sample; the image mean of each channel
 * must lie within 5 standard errors, which are below 0.3% of it: a sky
 * upside down, or its scale or slope lost, is off by more than 10%. */
static void gradient_sky_plane(void **state)
{
    (void)state;
    const float top[3] = {1.0f, 0.8f, 0.4f}, bottom[3] = {0.2f, 0.4f, 0.6f}, scale = 1.5f;
    const float rho[3] = {0.8f, 0.5f, 0.3f};
    const float cams[2][3] = {{0, 4, 3}, {1, -3, 2}}, at[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    for (int k = 0; k < 2; k++) {
        pw_scene *s = test_new_scene("API gradient sky");
        assert_int_equal(pw_scene_set_sky(s, top, bottom, scale), PW_OK);
        test_set_camera(s, cams[k], at, up, 30.0f);
        add_ground(s, 100.0f, add_lambert(s, rho[0], rho[1], rho[2]));
        test_render o = {W, H, 64, 8, 1000, PW_LIGHT_MODE_MIS, 5, 0};
        float *img = test_render_image(s, &o);
        for (int c = 0; c < 3; c++) {
            double mid = 0.5 * scale * ((double)top[c] + bottom[c]), slope = 0.5 * scale * ((double)top[c] - bottom[c]);
            double want = rho[c] * (mid + (k ? -2.0 : 2.0) / 3.0 * slope);
            double v[W * H];
            for (int i = 0; i < W * H; i++)
                v[i] = img[3 * i + c];
            test_stats st = test_stats_of(v, W * H);
            printf("gradient sky, seen from %s, channel %d: mean %.6f, expected %.6f (%.2f se, se %.3f%%)\n",
                   k ? "below" : "above", c, st.mean, want, (st.mean - want) / st.se, 100.0 * st.se / want);
            assert_true(st.se < 3e-3 * want);
            if (!(fabs(st.mean - want) <= 5.0 * st.se))
                fail_msg("gradient sky from %s, channel %d: mean %.6f, expected %.6f", k ? "below" : "above", c,
                         st.mean, want);
        }
        free(img);
        pw_scene_free(s);
    }
}

/* ---- point, distant and spot lights ---- */

static const float lit_albedo[3] = {0.5f, 0.6f, 0.7f};

/* What a sample at the point (x, 0, z) of the Lambert plane gets from
 * light l (the only light, the sky black): a / pi E, E the irradiance. */
static double lit_radiance(const pw_light_desc *l, double x, double z, int c)
{
    double a = lit_albedo[c] / M_PI, in = l->intensity[c];
    if (l->kind == PW_LIGHT_KIND_DISTANT) {
        double d[3] = {l->direction[0], l->direction[1], l->direction[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        return a * in * fmax(0.0, -d[1] / len);
    }
    double v[3] = {l->position[0] - x, l->position[1], l->position[2] - z};
    double d2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2], d = sqrt(d2);
    double e = in * v[1] / d / d2;
    if (l->kind == PW_LIGHT_KIND_SPOT) {
        const float *ax = l->direction;
        double alen = sqrt((double)ax[0] * ax[0] + (double)ax[1] * ax[1] + (double)ax[2] * ax[2]);
        double cos_axis = -(v[0] * ax[0] + v[1] * ax[1] + v[2] * ax[2]) / (d * alen);
        double lo = cos(l->cone_angle_deg * M_PI / 180.0);
        double hi = cos((l->cone_angle_deg - l->cone_delta_deg) * M_PI / 180.0);
        double t = fmin(fmax((cos_axis - lo) / (hi - lo), 0.0), 1.0);
        e *= t * t * (3.0 - 2.0 * t);
    }
    return a * e;
}

/* The closed form over pixel (px, py), through the renderer's own camera:
 * its least and most on a 17x17 grid of the pixel's points, edges
 * included, and its mean over the pixel by the trapezoid rule on them. */
typedef struct pixel_form {
    double lo, hi, mean;
} pixel_form;

static pixel_form closed_form_over_pixel(const pw_camera *cam, const pw_light_desc *l, int px, int py, int c)
{
    pixel_form pf = {INFINITY, -INFINITY, 0.0};
    for (int j = 0; j <= 16; j++)
        for (int i = 0; i <= 16; i++) {
            pw_ray r = pw_camera_ray(cam, (float)px + i / 16.0f, (float)py + j / 16.0f, 0.5f, 0.5f);
            double t = -(double)r.o.y / r.d.y;
            double f = lit_radiance(l, r.o.x + t * r.d.x, r.o.z + t * r.d.z, c);
            double w = (i == 0 || i == 16 ? 0.5 : 1.0) * (j == 0 || j == 16 ? 0.5 : 1.0);
            pf.lo = fmin(pf.lo, f);
            pf.hi = fmax(pf.hi, f);
            pf.mean += w * f / 256.0;
        }
    return pf;
}

/* Pixels of the spot's image wholly outside its cone, wholly in its full
 * intensity, and the others (the falloff band and its edges). */
typedef struct pixel_classes {
    int dark, full, band;
} pixel_classes;

/* The mean over the image of (pixel - its closed-form mean) within 5
 * standard errors (and 2e-4 of the image's mean for the quadrature); a
 * falloff band 20% too wide or narrow is far outside it, while a pixel
 * that the band crosses may still lie inside its own range. */
static void expect_mean_error(const double *err, double mean_expected, const char *what, int c)
{
    test_stats st = test_stats_of(err, W * H);
    if (!(fabs(st.mean) <= 5.0 * st.se + 2e-4 * mean_expected))
        fail_msg("%s, channel %d: pixels exceed their closed form by %.4g on average (%.1f standard errors; the "
                 "image's mean %.6g)", what, c, st.mean, st.se > 0 ? st.mean / st.se : INFINITY, mean_expected);
}

/* Renders the lit plane; checks every pixel against its closed form's
 * range, widened by float rounding (1e-4 of the pixel's value and 1e-5 of
 * the peak), and the image against the forms' means. A spot's pixels are
 * counted by where they lie: where it equals the point light it is at
 * full intensity. */
static pixel_classes check_lit_plane(const pw_light_desc *l, const char *what)
{
    pw_scene *s = test_new_scene(what);
    add_ground(s, 10.0f, add_lambert(s, lit_albedo[0], lit_albedo[1], lit_albedo[2]));
    assert_int_equal(pw_scene_add_light(s, l), PW_OK);
    const float from[3] = {0, 3, 0}, at[3] = {0, 0, 0}, up[3] = {0, 0, -1};
    test_set_camera(s, from, at, up, 70.0f);
    test_render o = {W, H, 8, 1, 100, PW_LIGHT_MODE_MIS, 9, 0};
    float *img = test_render_image(s, &o);
    pw_camera cam = pw_camera_make(&s->cam, 1.0f);
    pw_camera_set_raster(&cam, W, H);
    pw_light_desc as_point = *l;
    as_point.kind = PW_LIGHT_KIND_POINT;
    double peak = l->kind == PW_LIGHT_KIND_DISTANT ? lit_radiance(l, 0, 0, 2)
                                                   : lit_radiance(&as_point, l->position[0], l->position[2], 2);
    pixel_classes pc = {0, 0, 0};
    for (int c = 0; c < 3; c++) {
        double err[W * H], sum = 0.0;
        for (int i = 0; i < W * H; i++) {
            pixel_form pf = closed_form_over_pixel(&cam, l, i % W, i / W, c);
            double got = img[3 * i + c], slack = 1e-4 * pf.hi + 1e-5 * peak;
            if (!(got >= pf.lo - slack && got <= pf.hi + slack))
                fail_msg("%s: pixel (%d, %d) channel %d = %.7g, outside the closed form's [%.7g, %.7g]", what, i % W,
                         i / W, c, got, pf.lo, pf.hi);
            if (pf.hi == 0.0 && got != 0.0)
                fail_msg("%s: pixel (%d, %d) outside the cone is %g, not 0", what, i % W, i / W, got);
            err[i] = got - pf.mean;
            sum += pf.mean;
            if (l->kind != PW_LIGHT_KIND_SPOT || c != 0)
                continue;
            pixel_form point = closed_form_over_pixel(&cam, &as_point, i % W, i / W, c);
            int full = pf.lo == point.lo && pf.hi == point.hi;
            pc.dark += pf.hi == 0.0;
            pc.full += full;
            pc.band += pf.hi > 0.0 && !full;
        }
        expect_mean_error(err, sum / (W * H), what, c);
    }
    free(img);
    pw_scene_free(s);
    return pc;
}

static void lights_in_degrees(void **state)
{
    (void)state;
    const pw_light_desc point = {PW_LIGHT_KIND_POINT, {5, 10, 15}, {0.3f, 1.5f, -0.2f}, {0}, 0, 0};
    const pw_light_desc sun = {PW_LIGHT_KIND_DISTANT, {3, 2, 1}, {NAN, NAN, NAN}, {1, -2, 2}, 0, 0};
    /* Straight down from a height of 2: full intensity within a radius of
     * 2 tan 20 = 0.73 on the plane, none beyond 2 tan 30 = 1.15; the view
     * reaches 3 tan 35 = 2.1. */
    const pw_light_desc spot = {PW_LIGHT_KIND_SPOT, {20, 30, 40}, {0.1f, 2, 0}, {0, -1, 0}, 30.0f, 10.0f};
    check_lit_plane(&point, "point light");
    check_lit_plane(&sun, "distant light");
    pixel_classes pc = check_lit_plane(&spot, "spot light");
    printf("point, distant and spot lights on a Lambert plane: every pixel within its closed form's range, the image "
           "within 5 standard errors of its mean; the spot's pixels: %d outside the cone, %d in its falloff, %d at "
           "full intensity\n", pc.dark, pc.band, pc.full);
    assert_true(pc.dark > 0 && pc.band > 0 && pc.full > 0);
}

/* ---- bad arguments ---- */

/* What a failed call must leave as it was. */
typedef struct scene_snapshot {
    uint32_t spheres, verts, tris, mats, lights;
    int has_normals, has_uvs;
    pw_env env;
    pw_camera_desc cam;
} scene_snapshot;

static scene_snapshot snapshot(const pw_scene *s)
{
    scene_snapshot t;
    memset(&t, 0, sizeof t);
    t.spheres = s->n_spheres;
    t.verts = s->n_verts;
    t.tris = s->n_tris;
    t.mats = s->n_mats;
    t.lights = s->n_delta_lights;
    t.has_normals = s->nrm != NULL;
    t.has_uvs = s->uv != NULL;
    t.env = s->env;
    t.cam = s->cam;
    return t;
}

static void expect_refused(const pw_scene *s, const scene_snapshot *before, pw_status st, const char *message,
                           const char *call)
{
    if (st != PW_ERR_INVALID_ARGUMENT)
        fail_msg("%s: status %d, expected PW_ERR_INVALID_ARGUMENT", call, (int)st);
    if (strcmp(pw_last_error(), message) != 0)
        fail_msg("%s:\n  message  \"%s\"\n  expected \"%s\"", call, pw_last_error(), message);
    scene_snapshot after = snapshot(s);
    if (memcmp(before, &after, sizeof after) != 0)
        fail_msg("%s: the failed call changed the scene", call);
}

/* Runs call, which must fail with exactly message and leave s as it was. */
#define EXPECT_REFUSED(s, call, message)                                                                               \
    do {                                                                                                               \
        scene_snapshot before_ = snapshot(s);                                                                          \
        expect_refused(s, &before_, (call), message, #call);                                                           \
    } while (0)

static void bad_scene_and_material_arguments(void **state)
{
    (void)state;
    pw_scene *s = NULL;
    assert_int_equal(pw_scene_new(NULL, &s), PW_ERR_INVALID_ARGUMENT);
    assert_string_equal(pw_last_error(), "pw_scene_new: name is NULL");
    assert_null(s);
    assert_int_equal(pw_scene_new("x", NULL), PW_ERR_INVALID_ARGUMENT);
    assert_string_equal(pw_last_error(), "pw_scene_new: out is NULL");

    s = test_new_scene("bad materials");
    uint32_t id = 77;
    const pw_material_desc lambert = {.kind = PW_MATERIAL_LAMBERT, .lambert = {{0.5f, 0.5f, 0.5f}}};
    EXPECT_REFUSED(s, pw_scene_add_material(NULL, &lambert, &id), "pw_scene_add_material: scene is NULL");
    EXPECT_REFUSED(s, pw_scene_add_material(s, NULL, &id), "pw_scene_add_material: material is NULL");
    EXPECT_REFUSED(s, pw_scene_add_material(s, &lambert, NULL), "pw_scene_add_material: out_id is NULL");
    struct {
        pw_material_desc d;
        const char *message;
    } bad[] = {
        {{.kind = (pw_material_kind)9}, "pw_scene_add_material: kind 9 is not a pw_material_kind"},
        {{.kind = (pw_material_kind)-1}, "pw_scene_add_material: kind -1 is not a pw_material_kind"},
        {{.kind = PW_MATERIAL_LAMBERT, .lambert = {{0.5f, 1.5f, 0.5f}}},
         "pw_scene_add_material: lambert.albedo[1] is 1.5, outside [0, 1]"},
        {{.kind = PW_MATERIAL_LAMBERT, .lambert = {{NAN, 0.5f, 0.5f}}},
         "pw_scene_add_material: lambert.albedo[0] is NaN"},
        {{.kind = PW_MATERIAL_LAMBERT, .emission = {1, 1, -1}},
         "pw_scene_add_material: emission[2] is -1, negative"},
        {{.kind = PW_MATERIAL_DIELECTRIC, .emission = {INFINITY, 0, 0}, .dielectric = {1.5f}},
         "pw_scene_add_material: emission[0] is infinite"},
        {{.kind = PW_MATERIAL_METAL, .metal = {{0.9f, 0.9f, 0.9f}, 1.25f}},
         "pw_scene_add_material: metal.fuzz is 1.25, outside [0, 1]"},
        {{.kind = PW_MATERIAL_METAL, .metal = {{0.9f, -0.5f, 0.9f}, 0}},
         "pw_scene_add_material: metal.albedo[1] is -0.5, outside [0, 1]"},
        {{.kind = PW_MATERIAL_DIELECTRIC, .dielectric = {0}},
         "pw_scene_add_material: dielectric.ior is 0, not positive"},
        {{.kind = PW_MATERIAL_CONDUCTOR, .conductor = {{0.2f, -0.5f, 1}, {3, 2, 1}, 0.1f}},
         "pw_scene_add_material: conductor.eta[1] is -0.5, not positive"},
        {{.kind = PW_MATERIAL_CONDUCTOR, .conductor = {{0.2f, 0.5f, 1}, {3, 2, -1}, 0.1f}},
         "pw_scene_add_material: conductor.k[2] is -1, negative"},
        {{.kind = PW_MATERIAL_CONDUCTOR, .conductor = {{0.2f, 0.5f, 1}, {3, 2, 1}, NAN}},
         "pw_scene_add_material: conductor.alpha is NaN"},
        {{.kind = PW_MATERIAL_ROUGH_DIELECTRIC, .rough_dielectric = {INFINITY, 0.1f}},
         "pw_scene_add_material: rough_dielectric.ior is infinite"},
        {{.kind = PW_MATERIAL_ROUGH_DIELECTRIC, .rough_dielectric = {1.5f, -0.25f}},
         "pw_scene_add_material: rough_dielectric.alpha is -0.25, negative"},
        {{.kind = PW_MATERIAL_METALLIC_ROUGHNESS, .metallic_roughness = {{1.01f, 0.5f, 0.5f}, 0, 0.5f}},
         "pw_scene_add_material: metallic_roughness.base_color[0] is 1.01, outside [0, 1]"},
        {{.kind = PW_MATERIAL_METALLIC_ROUGHNESS, .metallic_roughness = {{0.5f, 0.5f, 0.5f}, 2, 0.5f}},
         "pw_scene_add_material: metallic_roughness.metallic is 2, outside [0, 1]"},
        {{.kind = PW_MATERIAL_METALLIC_ROUGHNESS, .metallic_roughness = {{0.5f, 0.5f, 0.5f}, 1, -0.125f}},
         "pw_scene_add_material: metallic_roughness.roughness is -0.125, outside [0, 1]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_REFUSED(s, pw_scene_add_material(s, &bad[i].d, &id), bad[i].message);
        assert_int_equal(id, 77); /* untouched */
    }
    pw_scene_free(s);
}

/* A scene with two materials, a sphere, a mesh and a light to refuse
 * things to. */
static pw_scene *scene_to_refuse(void)
{
    pw_scene *s = test_new_scene("bad geometry");
    add_lambert(s, 0.5f, 0.5f, 0.5f);
    uint32_t m = add_lambert(s, 0.2f, 0.2f, 0.2f);
    const float c[3] = {0, 0, 0};
    assert_int_equal(pw_scene_add_sphere(s, c, 1.0f, m), PW_OK);
    add_ground(s, 1.0f, m);
    const pw_light_desc l = {PW_LIGHT_KIND_POINT, {1, 1, 1}, {0, 2, 0}, {0}, 0, 0};
    assert_int_equal(pw_scene_add_light(s, &l), PW_OK);
    return s;
}

static void bad_geometry_arguments(void **state)
{
    (void)state;
    pw_scene *s = scene_to_refuse();
    const float ok[3] = {0, 1, 0}, nan3[3] = {0, NAN, 0};
    EXPECT_REFUSED(s, pw_scene_add_sphere(NULL, ok, 1, 0), "pw_scene_add_sphere: scene is NULL");
    EXPECT_REFUSED(s, pw_scene_add_sphere(s, NULL, 1, 0), "pw_scene_add_sphere: centre is NULL");
    EXPECT_REFUSED(s, pw_scene_add_sphere(s, nan3, 1, 0), "pw_scene_add_sphere: centre[1] is NaN");
    EXPECT_REFUSED(s, pw_scene_add_sphere(s, ok, 0, 0), "pw_scene_add_sphere: radius is 0, not positive");
    EXPECT_REFUSED(s, pw_scene_add_sphere(s, ok, -2, 0), "pw_scene_add_sphere: radius is -2, not positive");
    EXPECT_REFUSED(s, pw_scene_add_sphere(s, ok, INFINITY, 0), "pw_scene_add_sphere: radius is infinite");
    EXPECT_REFUSED(s, pw_scene_add_sphere(s, ok, 1, 2),
                   "pw_scene_add_sphere: material 2 does not exist (ids go up to 1)");
    pw_scene *empty = test_new_scene("no materials");
    EXPECT_REFUSED(empty, pw_scene_add_sphere(empty, ok, 1, 0),
                   "pw_scene_add_sphere: material 0 does not exist (the scene has no materials yet)");
    pw_scene_free(empty);

    /* A quad of 4 vertices with normals and uvs; each case spoils one thing. */
    float p[12] = {0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1}, n[12] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
    float uv[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    uint32_t idx[9] = {0, 1, 2, 0, 2, 3, 1, 2, 3};
    const pw_mesh_desc good = {4, p, n, uv, 3, idx};
    pw_mesh_desc m;
    EXPECT_REFUSED(s, pw_scene_add_mesh(NULL, &good, 0), "pw_scene_add_mesh: scene is NULL");
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, NULL, 0), "pw_scene_add_mesh: mesh is NULL");
    m = good, m.vertex_count = 0;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &m, 0), "pw_scene_add_mesh: vertex_count is 0");
    m = good, m.triangle_count = 0;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &m, 0), "pw_scene_add_mesh: triangle_count is 0");
    m = good, m.positions = NULL;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &m, 0), "pw_scene_add_mesh: positions is NULL");
    m = good, m.indices = NULL;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &m, 0), "pw_scene_add_mesh: indices is NULL");
    m = good, m.vertex_count = 0x40000000u; /* refused before any array is read */
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &m, 0),
                   "pw_scene_add_mesh: 1073741824 vertices and 3 triangles take the scene past 2^30 of either");
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &good, 5), "pw_scene_add_mesh: material 5 does not exist (ids go up to 1)");
    p[4] = NAN;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &good, 0), "pw_scene_add_mesh: positions[4] (vertex 1) is NaN");
    p[4] = 0;
    n[6] = -INFINITY;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &good, 0), "pw_scene_add_mesh: normals[6] (vertex 2) is infinite");
    n[6] = 3e19f;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &good, 0), "pw_scene_add_mesh: normals of vertex 2 (3e+19, 1, 0) are too "
                                                      "long: the squared length overflows float");
    n[6] = 0;
    uv[5] = NAN;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &good, 0), "pw_scene_add_mesh: uvs[5] (vertex 2) is NaN");
    uv[5] = 1;
    idx[7] = 9;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &good, 0),
                   "pw_scene_add_mesh: indices[7] (triangle 2) is 9, out of range for 4 vertices");
    idx[7] = 4;
    EXPECT_REFUSED(s, pw_scene_add_mesh(s, &good, 0),
                   "pw_scene_add_mesh: indices[7] (triangle 2) is 4, out of range for 4 vertices");
    idx[7] = 2;
    /* Zero area is fine: a triangle of one vertex three times, one of three collinear points. */
    idx[6] = idx[7] = idx[8] = 3;
    p[6] = 0.5f, p[8] = 0.0f; /* vertex 2 between vertices 0 and 1 */
    assert_int_equal(pw_scene_add_mesh(s, &good, 0), PW_OK);
    pw_scene_free(s);
}

static void bad_light_and_sky_arguments(void **state)
{
    (void)state;
    pw_scene *s = scene_to_refuse();
    const pw_light_desc spot = {PW_LIGHT_KIND_SPOT, {1, 2, 3}, {0, 2, 0}, {0, -1, 0}, 30.0f, 5.0f};
    pw_light_desc l;
    EXPECT_REFUSED(s, pw_scene_add_light(NULL, &spot), "pw_scene_add_light: scene is NULL");
    EXPECT_REFUSED(s, pw_scene_add_light(s, NULL), "pw_scene_add_light: light is NULL");
    l = spot, l.kind = (pw_light_kind)3;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: kind 3 is not a pw_light_kind");
    l = spot, l.intensity[1] = -1;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: intensity[1] is -1, negative");
    l = spot, l.intensity[0] = NAN;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: intensity[0] is NaN");
    l = spot, l.kind = PW_LIGHT_KIND_POINT, l.position[2] = INFINITY;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: position[2] is infinite");
    l = spot, l.kind = PW_LIGHT_KIND_DISTANT, l.direction[1] = 0;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: direction (0, 0, 0) has zero length");
    l = spot, l.direction[2] = NAN;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: direction[2] is NaN");
    l = spot, l.direction[0] = 3e19f, l.direction[1] = 3e19f;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l),
                   "pw_scene_add_light: direction (3e+19, 3e+19, 0) is too long to normalise in float");
    l = spot, l.cone_angle_deg = -1;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: cone_angle_deg is -1, outside [0, 180]");
    l = spot, l.cone_angle_deg = 190;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: cone_angle_deg is 190, outside [0, 180]");
    l = spot, l.cone_angle_deg = NAN;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l), "pw_scene_add_light: cone_angle_deg is NaN");
    l = spot, l.cone_delta_deg = 70;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l),
                   "pw_scene_add_light: cone_delta_deg is 70, outside [0, 2 cone_angle_deg = 60]");
    l = spot, l.cone_delta_deg = -1;
    EXPECT_REFUSED(s, pw_scene_add_light(s, &l),
                   "pw_scene_add_light: cone_delta_deg is -1, outside [0, 2 cone_angle_deg = 60]");
    /* What a kind does not use is not looked at. */
    l = spot, l.kind = PW_LIGHT_KIND_DISTANT, l.position[0] = NAN, l.cone_angle_deg = NAN;
    assert_int_equal(pw_scene_add_light(s, &l), PW_OK);
    l = spot, l.kind = PW_LIGHT_KIND_POINT, l.direction[0] = NAN, l.cone_delta_deg = -5;
    assert_int_equal(pw_scene_add_light(s, &l), PW_OK);
    /* The same cone through the API and the internal builder it stands for. */
    assert_int_equal(pw_scene_add_light(s, &spot), PW_OK);
    const pw_spot_cone *cone = &s->delta_cones[s->n_delta_lights - 1];
    assert_true(cone->cos_end == (float)cos(30.0 * M_PI / 180.0));
    assert_true(cone->cos_start == (float)cos(25.0 * M_PI / 180.0));

    const float top[3] = {1, 1, 1}, neg[3] = {0.5f, -1, 0.5f};
    EXPECT_REFUSED(s, pw_scene_set_sky(NULL, top, top, 1), "pw_scene_set_sky: scene is NULL");
    EXPECT_REFUSED(s, pw_scene_set_sky(s, NULL, top, 1), "pw_scene_set_sky: top is NULL");
    EXPECT_REFUSED(s, pw_scene_set_sky(s, top, NULL, 1), "pw_scene_set_sky: bottom is NULL");
    EXPECT_REFUSED(s, pw_scene_set_sky(s, top, neg, 1), "pw_scene_set_sky: bottom[1] is -1, negative");
    EXPECT_REFUSED(s, pw_scene_set_sky(s, neg, top, 1), "pw_scene_set_sky: top[1] is -1, negative");
    EXPECT_REFUSED(s, pw_scene_set_sky(s, top, top, NAN), "pw_scene_set_sky: scale is NaN");
    EXPECT_REFUSED(s, pw_scene_set_sky(s, top, top, -2), "pw_scene_set_sky: scale is -2, negative");
    assert_int_equal(pw_renderer_set_progress(NULL, NULL, NULL), PW_ERR_INVALID_ARGUMENT);
    assert_string_equal(pw_last_error(), "pw_renderer_set_progress: renderer is NULL");
    pw_scene_free(s);
}

/* ---- the scene's contents ---- */

/* Meshes land after what the scene holds, their indices moved past its
 * vertices; a mesh without normals or uvs next to one with them gets
 * zeros (the geometric normal, uv (0, 0)); spheres, materials and the
 * sky are what was asked for. */
static void contents_of_a_built_scene(void **state)
{
    (void)state;
    pw_scene *s = test_new_scene("contents");
    uint32_t a = add_lambert(s, 0.1f, 0.2f, 0.3f), b = add_lambert(s, 0.4f, 0.5f, 0.6f);
    assert_int_equal(a, 0);
    assert_int_equal(b, 1);
    add_ground(s, 2.0f, a); /* 4 vertices, no normals or uvs */
    cube c;
    make_cube(&c);
    pw_mesh_desc md = cube_desc(&c);
    test_add_mesh(s, &md, b);
    const float centre[3] = {1, 2, 3};
    assert_int_equal(pw_scene_add_sphere(s, centre, 0.5f, b), PW_OK);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_string_equal(info.name, "contents");
    assert_int_equal(info.triangles, 15);
    assert_int_equal(info.spheres, 1);
    assert_int_equal(info.materials, 2);
    assert_int_equal(s->n_verts, 28);
    assert_memory_equal(s->pos + 4, c.pos, sizeof c.pos);
    assert_memory_equal(s->nrm + 4, c.nrm, sizeof c.nrm);
    assert_memory_equal(s->uv + 8, c.uv, sizeof c.uv);
    for (int i = 0; i < 4; i++) {
        assert_true(v3_is_zero(s->nrm[i]));
        assert_true(s->uv[2 * i] == 0.0f && s->uv[2 * i + 1] == 0.0f);
    }
    for (int i = 0; i < 39; i++)
        assert_int_equal(s->tri_idx[6 + i], 4 + c.idx[i]);
    assert_int_equal(s->tri_mat[0], a);
    assert_int_equal(s->tri_mat[14], b);
    assert_true(s->spheres[0].c.x == 1 && s->spheres[0].c.y == 2 && s->spheres[0].c.z == 3 &&
                s->spheres[0].r == 0.5f);
    assert_int_equal(s->sphere_mat[0], b);
    pw_material want = pw_lambert(0.4f, 0.5f, 0.6f);
    assert_memory_equal(&s->mats[b], &want, sizeof want);
    /* A gradient replaces the uniform sky, a uniform one the gradient. */
    const float top[3] = {1, 2, 3}, bottom[3] = {0, 0.5f, 0};
    assert_int_equal(pw_scene_set_sky(s, top, bottom, 0.5f), PW_OK);
    assert_int_equal(s->env.type, PW_ENV_GRADIENT);
    assert_true(s->env.top.z == 3 && s->env.bottom.y == 0.5f && s->env.scale == 0.5f);
    assert_int_equal(pw_scene_set_sky(s, top, top, 1), PW_OK);
    assert_int_equal(s->env.type, PW_ENV_CONSTANT);
    pw_scene_free(s);
}

/* Every kind of material through the API is the internal constructor's
 * material to the bit, emission and two-sidedness included. */
static void materials_match_the_constructors(void **state)
{
    (void)state;
    pw_scene *s = test_new_scene("materials");
    const pw_material_desc d[6] = {
        {.kind = PW_MATERIAL_LAMBERT, .lambert = {{0.1f, 0.2f, 0.3f}}},
        {.kind = PW_MATERIAL_METAL, .emission = {1, 2, 3}, .metal = {{0.7f, 0.6f, 0.5f}, 0.25f}},
        {.kind = PW_MATERIAL_DIELECTRIC, .dielectric = {1.33f}},
        {.kind = PW_MATERIAL_CONDUCTOR, .conductor = {{0.143f, 0.375f, 1.442f}, {3.983f, 2.386f, 1.603f}, 0.2f}},
        {.kind = PW_MATERIAL_ROUGH_DIELECTRIC, .rough_dielectric = {1.5f, 0.3f}},
        {.kind = PW_MATERIAL_METALLIC_ROUGHNESS, .emission = {0, 4, 0}, .two_sided = 1,
         .metallic_roughness = {{0.9f, 0.6f, 0.3f}, 1.0f, 0.5f}},
    };
    pw_material want[6] = {
        pw_lambert(0.1f, 0.2f, 0.3f),
        pw_emissive(pw_metal(0.7f, 0.6f, 0.5f, 0.25f), 1, 2, 3),
        pw_dielectric(1.33f),
        pw_conductor(v3(0.143f, 0.375f, 1.442f), v3(3.983f, 2.386f, 1.603f), 0.2f),
        pw_rough_dielectric(1.5f, 0.3f),
        pw_emissive(pw_metallic_roughness(v3(0.9f, 0.6f, 0.3f), 1.0f, 0.5f), 0, 4, 0),
    };
    want[5].flags |= PW_MATF_TWO_SIDED;
    for (int i = 0; i < 6; i++) {
        assert_int_equal(test_add_material(s, d[i]), i);
        if (memcmp(&s->mats[i], &want[i], sizeof want[i]) != 0)
            fail_msg("material %d (kind %d) differs from its constructor's", i, (int)d[i].kind);
    }
    /* A rough dielectric smoother than GGX resolves is the smooth one. */
    const pw_material_desc smooth = {.kind = PW_MATERIAL_ROUGH_DIELECTRIC, .rough_dielectric = {1.5f, 0.0f}};
    assert_int_equal(s->mats[test_add_material(s, smooth)].type, PW_MAT_DIELECTRIC);
    pw_scene_free(s);
}

/* ---- the same scenes as a built-in and a pbrt file ---- */

/* toy-small (BENCHMARKS.md B1b) through the API: nine spheres (a ground,
 * three Lambert, three toy metals, glass, an emitter), the white-to-blue
 * gradient sky at 0.3 and the thin-lens camera. */
static pw_scene *toy_small_by_api(void)
{
    static const struct {
        float c[3], r;
        pw_material_desc m;
    } spheres[9] = {
        {{0, -100.5f, -1}, 100, {.kind = PW_MATERIAL_LAMBERT, .lambert = {{.8f, .8f, .8f}}}},
        {{2, 0, -1}, .5f, {.kind = PW_MATERIAL_LAMBERT, .lambert = {{.8f, .4f, .4f}}}},
        {{0, 0, -1}, .5f, {.kind = PW_MATERIAL_LAMBERT, .lambert = {{.4f, .8f, .4f}}}},
        {{-2, 0, -1}, .5f, {.kind = PW_MATERIAL_METAL, .metal = {{.4f, .4f, .8f}, 0}}},
        {{2, 0, 1}, .5f, {.kind = PW_MATERIAL_METAL, .metal = {{.4f, .8f, .4f}, 0}}},
        {{0, 0, 1}, .5f, {.kind = PW_MATERIAL_METAL, .metal = {{.4f, .8f, .4f}, .2f}}},
        {{-2, 0, 1}, .5f, {.kind = PW_MATERIAL_METAL, .metal = {{.4f, .8f, .4f}, .6f}}},
        {{.5f, 1, .5f}, .5f, {.kind = PW_MATERIAL_DIELECTRIC, .dielectric = {1.5f}}},
        {{-1.5f, 1.5f, 0}, .3f, {.kind = PW_MATERIAL_LAMBERT, .emission = {30, 25, 15}, .lambert = {{.8f, .6f, .2f}}}},
    };
    pw_scene *s = test_new_scene("toy-small by the API");
    for (int i = 0; i < 9; i++)
        assert_int_equal(pw_scene_add_sphere(s, spheres[i].c, spheres[i].r, test_add_material(s, spheres[i].m)), PW_OK);
    const float top[3] = {0.5f, 0.7f, 1.0f}, bottom[3] = {1, 1, 1};
    assert_int_equal(pw_scene_set_sky(s, top, bottom, 0.3f), PW_OK);
    pw_camera_params cam = {{0, 2, 3}, {0, 0, 0}, {0, 1, 0}, 60.0f, 0.02f, 3.0f};
    assert_int_equal(pw_scene_set_camera(s, &cam), PW_OK);
    return s;
}

/* Spheres, materials, sky and camera equal the built-in's to the bit, and
 * so does the image. The one difference is t_min, the toy tracer's
 * minimum hit distance, which only the built-in sphere scenes use and the
 * API leaves out: copied over for the image. */
static void toy_small_equals_the_builtin(void **state)
{
    (void)state;
    pw_scene *ref, *s = toy_small_by_api();
    assert_int_equal(pw_scene_builtin("toy-small", &ref), PW_OK);
    assert_int_equal(s->n_spheres, ref->n_spheres);
    assert_int_equal(s->n_mats, ref->n_mats);
    assert_memory_equal(s->spheres, ref->spheres, ref->n_spheres * sizeof *ref->spheres);
    assert_memory_equal(s->sphere_mat, ref->sphere_mat, ref->n_spheres * sizeof *ref->sphere_mat);
    assert_memory_equal(s->mats, ref->mats, ref->n_mats * sizeof *ref->mats);
    assert_memory_equal(&s->env, &ref->env, sizeof ref->env);
    assert_memory_equal(&s->cam, &ref->cam, sizeof ref->cam);
    s->t_min = ref->t_min;
    pw_settings def;
    pw_settings_default(ref, &def);
    test_render o = {64, 36, 4, def.max_depth, def.rr_depth, def.light_mode, 1, 0};
    float *a = render_on(s, &o, PW_BACKEND_CPU, NULL, NULL), *b = render_on(ref, &o, PW_BACKEND_CPU, NULL, NULL);
    assert_memory_equal(a, b, sizeof *a * 3 * 64 * 36);
    printf("toy-small built through the API equals the built-in scene and renders the same image to the bit\n");
    free(a);
    free(b);
    pw_scene_free(s);
    pw_scene_free(ref);
}

static const char pbrt_pair[] =
    "WorldBegin\n"
    "LightSource \"point\" \"point3 from\" [1 2 3] \"rgb I\" [5 10 15]\n"
    "LightSource \"distant\" \"point3 from\" [0 0 0] \"point3 to\" [1 -2 2] \"rgb L\" [3 2 1]\n"
    "LightSource \"spot\" \"point3 from\" [0 4 0] \"point3 to\" [0.5 0 0.25] \"float coneangle\" 35\n"
    "  \"float conedeltaangle\" 12.5 \"rgb I\" [40 30 20]\n"
    "Material \"diffuse\" \"rgb reflectance\" [0.8 0.5 0.25]\n"
    "Shape \"trianglemesh\" \"point3 P\" [-1 0 -1 -1 0 1 1 0 1 1 0 -1] \"normal N\" [0 1 0 0 1 0 0 1 0 0 1 0]\n"
    "  \"point2 uv\" [0 0 0 1 1 1 1 0] \"integer indices\" [0 1 2 0 2 3]\n"
    "AttributeBegin\n"
    "  Translate 1 0.5 -2\n"
    "  Material \"conductor\" \"rgb eta\" [0.2 0.9 1.1] \"rgb k\" [3.9 2.4 2.1] \"float roughness\" 0.25\n"
    "    \"bool remaproughness\" false\n"
    "  Shape \"sphere\" \"float radius\" 0.5\n"
    "AttributeEnd\n"
    "AttributeBegin\n"
    "  Translate -1 0.75 -2\n"
    "  Material \"dielectric\" \"float eta\" 1.33\n"
    "  Shape \"sphere\" \"float radius\" 0.75\n"
    "AttributeEnd\n"
    "Material \"dielectric\" \"float eta\" 1.5 \"float roughness\" 0.125 \"bool remaproughness\" false\n"
    "Shape \"sphere\" \"float radius\" 0.25\n";

/* The pbrt file above through the API: its point, distant and spot lights
 * (coneangle and conedeltaangle in degrees), the diffuse quad with normals
 * and uvs, a conductor, a glass and a rough glass sphere. */
static pw_scene *pbrt_pair_by_api(void)
{
    pw_scene *s = test_new_scene("pbrt pair by the API");
    const pw_light_desc lights[3] = {
        {PW_LIGHT_KIND_POINT, {5, 10, 15}, {1, 2, 3}, {0}, 0, 0},
        {PW_LIGHT_KIND_DISTANT, {3, 2, 1}, {0}, {1, -2, 2}, 0, 0},
        {PW_LIGHT_KIND_SPOT, {40, 30, 20}, {0, 4, 0}, {0.5f, -4, 0.25f}, 35.0f, 12.5f},
    };
    for (int i = 0; i < 3; i++)
        assert_int_equal(pw_scene_add_light(s, &lights[i]), PW_OK);
    const float p[12] = {-1, 0, -1, -1, 0, 1, 1, 0, 1, 1, 0, -1}, n[12] = {0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0};
    const float uv[8] = {0, 0, 0, 1, 1, 1, 1, 0};
    const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    pw_mesh_desc quad = {4, p, n, uv, 2, idx};
    test_add_mesh(s, &quad, add_lambert(s, 0.8f, 0.5f, 0.25f));
    const struct {
        float c[3], r;
        pw_material_desc m;
    } spheres[3] = {
        {{1, 0.5f, -2}, 0.5f,
         {.kind = PW_MATERIAL_CONDUCTOR, .conductor = {{0.2f, 0.9f, 1.1f}, {3.9f, 2.4f, 2.1f}, 0.25f}}},
        {{-1, 0.75f, -2}, 0.75f, {.kind = PW_MATERIAL_DIELECTRIC, .dielectric = {1.33f}}},
        {{0, 0, 0}, 0.25f, {.kind = PW_MATERIAL_ROUGH_DIELECTRIC, .rough_dielectric = {1.5f, 0.125f}}},
    };
    for (int i = 0; i < 3; i++)
        assert_int_equal(pw_scene_add_sphere(s, spheres[i].c, spheres[i].r, test_add_material(s, spheres[i].m)), PW_OK);
    return s;
}

/* Materials are compared primitive by primitive: the reader may number
 * them otherwise. */
static void pbrt_file_equals_the_api_scene(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/pw_scene_api_%d.pbrt", (int)getpid());
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_true(fputs(pbrt_pair, f) >= 0);
    fclose(f);
    pw_scene *ref;
    if (pw_scene_load(path, &ref) != PW_OK)
        fail_msg("%s: %s", path, pw_last_error());
    remove(path);
    pw_scene *s = pbrt_pair_by_api();
    assert_int_equal(s->n_delta_lights, ref->n_delta_lights);
    assert_memory_equal(s->delta_lights, ref->delta_lights, 3 * sizeof *s->delta_lights);
    assert_memory_equal(s->delta_cones, ref->delta_cones, 3 * sizeof *s->delta_cones);
    assert_memory_equal(s->delta_type, ref->delta_type, 3 * sizeof *s->delta_type);
    assert_int_equal(s->n_verts, ref->n_verts);
    assert_int_equal(s->n_tris, ref->n_tris);
    assert_memory_equal(s->pos, ref->pos, 4 * sizeof *s->pos);
    assert_memory_equal(s->nrm, ref->nrm, 4 * sizeof *s->nrm);
    assert_memory_equal(s->uv, ref->uv, 8 * sizeof *s->uv);
    assert_memory_equal(s->tri_idx, ref->tri_idx, 6 * sizeof *s->tri_idx);
    assert_int_equal(s->n_spheres, ref->n_spheres);
    assert_memory_equal(s->spheres, ref->spheres, 3 * sizeof *s->spheres);
    for (uint32_t i = 0; i < 3; i++)
        assert_memory_equal(&s->mats[s->sphere_mat[i]], &ref->mats[ref->sphere_mat[i]], sizeof(pw_material));
    for (uint32_t i = 0; i < 2; i++)
        assert_memory_equal(&s->mats[s->tri_mat[i]], &ref->mats[ref->tri_mat[i]], sizeof(pw_material));
    printf("a pbrt file's point, distant and spot lights, mesh and materials equal the API's to the bit\n");
    pw_scene_free(s);
    pw_scene_free(ref);
}

/* ---- progress ---- */

#define MAX_CALLS 64

/* What the progress callback saw, and what it is to do. */
typedef struct progress_log {
    int calls, done[MAX_CALLS], total[MAX_CALLS];
    int stop_at;   /* return nonzero once done reaches it (0: never) */
    int cancel_at; /* call pw_renderer_cancel once done reaches it (0: never) */
    int nest;      /* call pw_renderer_render from inside the callback */
    pw_renderer *r;
    float *img; /* not NULL: read the image between passes, which must be the furnace's */
    pw_status nested;
    char nested_message[256];
} progress_log;

static int record_progress(int done, int total, void *user)
{
    progress_log *p = user;
    if (p->calls < MAX_CALLS) {
        p->done[p->calls] = done;
        p->total[p->calls] = total;
    }
    p->calls++;
    if (p->img) {
        assert_int_equal(pw_renderer_image(p->r, p->img), PW_OK);
        expect_furnace_image(p->img, "the image between two passes");
    }
    if (p->nest) {
        p->nested = pw_renderer_render(p->r, 1);
        snprintf(p->nested_message, sizeof p->nested_message, "%s", pw_last_error());
    }
    if (p->cancel_at && done >= p->cancel_at)
        pw_renderer_cancel(p->r);
    return p->stop_at && done >= p->stop_at;
}

/* The calls of one render of spp: its total each time, done growing by 1,
 * then by the same or twice the last pass (the last pass what is left),
 * up to spp. */
static void expect_passes(const progress_log *p, int spp)
{
    assert_true(p->calls >= 1 && p->calls <= MAX_CALLS);
    int prev = 0, prev_pass = 0;
    for (int i = 0; i < p->calls; i++) {
        int pass = p->done[i] - prev;
        assert_int_equal(p->total[i], spp);
        if (i == 0)
            assert_int_equal(pass, 1);
        else if (i < p->calls - 1)
            assert_true(pass == prev_pass || pass == 2 * prev_pass);
        else
            assert_true(pass >= 1 && pass <= 2 * prev_pass);
        prev = p->done[i];
        prev_pass = pass;
    }
    assert_int_equal(p->done[p->calls - 1], spp);
}

/* A renderer of the furnace sphere on the CPU, its progress going to log. */
static pw_renderer *furnace_renderer(pw_scene **s, progress_log *log)
{
    *s = furnace("API furnace progress");
    const float centre[3] = {0, 0, 0};
    assert_int_equal(pw_scene_add_sphere(*s, centre, 1.0f,
                                         add_lambert(*s, furnace_albedo[0], furnace_albedo[1], furnace_albedo[2])),
                     PW_OK);
    pw_settings st;
    pw_settings_default(*s, &st);
    st.width = W;
    st.height = H;
    st.rr_depth = 1000;
    st.backend = PW_BACKEND_CPU;
    pw_renderer *r;
    assert_int_equal(pw_renderer_create(*s, &st, &r), PW_OK);
    memset(log, 0, sizeof *log);
    log->r = r;
    assert_int_equal(pw_renderer_set_progress(r, record_progress, log), PW_OK);
    return r;
}

static uint64_t samples_of(const pw_renderer *r)
{
    pw_render_stats st;
    pw_renderer_get_stats(r, &st);
    return st.samples;
}

static void progress_counts_each_call(void **state)
{
    (void)state;
    pw_scene *s;
    progress_log log;
    pw_renderer *r = furnace_renderer(&s, &log);
    float *img = malloc(sizeof *img * 3 * W * H);
    log.img = img;
    assert_int_equal(pw_renderer_render(r, 37), PW_OK);
    expect_passes(&log, 37);
    printf("37 samples a pixel in %d passes, done:", log.calls);
    for (int i = 0; i < log.calls; i++)
        printf(" %d", log.done[i]);
    printf("\n");
    int calls = log.calls;
    memset(log.done, 0, sizeof log.done);
    log.calls = 0;
    assert_int_equal(pw_renderer_render(r, 5), PW_OK); /* counts start again with each call */
    expect_passes(&log, 5);
    assert_true(samples_of(r) == 42u * W * H);
    /* A callback may not render again; the render it is in goes on. */
    log.calls = 0;
    log.nest = 1;
    assert_int_equal(pw_renderer_render(r, 2), PW_OK);
    assert_int_equal(log.nested, PW_ERR_INVALID_ARGUMENT);
    assert_string_equal(log.nested_message, "pw_renderer_render: called from the renderer's own progress callback");
    assert_true(samples_of(r) == 44u * W * H);
    /* Turned off: one pass, no calls. */
    log.calls = 0;
    assert_int_equal(pw_renderer_set_progress(r, NULL, NULL), PW_OK);
    assert_int_equal(pw_renderer_render(r, 3), PW_OK);
    assert_int_equal(log.calls, 0);
    assert_int_equal(pw_renderer_image(r, img), PW_OK);
    expect_furnace_image(img, "after four calls");
    printf("first call: %d progress calls; the image was exact between every two passes\n", calls);
    free(img);
    pw_renderer_free(r);
    pw_scene_free(s);
}

/* Stopped at the first pass, by the callback's return or by
 * pw_renderer_cancel inside it: PW_ERR_INTERRUPTED, every pixel with that
 * pass's one sample (the image still the furnace's), and the next call
 * renders again. A stop asked for after the last pass stops nothing. */
static void progress_stops_the_render(void **state)
{
    (void)state;
    pw_scene *s;
    progress_log log;
    pw_renderer *r = furnace_renderer(&s, &log);
    float *img = malloc(sizeof *img * 3 * W * H);
    log.stop_at = 1;
    assert_int_equal(pw_renderer_render(r, 20), PW_ERR_INTERRUPTED);
    assert_string_equal(pw_last_error(), "render stopped by the progress callback after 1 of 20 samples per pixel");
    assert_int_equal(log.calls, 1);
    assert_true(samples_of(r) == 1u * W * H);
    log.stop_at = 0;
    log.cancel_at = 1;
    assert_int_equal(pw_renderer_render(r, 20), PW_ERR_INTERRUPTED);
    assert_string_equal(pw_last_error(), "render interrupted");
    assert_int_equal(log.calls, 2);
    assert_true(samples_of(r) == 2u * W * H);
    assert_int_equal(pw_renderer_image(r, img), PW_OK);
    expect_furnace_image(img, "after two stopped renders");
    log.cancel_at = 0;
    assert_int_equal(pw_renderer_render(r, 6), PW_OK);
    assert_true(samples_of(r) == 8u * W * H);
    log.stop_at = 1;
    assert_int_equal(pw_renderer_render(r, 1), PW_OK);
    assert_true(samples_of(r) == 9u * W * H);
    printf("a progress callback stopped two renders after their first pass; the next renders went on\n");
    free(img);
    pw_renderer_free(r);
    pw_scene_free(s);
}

/* Whether a renderer of s runs on backend b here (the CUDA ones need a GPU). */
static int backend_runs(pw_scene *s, pw_backend b)
{
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = st.height = 8;
    st.backend = b;
    pw_renderer *r;
    pw_status e = pw_renderer_create(s, &st, &r);
    if (e == PW_ERR_NO_DEVICE)
        return 0;
    if (e != PW_OK)
        fail_msg("pw_renderer_create on %s: %s", pw_backend_name(b), pw_last_error());
    pw_renderer_free(r);
    return 1;
}

/* Largest relative difference of two images (over |a| + 1e-3). */
static double image_difference(const float *a, const float *b)
{
    double worst = 0.0;
    for (int i = 0; i < 3 * W * H; i++)
        worst = fmax(worst, fabs((double)a[i] - b[i]) / (fabs((double)a[i]) + 1e-3));
    return worst;
}

/* Passes take the samples one call would, in the same order: the images
 * of toy-small (spheres, no light sampling) and the Cornell box (meshes,
 * MIS) with and without a callback are the same to the bit on both CPU
 * backends. Where a GPU is, both CUDA ones agree to rounding (1e-5
 * relative): a GPU launch picks its kernel by its samples a pixel, and
 * nvcc fuses multiply-adds differently in different kernels. */
static void progress_leaves_the_image_unchanged(void **state)
{
    (void)state;
    static const char *const scenes[2] = {"toy-small", "cornell"};
    static const pw_backend backends[4] = {PW_BACKEND_CPU, PW_BACKEND_CPU_WAVE, PW_BACKEND_CUDA_MEGA,
                                           PW_BACKEND_CUDA_WAVE};
    for (int k = 0; k < 2; k++)
        for (int b = 0; b < 4; b++) {
            pw_scene *s;
            assert_int_equal(pw_scene_builtin(scenes[k], &s), PW_OK);
            if (!backend_runs(s, backends[b])) {
                printf("%s: no GPU here\n", pw_backend_name(backends[b]));
                pw_scene_free(s);
                continue;
            }
            pw_settings def;
            pw_settings_default(s, &def);
            test_render o = {W, H, 13, def.max_depth, def.rr_depth, def.light_mode, 2, 0};
            progress_log log;
            memset(&log, 0, sizeof log);
            float *one = render_on(s, &o, backends[b], NULL, NULL);
            float *passes = render_on(s, &o, backends[b], record_progress, &log);
            expect_passes(&log, 13);
            int gpu = backends[b] == PW_BACKEND_CUDA_MEGA || backends[b] == PW_BACKEND_CUDA_WAVE;
            double diff = image_difference(one, passes);
            if (gpu ? !(diff <= 1e-5) : memcmp(one, passes, sizeof *one * 3 * W * H) != 0)
                fail_msg("%s on %s: %d passes gave another image than one (relative difference up to %.3g)",
                         scenes[k], pw_backend_name(backends[b]), log.calls, diff);
            printf("%s on %s: one call and %d passes give %s\n", scenes[k], pw_backend_name(backends[b]), log.calls,
                   diff == 0.0 ? "the same image" : "images the same to rounding");
            free(one);
            free(passes);
            pw_scene_free(s);
        }
}

/* pw_settings_check: the settings pw_renderer_create would refuse, refused
 * with the same message before any scene work. */
static void settings_checked_alone(void **state)
{
    (void)state;
    pw_scene *s;
    assert_int_equal(pw_scene_builtin("toy-small", &s), PW_OK);
    pw_settings st;
    pw_settings_default(s, &st);
    assert_int_equal(pw_settings_check(&st), PW_OK);
    st.width = st.height = 10000; /* each side fits, the pixels do not */
    assert_int_equal(pw_settings_check(&st), PW_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(pw_last_error(), "image size 10000x10000 is out of range"));
    pw_renderer *r = (pw_renderer *)&r;
    assert_int_equal(pw_renderer_create(s, &st, &r), PW_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(pw_last_error(), "image size 10000x10000 is out of range"));
    pw_settings_default(s, &st);
    st.max_depth = -1;
    assert_int_equal(pw_settings_check(&st), PW_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(pw_last_error(), "max depth -1"));
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(furnace_sphere_and_cube),
        cmocka_unit_test(settings_checked_alone),
        cmocka_unit_test(gradient_sky_plane),
        cmocka_unit_test(lights_in_degrees),
        cmocka_unit_test(bad_scene_and_material_arguments),
        cmocka_unit_test(bad_geometry_arguments),
        cmocka_unit_test(bad_light_and_sky_arguments),
        cmocka_unit_test(contents_of_a_built_scene),
        cmocka_unit_test(materials_match_the_constructors),
        cmocka_unit_test(toy_small_equals_the_builtin),
        cmocka_unit_test(pbrt_file_equals_the_api_scene),
        cmocka_unit_test(progress_counts_each_call),
        cmocka_unit_test(progress_stops_the_render),
        cmocka_unit_test(progress_leaves_the_image_unchanged),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
