/* Point and distant lights against the closed form. A Lambert plane of
 * albedo a lit by a point light of intensity I at height h reflects
 * L = a / pi * I * cos(theta) / d^2 = a / pi * I * h / d^3, and lit by a
 * distant light of irradiance E arriving at angle theta to its normal,
 * L = a / pi * E * cos(theta). With one light, next-event estimation is
 * exact at every hit (the light is chosen with probability 1 and BSDF
 * samples leave into a black sky), so a pixel differs from the closed form
 * averaged over its area only through where its samples land in it. */
#include "test_render_util.h"

#define W 32
#define HALF_FOV_DEG 30.0f
#define CAM_H 4.0f

static const pw_vec3 albedo = {0.5f, 0.6f, 0.7f};
static const pw_vec3 point_pos = {0.3f, 1.5f, -0.2f}, intensity = {10.0f, 20.0f, 30.0f};
static const pw_vec3 sun_dir = {-1.0f, -2.0f, 0.5f}, sun_e = {3.0f, 2.0f, 1.0f};

/* The plane y = 0, |x|, |z| <= 3, seen from straight above: pixel (px, py)
 * spans x in half * [2 px / W - 1, 2 (px + 1) / W - 1] and likewise z
 * (image up is -z). ceiling: a black rectangle at y = 5, above the camera. */
static pw_scene *plane_scene(int ceiling)
{
    pw_scene *s = pw_scene_new("lit plane");
    uint32_t m = pw_scene_add_material(s, pw_lambert(albedo.x, albedo.y, albedo.z));
    pw_vec3 p[4] = {v3(-3, 0, -3), v3(-3, 0, 3), v3(3, 0, 3), v3(3, 0, -3)};
    uint32_t b = pw_scene_add_vertices(s, p, NULL, 4);
    assert_int_equal(pw_scene_add_triangle(s, b, b + 1, b + 2, m), PW_OK);
    assert_int_equal(pw_scene_add_triangle(s, b, b + 2, b + 3, m), PW_OK);
    if (ceiling) {
        uint32_t black = pw_scene_add_material(s, pw_lambert(0, 0, 0));
        /* Wide enough to shade every visible point from the sun (whose
         * rays from the plane rise 2 in y per 1 in x and -0.5 in z), small
         * enough to leave the scene's radius, and so the sun's share of the
         * light picks, moderate. */
        pw_vec3 c[4] = {v3(-4, 5, -5), v3(6, 5, -5), v3(6, 5, 3), v3(-4, 5, 3)};
        uint32_t cb = pw_scene_add_vertices(s, c, NULL, 4);
        assert_int_equal(pw_scene_add_triangle(s, cb, cb + 1, cb + 2, black), PW_OK);
        assert_int_equal(pw_scene_add_triangle(s, cb, cb + 2, cb + 3, black), PW_OK);
    }
    s->cam.look_from = v3(0, CAM_H, 0);
    s->cam.look_at = v3(0, 0, 0);
    s->cam.up = v3(0, 0, -1);
    s->cam.vfov_deg = 2.0f * HALF_FOV_DEG;
    return s;
}

static double point_radiance(double x, double z, int c)
{
    double dx = x - point_pos.x, dy = point_pos.y, dz = z - point_pos.z;
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    return v3_get(albedo, c) / M_PI * v3_get(intensity, c) * dy / (d * d * d);
}

static double sun_radiance(int c)
{
    double cos_t = -sun_dir.y / sqrt(v3_len2(sun_dir));
    return v3_get(albedo, c) / M_PI * v3_get(sun_e, c) * cos_t;
}

/* The closed form averaged over pixel (px, py): 16 x 16 midpoints. */
static double pixel_expected(int px, int py, int c, int point, int sun)
{
    double half = CAM_H * tan(HALF_FOV_DEG * M_PI / 180.0), sum = 0.0;
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++) {
            double x = half * (2.0 * (px + (i + 0.5) / 16) / W - 1.0);
            double z = half * (2.0 * (py + (j + 0.5) / 16) / W - 1.0);
            sum += (point ? point_radiance(x, z, c) : 0.0) + (sun ? sun_radiance(c) : 0.0);
        }
    return sum / 256.0;
}

