/* Many small lights against one large one: a square emitter of radiance L
 * above a Lambert floor, once as 2 triangles and once tiled into 8,192
 * emissive triangles covering the same square, in a checkerboard of 0.1 L
 * and 1.9 L (so the lights' powers differ 19-fold and the alias table is far
 * from uniform). At 1.5 units the floor cannot tell a 1.6 cm checkerboard
 * from its mean, so the images must agree. A light chosen with the wrong
 * probability (picking uniformly instead of by power measured 19 standard
 * errors off), a pdf without the selection probability, or an area off by a
 * factor shows far beyond the noise. Bound: the per-pixel differences of two
 * independent renders average to zero within 4.5 standard errors, for each
 * channel. */
#include "test_render_util.h"

#define TILES 64

static pw_scene *lit_floor(int tiles)
{
    pw_scene *s = pw_scene_alloc(tiles > 1 ? "many lights" : "one light");
    uint32_t floor_m = pw_scene_push_material(s, pw_lambert(0.6f, 0.6f, 0.6f));
    uint32_t light_m = pw_scene_push_material(s, pw_emissive(pw_lambert(0, 0, 0), 8.0f, 6.0f, 4.0f));
    uint32_t dim_m = pw_scene_push_material(s, pw_emissive(pw_lambert(0, 0, 0), 0.8f, 0.6f, 0.4f));
    uint32_t bright_m = pw_scene_push_material(s, pw_emissive(pw_lambert(0, 0, 0), 15.2f, 11.4f, 7.6f));
    pw_vec3 f[4] = {v3(-5, 0, -5), v3(-5, 0, 5), v3(5, 0, 5), v3(5, 0, -5)};
    uint32_t b = pw_scene_add_vertices(s, f, NULL, 4);
    pw_scene_add_triangle(s, b, b + 1, b + 2, floor_m);
    pw_scene_add_triangle(s, b, b + 2, b + 3, floor_m);
    /* The emitter: the square [-0.5, 0.5]^2 at y = 1.5, facing down. */
    for (int j = 0; j < tiles; j++)
        for (int i = 0; i < tiles; i++) {
            float x0 = -0.5f + (float)i / tiles, x1 = -0.5f + (float)(i + 1) / tiles;
            float z0 = -0.5f + (float)j / tiles, z1 = -0.5f + (float)(j + 1) / tiles;
            pw_vec3 q[4] = {v3(x0, 1.5f, z0), v3(x1, 1.5f, z0), v3(x1, 1.5f, z1), v3(x0, 1.5f, z1)};
            uint32_t v = pw_scene_add_vertices(s, q, NULL, 4);
            uint32_t mat = tiles == 1 ? light_m : ((i + j) % 2 ? bright_m : dim_m);
            pw_scene_add_triangle(s, v, v + 1, v + 2, mat); /* normal -y: toward the floor */
            pw_scene_add_triangle(s, v, v + 2, v + 3, mat);
        }
    s->cam.look_from = v3(0, 1.0f, 3.0f);
    s->cam.look_at = v3(0, 0, 0);
    s->cam.vfov_deg = 50.0f;
    return s;
}

static void tiled_light_matches_one_light(void **state)
{
    (void)state;
    pw_scene *one = lit_floor(1), *many = lit_floor(TILES);
    test_render o = {32, 32, 256, 1, 1000, PW_LIGHT_MODE_MIS, 1, 0};
    float *a = test_render_image(one, &o);
    o.seed = 2;
    float *b = test_render_image(many, &o);
    assert_int_equal(many->lights.count, 2 * TILES * TILES);
    for (int c = 0; c < 3; c++) {
        double sum = 0, sum2 = 0, ref = 0;
        for (int i = 0; i < 32 * 32; i++) {
            double d = (double)b[3 * i + c] - a[3 * i + c];
            sum += d;
            sum2 += d * d;
            ref += a[3 * i + c];
        }
        double n = 32 * 32, mean = sum / n, se = sqrt(fmax(sum2 / n - mean * mean, 0) / n);
        printf("channel %d: mean %.5f (one light) vs %.5f (%d lights), %.2f standard errors (se %.2f%%)\n", c,
               ref / n, ref / n + mean, 2 * TILES * TILES, mean / se, 100 * se / (ref / n));
        assert_true(fabs(mean) <= 4.5 * se);
        assert_true(se < 0.01 * ref / n);
    }
    free(a);
    free(b);
    pw_scene_free(one);
    pw_scene_free(many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(tiled_light_matches_one_light)};
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
