/* Furnace tests: objects inside a uniform white environment (radiance 1 from
 * every direction), rendered through the public API.
 *
 * An object that neither absorbs nor emits is invisible in a furnace: with a
 * Lambert albedo of 1 or a smooth dielectric every path carries a throughput
 * of exactly 1 until it escapes, and Russian roulette keeps such paths with
 * probability min(1, max(beta)) = 1, so every sample is exactly 1 and the
 * bound on every pixel is float rounding (1e-5), not noise. Energy lost to
 * anything (paths trapped inside an object by a bad ray offset, NaNs, paths
 * killed early) shows as a pixel below 1.
 *
 * A convex Lambert sphere of albedo a reflects each camera ray once and the
 * bounce escapes, so without Russian roulette every sample is exactly a
 * (a second bounce, from a self-intersection, would give a^2). With Russian
 * roulette from the first bounce, a sample is a/q with probability
 * q = max(a) and 0 otherwise: unbiased with a known variance, so the bound is
 * stated in standard errors computed from that variance. */
#include "test_render_util.h"
#include "test_mesh_util.h"

#define W 32
#define H 32

/* A scene in a white furnace, looked at from +z by a camera whose frame the
 * unit sphere at the origin fills (half-diagonal 9.9 deg < asin(1/5) = 11.5 deg). */
static pw_scene *furnace_scene(const char *name)
{
    pw_scene *s = pw_scene_new(name);
    assert_non_null(s);
    s->env.type = PW_ENV_CONSTANT;
    s->env.top = s->env.bottom = v3(1, 1, 1);
    s->env.scale = 1.0f;
    s->cam.look_from = v3(0, 0, 5);
    s->cam.look_at = v3(0, 0, 0);
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = 14.0f;
    return s;
}

static test_render opts(int spp, int rr_depth, pw_light_mode lm)
{
    test_render o = {W, H, spp, 64, rr_depth, lm, 7, 0};
    return o;
}

/* Every channel of every pixel within tol of expect[c]. */
static void expect_every_pixel(const float *img, const float expect[3], float tol, const char *what)
{
    int bad = 0;
    float lo = PW_INF, hi = -PW_INF;
    for (int i = 0; i < W * H; i++)
        for (int c = 0; c < 3; c++) {
            float d = img[3 * i + c] - expect[c];
            lo = fminf(lo, d);
            hi = fmaxf(hi, d);
            if (!(fabsf(d) <= tol)) {
                if (bad < 5)
                    printf("%s: pixel (%d, %d) channel %d = %.7g, expected %.7g\n", what, i % W, i / W, c,
                           img[3 * i + c], expect[c]);
                bad++;
            }
        }
    printf("%s: pixel - expected in [%.3g, %.3g] over %d pixels\n", what, lo, hi, W * H);
    if (bad)
        fail_msg("%s: %d pixel channels differ from the exact value by more than %g", what, bad, tol);
}

static void white_lambert_sphere(void **state)
{
    (void)state;
    static const pw_light_mode modes[2] = {PW_LIGHT_MODE_MIS, PW_LIGHT_MODE_NONE};
    for (int k = 0; k < 2; k++) {
        pw_scene *s = furnace_scene("furnace lambert");
        pw_scene_add_sphere(s, v3(0, 0, 0), 1.0f, pw_scene_add_material(s, pw_lambert(1, 1, 1)));
        test_render o = opts(16, 1, modes[k]); /* Russian roulette from the first bounce */
        float *img = test_render_image(s, &o);
        const float one[3] = {1, 1, 1};
        expect_every_pixel(img, one, 1e-5f, k ? "albedo 1 Lambert, no light sampling" : "albedo 1 Lambert, MIS");
        free(img);
        pw_scene_free(s);
    }
}

static void white_dielectric_sphere(void **state)
{
    (void)state;
    /* Inside a sphere the angle of incidence stays below the critical angle,
     * so a path needs about k internal reflections with probability 0.04^k:
     * none reaches max_depth 64. */
    pw_scene *s = furnace_scene("furnace glass");
    pw_scene_add_sphere(s, v3(0, 0, 0), 1.0f, pw_scene_add_material(s, pw_dielectric(1.5f)));
    test_render o = opts(16, 3, PW_LIGHT_MODE_MIS);
    float *img = test_render_image(s, &o);
    const float one[3] = {1, 1, 1};
    expect_every_pixel(img, one, 1e-5f, "dielectric 1.5");
    free(img);
    pw_scene_free(s);
}

/* Non-convex: Lambert spheres that touch and overlap, a closed triangle
 * mesh (flat-shaded icosphere) and a glass sphere, all lossless. Paths
 * bounce between them many times; a ray that leaks into the inside of a
 * sphere or the mesh can never leave, reaches max_depth and loses its 1. */
