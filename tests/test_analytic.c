/* Scenes with closed-form answers, rendered through the public API and
 * compared pixel by pixel with the analytic radiance.
 *
 * Expected values: for every pixel the analytic radiance is averaged over a
 * 4x4 grid of positions inside the pixel (the renderer jitters its samples
 * over the pixel), using the renderer's own camera model. The radiance
 * varies by a few percent across these narrow views, so this quadrature is
 * exact to far below the noise.
 *
 * Bound: pixels are independent (each has its own random stream), so with
 * e_i = image_i - expected_i the mean error over n pixels has the standard
 * error sd(e) / sqrt(n). Each channel's mean error, over the whole image and
 * over each quadrant, must be within 4.5 standard errors (plus 2e-4
 * relative for the quadrature), and the standard error itself must be under
 * 0.4% of the expected value, so the test can see a 2% bias. A missing pi
 * (x3.14), a light pdf without its selection probability (x2 with two
 * lights), a cosine too many or too few, MIS weights that do not sum to one,
 * or a Fresnel term off by 10% are all far outside the bound. With fixed
 * seeds the outcome of a given build is reproducible; the chance that a
 * correct renderer trips one of these checks after a change of its random
 * streams is about 1e-5 per check.
 *
 * The scenes are built through the public API (pw_scene_new and the rest
 * of pathwave.h's "building scenes in code"). */
#include "test_render_util.h"
#include "test_scene_build.h"

#include "shade/camera.h"

#define K_SE 4.5
#define QUAD_TOL 2e-4
#define MAX_SE_REL 0.004
#define PI_D 3.14159265358979323846

typedef double (*radiance_fn)(const void *ctx, pw_vec3 o, pw_vec3 d, int channel);

/* The analytic image: each pixel the mean of f over a 4x4 grid of rays. */
static double *expected_image(const pw_scene *s, int w, int h, radiance_fn f, const void *ctx)
{
    pw_camera cam = pw_camera_make(&s->cam, (float)w / (float)h);
    pw_camera_set_raster(&cam, (uint32_t)w, (uint32_t)h);
    double *e = calloc((size_t)w * h * 3, sizeof *e);
    for (int py = 0; py < h; py++)
        for (int px = 0; px < w; px++)
            for (int sy = 0; sy < 4; sy++)
                for (int sx = 0; sx < 4; sx++) {
                    float x = (float)px + (sx + 0.5f) / 4.0f, y = (float)py + (sy + 0.5f) / 4.0f;
                    pw_ray r = pw_camera_ray(&cam, x, y, 0.5f, 0.5f);
                    for (int c = 0; c < 3; c++)
                        e[3 * ((size_t)py * w + px) + c] += f(ctx, r.o, r.d, c) / 16.0;
                }
    return e;
}

/* The statistical comparison described at the top of the file; prints
 * each failed check and returns their number. */
static int compare(const float *img, const double *expect, int w, int h, double max_se_rel, const char *what)
{
    int failures = 0;
    for (int c = 0; c < 3; c++) {
        for (int q = -1; q < 4; q++) { /* q = -1: the whole image; 0..3: quadrants */
            size_t n = 0;
            double *err = malloc((size_t)w * h * sizeof *err), sum_exp = 0.0;
            for (int y = 0; y < h; y++)
                for (int x = 0; x < w; x++) {
                    if (q >= 0 && ((x >= w / 2) != (q & 1) || (y >= h / 2) != (q >> 1)))
                        continue;
                    size_t i = 3 * ((size_t)y * w + x) + c;
                    err[n++] = img[i] - expect[i];
                    sum_exp += expect[i];
                }
            test_stats st = test_stats_of(err, n);
            double mean_exp = sum_exp / (double)n;
            double bound = K_SE * st.se + QUAD_TOL * mean_exp;
            if (q < 0)
                printf("%s, channel %d: mean %.6f, expected %.6f (%+.3f%%), %.2f standard errors (se %.3f%%)\n", what,
                       c, mean_exp + st.mean, mean_exp, 100.0 * st.mean / mean_exp,
                       st.se > 0 ? st.mean / st.se : 0.0, 100.0 * st.se / mean_exp);
            if (!(fabs(st.mean) <= bound)) {
                static const char *const names[5] = {"whole image", "top left quadrant", "top right quadrant",
                                                     "bottom left quadrant", "bottom right quadrant"};
                printf("FAIL: %s, channel %d, %s: mean %.6f but expected %.6f (%+.2f%%, %.1f standard errors)\n", what,
                       c, names[q + 1], mean_exp + st.mean, mean_exp,
                       100.0 * st.mean / mean_exp, st.se > 0 ? st.mean / st.se : INFINITY);
                failures++;
            }
            if (q < 0 && !(st.se <= max_se_rel * mean_exp)) {
                printf("FAIL: %s, channel %d: standard error %.3g%% is too large for a meaningful test\n", what, c,
                       100.0 * st.se / mean_exp);
                failures++;
            }
            free(err);
        }
    }
    return failures;
}

