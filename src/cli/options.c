#include "cli/options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int parse_int(const char *opt, const char *v, long lo, long hi, int *out)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *v == '\0' || *end != '\0' || errno || x < lo || x > hi) {
        fprintf(stderr, "pathwave: %s needs an integer in %ld..%ld, got '%s'\n", opt, lo, hi, v ? v : "");
        return 0;
    }
    *out = (int)x;
    return 1;
}

static int parse_float(const char *opt, const char *v, float lo, float hi, float *out)
{
    char *end;
    errno = 0;
    float x = v ? strtof(v, &end) : 0.0f;
    if (!v || *v == '\0' || *end != '\0' || (errno && x != 0.0f) || !isfinite(x) || x < lo || x > hi) {
        fprintf(stderr, "pathwave: %s needs a number in %g..%g, got '%s'\n", opt, lo, hi, v ? v : "");
        return 0;
    }
    *out = x;
    return 1;
}

/* "X,Y,Z": three finite numbers separated by commas. */
static int parse_vec3(const char *opt, const char *v, float out[3])
{
    const char *p = v;
    int ok = v != NULL;
    for (int k = 0; ok && k < 3; k++) {
        char *end;
        errno = 0;
        out[k] = strtof(p, &end);
        ok = end != p && isfinite(out[k]) && !(errno && out[k] != 0.0f) && *end == (k < 2 ? ',' : '\0');
        p = end + 1;
    }
    if (!ok)
        fprintf(stderr, "pathwave: %s needs three finite numbers X,Y,Z, got '%s'\n", opt, v ? v : "");
    return ok;
}

static int parse_fov(const char *opt, const char *v, float *out)
{
    char *end;
    float x = v ? strtof(v, &end) : 0.0f;
    if (!v || *v == '\0' || *end != '\0' || !(x > 0.0f && x < 180.0f)) {
        fprintf(stderr, "pathwave: %s needs a vertical field of view in degrees, between 0 and 180 (exclusive), "
                        "got '%s'\n", opt, v ? v : "");
        return 0;
    }
    *out = x;
    return 1;
}

/* Remembers a camera option as given, for the message if the camera it
 * makes is unusable. */
static void note_camera_arg(cli_options *o, const char *opt, const char *v)
{
    size_t n = strlen(o->camera_args);
    snprintf(o->camera_args + n, sizeof o->camera_args - n, "%s%s %s", n ? " " : "", opt, v);
}

/* Camera options; returns -1 when a is not one, else whether v parsed. */
static int parse_camera_option(cli_options *o, const char *a, const char *v)
{
    int ok;
    if (strcmp(a, "--look-from") == 0 || strcmp(a, "--camera") == 0)
        ok = parse_vec3(a, v, o->look_from), o->set_look_from = 1;
    else if (strcmp(a, "--look-at") == 0)
        ok = parse_vec3(a, v, o->look_at), o->set_look_at = 1;
    else if (strcmp(a, "--up") == 0)
        ok = parse_vec3(a, v, o->up), o->set_up = 1;
    else if (strcmp(a, "--fov") == 0)
        ok = parse_fov(a, v, &o->fov), o->set_fov = 1;
    else if (strcmp(a, "--aperture") == 0)
        ok = parse_float(a, v, 0.0f, 1e30f, &o->aperture), o->set_aperture = 1;
    else if (strcmp(a, "--focus-dist") == 0)
        ok = parse_float(a, v, 0.0f, 1e30f, &o->focus_dist), o->set_focus_dist = 1;
    else
        return -1;
    if (ok)
        note_camera_arg(o, a, v);
    return ok;
}

static int parse_light_mode(const char *v, pw_light_mode *out)
{
    if (v && strcmp(v, "mis") == 0)
        *out = PW_LIGHT_MODE_MIS;
    else if (v && strcmp(v, "toy") == 0)
        *out = PW_LIGHT_MODE_TOY;
    else if (v && strcmp(v, "none") == 0)
        *out = PW_LIGHT_MODE_NONE;
    else {
        fprintf(stderr, "pathwave: --light-mode needs mis, toy or none, got '%s'\n", v ? v : "");
        return 0;
    }
    return 1;
}

