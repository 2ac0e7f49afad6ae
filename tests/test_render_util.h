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

#endif