static void white_cluster(void **state)
{
    (void)state;
    pw_scene *s = furnace_scene("furnace cluster");
    uint32_t white = pw_scene_add_material(s, pw_lambert(1, 1, 1));
    uint32_t glass = pw_scene_add_material(s, pw_dielectric(1.5f));
    pw_scene_add_sphere(s, v3(-0.5f, 0.0f, 0.0f), 0.6f, white);
    pw_scene_add_sphere(s, v3(0.5f, 0.0f, 0.0f), 0.6f, white);   /* overlaps the first */
    pw_scene_add_sphere(s, v3(0.0f, -0.8f, 0.3f), 0.4f, white);  /* touches both */
    pw_scene_add_sphere(s, v3(0.0f, 0.75f, 0.2f), 0.35f, glass);
    test_mesh m = test_mesh_icosphere(2, v3(0.0f, 0.0f, 0.75f), 0.45);
    uint32_t base = pw_scene_add_vertices(s, m.v, NULL, m.nv);
    for (uint32_t t = 0; t < m.nt; t++)
        pw_scene_add_triangle(s, base + m.idx[3 * t], base + m.idx[3 * t + 1], base + m.idx[3 * t + 2], white);
    test_mesh_free(&m);
    s->cam.vfov_deg = 30.0f;
    test_render o = opts(16, 1, PW_LIGHT_MODE_MIS);
    float *img = test_render_image(s, &o);
    const float one[3] = {1, 1, 1};
    expect_every_pixel(img, one, 1e-5f, "lossless cluster");
    free(img);
    pw_scene_free(s);
}

/* Albedo a < 1, no Russian roulette: exactly a in every pixel. */
static void grey_lambert_sphere_exact(void **state)
{
    (void)state;
    pw_scene *s = furnace_scene("furnace albedo");
    const float a[3] = {0.25f, 0.5f, 0.75f};
    pw_scene_add_sphere(s, v3(0, 0, 0), 1.0f, pw_scene_add_material(s, pw_lambert(a[0], a[1], a[2])));
    test_render o = opts(16, 1000, PW_LIGHT_MODE_MIS);
    float *img = test_render_image(s, &o);
    expect_every_pixel(img, a, 1e-5f, "albedo (0.25, 0.5, 0.75), no roulette");
    free(img);
    pw_scene_free(s);
}

/* Albedo a < 1 with Russian roulette from the first bounce: each sample is
 * a/q with probability q = max(a) = 0.75, else 0. Per sample the variance
 * of channel c is (a_c/q)^2 q (1 - q); the image mean over N = W H spp
 * samples must lie within 5 standard errors of a_c (a false alarm about
 * once in 10^6 runs); each pixel's z-score within 5.5 (3072 channel-pixels:
 * about 1e-4 false alarms per run; a Binomial(64, 0.75) pixel cannot even
 * exceed z = 4.6 upward). A bias of 2% in a channel is 12 standard errors of
 * the image mean. */
static void grey_lambert_sphere_roulette(void **state)
{
    (void)state;
    pw_scene *s = furnace_scene("furnace roulette");
    const float a[3] = {0.25f, 0.5f, 0.75f};
    pw_scene_add_sphere(s, v3(0, 0, 0), 1.0f, pw_scene_add_material(s, pw_lambert(a[0], a[1], a[2])));
    const int spp = 64;
    test_render o = opts(spp, 1, PW_LIGHT_MODE_MIS);
    float *img = test_render_image(s, &o);
    const double q = 0.75;
    double worst_z = 0.0;
    for (int c = 0; c < 3; c++) {
        double sd_sample = a[c] / q * sqrt(q * (1.0 - q));
        double sd_pixel = sd_sample / sqrt((double)spp);
        double sum = 0.0;
        for (int i = 0; i < W * H; i++) {
            double z = (img[3 * i + c] - a[c]) / sd_pixel;
            if (fabs(z) > fabs(worst_z))
                worst_z = z;
            if (fabs(z) > 5.5)
                fail_msg("pixel (%d, %d) channel %d = %.6g: %.1f standard errors from %.6g", i % W, i / W, c,
                         img[3 * i + c], z, a[c]);
            sum += img[3 * i + c];
        }
        double mean = sum / (W * H), se = sd_pixel / sqrt((double)(W * H));
        printf("roulette: channel %d mean %.6f, expected %.6f, %.2f standard errors (se %.2g)\n", c, mean, a[c],
               (mean - a[c]) / se, se);
        if (fabs(mean - a[c]) > 5.0 * se)
            fail_msg("channel %d: image mean %.6f is %.1f standard errors from %.6f", c, mean, (mean - a[c]) / se,
                     a[c]);
    }
    printf("roulette: largest pixel z-score %.2f\n", worst_z);
    free(img);
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(white_lambert_sphere),      cmocka_unit_test(white_dielectric_sphere),
        cmocka_unit_test(white_cluster),             cmocka_unit_test(grey_lambert_sphere_exact),
        cmocka_unit_test(grey_lambert_sphere_roulette),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
