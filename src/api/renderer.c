/* The public renderer: checks settings, prepares the scene and hands each
 * call to the chosen backend. */
#include "api/renderer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "integrator/path.h"

static const char *const backend_names[PW_BACKEND_COUNT] = {"auto", "cpu", "cuda-mega", "cpu-wave", "cuda-wave"};

const char *pw_backend_name(pw_backend b) { return b >= 0 && b < PW_BACKEND_COUNT ? backend_names[b] : "unknown"; }

pw_status pw_backend_from_name(const char *name, pw_backend *out)
{
    if (!name)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "no backend name given");
    for (int i = 0; i < PW_BACKEND_COUNT; i++)
        if (strcmp(name, backend_names[i]) == 0) {
            *out = (pw_backend)i;
            return PW_OK;
        }
    return pw_fail(PW_ERR_INVALID_ARGUMENT, "unknown backend '%s' (auto, cpu, cuda-mega, cpu-wave, cuda-wave)", name);
}

/* Image sizes up to 32768 on a side and 2^26 pixels (8192 x 8192): the
 * accumulation buffers and the copy written out take about 40 bytes a pixel,
 * 2.7 GB at the limit. */
#define MAX_SIDE PW_MAX_IMAGE_SIDE
#define MAX_PIXELS PW_MAX_IMAGE_PIXELS

/* The checks that need no prepared scene: done before the BVH is built. */
pw_status pw_settings_check(const pw_settings *s)
{
    if (s->backend < 0 || s->backend >= PW_BACKEND_COUNT)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "backend %d is not a pw_backend", (int)s->backend);
    if (s->light_mode < PW_LIGHT_MODE_SCENE || s->light_mode > PW_LIGHT_MODE_NONE)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "light mode %d is not a pw_light_mode", (int)s->light_mode);
    if (s->width < 1 || s->height < 1 || s->width > MAX_SIDE || s->height > MAX_SIDE ||
        (uint64_t)s->width * (uint64_t)s->height > MAX_PIXELS)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "image size %dx%d is out of range (1..%d per side, at most %u pixels)",
                       s->width, s->height, MAX_SIDE, MAX_PIXELS);
    if (s->max_depth < 0 || s->max_depth > PW_MAX_DEPTH_LIMIT)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "max depth %d is out of range (0..%d)", s->max_depth,
                       PW_MAX_DEPTH_LIMIT);
    if (s->split < 1 || s->split > 64)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "split %d is out of range (1..64)", s->split);
    if (s->wave_paths < 0)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "wavefront path count %d is negative", s->wave_paths);
    if (s->threads < 0 || s->threads > 1024)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "thread count %d is out of range (0..1024)", s->threads);
    return PW_OK;
}

/* The toy estimator handles sphere lights only, at most PW_MAX_SHADOW. */
static pw_status check_light_mode(const pw_scene *scene, const pw_settings *s)
{
    if (s->light_mode == PW_LIGHT_MODE_TOY) {
        uint32_t n_sphere_lights = 0;
        for (uint32_t i = 0; i < scene->lights.count; i++) {
            uint32_t type = scene->lights.lights[i].type;
            if (type == PW_LIGHT_POINT || type == PW_LIGHT_DISTANT || type == PW_LIGHT_SPOT)
                continue; /* lights: the toy estimator leaves them out */
            if (type != PW_LIGHT_SPHERE)
                return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: toy light mode samples sphere lights only, "
                               "but the scene has emissive triangles", scene->name);
            n_sphere_lights++;
        }
        if (n_sphere_lights > PW_MAX_SHADOW)
            return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: toy light mode handles at most %d emissive spheres, "
                           "the scene has %u", scene->name, PW_MAX_SHADOW, n_sphere_lights);
    }
    return PW_OK;
}

/* PW_KINDS_ALL (1) when the scene has microfacet materials, textures,
 * point, distant or spot lights or an environment map, whose code the
 * basic kernels leave out; else PW_KINDS_BASIC (0). */
static uint32_t scene_kinds(const pw_scene *scene)
{
    if (scene->n_delta_lights || scene->env.type == PW_ENV_MAP)
        return PW_KINDS_ALL;
    for (uint32_t i = 0; i < scene->n_mats; i++)
        if (pw_material_kinds(&scene->mats[i]) != PW_KINDS_BASIC || PW_MAT_IS_TEXTURED(&scene->mats[i]))
            return PW_KINDS_ALL;
    return PW_KINDS_BASIC;
}