/* A scene of a black sky (a new scene's) and this camera. */
static pw_scene *scene_with_camera(const char *name, pw_vec3 from, pw_vec3 at, pw_vec3 up, float vfov)
{
    pw_scene *s = test_new_scene(name);
    const float f[3] = {from.x, from.y, from.z}, a[3] = {at.x, at.y, at.z}, u[3] = {up.x, up.y, up.z};
    test_set_camera(s, f, a, u, vfov);
    return s;
}

/* The plane y = 0 as two triangles, geometric normal +y. */
static void add_ground(pw_scene *s, float half, uint32_t mat)
{
    const float q[12] = {-half, 0, -half, -half, 0, half, half, 0, half, half, 0, -half};
    test_add_quad(s, q, mat);
}

/* A black Lambert material emitting le. */
static uint32_t add_emitter(pw_scene *s, const float le[3])
{
    pw_material_desc d = {.kind = PW_MATERIAL_LAMBERT, .emission = {le[0], le[1], le[2]}};
    return test_add_material(s, d);
}

static double ray_plane_t(pw_vec3 o, pw_vec3 d) { return -(double)o.y / (double)d.y; }

/* ---- (a) a Lambert plane under a uniform sky ---- */

/* Every camera ray hits the plane once and its bounce escapes to the sky:
 * each sample is exactly rho * L, from above and (two-sided shading) from
 * below. */
static void lambert_plane_uniform_sky(void **state)
{
    (void)state;
    const float rho[3] = {0.2f, 0.5f, 0.9f};
    const pw_vec3 cams[3] = {{0, 5, 0.01f}, {3, 4, 2}, {1, -3, 2}};
    const pw_light_mode modes[2] = {PW_LIGHT_MODE_MIS, PW_LIGHT_MODE_NONE};
    for (int k = 0; k < 3; k++)
        for (int m = 0; m < 2; m++) {
            pw_scene *s = scene_with_camera("sky plane", cams[k], v3(0, 0, 0), v3(0, 1, 0), 60.0f);
            const float sky[3] = {1.5f, 1.0f, 0.5f};
            test_set_sky(s, sky, sky, 2.0f); /* L = (3, 2, 1) */
            add_ground(s, 100.0f, test_add_material(s, test_lambert(rho[0], rho[1], rho[2])));
            test_render o = {32, 24, 4, 8, 3, modes[m], 3, 0};
            float *img = test_render_image(s, &o);
            const double L[3] = {3, 2, 1};
            for (int i = 0; i < 32 * 24; i++)
                for (int c = 0; c < 3; c++)
                    if (fabs(img[3 * i + c] - rho[c] * L[c]) > 1e-5 * rho[c] * L[c])
                        fail_msg("camera %d, light mode %d: pixel %d channel %d = %.7g, expected rho L = %.7g", k, m,
                                 i, c, img[3 * i + c], rho[c] * L[c]);
            free(img);
            pw_scene_free(s);
        }
    printf("a Lambert plane under a uniform sky is rho L in every pixel, from above and below\n");
}

/* ---- (b) a sphere light above a Lambert plane ---- */

typedef struct sphere_light {
    pw_vec3 c;
    float r;
    float le[3];
} sphere_light;

typedef struct plane_lights {
    float rho[3];
    int n_spheres;
    sphere_light sph[2];
    int n_quads;
    pw_vec3 quad[2][4]; /* emitting polygons, facing down */
    float quad_le[2][3];
} plane_lights;

/* Irradiance on the plane y = 0 at p from a sphere wholly above the
 * horizon: pi Le (r / D)^2 cos(theta). Below the plane: nothing. */
