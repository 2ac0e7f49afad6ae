/* pw_scene_get_camera / pw_scene_set_camera: the built-in cameras read back
 * as defined, a camera that is set is the one rays leave from (basis, lens,
 * image plane), a render's pixels lie where the image plane puts them and
 * the lens moves each ray's origin by its sample, every unusable camera is
 * refused with a message naming the value and leaves the old camera in
 * place, and a camera turned to the sky sees exactly the sky's analytic
 * radiance. */
#include <float.h>

#include "geom/intersect.h"
#include "shade/camera.h"
#include "test_render_util.h"

static pw_scene *builtin(const char *name)
{
    pw_scene *s = NULL;
    if (pw_scene_builtin(name, &s) != PW_OK)
        fail_msg("%s: %s", name, pw_last_error());
    return s;
}

static void set3(float v[3], float x, float y, float z)
{
    v[0] = x;
    v[1] = y;
    v[2] = z;
}

static void builtin_camera_reads_back(void **state)
{
    (void)state;
    pw_scene *s = builtin("cornell");
    pw_camera_params c;
    pw_scene_get_camera(s, &c);
    const float from[3] = {0.0f, 1.0f, 6.8f}, at[3] = {0.0f, 1.0f, 0.0f}, up[3] = {0.0f, 1.0f, 0.0f};
    assert_memory_equal(c.look_from, from, sizeof from);
    assert_memory_equal(c.look_at, at, sizeof at);
    assert_memory_equal(c.up, up, sizeof up);
    assert_float_equal(c.vfov_deg, 19.5f, 0.0f);
    assert_float_equal(c.aperture, 0.0f, 0.0f);
    assert_float_equal(c.focus_dist, 0.0f, 0.0f);
    pw_scene_free(s);
}

/* The camera rays are built from: origin at look_from, w pointing back
 * along the view, an image plane of height 2 tan(fov / 2) focus_dist. */
static void set_camera_drives_the_rays(void **state)
{
    (void)state;
    pw_scene *s = builtin("cornell");
    pw_camera_params c, back;
    pw_scene_get_camera(s, &c);
    set3(c.look_from, 3.0f, 2.0f, 1.0f);
    set3(c.look_at, 3.0f, 2.0f, -3.0f);
    c.vfov_deg = 90.0f;
    c.aperture = 0.5f;
    c.focus_dist = 2.0f;
    assert_int_equal(pw_scene_set_camera(s, &c), PW_OK);
    pw_scene_get_camera(s, &back);
    assert_memory_equal(&back, &c, sizeof c);
    pw_camera cam = pw_scene_host_view(s, 1, 1).cam;
    assert_float_equal(cam.origin.x, 3.0f, 0.0f);
    assert_float_equal(cam.origin.y, 2.0f, 0.0f);
    assert_float_equal(cam.origin.z, 1.0f, 0.0f);
    assert_float_equal(cam.w.z, 1.0f, 1e-6f);
    assert_float_equal(cam.lens_radius, 0.25f, 0.0f);
    assert_float_equal(v3_len(cam.vertical), 2.0f * 2.0f, 1e-5f); /* 2 tan(45 deg) x focus 2 */
    assert_float_equal(cam.lower_left.z, 1.0f - 2.0f, 1e-5f);     /* the plane at the focus distance */
    pw_scene_free(s);
}

/* A render's raster on the image plane (pw_camera_set_raster): raster
 * point (x, y) lies at lower_left + (x / W) horizontal + (1 - y / H)
 * vertical, so pixel (0, 0) is the top-left one; the image's centre looks
 * along -w; and a thin lens moves a ray's origin to its polar sample,
 * radius r sqrt(l1) at angle 2 pi l2 from u toward v, while the ray still
 * passes through the raster point on the plane of focus. */