/* The 4-wide BVH or the binary one, as measured (docs/PERFORMANCE.md): on
 * the GPU megakernel the 4-wide tree won on meshes of 66K triangles and
 * more and lost on spheres and on the 36-triangle Cornell box, where its
 * larger traversal code costs more than it saves; the wavefront and the
 * CPU gained on every triangle scene measured. */
#define WIDE_BVH_MIN_TRIANGLES_MEGAKERNEL 10000u
static uint32_t wide_bvh(const pw_scene *scene, pw_backend backend)
{
    if (!scene->bvh.nodes4)
        return 0;
    if (backend == PW_BACKEND_CUDA_MEGA)
        return scene->n_tris >= WIDE_BVH_MIN_TRIANGLES_MEGAKERNEL;
    return scene->n_tris > 0;
}

pw_status pw_renderer_create(pw_scene *scene, const pw_settings *settings, pw_renderer **out)
{
    *out = NULL;
    pw_settings s = *settings;
    if (s.light_mode == PW_LIGHT_MODE_SCENE)
        s.light_mode = scene->defaults.light_mode;
    pw_status st = pw_settings_check(&s);
    if (st != PW_OK)
        return st;
    pw_tuning tuning;
    if ((st = pw_tuning_read(&tuning)) != PW_OK)
        return st;
    if ((st = pw_scene_prepare(scene, s.threads)) != PW_OK)
        return st;
    if ((st = check_light_mode(scene, &s)) != PW_OK)
        return st;
    char note[300] = "";
    if (s.backend == PW_BACKEND_AUTO) {
        int gpu = pw_cuda_usable();
        if (!gpu)
            snprintf(note, sizeof note, "auto: %s", pw_last_error());
        s.backend = gpu ? PW_BACKEND_CUDA_MEGA : PW_BACKEND_CPU;
    }
    pw_renderer *r = calloc(1, sizeof *r);
    size_t npix = (size_t)s.width * (size_t)s.height;
    if (r) {
        r->job.sum = calloc(3 * npix, sizeof *r->job.sum);
        r->job.count = calloc(npix, sizeof *r->job.count);
    }
    if (!r || !r->job.sum || !r->job.count) {
        pw_renderer_free(r);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for a %dx%d image", s.width, s.height);
    }
    r->job.scene = scene;
    r->job.settings = s;
    r->job.tuning = tuning;
    r->job.backend = s.backend;
    r->job.params.width = (uint32_t)s.width;
    r->job.params.height = (uint32_t)s.height;
    r->job.params.max_depth = (uint32_t)s.max_depth;
    r->job.params.rr_depth = s.rr_depth < 1 ? 1u : (uint32_t)s.rr_depth;
    r->job.params.seed = s.seed;
    r->job.params.light_mode = (uint32_t)s.light_mode;
    r->job.params.split = (uint32_t)s.split;
    r->job.params.kinds = scene_kinds(scene);
    r->job.view = pw_scene_host_view(scene, (uint32_t)s.width, (uint32_t)s.height);
    r->job.view.wide_bvh = wide_bvh(scene, s.backend);
    snprintf(r->backend_note, sizeof r->backend_note, "%s", note);
    r->ops = pw_backend_ops_of(s.backend);
    if ((st = r->ops->create(&r->job)) != PW_OK) {
        pw_renderer_free(r);
        return st;
    }
    *out = r;
    return PW_OK;
}

void pw_renderer_free(pw_renderer *r)
{
    if (!r)
        return;
    if (r->ops)
        r->ops->destroy(&r->job);
    free(r->job.sum);
    free(r->job.count);
    free(r);
}

/* One call of the backend: spp more samples in every pixel, its time
 * added to the statistics. */
static pw_status render_pass(pw_renderer *r, int spp)
{
    double t0 = pw_now_seconds();
    pw_status st = r->ops->render(&r->job, spp);
    double dt = pw_now_seconds() - t0;
    r->job.stats.render_seconds += dt;
    if (r->ops->host_timed)
        r->job.stats.device_seconds += dt;
    return st;
}

/* Passes grow (1, 2, 4, ... samples a pixel) while one takes less than
 * this, so that a progress bar moves a few times a second while a fast
 * GPU's per-launch costs stay small. */
#define PROGRESS_PASS_SECONDS 0.1

/* spp samples in passes, the progress callback called after each. It is
 * read once, so a callback that replaces itself takes effect next call. */
