/* pathwave bench: a warm-up frame, then N timed frames; medians reported. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rays_of(const pw_render_stats *s) { return s->camera_rays + s->bounce_rays + s->shadow_rays; }

/* Per-bounce time and items of each wavefront stage, per frame. */
static void print_stage_stats(const pw_renderer *r, int frames)
{
    int rows;
    const pw_stage_stats *st = pw_renderer_stage_stats(r, &rows);
    if (rows == 0) {
        printf("(no stage statistics: the backend is not a wavefront)\n");
        return;
    }
    printf("\nper frame (mean of %d, warm-up included): ms and items of each stage\n%-7s", frames, "bounce");
    for (int k = 0; k < PW_STAGE_COUNT; k++)
        printf(" %20s", pw_stage_name(k));
    printf("\n");
    /* Bounces past the last one with paths are summed into one line. */
    int last = 0, tail = 0;
    for (int b = 0; b < rows; b++)
        for (int k = 0; k < PW_STAGE_COUNT; k++)
            if (st[b].items[k]) {
                last = b;
                tail |= k == PW_STAGE_TAIL;
            }
    for (int b = 0; b <= last; b++) {
        printf("%-7d", b);
        for (int k = 0; k < PW_STAGE_COUNT; k++) {
            char cell[32];
            snprintf(cell, sizeof cell, "%.3f/%llu", st[b].seconds[k] * 1e3 / frames,
                     (unsigned long long)(st[b].items[k] / (uint64_t)frames));
            /* The tail's launches that found no paths show as "-". */
            int shown = st[b].items[k] || (k != PW_STAGE_TAIL && st[b].seconds[k] > 0);
            printf(" %20s", shown ? cell : "-");
        }
        printf("\n");
    }
    if (last + 1 < rows) {
        double idle = 0.0;
        for (int b = last + 1; b < rows; b++)
            for (int k = 0; k < PW_STAGE_COUNT; k++)
                idle += st[b].seconds[k];
        printf("%d-%d: no paths left for the stages%s; %.3f ms of empty stages here, none in the graph that "
               "renders without --stats\n",
               last + 1, rows - 1, tail ? " (the tail kernel ran those it took to their ends)" : "",
               idle * 1e3 / frames);
    }
}

static void print_json(const char *scene, const pw_settings *s, int spf, int frames, double rpps, double mrays,
                       double ms, double build_ms, const char *backend)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scene", scene);
    cJSON_AddStringToObject(j, "backend", backend);
    cJSON_AddNumberToObject(j, "width", s->width);
    cJSON_AddNumberToObject(j, "height", s->height);
    cJSON_AddNumberToObject(j, "spp_per_frame", spf);
    cJSON_AddNumberToObject(j, "max_depth", s->max_depth);
    cJSON_AddNumberToObject(j, "frames", frames);
    cJSON_AddNumberToObject(j, "rays_per_pixel_sample", rpps);
    cJSON_AddNumberToObject(j, "mrays_per_s_median", mrays);
    cJSON_AddNumberToObject(j, "ms_per_frame_median", ms);
    cJSON_AddNumberToObject(j, "bvh_build_ms", build_ms);
    char *text = cJSON_Print(j);
    if (text)
        puts(text);
    free(text);
    cJSON_Delete(j);
}

/* Samples per pixel in one frame: the toy scenes' benchmark frame is 4
 * (BENCHMARKS.md B1), every other scene's 1. */
static int frame_spp(const char *scene)
{
    return strcmp(scene, "toy") == 0 || strcmp(scene, "toy-small") == 0 ? 4 : 1;
}

int cmd_bench(int argc, char **argv)
{
    cli_options o;
    if (!cli_parse(argc, argv, 2, "bench", &o))
        return EXIT_USAGE;
    if (!o.scene)
        o.scene = "toy";
    pw_scene *scene;
    pw_settings s;
    int load = cli_load_scene(&o, &scene, &s);
    if (load != 0)
        return load;
    s.stage_stats = o.stats;
    int spf = o.spp_per_frame ? o.spp_per_frame : frame_spp(o.scene);
    pw_renderer *r;
    if (pw_renderer_create(scene, &s, &r) != PW_OK) {
        fprintf(stderr, "pathwave: %s\n", pw_last_error());
        pw_scene_free(scene);
        return 1;
    }
    double *mrays = calloc((size_t)o.frames, sizeof *mrays), *ms = calloc((size_t)o.frames, sizeof *ms);
    int rc = mrays && ms ? 0 : 1;
    pw_render_stats before, after;
    uint64_t rays_total = 0, samples_total = 0;
    for (int f = -1; f < o.frames && rc == 0; f++) {
        pw_renderer_get_stats(r, &before);
        if (pw_renderer_render(r, spf) != PW_OK) {
            fprintf(stderr, "pathwave: %s\n", pw_last_error());
            rc = 1;
            break;
        }
        pw_renderer_get_stats(r, &after);
        if (f < 0)
            continue; /* warm-up */
        double sec = after.device_seconds - before.device_seconds;
        uint64_t rays = rays_of(&after) - rays_of(&before);
        rays_total += rays;
        samples_total += after.samples - before.samples;
        ms[f] = sec * 1e3;
        mrays[f] = (double)rays * 1e-6 / sec;
    }
    if (rc == 0) {
        pw_scene_info info;
        pw_scene_get_info(scene, &info);
        double rpps = (double)rays_total / (double)samples_total;
        double mr = median(mrays, o.frames), mt = median(ms, o.frames);
        const char *backend = pw_backend_name(pw_renderer_backend(r));
        if (o.json)
            print_json(o.scene, &s, spf, o.frames, rpps, mr, mt, info.bvh_build_ms, backend);
        else {
            printf("%-12s %-9s %-10s %9s %14s %12s %12s\n", "scene", "backend", "size", "spp/frame", "rays/px-sample",
                   "Mray/s", "ms/frame");
            char size[32];
            snprintf(size, sizeof size, "%dx%d", s.width, s.height);
            printf("%-12s %-9s %-10s %9d %14.3f %12.1f %12.2f\n", o.scene, backend, size, spf, rpps, mr, mt);
        }
        if (o.stats)
            print_stage_stats(r, o.frames + 1);
    }
    free(mrays);
    free(ms);
    pw_renderer_free(r);
    pw_scene_free(scene);
    return rc;
}
