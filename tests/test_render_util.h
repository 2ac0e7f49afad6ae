/* Rendering through the public API for the image-level tests, and the
 * statistics their bounds are stated with. */
#ifndef PW_TEST_RENDER_UTIL_H
#define PW_TEST_RENDER_UTIL_H

#include "test_common.h"

#include "pathwave.h"
#include "scene/scene.h"

/* The backend the image tests render with: the CPU unless
 * $PATHWAVE_TEST_BACKEND names another ("auto", "cuda-mega", ...), so the
 * same analytic checks can be pointed at a GPU backend. */
static inline pw_backend test_backend(void)
{
    const char *e = getenv("PATHWAVE_TEST_BACKEND");
    pw_backend b = PW_BACKEND_CPU;
    if (e && *e && pw_backend_from_name(e, &b) != PW_OK) {
        fprintf(stderr, "PATHWAVE_TEST_BACKEND: %s\n", pw_last_error());
        exit(2);
    }
    return b;
}

typedef struct test_render {
    int width, height, spp;
    int max_depth, rr_depth;
    pw_light_mode light_mode;
    uint32_t seed;
    int threads;
} test_render;

/* Renders spp samples of s with settings st into a new linear RGB image
 * (*rgb, st->width x st->height; free it). Returns the library's status;
 * *rgb is NULL unless the render got as far as the image. */
static inline pw_status test_render_settings(pw_scene *s, const pw_settings *st, int spp, float **rgb)
{
    *rgb = NULL;
    pw_renderer *r = NULL;
    pw_status e = pw_renderer_create(s, st, &r);
    if (e != PW_OK)
        return e;
    e = pw_renderer_render(r, spp);
    if (e == PW_OK) {
        *rgb = malloc((size_t)st->width * st->height * 3 * sizeof **rgb);
        e = *rgb ? pw_renderer_image(r, *rgb) : PW_ERR_OUT_OF_MEMORY;
    }
    pw_renderer_free(r);
    return e;
}

/* Renders s with the scene's defaults overridden by o; returns the linear
 * RGB image (free it) or fails the test with the library's message. */
static inline float *test_render_image(pw_scene *s, const test_render *o)
{
    pw_settings st;
    pw_settings_default(s, &st);
    st.width = o->width;
    st.height = o->height;
    st.spp = o->spp;
    st.max_depth = o->max_depth;
    st.rr_depth = o->rr_depth;
    st.light_mode = o->light_mode;
    st.seed = o->seed;
    st.threads = o->threads;
    st.backend = test_backend();
    float *rgb;
    if (test_render_settings(s, &st, o->spp, &rgb) != PW_OK)
        fail_msg("rendering %s: %s", s->name, pw_last_error());
    return rgb;
}

/* A sphere scene under the toy estimator with PW_MAX_SHADOW (8) sphere
 * lights, so that a Lambert hit makes a shadow ray to each light it did
 * not hit (7 or 8 of them): the most a path makes in one bounce. A ground
 * sphere, then n_spheres - 9 small Lambert, metal and glass spheres. */
static inline pw_scene *test_scene_eight_toy_lights(int n_spheres)
{
    pw_scene *s = pw_scene_alloc("eight lights");
    assert_non_null(s);
    uint32_t mats[3] = {pw_scene_push_material(s, pw_lambert(.6f, .6f, .6f)),
                        pw_scene_push_material(s, pw_metal(.8f, .7f, .6f, .2f)),
                        pw_scene_push_material(s, pw_dielectric(1.5f))};
    assert_int_equal(pw_scene_push_sphere(s, v3(0, -100.5f, -1), 100.0f, mats[0]), PW_OK);
    for (int i = 0; i < 8; i++) {
        float a = 0.785f * (float)i;
        uint32_t m = pw_scene_push_material(
            s, pw_emissive(pw_lambert(.5f, .5f, .5f), 2.0f + (float)i, 6.0f - .5f * (float)i, 3.0f));
        assert_int_equal(pw_scene_push_sphere(s, v3(2.0f * cosf(a), 1.2f, -1.5f + 1.5f * sinf(a)), 0.15f, m), PW_OK);
    }
    for (int i = 9; i < n_spheres; i++) {
        float x = -2.5f + 0.9f * (float)(i % 7), z = -0.5f - 0.9f * (float)(i / 7);
        assert_int_equal(pw_scene_push_sphere(s, v3(x, -0.2f, z), 0.3f, mats[i % 3]), PW_OK);
    }
    s->cam.look_from = v3(0, 2, 3);
    s->cam.look_at = v3(0, 0, -1);
    s->cam.aperture = 0.0f;
    s->defaults.light_mode = PW_LIGHT_MODE_TOY;
    return s;
}

#endif