static pw_status render_with_progress(pw_renderer *r, int spp)
{
    pw_progress_fn fn = r->progress;
    void *user = r->progress_user;
    int done = 0, pass = 1;
    while (done < spp) {
        int n = pass < spp - done ? pass : spp - done;
        double t0 = pw_now_seconds();
        pw_status st = render_pass(r, n);
        if (st != PW_OK)
            return st;
        if (pw_now_seconds() - t0 < PROGRESS_PASS_SECONDS && pass <= spp / 2)
            pass *= 2;
        done += n;
        int stop = fn(done, spp, user) != 0;
        if (done == spp)
            break; /* nothing is left to stop */
        if (stop) {
            r->job.cancel = 1;
            return pw_fail(PW_ERR_INTERRUPTED, "render stopped by the progress callback after %d of %d samples per "
                           "pixel", done, spp);
        }
        if (r->job.cancel) /* pw_renderer_cancel between passes, from the callback or a signal */
            return pw_fail(PW_ERR_INTERRUPTED, "render interrupted");
    }
    return PW_OK;
}

pw_status pw_renderer_render(pw_renderer *r, int spp)
{
    if (spp < 1 || spp > (1 << 24))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "samples per pixel %d is out of range (1..%d)", spp, 1 << 24);
    if (r->rendering)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "pw_renderer_render: called from the renderer's own progress "
                       "callback");
    r->job.cancel = 0; /* a cancel stops the call in progress, not every later one */
    r->rendering = 1;
    pw_status st = r->progress ? render_with_progress(r, spp) : render_pass(r, spp);
    r->rendering = 0;
    return st;
}

pw_status pw_renderer_set_progress(pw_renderer *r, pw_progress_fn fn, void *user)
{
    if (!r)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "pw_renderer_set_progress: renderer is NULL");
    r->progress = fn;
    r->progress_user = fn ? user : NULL;
    return PW_OK;
}

void pw_renderer_cancel(pw_renderer *r) { r->job.cancel = 1; }

const char *pw_stage_name(int stage)
{
    static const char *const names[PW_STAGE_COUNT] = {"generate", "extend", "shade", "connect", "tail"};
    return stage >= 0 && stage < PW_STAGE_COUNT ? names[stage] : "unknown";
}

const pw_stage_stats *pw_renderer_stage_stats(const pw_renderer *r, int *bounces)
{
    *bounces = r->job.stage_rows;
    return r->job.stage;
}

pw_backend pw_renderer_backend(const pw_renderer *r) { return r->job.backend; }

void pw_renderer_get_stats(const pw_renderer *r, pw_render_stats *stats) { *stats = r->job.stats; }

void pw_renderer_size(const pw_renderer *r, int *w, int *h)
{
    *w = r->job.settings.width;
    *h = r->job.settings.height;
}

const char *pw_renderer_backend_note(const pw_renderer *r) { return r->backend_note; }

pw_status pw_renderer_image(pw_renderer *r, float *rgb)
{
    if (r->ops->download) {
        pw_status st = r->ops->download(&r->job);
        if (st != PW_OK)
            return st;
    }
    size_t npix = (size_t)r->job.settings.width * (size_t)r->job.settings.height;
    for (size_t i = 0; i < npix; i++) {
        float inv = r->job.count[i] ? 1.0f / (float)r->job.count[i] : 0.0f;
        for (int c = 0; c < 3; c++)
            rgb[3 * i + c] = r->job.sum[3 * i + c] * inv;
    }
    /* The film's white balance and imaging ratio (pw_scene.film_balance,
     * film_scale), where a scene sets them. */
    const pw_scene *sc = r->job.scene;
    if (sc->film_balanced)
        for (size_t i = 0; i < npix; i++) {
            const float *m = sc->film_balance, *v = rgb + 3 * i;
            float x = m[0] * v[0] + m[1] * v[1] + m[2] * v[2], y = m[3] * v[0] + m[4] * v[1] + m[5] * v[2];
            float z = m[6] * v[0] + m[7] * v[1] + m[8] * v[2];
            rgb[3 * i] = x, rgb[3 * i + 1] = y, rgb[3 * i + 2] = z;
        }
    float scale = sc->film_scale;
    if (scale != 1.0f)
        for (size_t i = 0; i < 3 * npix; i++)
            rgb[i] *= scale;
    return PW_OK;
}