static double sphere_irradiance(const sphere_light *l, const double p[3], double le)
{
    double dx = l->c.x - p[0], dy = l->c.y - p[1], dz = l->c.z - p[2];
    double d2 = dx * dx + dy * dy + dz * dz;
    if (dy <= 0.0)
        return 0.0;
    return PI_D * le * l->r * l->r / d2 * (dy / sqrt(d2));
}

/* Irradiance at p (normal +y) from a Lambertian polygon of radiance le:
 * pi le F, with Lambert's form factor F = 1/(2 pi) sum_i gamma_i n.unit(R_i x R_i+1). */
static double polygon_irradiance(const pw_vec3 *v, int n, const double p[3], double le)
{
    double sum = 0.0;
    for (int i = 0; i < n; i++) {
        double a[3] = {v[i].x - p[0], v[i].y - p[1], v[i].z - p[2]};
        double b[3] = {v[(i + 1) % n].x - p[0], v[(i + 1) % n].y - p[1], v[(i + 1) % n].z - p[2]};
        double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
        double cx = a[1] * b[2] - a[2] * b[1], cy = a[2] * b[0] - a[0] * b[2], cz = a[0] * b[1] - a[1] * b[0];
        double lc = sqrt(cx * cx + cy * cy + cz * cz);
        double gamma = atan2(lc, a[0] * b[0] + a[1] * b[1] + a[2] * b[2]);
        (void)la, (void)lb;
        sum += gamma * cy / lc;
    }
    return le * fabs(sum) / 2.0;
}

static double plane_lights_radiance(const void *ctx, pw_vec3 o, pw_vec3 d, int c)
{
    const plane_lights *pl = ctx;
    double t = ray_plane_t(o, d);
    double p[3] = {o.x + t * d.x, 0.0, o.z + t * d.z};
    double e = 0.0;
    for (int i = 0; i < pl->n_spheres; i++)
        e += sphere_irradiance(&pl->sph[i], p, pl->sph[i].le[c]);
    for (int i = 0; i < pl->n_quads; i++)
        e += polygon_irradiance(pl->quad[i], 4, p, pl->quad_le[i][c]);
    return pl->rho[c] / PI_D * e;
}

static pw_scene *build_plane_lights(const plane_lights *pl, pw_vec3 cam_from)
{
    pw_scene *s = scene_with_camera("plane and lights", cam_from, v3(0, 0, 0), v3(0, 1, 0), 4.0f);
    add_ground(s, 50.0f, test_add_material(s, test_lambert(pl->rho[0], pl->rho[1], pl->rho[2])));
    for (int i = 0; i < pl->n_spheres; i++) {
        const sphere_light *l = &pl->sph[i];
        test_add_sphere(s, l->c.x, l->c.y, l->c.z, l->r, add_emitter(s, l->le));
    }
    for (int i = 0; i < pl->n_quads; i++)
        test_add_quad(s, (const float *)pl->quad[i], add_emitter(s, pl->quad_le[i]));
    return s;
}

/* Renders the configuration with direct light only (max_depth 1: the camera
 * hit, its light sample and its one BSDF bounce) and compares. */
static void check_plane_lights(const plane_lights *pl, pw_light_mode mode, int spp, const char *what)
{
    const int w = 48, h = 48;
    pw_scene *s = build_plane_lights(pl, v3(2.5f, 2.5f, 0.0f));
    test_render o = {w, h, spp, 1, 100, mode, 11, 0};
    float *img = test_render_image(s, &o);
    double *e = expected_image(s, w, h, plane_lights_radiance, pl);
    int failures = compare(img, e, w, h, MAX_SE_REL, what);
    free(e);
    free(img);
    pw_scene_free(s);
    if (failures)
        fail_msg("%s: %d checks failed", what, failures);
}

static const plane_lights small_sphere = {
    .rho = {0.8f, 0.5f, 0.3f}, .n_spheres = 1, .sph = {{.c = {0, 2, 0}, .r = 0.5f, .le = {8, 4, 2}}}};
static const plane_lights big_sphere = {
    .rho = {0.8f, 0.5f, 0.3f}, .n_spheres = 1, .sph = {{.c = {0, 2, 0}, .r = 1.2f, .le = {2, 1, 0.5f}}}};
/* The same small light and one of equal power under the plane, where it
 * cannot light the visible side: half the light samples are wasted, and
 * the estimator must divide by the selection probability 1/2. */