static void raster_places_pixels_on_the_image_plane(void **state)
{
    (void)state;
    pw_scene *s = builtin("rtiow"); /* a thin lens, looking from (13, 2, 3) */
    const uint32_t W = 320, H = 180;
    pw_camera cam = pw_scene_host_view(s, W, H).cam;
    const float pts[][2] = {{0, 0}, {320, 0}, {0, 180}, {320, 180}, {160, 90}, {17.25f, 133.5f}};
    const float lens[][2] = {{0.3f, 0.7f}, {0.999f, 0.1f}, {0.01f, 0.45f}};
    float o_max = fmaxf(fabsf(cam.origin.x), fmaxf(fabsf(cam.origin.y), fabsf(cam.origin.z)));
    assert_true(cam.lens_radius > 0.0f);
    for (size_t k = 0; k < sizeof pts / sizeof pts[0]; k++)
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
            float x = pts[k][0], y = pts[k][1], l1 = lens[l][0], l2 = lens[l][1];
            pw_vec3 want = v3_add(cam.lower_left, v3_add(v3_scale(cam.horizontal, x / (float)W),
                                                         v3_scale(cam.vertical, 1.0f - y / (float)H)));
            pw_ray r = pw_camera_ray(&cam, x, y, l1, l2);
            /* t along the ray to the plane of focus: the origin's distance to it over d's cosine with -w */
            float t = v3_dot(v3_sub(cam.lower_left, r.o), cam.w) / v3_dot(r.d, cam.w);
            pw_vec3 got = v3_add(r.o, v3_scale(r.d, t)), off = v3_sub(r.o, cam.origin);
            /* a hundredth of a pixel: float rounding on a plane some units away is far finer */
            if (v3_len(v3_sub(got, want)) > 0.01f * v3_len(cam.pixel_dx))
                fail_msg("raster (%g, %g): the ray meets the focus plane at (%g, %g, %g), not (%g, %g, %g)", x, y,
                         got.x, got.y, got.z, want.x, want.y, want.z);
            /* the lens sample, to a few roundings of the origin's coordinates */
            float rad = cam.lens_radius * sqrtf(l1), tol = 8.0f * FLT_EPSILON * o_max;
            float au = rad * cosf(2.0f * PW_PI * l2), av = rad * sinf(2.0f * PW_PI * l2);
            if (fabsf(v3_dot(off, cam.u) - au) > tol || fabsf(v3_dot(off, cam.v) - av) > tol ||
                fabsf(v3_dot(off, cam.w)) > tol)
                fail_msg("lens (%g, %g): origin moved (%g, %g, %g) along u, v, w, not (%g, %g, 0)", l1, l2,
                         v3_dot(off, cam.u), v3_dot(off, cam.v), v3_dot(off, cam.w), au, av);
        }
    pw_camera pin = cam;
    pin.lens_radius = 0.0f;
    pw_ray c = pw_camera_ray(&pin, 160.0f, 90.0f, 0.3f, 0.7f);
    assert_true(v3_len(v3_sub(c.o, cam.origin)) == 0.0f);
    assert_true(v3_dot(c.d, cam.w) < -0.99999f);
    pw_scene_free(s);
}

static void expect_refused(pw_scene *s, const pw_camera_params *c, const char *needle)
{
    pw_camera_params before, after;
    pw_scene_get_camera(s, &before);
    pw_status st = pw_scene_set_camera(s, c);
    pw_scene_get_camera(s, &after);
    if (st != PW_ERR_INVALID_ARGUMENT || !strstr(pw_last_error(), needle))
        fail_msg("status %d, message '%s': wanted PW_ERR_INVALID_ARGUMENT naming '%s'", (int)st, pw_last_error(),
                 needle);
    assert_memory_equal(&before, &after, sizeof before);
}

