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
 * stated in standard errors computed from that variance.
 *
 * Microfacet materials lose energy to single scattering, so they are not
 * invisible: an index-matched rough dielectric has an exact noise-free
 * value per camera ray, the others are bounded, and their light sampling
 * is checked against BSDF sampling alone under an environment map.
 *
 * The scenes are built through the public API (pw_scene_new and the rest
 * of pathwave.h's "building scenes in code"). */
#include "test_render_util.h"
#include "test_mesh_util.h"
#include "test_scene_build.h"

#include <unistd.h>

#include "shade/camera.h"

#define W 32
#define H 32

/* A scene in a white furnace, looked at from +z by a camera whose frame the
 * unit sphere at the origin fills (half-diagonal 9.9 deg < asin(1/5) = 11.5 deg). */
static pw_scene *furnace_scene(const char *name)
{
    pw_scene *s = test_new_scene(name);
    const float white[3] = {1, 1, 1}, from[3] = {0, 0, 5}, at[3] = {0, 0, 0}, up[3] = {0, 1, 0};
    test_set_sky(s, white, white, 1.0f);
    test_set_camera(s, from, at, up, 14.0f);
    return s;
}

/* A sphere of material m at the origin, radius 1. */
static void unit_sphere(pw_scene *s, pw_material_desc m)
{
    test_add_sphere(s, 0, 0, 0, 1.0f, test_add_material(s, m));
}

static pw_material_desc dielectric(float ior)
{
    pw_material_desc d = {.kind = PW_MATERIAL_DIELECTRIC, .dielectric = {ior}};
    return d;
}

static pw_material_desc rough_dielectric(float ior, float alpha)
{
    pw_material_desc d = {.kind = PW_MATERIAL_ROUGH_DIELECTRIC, .rough_dielectric = {ior, alpha}};
    return d;
}

static pw_material_desc metallic_roughness(float r, float g, float b, float metallic, float roughness)
{
    pw_material_desc d = {.kind = PW_MATERIAL_METALLIC_ROUGHNESS,
                          .metallic_roughness = {{r, g, b}, metallic, roughness}};
    return d;
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
        unit_sphere(s, test_lambert(1, 1, 1));
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
    unit_sphere(s, dielectric(1.5f));
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
    uint32_t white = test_add_material(s, test_lambert(1, 1, 1));
    uint32_t glass = test_add_material(s, dielectric(1.5f));
    test_add_sphere(s, -0.5f, 0.0f, 0.0f, 0.6f, white);
    test_add_sphere(s, 0.5f, 0.0f, 0.0f, 0.6f, white);  /* overlaps the first */
    test_add_sphere(s, 0.0f, -0.8f, 0.3f, 0.4f, white); /* touches both */
    test_add_sphere(s, 0.0f, 0.75f, 0.2f, 0.35f, glass);
    test_mesh m = test_mesh_icosphere(2, v3(0.0f, 0.0f, 0.75f), 0.45);
    const pw_mesh_desc md = {.vertex_count = m.nv, .positions = (const float *)m.v, .triangle_count = m.nt, .indices = m.idx};
    test_add_mesh(s, &md, white);
    test_mesh_free(&m);
    test_set_vfov(s, 30.0f);
    /* The glass sphere overlaps a white one: a path can be held inside the
     * glass by total internal reflection for dozens of bounces before it
     * escapes, so the depth is 1000, which a leaked path never escapes
     * either. Under 32 seeds (16,384 paths each): a path that bounced
     * inside the glass used to lose its direction's unit length a little
     * more at each reflection, until it circled inside for good; one seed
     * in six lost a path that way. */
    const float one[3] = {1, 1, 1};
    for (uint32_t seed = 1; seed <= 32; seed++) {
        test_render o = opts(16, 1, PW_LIGHT_MODE_MIS);
        o.max_depth = 1000;
        o.seed = seed;
        float *img = test_render_image(s, &o);
        char what[64];
        snprintf(what, sizeof what, "lossless cluster, seed %u", seed);
        expect_every_pixel(img, one, 1e-5f, what);
        free(img);
    }
    pw_scene_free(s);
}

/* Albedo a < 1, no Russian roulette: exactly a in every pixel. */
static void grey_lambert_sphere_exact(void **state)
{
    (void)state;
    pw_scene *s = furnace_scene("furnace albedo");
    const float a[3] = {0.25f, 0.5f, 0.75f};
    unit_sphere(s, test_lambert(a[0], a[1], a[2]));
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
    unit_sphere(s, test_lambert(a[0], a[1], a[2]));
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

/* ---- Microfacet materials ---- */

/* T = G2 / G1 = (1 + L) / (1 + 2 L) of an index-matched rough interface met
 * at cos_i (L = Smith's Lambda for GGX, the same on both sides). */
static double matched_transmission(double cos_i, double alpha)
{
    double t2 = (1.0 - cos_i * cos_i) / (cos_i * cos_i);
    double lambda = 0.5 * (-1.0 + sqrt(1.0 + alpha * alpha * t2));
    return (1.0 + lambda) / (1.0 + 2.0 * lambda);
}

/* What one sample of the camera ray through image point (x, y) (a raster
 * of one pixel: (0, 0) the top-left corner, (1, 1) the bottom-right) gives for
 * the index-matched sphere: the ray goes straight through, entering and
 * leaving at the same angle (a chord of a sphere), so T^2; 1 if it misses. */
static double matched_sample(const pw_camera *cam, float x, float y, double alpha)
{
    pw_ray r = pw_camera_ray(cam, x, y, 0.5f, 0.5f);
    double o[3] = {r.o.x, r.o.y, r.o.z}, d[3] = {r.d.x, r.d.y, r.d.z};
    double dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2], od = o[0] * d[0] + o[1] * d[1] + o[2] * d[2];
    double oo = o[0] * o[0] + o[1] * o[1] + o[2] * o[2];
    double disc = od * od - dd * (oo - 1.0);
    if (disc <= 0.0)
        return 1.0;
    double t = (-od - sqrt(disc)) / dd, n[3], cos_i = 0.0;
    for (int k = 0; k < 3; k++)
        n[k] = o[k] + t * d[k];
    for (int k = 0; k < 3; k++)
        cos_i -= n[k] * d[k] / sqrt(dd);
    double tr = matched_transmission(cos_i, alpha);
    return tr * tr;
}

/* A rough dielectric of index 1 (alpha 0.5) is an interface that neither
 * reflects nor bends: each camera ray crosses the sphere along a straight
 * chord and every sample is exactly T(theta)^2, the single-scattering
 * transmission at the entry angle, twice (1 at normal incidence, down to
 * 1/4 at the silhouette), with no noise. T falls with the distance of the
 * image point from the sphere's centre, so each pixel must lie between its
 * values at the pixel's farthest corner and its nearest point (pixels that
 * reach the silhouette: between 1/4 and 1). A black sphere (the microfacet
 * code not compiled in), a bent ray or a weight off by anything shows. */
static void rough_index_matched_sphere(void **state)
{
    (void)state;
    const double alpha = 0.5;
    pw_scene *s = furnace_scene("furnace index-matched rough dielectric");
    unit_sphere(s, rough_dielectric(1.0f, (float)alpha));
    test_set_vfov(s, 30.0f); /* the whole sphere and its silhouette in view */
    test_render o = opts(16, 1000, PW_LIGHT_MODE_MIS);
    float *img = test_render_image(s, &o);
    pw_camera cam = pw_camera_make(&s->cam, 1.0f);
    int bad = 0;
    double darkest = 1.0;
    int rim = 0;
    for (int py = 0; py < H; py++)
        for (int px = 0; px < W; px++) {
            /* Nearest and farthest points of the pixel from the image centre. */
            double x0 = (double)px / W - 0.5, x1 = (double)(px + 1) / W - 0.5;
            double y0 = (double)py / H - 0.5, y1 = (double)(py + 1) / H - 0.5;
            double nx = x0 > 0 ? x0 : (x1 < 0 ? x1 : 0), ny = y0 > 0 ? y0 : (y1 < 0 ? y1 : 0);
            double fx = fabs(x0) > fabs(x1) ? x0 : x1, fy = fabs(y0) > fabs(y1) ? y0 : y1;
            double near = matched_sample(&cam, (float)(0.5 + nx), (float)(0.5 + ny), alpha);
            double far = matched_sample(&cam, (float)(0.5 + fx), (float)(0.5 + fy), alpha);
            double lo = far, hi = near;
            if (far == 1.0 && near < 1.0) { /* the pixel reaches the silhouette */
                lo = 0.25;
                hi = 1.0;
                rim++;
            }
            for (int c = 0; c < 3; c++) {
                float v = img[3 * (py * W + px) + c];
                darkest = fmin(darkest, v);
                if (!(v >= lo - 1e-4 && v <= hi + 1e-4)) {
                    if (bad < 5)
                        printf("pixel (%d, %d) channel %d = %.6f, outside [%.6f, %.6f]\n", px, py, c, v, lo, hi);
                    bad++;
                }
            }
        }
    printf("index-matched alpha 0.5: darkest pixel %.4f, %d pixels on the silhouette; %d pixel channels outside their "
           "bounds\n", darkest, rim, bad);
    assert_int_equal(bad, 0);
    assert_true(rim > 0 && darkest < 0.6); /* grazing angles were seen */
    free(img);
    pw_scene_free(s);
}

/* Mean and standard error of channel 0 over the image. */
static test_stats image_stats(const float *img)
{
    double v[W * H];
    for (int i = 0; i < W * H; i++)
        v[i] = img[3 * i];
    return test_stats_of(v, W * H);
}

/* Energy at the render level: a white rough glass sphere (alpha 0.3) and a
 * white glTF metal (roughness 0.5), filling the frame, never brighten the
 * furnace (image mean <= 1 within 4.5 standard errors). Single scattering
 * loses energy at every interaction, so they darken it: measured 0.82 and
 * 0.90 (se 0.002). The lower bounds, 0.05 to 0.07 below, catch paths lost inside
 * the glass (a missing transmission, a wrong side, a ray offset that
 * traps) and a metal lobe that loses energy it should not. */
static void rough_materials_energy(void **state)
{
    (void)state;
    const pw_material_desc mats[2] = {rough_dielectric(1.5f, 0.3f), metallic_roughness(1, 1, 1, 1.0f, 0.5f)};
    const char *names[2] = {"rough glass alpha 0.3", "white glTF metal roughness 0.5"};
    const double lower[2] = {0.75, 0.85};
    for (int i = 0; i < 2; i++) {
        pw_scene *s = furnace_scene(names[i]);
        unit_sphere(s, mats[i]);
        test_render o = opts(64, 1000, PW_LIGHT_MODE_MIS);
        float *img = test_render_image(s, &o);
        test_stats st = image_stats(img);
        printf("%s: image mean %.5f (se %.5f, %zu pixels), bounds [%.2f, 1]\n", names[i], st.mean, st.se, st.n,
               lower[i]);
        assert_true(st.mean <= 1.0 + 4.5 * st.se);
        assert_true(st.mean >= lower[i]);
        free(img);
        pw_scene_free(s);
    }
}

/* An environment map that varies (brighter toward the zenith, 0.5 to 1.5),
 * written as PFM and read back through the loader. */
static void set_gradient_map(pw_scene *s)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/pw_furnace_map_%d.pfm", (int)getpid());
    enum { MW = 32, MH = 16 };
    float rgb[MW * MH * 3];
    for (int j = 0; j < MH; j++)
        for (int i = 0; i < MW * 3; i++)
            rgb[j * MW * 3 + i] = 1.5f - (float)j / (MH - 1);
    assert_int_equal(pw_image_write(path, rgb, MW, MH, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    assert_int_equal(pw_scene_set_environment(s, path, 1.0f), PW_OK);
    remove(path);
}

/* Light sampling with MIS against BSDF sampling alone: the environment map
 * is importance-sampled, and light samples are weighted with the pdf eval
 * reports, BSDF samples with the pdf the sampler reports. Both estimators
 * are unbiased only if the two agree (and eval's f matches the sampler's
 * weight, eta^2 of the rough dielectric's transmission included), so the
 * images must agree: the mean per-pixel difference within 4.5 standard
 * errors over the image and each quadrant, each quadrant holding one
 * material. */
static void rough_materials_mis(void **state)
{
    (void)state;
    pw_scene *scenes[2];
    float *img[2];
    const pw_light_mode modes[2] = {PW_LIGHT_MODE_MIS, PW_LIGHT_MODE_NONE};
    const int spp[2] = {256, 1024};
    for (int k = 0; k < 2; k++) {
        pw_scene *s = scenes[k] = furnace_scene("env map, microfacet spheres");
        set_gradient_map(s);
        test_set_vfov(s, 30.0f);
        const pw_material_desc m[4] = {rough_dielectric(1.5f, 0.3f), metallic_roughness(0.8f, 0.5f, 0.2f, 0.0f, 0.6f),
                                       metallic_roughness(0.9f, 0.6f, 0.3f, 1.0f, 0.5f), rough_dielectric(1.33f, 0.6f)};
        for (int q = 0; q < 4; q++) /* the quadrants: top left, top right, bottom left, bottom right */
            test_add_sphere(s, q & 1 ? 0.6f : -0.6f, q & 2 ? -0.6f : 0.6f, 0, 0.55f, test_add_material(s, m[q]));
        test_render o = opts(spp[k], 1000, modes[k]);
        img[k] = test_render_image(s, &o);
    }
    int failures = 0;
    const char *names[5] = {"whole image", "rough glass 1.5 (top left)", "glTF plastic (top right)",
                            "glTF metal (bottom left)", "rough water 1.33 (bottom right)"};
    for (int c = 0; c < 3; c++)
        for (int q = -1; q < 4; q++) {
            double err[W * H], sum = 0.0;
            size_t n = 0;
            for (int y = 0; y < H; y++)
                for (int x = 0; x < W; x++) {
                    if (q >= 0 && ((x >= W / 2) != (q & 1) || (y >= H / 2) != (q >> 1)))
                        continue;
                    size_t i = 3 * ((size_t)y * W + x) + c;
                    err[n++] = (double)img[0][i] - img[1][i];
                    sum += img[1][i];
                }
            test_stats st = test_stats_of(err, n);
            double mean = sum / (double)n;
            printf("%s, channel %d: MIS - BSDF only = %+.5f (%.2f se; se %.3f%% of %.4f)\n", names[q + 1], c, st.mean,
                   st.mean / st.se, 100.0 * st.se / mean, mean);
            if (!(fabs(st.mean) <= 4.5 * st.se) || !(st.se <= 0.006 * mean))
                failures++;
        }
    for (int k = 0; k < 2; k++) {
        free(img[k]);
        pw_scene_free(scenes[k]);
    }
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(white_lambert_sphere),      cmocka_unit_test(white_dielectric_sphere),
        cmocka_unit_test(white_cluster),             cmocka_unit_test(grey_lambert_sphere_exact),
        cmocka_unit_test(grey_lambert_sphere_roulette),
        cmocka_unit_test(rough_index_matched_sphere), cmocka_unit_test(rough_materials_energy),
        cmocka_unit_test(rough_materials_mis),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