static const plane_lights two_spheres = {.rho = {0.8f, 0.5f, 0.3f},
                                         .n_spheres = 2,
                                         .sph = {{.c = {0, 2, 0}, .r = 0.5f, .le = {8, 4, 2}},
                                                 {.c = {0.3f, -2, 0.2f}, .r = 0.5f, .le = {8, 4, 2}}}};

/* A light 500 times farther than it is wide (r/d = 0.002 straight below):
 * 1 - cos of its cone is 2e-6, which 1 - sqrt(1 - s2) in float got a few
 * percent wrong (pw_sphere_one_minus_cos). The cone is so narrow that the
 * estimate barely varies, so a bias of a fraction of a percent fails. */
static const plane_lights tiny_sphere = {
    .rho = {0.8f, 0.5f, 0.3f}, .n_spheres = 1, .sph = {{.c = {0, 2, 0}, .r = 0.004f, .le = {3e5f, 1.5e5f, 7.5e4f}}}};

/* Directly under the centre the radiance is rho Le (r/d)^2: a check of the
 * formula the expected images are built from. */
static void sphere_light_formula(void **state)
{
    (void)state;
    double p[3] = {0, 0, 0};
    double L = small_sphere.rho[0] / PI_D * sphere_irradiance(&small_sphere.sph[0], p, 8.0);
    assert_true(fabs(L / ((double)small_sphere.rho[0] * 8.0 * 0.25 * 0.25) - 1.0) < 1e-12);
}

static void sphere_light_mis(void **state)
{
    (void)state;
    check_plane_lights(&small_sphere, PW_LIGHT_MODE_MIS, 16, "sphere light r/d = 0.25, MIS");
    check_plane_lights(&big_sphere, PW_LIGHT_MODE_MIS, 256, "sphere light r/d = 0.6, MIS");
    check_plane_lights(&two_spheres, PW_LIGHT_MODE_MIS, 64, "two sphere lights, MIS");
    check_plane_lights(&tiny_sphere, PW_LIGHT_MODE_MIS, 16, "sphere light r/d = 0.002, MIS");
}

/* Pure BSDF sampling: emission counted when a bounce hits the light. This
 * is the estimator without light sampling or MIS weights; agreeing with the
 * same analytic value cross-checks the MIS weights and light pdfs. */
static void sphere_light_bsdf_only(void **state)
{
    (void)state;
    check_plane_lights(&small_sphere, PW_LIGHT_MODE_NONE, 512, "sphere light r/d = 0.25, BSDF sampling only");
    check_plane_lights(&big_sphere, PW_LIGHT_MODE_NONE, 256, "sphere light r/d = 0.6, BSDF sampling only");
}

/* The toy tracer's estimator: one cone-sampled shadow ray per sphere light. */
static void sphere_light_toy(void **state)
{
    (void)state;
    check_plane_lights(&small_sphere, PW_LIGHT_MODE_TOY, 16, "sphere light r/d = 0.25, toy estimator");
    check_plane_lights(&big_sphere, PW_LIGHT_MODE_TOY, 16, "sphere light r/d = 0.6, toy estimator");
    check_plane_lights(&two_spheres, PW_LIGHT_MODE_TOY, 16, "two sphere lights, toy estimator");
    check_plane_lights(&tiny_sphere, PW_LIGHT_MODE_TOY, 16, "sphere light r/d = 0.002, toy estimator");
}

/* ---- (c) polygonal area lights ---- */

/* A square light of half-size a at height y, facing down (winding as in the
 * Cornell box's light: the geometric normal points to -y). */
#define SQUARE(x, y, z, a) {{(x) - (a), y, (z) - (a)}, {(x) + (a), y, (z) - (a)}, {(x) + (a), y, (z) + (a)}, {(x) - (a), y, (z) + (a)}}

static const plane_lights square = {
    .rho = {0.8f, 0.5f, 0.3f}, .n_quads = 1, .quad = {SQUARE(0, 1.5f, 0, 0.5f)}, .quad_le = {{6, 4, 2}}};
/* A small square off to the side, a large one and a sphere: three lights of
 * very different power, chosen through the alias table. */