static void bad_cameras_are_refused(void **state)
{
    (void)state;
    pw_scene *s = builtin("toy-small");
    pw_camera_params good, c;
    pw_scene_get_camera(s, &good);
    c = good, c.look_from[1] = NAN;
    expect_refused(s, &c, "look_from");
    c = good, c.look_at[2] = INFINITY;
    expect_refused(s, &c, "look_at");
    c = good, c.up[0] = -INFINITY;
    expect_refused(s, &c, "up");
    c = good, memcpy(c.look_at, c.look_from, sizeof c.look_at);
    expect_refused(s, &c, "same point");
    c = good, set3(c.up, 0.0f, 0.0f, 0.0f);
    expect_refused(s, &c, "zero");
    c = good, set3(c.look_at, c.look_from[0], c.look_from[1] + 5.0f, c.look_from[2]);
    expect_refused(s, &c, "parallel");
    c = good, set3(c.look_at, c.look_from[0], c.look_from[1] - 5.0f, c.look_from[2]);
    expect_refused(s, &c, "parallel");
    c = good, c.vfov_deg = 0.0f;
    expect_refused(s, &c, "field of view 0");
    c = good, c.vfov_deg = 180.0f;
    expect_refused(s, &c, "field of view 180");
    c = good, c.vfov_deg = NAN;
    expect_refused(s, &c, "field of view");
    c = good, c.aperture = -0.1f;
    expect_refused(s, &c, "aperture -0.1");
    c = good, c.focus_dist = -1.0f;
    expect_refused(s, &c, "focus distance -1");
    /* Nearly but not exactly along up is a usable camera. */
    c = good, set3(c.look_at, c.look_from[0] + 0.01f, c.look_from[1] + 5.0f, c.look_from[2]);
    assert_int_equal(pw_scene_set_camera(s, &c), PW_OK);
    pw_scene_free(s);
}

/* From (0, 2, 3) straight up nothing of toy-small is in view (its highest
 * sphere tops out at y = 1.8), so every first ray escapes: one sample per
 * pixel gives the sky exactly, blue 0.3 at both ends of the gradient. */
static void camera_turned_to_the_sky_sees_sky(void **state)
{
    (void)state;
    pw_scene *s = builtin("toy-small");
    pw_camera_params c;
    pw_scene_get_camera(s, &c);
    set3(c.look_at, 0.0f, 10.0f, 3.0f);
    set3(c.up, 0.0f, 0.0f, -1.0f);
    assert_int_equal(pw_scene_set_camera(s, &c), PW_OK);
    test_render o = {24, 16, 1, 10, 1000, PW_LIGHT_MODE_SCENE, 1, 2};
    float *rgb = test_render_image(s, &o);
    for (int i = 0; i < o.width * o.height; i++) {
        const float *p = rgb + 3 * i;
        if (fabsf(p[2] - 0.3f) > 1e-6f || !(p[0] < p[1] && p[1] < p[2]) || p[0] < 0.15f - 1e-6f)
            fail_msg("pixel %d is (%g, %g, %g), not sky", i, p[0], p[1], p[2]);
    }
    free(rgb);
    pw_scene_free(s);
}

/* A sphere that a ray q pixels inside edge `edge` of block [x0, x1) x
 * [y0, y1) grazes from outside the block: its centre at distance t along
 * the ray, moved off it by 0.99999 r away from the block, square to the
 * ray. The hardest case for a cull: its centre lies just beyond the
 * block's side plane, by about r. */
static pw_vec3 sphere_beyond_edge(const pw_camera *cam, float x0, float y0, float x1, float y1, int edge, float q,
                                  float along, float t, float r, pw_ray *ray)
{
    float x = edge == 0 ? x0 + q : edge == 1 ? x1 - q : along;
    float y = edge == 2 ? y0 + q : edge == 3 ? y1 - q : along;
    *ray = pw_camera_ray(cam, x, y, 0.5f, 0.5f);
    pw_vec3 out = edge < 2 ? v3_scale(cam->pixel_dx, edge == 0 ? -1.0f : 1.0f)
                           : v3_scale(cam->pixel_dy, edge == 2 ? -1.0f : 1.0f);
    out = v3_norm(v3_sub(out, v3_scale(ray->d, v3_dot(out, ray->d))));
    return v3_add(v3_add(ray->o, v3_scale(ray->d, t)), v3_scale(out, 0.99999f * r));
}