/* Each pixel within 2% of the closed form (the within-pixel spread of the
 * point light's falloff over 64 samples is a fraction of that), and the
 * image's mean within 0.3%. */
static void check_image(const float *rgb, int point, int sun, double pixel_tol, double mean_tol)
{
    for (int c = 0; c < 3; c++) {
        double got_sum = 0.0, want_sum = 0.0;
        for (int py = 0; py < W; py++)
            for (int px = 0; px < W; px++) {
                double got = rgb[3 * (py * W + px) + c], want = pixel_expected(px, py, c, point, sun);
                if (fabs(got - want) > pixel_tol * want)
                    fail_msg("pixel (%d, %d) channel %d: %.6f, closed form %.6f", px, py, c, got, want);
                got_sum += got;
                want_sum += want;
            }
        printf("channel %d: mean %.6f, closed form %.6f\n", c, got_sum / (W * W), want_sum / (W * W));
        assert_true(fabs(got_sum - want_sum) <= mean_tol * want_sum);
    }
}

/* For noisy images: the mean per-pixel difference from the closed form is
 * within 4.5 standard errors of zero, and the standard error is below 1%. */
static void check_mean(const float *rgb, int point, int sun)
{
    for (int c = 0; c < 3; c++) {
        double sum = 0, sum2 = 0, ref = 0;
        for (int py = 0; py < W; py++)
            for (int px = 0; px < W; px++) {
                double want = pixel_expected(px, py, c, point, sun), d = rgb[3 * (py * W + px) + c] - want;
                sum += d;
                sum2 += d * d;
                ref += want;
            }
        double n = W * W, mean = sum / n, se = sqrt(fmax(sum2 / n - mean * mean, 0) / n);
        printf("channel %d: closed form %.5f, difference %.5f (%.2f standard errors)\n", c, ref / n, mean, mean / se);
        assert_true(fabs(mean) <= 4.5 * se);
        assert_true(se < 0.01 * ref / n);
    }
}

static test_render settings(int spp, pw_light_mode mode)
{
    test_render o = {W, W, spp, 1, 1000, mode, 3, 0};
    return o;
}

static void point_light_on_plane(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(pw_scene_add_point_light(s, point_pos, intensity), PW_OK);
    test_render o = settings(64, PW_LIGHT_MODE_MIS);
    float *rgb = test_render_image(s, &o);
    check_image(rgb, 1, 0, 0.02, 0.003);
    free(rgb);
    pw_scene_free(s);
}

/* Irradiance from a fixed direction is the same everywhere on the plane:
 * every pixel is the closed form to float precision. */
static void distant_light_on_plane(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(pw_scene_add_distant_light(s, sun_dir, sun_e), PW_OK);
    test_render o = settings(4, PW_LIGHT_MODE_MIS);
    float *rgb = test_render_image(s, &o);
    check_image(rgb, 0, 1, 1e-4, 1e-4);
    free(rgb);
    pw_scene_free(s);
}

/* Shadow rays: a ceiling above the camera hides the sun completely but not
 * the point light below it (its shadow rays stop at the light). A sun
 * shining from below lights the plane's other side, which the camera does
 * not see. */
static void shadows_and_back_side(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(1);
    assert_int_equal(pw_scene_add_point_light(s, point_pos, intensity), PW_OK);
    assert_int_equal(pw_scene_add_distant_light(s, sun_dir, sun_e), PW_OK);
    test_render o = settings(256, PW_LIGHT_MODE_MIS);
    float *rgb = test_render_image(s, &o);
    /* The sun takes about half the picks and gives nothing: the point
     * light's samples, weighted by 1 / their probability, remain. */
    check_mean(rgb, 1, 0);
    free(rgb);
    pw_scene_free(s);

    s = plane_scene(0);
    assert_int_equal(pw_scene_add_distant_light(s, v3(0.2f, 1.0f, 0.0f), sun_e), PW_OK);
    rgb = test_render_image(s, &o);
    for (int i = 0; i < 3 * W * W; i++)
        assert_true(rgb[i] == 0.0f);
    free(rgb);
    pw_scene_free(s);
}