static const plane_lights mixed = {.rho = {0.8f, 0.5f, 0.3f},
                                   .n_spheres = 1,
                                   .sph = {{.c = {1.5f, 2.0f, 1.5f}, .r = 0.3f, .le = {20, 20, 20}}},
                                   .n_quads = 2,
                                   .quad = {SQUARE(0, 1.5f, 0, 0.5f), SQUARE(-1.0f, 1.0f, -0.8f, 0.15f)},
                                   .quad_le = {{6, 4, 2}, {15, 10, 20}}};

/* Lambert's polygon formula against a small square far away, where the
 * form factor is A cos^2 / (pi D^2): a check of the expected values. */
static void polygon_formula(void **state)
{
    (void)state;
    const pw_vec3 q[4] = SQUARE(0, 10, 0, 0.01f);
    double p[3] = {0, 0, 0};
    double e = polygon_irradiance(q, 4, p, 1.0);
    double approx = PI_D * (0.02 * 0.02) / (PI_D * 100.0);
    assert_true(fabs(e / approx - 1.0) < 1e-4);
    /* A huge square right above: nearly the whole hemisphere, E -> pi Le. */
    const pw_vec3 big[4] = SQUARE(0, 0.001f, 0, 1000.0f);
    assert_true(fabs(polygon_irradiance(big, 4, p, 1.0) / PI_D - 1.0) < 1e-5);
}

static void area_light_mis(void **state)
{
    (void)state;
    check_plane_lights(&square, PW_LIGHT_MODE_MIS, 16, "square light, MIS");
    check_plane_lights(&mixed, PW_LIGHT_MODE_MIS, 512, "square, small square and sphere lights, MIS");
}

static void area_light_bsdf_only(void **state)
{
    (void)state;
    check_plane_lights(&square, PW_LIGHT_MODE_NONE, 512, "square light, BSDF sampling only");
    check_plane_lights(&mixed, PW_LIGHT_MODE_NONE, 1024, "square, small square and sphere lights, BSDF sampling only");
}

/* Emitting triangles are one-sided: the same square turned to face up
 * leaves the plane below it black, whatever the estimator. */
static void area_light_one_sided(void **state)
{
    (void)state;
    const pw_light_mode modes[2] = {PW_LIGHT_MODE_MIS, PW_LIGHT_MODE_NONE};
    for (int m = 0; m < 2; m++) {
        plane_lights up = square;
        for (int k = 0; k < 4; k++)
            up.quad[0][k] = square.quad[0][3 - k];
        pw_scene *s = build_plane_lights(&up, v3(2.5f, 2.5f, 0.0f));
        test_render o = {16, 16, 16, 1, 100, modes[m], 5, 0};
        float *img = test_render_image(s, &o);
        for (int i = 0; i < 16 * 16 * 3; i++)
            if (img[i] != 0.0f)
                fail_msg("light mode %d: a light facing away lights the plane (pixel value %g)", m, img[i]);
        free(img);
        pw_scene_free(s);
    }
}

/* ---- (d) specular surfaces under a gradient sky ---- */

/* Sky radiance lerp(bottom, top, (d.y + 1) / 2): black below, white above. */
static double sky(double dy) { return 0.5 * (dy + 1.0); }

typedef struct specular_ctx {
    double ior;        /* dielectric sheet; 0 for the mirror */
    float albedo[3];
} specular_ctx;

/* Unpolarised Fresnel reflectance for a ray arriving at cos_i in the
 * medium of index n1 toward index n2 (Hecht's formulas). */
static double fresnel(double cos_i, double n1, double n2, double *cos_t)
{
    double sin_t = n1 / n2 * sqrt(fmax(0.0, 1.0 - cos_i * cos_i));
    if (sin_t >= 1.0) {
        *cos_t = 0.0;
        return 1.0;
    }
    double ct = sqrt(1.0 - sin_t * sin_t);
    double rs = (n1 * cos_i - n2 * ct) / (n1 * cos_i + n2 * ct);
    double rp = (n1 * ct - n2 * cos_i) / (n1 * ct + n2 * cos_i);
    *cos_t = ct;
    return 0.5 * (rs * rs + rp * rp);
}

/* The expected value of one sample at the plane y = 0: reflection goes to
 * the sky at -d.y, refraction continues through the sheet. */
