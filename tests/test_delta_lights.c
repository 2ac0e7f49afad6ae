/* Point, spot and distant lights against the closed form. A Lambert plane
 * of albedo a lit by a point light of intensity I at height h reflects
 * L = a / pi * I * cos(theta) / d^2 = a / pi * I * h / d^3, by a spot the
 * same times pbrt-v4's falloff smoothstep(cos end, cos start, cos alpha)
 * at angle alpha from its axis, and lit by a distant light of irradiance
 * E arriving at angle theta to its normal, L = a / pi * E * cos(theta).
 * With one light, next-event estimation is exact at every hit (the light
 * is chosen with probability 1 and BSDF samples leave into a black sky),
 * so a pixel differs from the closed form averaged over its area only
 * through where its samples land in it. Also: the light table's powers,
 * bad lights refused, and pbrt-v4's LightSource "spot" read into a spot. */
#include "test_render_util.h"

#include <unistd.h>

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
    pw_scene *s = pw_scene_alloc("lit plane");
    uint32_t m = pw_scene_push_material(s, pw_lambert(albedo.x, albedo.y, albedo.z));
    pw_vec3 p[4] = {v3(-3, 0, -3), v3(-3, 0, 3), v3(3, 0, 3), v3(3, 0, -3)};
    uint32_t b = pw_scene_add_vertices(s, p, NULL, 4);
    assert_int_equal(pw_scene_add_triangle(s, b, b + 1, b + 2, m), PW_OK);
    assert_int_equal(pw_scene_add_triangle(s, b, b + 2, b + 3, m), PW_OK);
    if (ceiling) {
        uint32_t black = pw_scene_push_material(s, pw_lambert(0, 0, 0));
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

static double sun_radiance(double x, double z, int c)
{
    (void)x, (void)z;
    double cos_t = -sun_dir.y / sqrt(v3_len2(sun_dir));
    return v3_get(albedo, c) / M_PI * v3_get(sun_e, c) * cos_t;
}

static double point_and_sun_radiance(double x, double z, int c)
{
    return point_radiance(x, z, c) + sun_radiance(x, z, c);
}

/* spot: at spot_pos aimed at spot_aim on the plane, its falloff from 18 to
 * 35 degrees off the axis, 5 to 10 pixels wide on the plane. */
static const pw_vec3 spot_pos = {0.2f, 2.0f, -0.1f}, spot_aim = {0.5f, 0.0f, 0.1f}, spot_i = {30.0f, 20.0f, 10.0f};
#define SPOT_END_DEG 35.0
#define SPOT_START_DEG 18.0

static double smoothstep(double x, double a, double b)
{
    double t = fmin(fmax((x - a) / (b - a), 0.0), 1.0);
    return t * t * (3.0 - 2.0 * t);
}

/* The spot's falloff toward plane point (x, 0, z). */
static double spot_falloff(double x, double z)
{
    double ax = spot_aim.x - spot_pos.x, ay = spot_aim.y - spot_pos.y, az = spot_aim.z - spot_pos.z;
    double dx = x - spot_pos.x, dy = -spot_pos.y, dz = z - spot_pos.z;
    double cos_a = (ax * dx + ay * dy + az * dz) / sqrt((ax * ax + ay * ay + az * az) * (dx * dx + dy * dy + dz * dz));
    return smoothstep(cos_a, cos(SPOT_END_DEG * M_PI / 180.0), cos(SPOT_START_DEG * M_PI / 180.0));
}

static double spot_radiance(double x, double z, int c)
{
    double dx = x - spot_pos.x, dy = spot_pos.y, dz = z - spot_pos.z;
    double d = sqrt(dx * dx + dy * dy + dz * dz);
    return v3_get(albedo, c) / M_PI * v3_get(spot_i, c) * spot_falloff(x, z) * dy / (d * d * d);
}

static double spot_and_point_radiance(double x, double z, int c)
{
    return spot_radiance(x, z, c) + point_radiance(x, z, c);
}

static pw_status add_spot(pw_scene *s)
{
    return pw_scene_add_spot_light(s, spot_pos, v3_sub(spot_aim, spot_pos), (float)cos(SPOT_END_DEG * M_PI / 180.0),
                                   (float)cos(SPOT_START_DEG * M_PI / 180.0), spot_i);
}

typedef double (*radiance_fn)(double x, double z, int c);

/* Plane point (i / 16, j / 16) of pixel (px, py), in pixel units. */
static void plane_point(int px, int py, double i, double j, double *x, double *z)
{
    double half = CAM_H * tan(HALF_FOV_DEG * M_PI / 180.0);
    *x = half * (2.0 * (px + i / 16) / W - 1.0);
    *z = half * (2.0 * (py + j / 16) / W - 1.0);
}

/* The closed form over pixel (px, py) at 16 x 16 midpoints: its mean, and
 * in *sd and *range (when not NULL) its standard deviation over the pixel
 * and its largest minus its smallest value. */
static double pixel_expected_spread(int px, int py, int c, radiance_fn f, double *sd, double *range)
{
    double sum = 0.0, sum2 = 0.0, lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 16; i++) {
            double x, z;
            plane_point(px, py, i + 0.5, j + 0.5, &x, &z);
            double v = f(x, z, c);
            sum += v;
            sum2 += v * v;
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    double mean = sum / 256.0;
    if (sd)
        *sd = sqrt(fmax(sum2 / 256.0 - mean * mean, 0.0));
    if (range)
        *range = hi - lo;
    return mean;
}

static double pixel_expected(int px, int py, int c, radiance_fn f)
{
    return pixel_expected_spread(px, py, c, f, NULL, NULL);
}

/* Each pixel within 2% of the closed form (the within-pixel spread of the
 * point light's falloff over 64 samples is a fraction of that), and the
 * image's mean within 0.3%. */
static void check_image(const float *rgb, radiance_fn f, double pixel_tol, double mean_tol)
{
    for (int c = 0; c < 3; c++) {
        double got_sum = 0.0, want_sum = 0.0;
        for (int py = 0; py < W; py++)
            for (int px = 0; px < W; px++) {
                double got = rgb[3 * (py * W + px) + c], want = pixel_expected(px, py, c, f);
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
static void check_mean(const float *rgb, radiance_fn f)
{
    for (int c = 0; c < 3; c++) {
        double sum = 0, sum2 = 0, ref = 0;
        for (int py = 0; py < W; py++)
            for (int px = 0; px < W; px++) {
                double want = pixel_expected(px, py, c, f), d = rgb[3 * (py * W + px) + c] - want;
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
    check_image(rgb, point_radiance, 0.02, 0.003);
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
    check_image(rgb, sun_radiance, 1e-4, 1e-4);
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
    check_mean(rgb, point_radiance);
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
    check_mean(rgb, point_and_sun_radiance);
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

/* spot: where pixel (px, py) lies, from the falloff at its 17 x 17 grid
 * of corners (edges included). */
enum spot_zone { SPOT_OUTSIDE, SPOT_BAND, SPOT_INSIDE };

static enum spot_zone spot_zone_of(int px, int py)
{
    double lo = 1.0, hi = 0.0;
    for (int j = 0; j <= 16; j++)
        for (int i = 0; i <= 16; i++) {
            double x, z;
            plane_point(px, py, i, j, &x, &z);
            double f = spot_falloff(x, z);
            lo = fmin(lo, f);
            hi = fmax(hi, f);
        }
    return hi == 0.0 ? SPOT_OUTSIDE : lo == 1.0 ? SPOT_INSIDE : SPOT_BAND;
}

/* How far the mean of n independent samples of a quantity with standard
 * deviation sd, each within range of its mean, strays from that mean with
 * probability below 1e-6: Bernstein's inequality, sqrt(2 ln(2 / 1e-6))
 * sd / sqrt(n) + 2/3 ln(2 / 1e-6) range / n. Unlike a multiple of the
 * standard error it holds for a pixel that the cone's edge barely crosses,
 * where a sample or two carry all its light. */
static double mean_deviation_bound(double sd, double range, int n)
{
    double l = log(2.0 / 1e-6);
    return sqrt(2.0 * l) * sd / sqrt(n) + 2.0 / 3.0 * l * range / n;
}

/* A tilted spot over the plane. With one light, a pixel's samples differ
 * from the closed form only through where their uniform, independent
 * jitter lands, so its mean is within mean_deviation_bound of the closed
 * form's spread over the pixel, plus 0.2% for the midpoint rule and 1e-5
 * of the spot's peak for a pixel whose corner the cone's edge cuts between
 * the midpoints; a pixel wholly outside the cone is exactly black (the sky
 * is). With 256 samples
 * the bound is a few percent of the spot's peak in the falloff band, where
 * a linear falloff in place of the smoothstep would be off by up to 9%.
 * Pixels of all three zones are checked, so a wrong angle, axis or falloff
 * fails. */
static void spot_light_on_plane(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(add_spot(s), PW_OK);
    const int spp = 256;
    test_render o = settings(spp, PW_LIGHT_MODE_MIS);
    float *rgb = test_render_image(s, &o);
    int zones[3] = {0, 0, 0};
    for (int py = 0; py < W; py++)
        for (int px = 0; px < W; px++) {
            enum spot_zone z = spot_zone_of(px, py);
            zones[z]++;
            for (int c = 0; c < 3; c++) {
                double sd, range, want = pixel_expected_spread(px, py, c, spot_radiance, &sd, &range);
                double got = rgb[3 * (py * W + px) + c];
                double peak = spot_radiance(spot_aim.x, spot_aim.z, c);
                double tol = z == SPOT_OUTSIDE ? 0.0 : mean_deviation_bound(sd, range, spp) + 2e-3 * want + 1e-5 * peak;
                if (fabs(got - want) > tol)
                    fail_msg("pixel (%d, %d) (zone %d) channel %d: %.6f, closed form %.6f +- %.6f", px, py, z, c, got,
                             want, tol);
            }
        }
    printf("pixels outside the cone %d, in its falloff %d, inside %d\n", zones[SPOT_OUTSIDE], zones[SPOT_BAND],
           zones[SPOT_INSIDE]);
    assert_true(zones[SPOT_OUTSIDE] >= 30 && zones[SPOT_BAND] >= 30 && zones[SPOT_INSIDE] >= 30);
    free(rgb);
    pw_scene_free(s);
}

/* A spot and a point light: each sample picks one by power, and the
 * spot's pick may land outside its cone, yet the mean stays the closed
 * form's. */
static void spot_and_point_together(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    assert_int_equal(add_spot(s), PW_OK);
    assert_int_equal(pw_scene_add_point_light(s, point_pos, intensity), PW_OK);
    test_render o = settings(256, PW_LIGHT_MODE_MIS);
    float *rgb = test_render_image(s, &o);
    check_mean(rgb, spot_and_point_radiance);
    free(rgb);
    pw_scene_free(s);
}

/* pbrt-v4's power of a spot, 2 pi I (1 - (cos start + cos end) / 2), by
 * luminance, against a point light's 4 pi I: the table's probabilities
 * keep their ratio. The direction is stored unit length. */
static void spot_power_in_light_table(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    const double end = 60.0 * M_PI / 180.0, start = 45.0 * M_PI / 180.0;
    assert_int_equal(pw_scene_add_spot_light(s, v3(0, 2, 0), v3(0, -3, 0), (float)cos(end), (float)cos(start),
                                             v3(1.0f, 2.0f, 3.0f)),
                     PW_OK);
    assert_int_equal(pw_scene_add_point_light(s, v3(0, 1, 0), v3s(1.0f)), PW_OK);
    assert_int_equal(pw_scene_prepare(s, 1), PW_OK);
    assert_int_equal(s->lights.count, 2);
    assert_int_equal(s->lights.lights[0].type, PW_LIGHT_SPOT);
    assert_int_equal(s->lights.lights[1].type, PW_LIGHT_POINT);
    assert_true(s->delta_cones[0].axis.x == 0.0f && s->delta_cones[0].axis.y == -1.0f &&
                s->delta_cones[0].axis.z == 0.0f);
    double lum = 0.2126 * 1 + 0.7152 * 2 + 0.0722 * 3;
    double p_spot = 2.0 * M_PI * lum * (1.0 - 0.5 * (cos(start) + cos(end))), p_point = 4.0 * M_PI;
    double ratio = (double)s->lights.pmf[0] / s->lights.pmf[1];
    printf("spot / point pmf %.6f, power ratio %.6f\n", ratio, p_spot / p_point);
    assert_float_equal(ratio, p_spot / p_point, 1e-5 * ratio);
    pw_scene_free(s);
}

/* Each bad spot is refused with a message naming the scene and what is
 * wrong, and adds nothing. */
static void bad_spot_lights(void **state)
{
    (void)state;
    pw_scene *s = plane_scene(0);
    const pw_vec3 down = v3(0, -1, 0);
    static const struct {
        pw_vec3 pos, dir, I;
        float cos_end, cos_start;
        const char *msg;
    } bad[] = {
        {{0, 1, 0}, {0, 0, 0}, {1, 1, 1}, 0.5f, 0.9f, "lit plane: spot light with a zero or non-finite direction"},
        {{0, 1, 0}, {0, NAN, 0}, {1, 1, 1}, 0.5f, 0.9f, "lit plane: spot light with a zero or non-finite direction"},
        {{0, 1, 0}, {0, -1, 0}, {1, 1, 1}, NAN, 0.9f, "lit plane: spot light cone cosines (falloff end nan"},
        {{0, 1, 0}, {0, -1, 0}, {1, 1, 1}, 0.5f, 1.5f, "must lie in [-1, 1]"},
        {{0, 1, 0}, {0, -1, 0}, {1, 1, 1}, 0.9f, 0.5f, "lit plane: spot light falloff starts outside its cone"},
        {{0, 1, 0}, {0, -1, 0}, {1, -1, 1}, 0.5f, 0.9f, "lit plane: spot light with a non-finite position or a "
                                                        "negative or non-finite power"},
        {{0, INFINITY, 0}, {0, -1, 0}, {1, 1, 1}, 0.5f, 0.9f, "lit plane: spot light with a non-finite position"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(pw_scene_add_spot_light(s, bad[i].pos, bad[i].dir, bad[i].cos_end, bad[i].cos_start, bad[i].I),
                         PW_ERR_INVALID_ARGUMENT);
        if (!strstr(pw_last_error(), bad[i].msg))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, pw_last_error(), bad[i].msg);
    }
    assert_int_equal(s->n_delta_lights, 0);
    /* Equal cosines are a sharp edge, and a cone may open to the whole sphere. */
    assert_int_equal(pw_scene_add_spot_light(s, v3(0, 1, 0), down, 0.5f, 0.5f, v3s(1.0f)), PW_OK);
    assert_int_equal(pw_scene_add_spot_light(s, v3(0, 1, 0), down, -1.0f, 1.0f, v3s(1.0f)), PW_OK);
    pw_scene_free(s);
}

static int n_warnings;
static char last_warning[512];

static void count_warning(const char *msg, void *user)
{
    (void)user;
    n_warnings++;
    snprintf(last_warning, sizeof last_warning, "%s", msg);
}

/* Loads pbrt-v4 text from a temporary file into *s; returns the status. */
static pw_status load_pbrt(const char *text, pw_scene **s)
{
    char path[] = "/tmp/pw_spot_XXXXXX.pbrt";
    int fd = mkstemps(path, 5);
    assert_true(fd >= 0);
    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    n_warnings = 0;
    pw_set_warning_handler(count_warning, NULL);
    *s = NULL;
    pw_status st = pw_scene_load(path, s);
    pw_set_warning_handler(NULL, NULL);
    unlink(path);
    return st;
}

static void assert_near(pw_vec3 v, double x, double y, double z, double tol)
{
    if (fabs(v.x - x) > tol || fabs(v.y - y) > tol || fabs(v.z - z) > tol)
        fail_msg("(%g, %g, %g) is not (%g, %g, %g)", v.x, v.y, v.z, x, y, z);
}

/* pbrt-v4's spot: "from" and "to" under the current transform (here a
 * turn of 90 degrees about z, then a shift), I times scale, cos of
 * coneangle and of coneangle - conedeltaangle; the defaults (from 0 0 0,
 * to 0 0 1, 30 and 5 degrees, I the illuminant, white); "power" scaling I
 * to 2 pi I (1 - (cos start + cos end) / 2) = power. An uneven scale is
 * warned about. */
static void pbrt_spot_parameters(void **state)
{
    (void)state;
    pw_scene *s;
    assert_int_equal(load_pbrt("WorldBegin\n"
                               "AttributeBegin\n"
                               "  Translate 1 2 3\n  Rotate 90 0 0 1\n"
                               "  LightSource \"spot\" \"point3 from\" [1 0 0] \"point3 to\" [1 1 -1]\n"
                               "    \"rgb I\" [1 2 3]\n"
                               "    \"float scale\" 2 \"float coneangle\" 40 \"float conedeltaangle\" 15\n"
                               "AttributeEnd\n"
                               "LightSource \"spot\" \"float power\" 100\n"
                               "Shape \"sphere\"\n",
                               &s),
                     PW_OK);
    assert_int_equal(n_warnings, 0);
    assert_int_equal(s->n_delta_lights, 2);
    assert_int_equal(s->delta_type[0], PW_LIGHT_SPOT);
    /* (1, 0, 0) turns to (0, 1, 0), then moves by (1, 2, 3); the axis
     * (0, 1, -1) turns to (-1, 0, -1). */
    assert_near(s->delta_lights[0].v, 1, 3, 3, 1e-5);
    assert_near(s->delta_cones[0].axis, -M_SQRT1_2, 0, -M_SQRT1_2, 1e-6);
    assert_near(s->delta_lights[0].L, 2, 4, 6, 1e-5);
    assert_float_equal(s->delta_cones[0].cos_end, cos(40 * M_PI / 180), 1e-6);
    assert_float_equal(s->delta_cones[0].cos_start, cos(25 * M_PI / 180), 1e-6);
    double ce = cos(30 * M_PI / 180), cs = cos(25 * M_PI / 180), I = 100 / (2 * M_PI * (1 - 0.5 * (cs + ce)));
    assert_near(s->delta_lights[1].v, 0, 0, 0, 0);
    assert_near(s->delta_cones[1].axis, 0, 0, 1, 0);
    assert_near(s->delta_lights[1].L, I, I, I, 1e-4 * I);
    assert_float_equal(s->delta_cones[1].cos_end, ce, 1e-6);
    assert_float_equal(s->delta_cones[1].cos_start, cs, 1e-6);
    pw_scene_free(s);

    assert_int_equal(load_pbrt("WorldBegin\nAttributeBegin\nScale 1 2 1\nLightSource \"spot\"\nAttributeEnd\n"
                               "Shape \"sphere\"\n",
                               &s),
                     PW_OK);
    assert_int_equal(n_warnings, 1);
    assert_non_null(strstr(last_warning, ":4: LightSource \"spot\": the current transform does not keep angles"));
    assert_int_equal(s->n_delta_lights, 1);
    pw_scene_free(s);
}

/* A spot narrower than pbrt-v4's default falloff band of 5 degrees, with
 * no band given, falls off across the whole cone rather than being
 * refused for a band the file never wrote. */
static void pbrt_narrow_spot_default_band(void **state)
{
    (void)state;
    pw_scene *s;
    assert_int_equal(load_pbrt("WorldBegin\nLightSource \"spot\" \"float coneangle\" 2\nShape \"sphere\"\n", &s),
                     PW_OK);
    assert_int_equal(s->n_delta_lights, 1);
    assert_float_equal(s->delta_cones[0].cos_end, cosf(2.0f * PW_PI / 180.0f), 1e-7f);
    assert_float_equal(s->delta_cones[0].cos_start, 1.0f, 0.0f);
    pw_scene_free(s);
}

/* Bad pbrt spots fail with file:line:column and what is wrong (the
 * corpus, tests/corpus/pbrt/spot_*.pbrt, has the exact messages). */
static void pbrt_bad_spots(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"WorldBegin\nLightSource \"spot\" \"float coneangle\" [ nan ]\n",
         ".pbrt:2:40: \"float coneangle\": expected a number, got 'nan'"},
        {"WorldBegin\nLightSource \"spot\" \"point3 from\" [1 2 3] \"point3 to\" [1 2 3]\n",
         ".pbrt:2:1: LightSource \"spot\": \"from\" and \"to\" give no direction under the current transform"},
        {"WorldBegin\nLightSource \"spot\" \"float coneangle\" 190\n",
         "\"float coneangle\": must lie in [0, 180] degrees"},
        {"WorldBegin\nLightSource \"spot\" \"float coneangle\" 10 \"float conedeltaangle\" -1\n",
         "starts the falloff outside the cone"},
        {"WorldBegin\nLightSource \"spot\" \"float coneangle\" 0 \"float power\" 10\n",
         "\"float power\": a spot of coneangle 0 sends no light, so no intensity gives it a power"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        pw_scene *s;
        assert_int_equal(load_pbrt(bad[i].text, &s), PW_ERR_FORMAT);
        assert_null(s);
        if (!strstr(pw_last_error(), "/tmp/pw_spot_") || !strstr(pw_last_error(), bad[i].msg))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, pw_last_error(), bad[i].msg);
    }
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
        cmocka_unit_test(spot_light_on_plane),
        cmocka_unit_test(spot_and_point_together),
        cmocka_unit_test(spot_power_in_light_table),
        cmocka_unit_test(bad_spot_lights),
        cmocka_unit_test(pbrt_spot_parameters),
        cmocka_unit_test(pbrt_narrow_spot_default_band),
        cmocka_unit_test(pbrt_bad_spots),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