/* The sphere list's camera-ray cull (pw_camera_region_may_hit, the GPU's
 * batched camera rays): a sphere that some camera ray through a block of
 * pixels hits must never be culled.
 * - Wide: 40 thin-lens cameras of 15 to 120 degrees on a 64x48 raster,
 *   blocks of 1 to 16 pixels a side; spheres of 0.2 to 3 pixels'
 *   footprint grazing a ray through a point from a pixel inside the
 *   block's edge to four outside it, one in four at the lens, straddling
 *   its plane. Each is checked with 256 rays through the block (pixel
 *   jitter and lens samples) and with the grazed ray itself. Spheres
 *   wholly behind the camera must be culled, and so must a good share of
 *   the grazing ones (a cull that keeps everything fails).
 * - Narrow: 60 pinhole cameras of 1 to 8 degrees at 1920x1080 and
 *   3840x2160 (one in three mirrored, as pbrt's), blocks of 4x8 pixels
 *   where the GPU puts them, whose side planes come from nearly parallel
 *   rays, each with 40 spheres that a ray up to half a pixel inside an
 *   edge grazes from beyond the edge's plane (sphere_beyond_edge). A side
 *   plane made as the cross product of two corners' rays in float lost
 *   hundreds of these. */
static void region_cull_keeps_every_hit_sphere(void **state)
{
    (void)state;
    pw_scene *s = builtin("toy-small");
    test_rng g = {41};
    int kept_hit = 0, culled = 0, cases = 0, edge_cases = 0;
    for (int cam_i = 0; cam_i < 100; cam_i++) {
        int narrow = cam_i >= 40;
        uint32_t W = narrow ? (cam_i % 2 ? 3840 : 1920) : 64, H = narrow ? (cam_i % 2 ? 2160 : 1080) : 48;
        pw_camera_params c;
        pw_scene_get_camera(s, &c);
        if (cam_i > 0) { /* the first: toy-small's own */
            set3(c.look_from, trng_range(&g, -5, 5), trng_range(&g, -5, 5), trng_range(&g, -5, 5));
            set3(c.look_at, trng_range(&g, -5, 5), trng_range(&g, -5, 5), trng_range(&g, -5, 5));
            c.vfov_deg = narrow ? trng_range(&g, 1, 8) : trng_range(&g, 15, 120);
            c.aperture = narrow || cam_i % 4 == 0 ? 0.0f : trng_range(&g, 0, 0.6f);
            c.focus_dist = trng_range(&g, 0.5f, 12);
        }
        if (pw_scene_set_camera(s, &c) != PW_OK)
            continue; /* look_at too near look_from, or along up */
        s->cam.mirror_x = narrow && cam_i % 3 == 0;
        pw_camera cam = pw_scene_host_view(s, W, H).cam;
        for (int k = 0; k < (narrow ? 40 : 60); k++) {
            if (narrow) {
                float x0 = (float)(4 * (uint32_t)trng_range(&g, 0, (float)(W / 4))), x1 = x0 + 4.0f;
                float y0 = (float)(8 * (uint32_t)trng_range(&g, 0, (float)(H / 8))), y1 = y0 + 8.0f;
                int edge = (int)(4.0 * trng_unif(&g));
                float along = edge < 2 ? trng_range(&g, y0, y1) : trng_range(&g, x0, x1);
                float t = trng_range(&g, 1.0f, 50.0f), r = t * 1e-3f * trng_range(&g, 0.1f, 1.1f);
                pw_ray ray;
                pw_vec3 centre = sphere_beyond_edge(&cam, x0, y0, x1, y1, edge, trng_range(&g, 0.0f, 0.5f), along,
                                                    t, r, &ray);
                if (!(pw_intersect_sphere(ray.o, ray.d, centre, r, 0.0f, PW_INF) > 0.0f))
                    continue;
                edge_cases++;
                if (!pw_camera_region_may_hit(&cam, x0, y0, x1, y1, centre, r))
                    fail_msg("camera %d (%g degrees, %ux%u): block (%g, %g), edge %d: sphere (%g, %g, %g) r %g is hit "
                             "but culled",
                             cam_i, (double)c.vfov_deg, W, H, x0, y0, edge, centre.x, centre.y, centre.z, r);
                continue;
            }
            uint32_t w = 1u + (uint32_t)trng_range(&g, 0, 16), h = 1u + (uint32_t)trng_range(&g, 0, 16);
            uint32_t x0 = (uint32_t)trng_range(&g, 0, (float)(W - w)), y0 = (uint32_t)trng_range(&g, 0, (float)(H - h));
            float x1 = (float)(x0 + w), y1 = (float)(y0 + h);
            /* the grazed ray: through a point on the block's edge moved e
             * pixels out (negative: in) */
            float e = trng_range(&g, -1.0f, 4.0f), ex0 = (float)x0 - e, ex1 = x1 + e, ey0 = (float)y0 - e,
                  ey1 = y1 + e;
            int edge = (int)(4.0 * trng_unif(&g));
            float gx = edge == 0 ? ex0 : edge == 1 ? ex1 : trng_range(&g, ex0, ex1);
            float gy = edge == 2 ? ey0 : edge == 3 ? ey1 : trng_range(&g, ey0, ey1);
            pw_ray gr = pw_camera_ray(&cam, gx, gy, (float)trng_unif(&g), (float)trng_unif(&g));
            float t = trng_range(&g, 0.05f, 60.0f), focus = -v3_dot(cam.w, v3_sub(cam.corner, cam.origin));
            float r = t * v3_len(cam.pixel_dx) / focus * trng_range(&g, 0.2f, 3.0f);
            if (k % 4 == 0) { /* one in four at the lens, its centre up to r behind it */
                r = trng_range(&g, 0.05f, 1.0f);
                t = trng_range(&g, -r, r);
            }
            pw_vec3 side = v3_norm(v3_cross(gr.d, trng_dir(&g)));
            pw_vec3 centre = v3_add(v3_add(gr.o, v3_scale(gr.d, t)), v3_scale(side, r * trng_range(&g, 0.8f, 1.2f)));
            int hit = gx >= (float)x0 && gx < x1 && gy >= (float)y0 && gy < y1 &&
                      pw_intersect_sphere(gr.o, gr.d, centre, r, 0.0f, PW_INF) > 0.0f;
            for (int i = 0; i < 256 && !hit; i++) {
                pw_ray ray = pw_camera_ray(&cam, (float)x0 + (float)w * (float)trng_unif(&g),
                                           (float)y0 + (float)h * (float)trng_unif(&g), (float)trng_unif(&g),
                                           (float)trng_unif(&g));
                hit = pw_intersect_sphere(ray.o, ray.d, centre, r, 0.0f, PW_INF) > 0.0f;
            }
            int may = pw_camera_region_may_hit(&cam, (float)x0, (float)y0, x1, y1, centre, r);
            if (hit && !may)
                fail_msg("camera %d, block (%u, %u)-(%g, %g): sphere (%g, %g, %g) r %g is hit but culled", cam_i, x0,
                         y0, x1, y1, centre.x, centre.y, centre.z, r);
            kept_hit += hit;
            culled += !may;
            cases++;
            /* a sphere wholly behind the lens */
            pw_vec3 behind = v3_add(cam.origin, v3_scale(cam.w, 2.0f + cam.lens_radius + r));
            if (pw_camera_region_may_hit(&cam, (float)x0, (float)y0, x1, y1, behind, r))
                fail_msg("camera %d: a sphere behind the camera is kept", cam_i);
        }
    }
    printf("region cull: %d cases, %d hit and kept, %d culled; %d spheres beyond a narrow block's edge, all kept\n",
           cases, kept_hit, culled, edge_cases);
    assert_true(cases > 2000 && kept_hit > cases / 10 && culled > cases / 5 && edge_cases > 1200);
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builtin_camera_reads_back),
        cmocka_unit_test(set_camera_drives_the_rays),
        cmocka_unit_test(raster_places_pixels_on_the_image_plane),
        cmocka_unit_test(bad_cameras_are_refused),
        cmocka_unit_test(camera_turned_to_the_sky_sees_sky),
        cmocka_unit_test(region_cull_keeps_every_hit_sphere),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