static double specular_radiance(const void *vctx, pw_vec3 o, pw_vec3 d, int c)
{
    const specular_ctx *ctx = vctx;
    (void)o;
    double cos_i = fabs((double)d.y);
    double refl_dy = -(double)d.y;
    if (ctx->ior == 0.0)
        return ctx->albedo[c] * sky(refl_dy);
    int from_above = d.y < 0.0f;
    double cos_t;
    double R = fresnel(cos_i, from_above ? 1.0 : ctx->ior, from_above ? ctx->ior : 1.0, &cos_t);
    double refr_dy = from_above ? -cos_t : cos_t;
    return R * sky(refl_dy) + (1.0 - R) * sky(refr_dy);
}

static void check_specular(const specular_ctx *ctx, double elev_deg, int from_below, int spp, double max_se_rel,
                           const char *what)
{
    const int w = 32, h = 32;
    double el = elev_deg * PI_D / 180.0;
    pw_vec3 from = v3((float)(3.0 * cos(el)), (float)(from_below ? -3.0 * sin(el) : 3.0 * sin(el)), 0.7f);
    pw_scene *s = scene_with_camera(what, from, v3(0, 0, 0), elev_deg > 89.0 ? v3(1, 0, 0) : v3(0, 1, 0), 3.0f);
    const float white[3] = {1, 1, 1}, black[3] = {0, 0, 0};
    test_set_sky(s, white, black, 1.0f);
    pw_material_desc glass = {.kind = PW_MATERIAL_DIELECTRIC, .dielectric = {(float)ctx->ior}};
    pw_material_desc mirror = {.kind = PW_MATERIAL_METAL,
                               .metal = {{ctx->albedo[0], ctx->albedo[1], ctx->albedo[2]}, 0.0f}};
    add_ground(s, 50.0f, test_add_material(s, ctx->ior > 0 ? glass : mirror));
    test_render o = {w, h, spp, 8, 100, PW_LIGHT_MODE_MIS, 13, 0};
    float *img = test_render_image(s, &o);
    double *e = expected_image(s, w, h, specular_radiance, ctx);
    int failures = compare(img, e, w, h, max_se_rel, what);
    free(e);
    free(img);
    pw_scene_free(s);
    if (failures)
        fail_msg("%s: %d checks failed", what, failures);
}

static void mirror_plane(void **state)
{
    (void)state;
    specular_ctx mirror = {0.0, {0.9f, 0.6f, 0.3f}};
    check_specular(&mirror, 30.0, 0, 4, MAX_SE_REL, "mirror seen at 30 degrees elevation");
    check_specular(&mirror, 70.0, 0, 4, MAX_SE_REL, "mirror seen at 70 degrees elevation");
}

/* A smooth dielectric boundary (a sheet of glass with nothing behind it):
 * each sample reflects with the Fresnel probability R or refracts, so the
 * pixel's expectation is R sky(reflected) + (1 - R) sky(refracted). */
static void dielectric_fresnel(void **state)
{
    (void)state;
    specular_ctx glass = {1.5, {1, 1, 1}};
    /* Reflection is a rare event at these angles (R = 4..5%), so these
     * checks are held to a standard error of 1%: Schlick's approximation
     * instead of the full formula is 8% off at 45 degrees, an exchanged
     * index of refraction is off by far more. */
    check_specular(&glass, 90.0, 0, 256, 0.01, "glass from above, normal incidence");
    check_specular(&glass, 45.0, 0, 128, 0.01, "glass from above, 45 degrees");
    check_specular(&glass, 20.0, 0, 64, 0.01, "glass from above, 70 degrees incidence");
    /* From inside the glass: partial reflection at 30 degrees incidence,
     * total internal reflection beyond 41.8 degrees. */
    check_specular(&glass, 60.0, 1, 128, 0.01, "glass from below, 30 degrees incidence");
    check_specular(&glass, 30.0, 1, 4, 0.01, "glass from below, 60 degrees incidence (total internal reflection)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lambert_plane_uniform_sky),
        cmocka_unit_test(sphere_light_formula),
        cmocka_unit_test(sphere_light_mis),
        cmocka_unit_test(sphere_light_bsdf_only),
        cmocka_unit_test(sphere_light_toy),
        cmocka_unit_test(polygon_formula),
        cmocka_unit_test(area_light_mis),
        cmocka_unit_test(area_light_bsdf_only),
        cmocka_unit_test(area_light_one_sided),
        cmocka_unit_test(mirror_plane),
        cmocka_unit_test(dielectric_fresnel),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
