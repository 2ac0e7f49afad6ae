/* Environment maps: the importance-sampling distribution against the
 * density it reports, and a lit render against the closed form.
 *
 * The map is made here (written as PFM, read back through the loader): a
 * dim blue-grey sky with a small bright "sun" above the horizon, the case
 * importance sampling exists for. */
#include "test_render_util.h"

#include <unistd.h>

#include "scene/scene.h"
#include "shade/environment.h"

#define PI_D 3.14159265358979323846
#define MAP_W 64
#define MAP_H 32
#define SUN_I 20
#define SUN_J 9 /* rows 0..15 are the upper hemisphere */

static float sky[3] = {0.2f, 0.3f, 0.5f}, sun[3] = {400.0f, 300.0f, 200.0f};

static const char *write_map(char *path, size_t n)
{
    snprintf(path, n, "/tmp/pw_envmap_%d.pfm", (int)getpid());
    float *rgb = malloc(MAP_W * MAP_H * 3 * sizeof *rgb);
    assert_non_null(rgb);
    for (int j = 0; j < MAP_H; j++)
        for (int i = 0; i < MAP_W; i++)
            for (int c = 0; c < 3; c++)
                rgb[3 * (j * MAP_W + i) + c] = (i == SUN_I && j == SUN_J) ? sun[c] : sky[c];
    assert_int_equal(pw_image_write(path, rgb, MAP_W, MAP_H, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    free(rgb);
    return path;
}

/* Irradiance on an upward plane: per cell, radiance times the integral of
 * cos(theta) over the cell, (2 pi / w) (sin^2 theta1 - sin^2 theta0) / 2. */
static double irradiance(int c)
{
    double e = 0.0;
    for (int j = 0; j < MAP_H / 2; j++) {
        double t0 = PI_D * j / MAP_H, t1 = PI_D * (j + 1) / MAP_H;
        double w = (2.0 * PI_D / MAP_W) * 0.5 * (sin(t1) * sin(t1) - sin(t0) * sin(t0));
        for (int i = 0; i < MAP_W; i++)
            e += w * ((i == SUN_I && j == SUN_J) ? sun[c] : sky[c]);
    }
    return e;
}

/* Sampled directions land in each cell of map e as often as the cell's
 * probability: Pearson chi-square over the cells expected 5 times or
 * more, under its 99.9% quantile (Wilson-Hilferty). hist: the n samples'
 * cells. */
static void assert_cells_match(const pw_env *e, const int *hist, int n, const char *what)
{
    double chi2 = 0.0;
    int dof = -1;
    for (uint32_t j = 0; j < e->h; j++)
        for (uint32_t i = 0; i < e->w; i++) {
            double p = (e->cond[j * (e->w + 1) + i + 1] - e->cond[j * (e->w + 1) + i]) *
                       (e->marginal[j + 1] - e->marginal[j]);
            double expect = p * n;
            if (expect < 5.0)
                continue;
            double d = hist[j * e->w + i] - expect;
            chi2 += d * d / expect;
            dof++;
        }
    double z = 3.09, q = dof * pow(1.0 - 2.0 / (9.0 * dof) + z * sqrt(2.0 / (9.0 * dof)), 3.0);
    printf("%s: chi-square %.1f over %d degrees of freedom (99.9%% quantile %.1f)\n", what, chi2, dof, q);
    assert_true(chi2 < q);
}

/* Sampled directions land in each cell as often as the cell's probability
 * (Pearson chi-square over the cells, 99.9% quantile), and the density
 * reported for them integrates to one over the sphere. */
static void sampling_matches_pdf(void **state)
{
    (void)state;
    char path[256];
    write_map(path, sizeof path);
    pw_scene *s = pw_scene_alloc("env");
    assert_int_equal(pw_scene_set_environment(s, path, 1.0f), PW_OK);
    unlink(path);
    const pw_env *e = &s->env;
    const int n = 400000, cells = MAP_W * MAP_H;
    int *hist = calloc(cells, sizeof *hist);
    test_rng g = {42};
    for (int k = 0; k < n; k++) {
        pw_vec3 wi;
        float pdf;
        if (!pw_env_sample(e, (float)trng_unif(&g), (float)trng_unif(&g), &wi, &pdf))
            continue;
        assert_true(fabsf(v3_len(wi) - 1.0f) < 1e-5f);
        assert_true(fabsf(pdf - pw_env_pdf(e, wi)) <= 1e-4f * pdf);
        float u, v;
        uint32_t i, j;
        pw_env_dir_to_uv(wi, &u, &v);
        hist[pw_env_cell(e, u, v, &i, &j)]++;
    }
    assert_cells_match(e, hist, n, "equirectangular");
    /* Integral of the density over the sphere, cell by cell (it is constant
     * in u within a cell and follows 1 / sin(theta) in v). */
    double integral = 0.0;
    for (int j = 0; j < MAP_H; j++)
        for (int i = 0; i < MAP_W; i++) {
            pw_vec3 d = pw_env_uv_to_dir((i + 0.5f) / MAP_W, (j + 0.5f) / MAP_H);
            /* pdf * sin(theta) is constant over a cell: its integral there is
             * that times the cell's extent in theta and phi. */
            integral += pw_env_pdf(e, d) * sin(PI_D * (j + 0.5) / MAP_H) * (PI_D / MAP_H) * (2.0 * PI_D / MAP_W);
        }
    printf("density integrates to %.5f\n", integral);
    assert_true(fabs(integral - 1.0) < 1e-3);
    free(hist);
    pw_scene_free(s);
}

/* A Lambert plane of albedo rho under the map, direct light only: every
 * pixel is rho E / pi. Checked with light sampling and MIS, and with BSDF
 * sampling alone; the first must also be far less noisy (the sun is small). */
static void lit_plane(void **state)
{
    (void)state;
    char path[256];
    write_map(path, sizeof path);
    const float rho = 0.5f;
    double sd[2];
    for (int mode = 0; mode < 2; mode++) {
        pw_scene *s = pw_scene_alloc("env plane");
        uint32_t m = pw_scene_push_material(s, pw_lambert(rho, rho, rho));
        pw_vec3 p[4] = {v3(-100, 0, -100), v3(-100, 0, 100), v3(100, 0, 100), v3(100, 0, -100)};
        uint32_t b = pw_scene_add_vertices(s, p, NULL, 4);
        pw_scene_add_triangle(s, b, b + 1, b + 2, m);
        pw_scene_add_triangle(s, b, b + 2, b + 3, m);
        assert_int_equal(pw_scene_set_environment(s, path, 1.0f), PW_OK);
        s->cam.look_from = v3(0, 2, 0.01f);
        s->cam.look_at = v3(0, 0, 0);
        s->cam.vfov_deg = 30.0f;
        test_render o = {32, 32, mode == 0 ? 16 : 256, 1, 1000, mode == 0 ? PW_LIGHT_MODE_MIS : PW_LIGHT_MODE_NONE, 5, 0};
        float *img = test_render_image(s, &o);
        for (int c = 0; c < 3; c++) {
            double expect = rho * irradiance(c) / PI_D, sum = 0, sum2 = 0;
            for (int i = 0; i < 32 * 32; i++) {
                sum += img[3 * i + c];
                sum2 += (double)img[3 * i + c] * img[3 * i + c];
            }
            double mean = sum / 1024, var = sum2 / 1024 - mean * mean, se = sqrt(fmax(var, 0) / 1024);
            printf("%s channel %d: mean %.5f expected %.5f (%.2f standard errors, se %.2f%%)\n",
                   mode == 0 ? "MIS" : "BSDF only", c, mean, expect, (mean - expect) / se, 100 * se / expect);
            assert_true(fabs(mean - expect) <= 4.5 * se);
            assert_true(se < 0.05 * expect);
            if (c == 0)
                sd[mode] = sqrt(fmax(var, 0)) * sqrt((double)o.spp); /* a pixel averages spp samples */
        }
        free(img);
        pw_scene_free(s);
    }
    unlink(path);
    /* Per-sample noise: light sampling at least 3 times lower here. */
    printf("per-sample standard deviation: MIS %.3f, BSDF only %.3f\n", sd[0], sd[1]);
    assert_true(sd[0] * 3.0 < sd[1]);
}

static void bad_maps(void **state)
{
    (void)state;
    pw_scene *s = pw_scene_alloc("env bad");
    assert_int_not_equal(pw_scene_set_environment(s, "/nonexistent/sky.hdr", 1.0f), PW_OK);
    assert_non_null(strstr(pw_last_error(), "/nonexistent/sky.hdr"));
    char path[256];
    write_map(path, sizeof path);
    assert_int_equal(pw_scene_set_environment(s, path, -1.0f), PW_ERR_INVALID_ARGUMENT);
    float black[3 * 4 * 2] = {0};
    assert_int_equal(pw_image_write(path, black, 4, 2, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    assert_int_equal(pw_scene_set_environment(s, path, 1.0f), PW_ERR_FORMAT);
    assert_non_null(strstr(pw_last_error(), "black"));
    unlink(path);
    pw_scene_free(s);
}

/* The equal-area square (pbrt-v4's environment layout): square -> sphere
 * -> square and sphere -> square -> sphere round-trip, and uniform points
 * of the square are uniform on the sphere (mean z 0, mean z^2 1/3). */
static void equal_area_round_trips(void **state)
{
    (void)state;
    test_rng g = {7};
    double mz = 0.0, mz2 = 0.0;
    const int n = 200000;
    for (int k = 0; k < n; k++) {
        float px = (float)trng_unif(&g), py = (float)trng_unif(&g), qx, qy;
        pw_vec3 d = pw_equal_area_square_to_sphere(px, py);
        if (fabsf(v3_len(d) - 1.0f) > 1e-5f)
            fail_msg("(%g, %g) maps to a direction of length %g", px, py, v3_len(d));
        pw_equal_area_sphere_to_square(d, &qx, &qy);
        if (fabsf(qx - px) > 2e-5f || fabsf(qy - py) > 2e-5f)
            fail_msg("(%g, %g) -> (%g, %g, %g) -> (%g, %g)", px, py, d.x, d.y, d.z, qx, qy);
        pw_vec3 e = pw_equal_area_square_to_sphere(qx, qy);
        assert_true(v3_len(v3_sub(e, d)) < 5e-5f);
        mz += d.z, mz2 += (double)d.z * d.z;
    }
    mz /= n, mz2 /= n;
    printf("equal-area: mean z %.5f, mean z^2 %.5f (uniform: 0, 1/3)\n", mz, mz2);
    assert_true(fabs(mz) < 5e-3 && fabs(mz2 - 1.0 / 3.0) < 5e-3);
    pw_vec3 c = pw_equal_area_square_to_sphere(0.5f, 0.5f);
    assert_true(c.z > 0.99999f); /* +z at the centre */
}

/* An equal-area map (square, in its own frame) turned by a rotation:
 * sampled directions follow the reported density cell by cell (Pearson
 * chi-square), the density integrates to one, and the radiance of a world
 * direction is the map's at the rotated direction. */
static void rotated_equal_area_sampling_matches_pdf(void **state)
{
    (void)state;
    enum { N = 32 };
    char path[256];
    snprintf(path, sizeof path, "/tmp/pw_envmap_ea_%d.pfm", (int)getpid());
    float *rgb = malloc(N * N * 3 * sizeof *rgb);
    assert_non_null(rgb);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++)
            for (int ch = 0; ch < 3; ch++)
                rgb[3 * (j * N + i) + ch] = (i == 11 && j == 7) ? sun[ch] : sky[ch] * (1.0f + 0.05f * (float)i);
    assert_int_equal(pw_image_write(path, rgb, N, N, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    pw_scene *s = pw_scene_alloc("env");
    assert_int_equal(pw_scene_load_environment(s, path, 1.0f, PW_ENV_EQUAL_AREA), PW_OK);
    unlink(path);
    /* A turn of 30 degrees about (1, 2, 3) / |.|: its matrix's rows. */
    double ax[3] = {1, 2, 3}, len = sqrt(14.0), a = 30.0 * PI_D / 180.0, ca = cos(a), sa = sin(a);
    for (int k = 0; k < 3; k++)
        ax[k] /= len;
    pw_vec3 rows[3];
    float m[3][3];
    for (int r = 0; r < 3; r++)
        for (int q = 0; q < 3; q++) {
            double cross = r == q ? 0 : ((r + 1) % 3 == q ? -ax[3 - r - q] : ax[3 - r - q]);
            m[r][q] = (float)(ca * (r == q) + (1 - ca) * ax[r] * ax[q] + sa * cross);
        }
    for (int r = 0; r < 3; r++)
        rows[r] = v3(m[r][0], m[r][1], m[r][2]);
    pw_scene_rotate_environment(s, rows);
    const pw_env *e = &s->env;
    const int n = 400000;
    int *hist = calloc(N * N, sizeof *hist);
    test_rng g = {43};
    for (int k = 0; k < n; k++) {
        pw_vec3 wi;
        float pdf;
        if (!pw_env_sample(e, (float)trng_unif(&g), (float)trng_unif(&g), &wi, &pdf))
            continue;
        assert_true(fabsf(v3_len(wi) - 1.0f) < 1e-5f);
        assert_true(fabsf(pdf - pw_env_pdf(e, wi)) <= 1e-4f * pdf);
        float u, v;
        uint32_t i, j;
        pw_env_map_uv(e, wi, &u, &v);
        hist[pw_env_cell(e, u, v, &i, &j)]++;
    }
    assert_cells_match(e, hist, n, "rotated equal-area");
    /* Equal-area: every cell's density is constant over 4 pi / N^2. */
    double integral = 0.0;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            pw_vec3 d = pw_env_from_map(e, pw_equal_area_square_to_sphere((i + 0.5f) / N, (j + 0.5f) / N));
            integral += pw_env_pdf(e, d) * 4.0 * PI_D / (N * N);
        }
    printf("rotated equal-area: density integrates to %.5f\n", integral);
    assert_true(fabs(integral - 1.0) < 1e-3);
    /* The sun's cell, seen from the world through the rotation. */
    pw_vec3 sun_map = pw_equal_area_square_to_sphere(11.5f / N, 7.5f / N);
    pw_vec3 sun_world = v3_add(v3_add(v3_scale(rows[0], sun_map.x), v3_scale(rows[1], sun_map.y)),
                               v3_scale(rows[2], sun_map.z));
    pw_vec3 L = pw_env_radiance(e, sun_world);
    assert_true(fabsf(L.x - sun[0]) < 1e-3f * sun[0]);
    free(hist);
    free(rgb);
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sampling_matches_pdf),
        cmocka_unit_test(equal_area_round_trips),
        cmocka_unit_test(rotated_equal_area_sampling_matches_pdf),
        cmocka_unit_test(lit_plane),
        cmocka_unit_test(bad_maps),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