int cli_parse(int argc, char **argv, int first, const char *command, cli_options *o)
{
    memset(o, 0, sizeof *o);
    o->backend = PW_BACKEND_AUTO;
    o->light_mode = PW_LIGHT_MODE_SCENE;
    o->exposure = 1.0f;
    o->env_scale = 1.0f;
    o->frames = 5;
    static const char *const valued[] = {"-o", "--output", "--exr", "--spp", "--width", "--height", "--max-depth",
                                         "--seed", "--threads", "--frames", "--spp-per-frame", "--backend",
                                         "--light-mode", "--tonemap", "--exposure", "--split", "--wave-paths",
                                         "--env", "--env-scale", "--stats-json", "--look-from", "--camera",
                                         "--look-at", "--up", "--fov", "--aperture", "--focus-dist"};
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        int takes_value = 0;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            takes_value |= strcmp(a, valued[k]) == 0;
        const char *v = takes_value ? argv[i + 1] : NULL;
        if (takes_value && !v) {
            fprintf(stderr, "pathwave %s: option '%s' needs a value\n", command, a);
            return 0;
        }
        int ok = parse_camera_option(o, a, v);
        if (ok >= 0) {
            if (!ok)
                return 0;
            i++;
            continue;
        }
        ok = 1;
        /* Options of the other command would be silently ignored here. */
        static const char *const render_only[] = {"-o", "--output", "--exr", "--spp", "--tonemap", "--exposure",
                                                  "--stats-json"};
        static const char *const bench_only[] = {"--frames", "--spp-per-frame", "--json"};
        int bench = strcmp(command, "bench") == 0;
        const char *const *other = bench ? render_only : bench_only;
        size_t n_other = bench ? sizeof render_only / sizeof *render_only : sizeof bench_only / sizeof *bench_only;
        for (size_t k = 0; k < n_other; k++)
            if (strcmp(a, other[k]) == 0) {
                fprintf(stderr, "pathwave %s: option '%s' is not for this command (see 'pathwave %s --help')\n",
                        command, a, command);
                return 0;
            }
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)
            o->output = v;
        else if (strcmp(a, "--exr") == 0)
            o->exr = v;
        else if (strcmp(a, "--stats-json") == 0)
            o->stats_json = v;
        else if (strcmp(a, "--env") == 0)
            o->env = v;
        else if (strcmp(a, "--env-scale") == 0)
            ok = parse_float(a, v, 1e-20f, 1e20f, &o->env_scale);
        else if (strcmp(a, "--spp") == 0)
            ok = parse_int(a, v, 1, 1 << 24, &o->spp), o->set_spp = 1;
        else if (strcmp(a, "--width") == 0)
            ok = parse_int(a, v, 1, PW_MAX_IMAGE_SIDE, &o->width), o->set_width = 1;
        else if (strcmp(a, "--height") == 0)
            ok = parse_int(a, v, 1, PW_MAX_IMAGE_SIDE, &o->height), o->set_height = 1;
        else if (strcmp(a, "--max-depth") == 0)
            ok = parse_int(a, v, 0, PW_MAX_DEPTH_LIMIT, &o->max_depth), o->set_depth = 1;
        else if (strcmp(a, "--seed") == 0) {
            int s = 0;
            ok = parse_int(a, v, 0, INT_MAX, &s), o->seed = (uint32_t)s, o->set_seed = 1;
        } else if (strcmp(a, "--threads") == 0)
            ok = parse_int(a, v, 0, 1024, &o->threads);
        else if (strcmp(a, "--frames") == 0)
            ok = parse_int(a, v, 1, 1000, &o->frames);
        else if (strcmp(a, "--spp-per-frame") == 0)
            ok = parse_int(a, v, 1, 1 << 16, &o->spp_per_frame);
        else if (strcmp(a, "--backend") == 0) {
            if (!(ok = pw_backend_from_name(v, &o->backend) == PW_OK))
                fprintf(stderr, "pathwave: %s\n", pw_last_error());
        } else if (strcmp(a, "--light-mode") == 0)
            ok = parse_light_mode(v, &o->light_mode), o->set_light_mode = 1;
        else if (strcmp(a, "--tonemap") == 0) {
            if (!(ok = pw_tonemap_from_name(v, &o->tonemap) == PW_OK))
                fprintf(stderr, "pathwave: %s\n", pw_last_error());
        } else if (strcmp(a, "--exposure") == 0)
            ok = parse_float(a, v, 1e-20f, 1e6f, &o->exposure);
        else if (strcmp(a, "--wave-paths") == 0)
            ok = parse_int(a, v, 1, INT_MAX, &o->wave_paths);
        else if (strcmp(a, "--split") == 0)
            ok = parse_int(a, v, 1, 64, &o->split);
        else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0)
            o->quiet = 1;
        else if (strcmp(a, "--json") == 0)
            o->json = 1;
        else if (strcmp(a, "--stats") == 0)
            o->stats = 1;
        else if (strcmp(a, "--ignore-required-extensions") == 0)
            o->ignore_required_extensions = 1;
        else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "pathwave %s: unknown option '%s' (see 'pathwave %s --help')\n", command, a, command);
            return 0;
        } else if (!o->scene)
            o->scene = a;
        else {
            fprintf(stderr, "pathwave %s: unexpected argument '%s'\n", command, a);
            return 0;
        }
        if (!ok)
            return 0;
        i += takes_value;
    }
    return 1;
}