/* Both lights at once: each sample picks one in proportion to its power,
 * so pixels are noisy, but their mean difference from the closed form is
 * within 4.5 standard errors of zero. */
static void point_and_distant_together(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(pw_scene_add_point_light(s, point_pos, intensity), PW_OK);
    assert_int_equal(pw_scene_add_distant_light(s, sun_dir, sun_e), PW_OK);
    test_render o = settings(64, PW_LIGHT_MODE_MIS);
    float *rgb = test_render_image(s, &o);
    check_mean(rgb, 1, 1);
    free(rgb);
    pw_scene_free(s);
}

/* Selection by power: 4 pi I for a point light, pi r^2 E for a distant
 * one, r the radius of the sphere around the scene (the plane's half
 * diagonal, sqrt(18)). Luminance of (1, 1, 1) is 1. */
static void light_table_by_power(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(pw_scene_add_point_light(s, v3(0, 1, 0), v3s(1.0f)), PW_OK);
    assert_int_equal(pw_scene_add_distant_light(s, v3(0, -1, 0), v3s(1.0f)), PW_OK);
    assert_int_equal(pw_scene_add_point_light(s, v3(0, 1, 0), v3s(0.0f)), PW_OK); /* dark: left out */
    assert_int_equal(pw_scene_prepare(s, 1), PW_OK);
    assert_int_equal(s->lights.count, 2);
    assert_int_equal(s->lights.lights[0].type, PW_LIGHT_POINT);
    assert_int_equal(s->lights.lights[1].type, PW_LIGHT_DISTANT);
    double p_point = 4.0 * M_PI, p_sun = M_PI * 18.0;
    assert_float_equal(s->lights.pmf[0], p_point / (p_point + p_sun), 1e-5);
    assert_float_equal(s->lights.pmf[1], p_sun / (p_point + p_sun), 1e-5);
    pw_scene_free(s);
}

/* The toy estimator and light mode "none" leave delta lights out (nothing
 * can hit them), and say so by rendering black rather than failing. */
static void toy_and_none_modes_ignore_them(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(pw_scene_add_point_light(s, point_pos, intensity), PW_OK);
    assert_int_equal(pw_scene_add_distant_light(s, sun_dir, sun_e), PW_OK);
    pw_light_mode modes[2] = {PW_LIGHT_MODE_TOY, PW_LIGHT_MODE_NONE};
    for (int k = 0; k < 2; k++) {
        test_render o = settings(2, modes[k]);
        float *rgb = test_render_image(s, &o);
        for (int i = 0; i < 3 * W * W; i++)
            assert_true(rgb[i] == 0.0f);
        free(rgb);
    }
    pw_scene_free(s);
}

static void bad_lights(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(pw_scene_add_distant_light(s, v3s(0.0f), sun_e), PW_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(pw_last_error(), "lit plane: distant light with a zero"));
    assert_int_equal(pw_scene_add_point_light(s, v3(NAN, 0, 0), intensity), PW_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(pw_last_error(), "lit plane: point light"));
    assert_int_equal(pw_scene_add_point_light(s, point_pos, v3(1, -1, 1)), PW_ERR_INVALID_ARGUMENT);
    assert_int_equal(s->n_delta_lights, 0);
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(point_light_on_plane),
        cmocka_unit_test(distant_light_on_plane),
        cmocka_unit_test(shadows_and_back_side),
        cmocka_unit_test(point_and_distant_together),
        cmocka_unit_test(light_table_by_power),
        cmocka_unit_test(toy_and_none_modes_ignore_them),
        cmocka_unit_test(bad_lights),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