/* A built-in name, or a generated scene's name with its parameter
 * ("terrain:1000", "bunnies:4:model.ply"). */
static int is_builtin(const char *name)
{
    size_t len = strcspn(name, ":");
    for (int i = 0; i < pw_builtin_scene_count(); i++) {
        const char *b = pw_builtin_scene_name(i);
        if (strcmp(name, b) == 0 || (name[len] == ':' && strncmp(name, b, len) == 0 && b[len] == ':'))
            return 1;
    }
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Applies the camera options over the scene's camera; 0 or the exit code. */
static int apply_camera(const cli_options *o, pw_scene *scene)
{
    if (!o->camera_args[0])
        return 0;
    pw_camera_params c;
    pw_scene_get_camera(scene, &c);
    if (o->set_look_from)
        memcpy(c.look_from, o->look_from, sizeof c.look_from);
    if (o->set_look_at)
        memcpy(c.look_at, o->look_at, sizeof c.look_at);
    if (o->set_up)
        memcpy(c.up, o->up, sizeof c.up);
    if (o->set_fov)
        c.vfov_deg = o->fov;
    if (o->set_aperture)
        c.aperture = o->aperture;
    if (o->set_focus_dist)
        c.focus_dist = o->focus_dist;
    if (pw_scene_set_camera(scene, &c) != PW_OK) {
        fprintf(stderr, "pathwave: %s: %s\n", o->camera_args, pw_last_error());
        return EXIT_USAGE;
    }
    return 0;
}

/* The render's size, from the options or the scene (a pbrt Film), within
 * the renderer's limits: a usage error, like a bad --width, when not. */
int cli_load_scene(cli_options *o, pw_scene **scene, pw_settings *s)
{
    const char *name = o->scene ? o->scene : "cornell";
    /* Anything with a dot or a slash is a file; everything else a built-in. */
    int file = !is_builtin(name) && (strchr(name, '.') || strchr(name, '/'));
    double t0 = now_ms();
    pw_load_options lo;
    pw_load_options_default(&lo);
    lo.ignore_required_extensions = o->ignore_required_extensions;
    pw_status st = file ? pw_scene_load_with(name, &lo, scene) : pw_scene_builtin(name, scene);
    o->load_ms = now_ms() - t0;
    o->from_file = file;
    if (st != PW_OK) {
        fprintf(stderr, "pathwave: %s\n", pw_last_error());
        /* A bad built-in name or size is a usage error; a bad file is not. */
        return !file && (st == PW_ERR_NOT_FOUND || st == PW_ERR_INVALID_ARGUMENT) ? EXIT_USAGE : 1;
    }
    int rc = apply_camera(o, *scene);
    if (rc != 0) {
        pw_scene_free(*scene);
        *scene = NULL;
        return rc;
    }
    if (o->env && (st = pw_scene_set_environment(*scene, o->env, o->env_scale)) != PW_OK) {
        fprintf(stderr, "pathwave: %s\n", pw_last_error());
        pw_scene_free(*scene);
        *scene = NULL;
        return 1;
    }
    pw_settings_default(*scene, s);
    if (o->set_width)
        s->width = o->width;
    if (o->set_height)
        s->height = o->height;
    if (o->set_spp)
        s->spp = o->spp;
    if (o->set_depth)
        s->max_depth = o->max_depth;
    if (o->set_seed)
        s->seed = o->seed;
    if (o->set_light_mode)
        s->light_mode = o->light_mode;
    s->threads = o->threads;
    if (o->split)
        s->split = o->split;
    if (o->wave_paths)
        s->wave_paths = o->wave_paths;
    s->backend = o->backend;
    /* The sizes a scene file gave are checked with the command line's:
     * one message, and a usage error. */
    if (pw_settings_check(s) != PW_OK) {
        fprintf(stderr, "pathwave: %s\n", pw_last_error());
        pw_scene_free(*scene);
        *scene = NULL;
        return EXIT_USAGE;
    }
    return 0;
}
