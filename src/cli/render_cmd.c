/* pathwave render: progressive rendering with a progress bar; Ctrl-C stops
 * between samples and the image so far is still written. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "core/file_write.h"

static pw_renderer *volatile active;
static volatile sig_atomic_t interrupted; /* the signal that stopped the render, or 0 */

static void on_signal(int sig)
{
    interrupted = sig;
    if (active)
        pw_renderer_cancel(active);
}

/* Fails early, before a long render, when the output cannot be written:
 * pw_check_writable makes (and removes) the temporary file the write
 * will make, or opens the device the output is. */
static int check_writable(const char *path)
{
    if (pw_check_writable(path) == PW_OK)
        return 1;
    fprintf(stderr, "pathwave: %s\n", pw_last_error());
    return 0;
}

static int check_extension(const char *path)
{
    if (pw_image_format_of(path) != PW_IMAGE_UNKNOWN)
        return 1;
    fprintf(stderr, "pathwave: %s: unknown image format (use .png, .exr or .pfm)\n", path);
    return 0;
}

static void progress(int done, int total, double elapsed, double mrays)
{
    const int width = 30;
    int fill = total ? done * width / total : width;
    double eta = done ? elapsed * (total - done) / done : 0.0;
    fprintf(stderr, "\r[");
    for (int i = 0; i < width; i++)
        fputc(i < fill ? '=' : ' ', stderr);
    fprintf(stderr, "] %d/%d spp  %.1fs  ETA %.1fs  %.1f Mray/s ", done, total, elapsed, eta, mrays);
    fflush(stderr);
}

static uint64_t total_rays(const pw_render_stats *s) { return s->camera_rays + s->bounce_rays + s->shadow_rays; }

/* How the image was made, for an EXR file's header: what the command
 * line, the settings and the render were. */
typedef struct render_record {
    int argc;
    char **argv;
    const pw_settings *settings;
    int spp_done;
    double render_seconds;
} render_record;

/* The command line, its words joined by blanks, into buf (cut to fit). */
static void join_command(const render_record *rec, char *buf, size_t n)
{
    size_t at = (size_t)snprintf(buf, n, "pathwave");
    for (int i = 1; i < rec->argc && at + 1 < n; i++)
        at += (size_t)snprintf(buf + at, n - at, " %s", rec->argv[i]);
}

static int write_outputs(const cli_options *o, const char *out, pw_renderer *r, const render_record *rec)
{
    char spp[32], seed[32], secs[32], command[4096];
    snprintf(spp, sizeof spp, "%d", rec->spp_done);
    snprintf(seed, sizeof seed, "%u", rec->settings->seed);
    snprintf(secs, sizeof secs, "%.3f", rec->render_seconds);
    join_command(rec, command, sizeof command);
    const pw_image_attribute attrs[] = {
        {"pathwave.version", pw_version()},   {"pathwave.backend", pw_backend_name(pw_renderer_backend(r))},
        {"pathwave.spp", spp},                {"pathwave.seed", seed},
        {"pathwave.renderSeconds", secs},     {"pathwave.command", command},
    };
    const int n_attrs = (int)(sizeof attrs / sizeof attrs[0]);
    int w, h;
    pw_renderer_size(r, &w, &h);
    float *rgb = malloc((size_t)w * (size_t)h * 3 * sizeof *rgb);
    if (!rgb) {
        fprintf(stderr, "pathwave: out of memory for the %dx%d image\n", w, h);
        return 0;
    }
    int ok = pw_renderer_image(r, rgb) == PW_OK;
    ok = ok && pw_image_write_attributes(out, rgb, w, h, o->exposure, o->tonemap, attrs, n_attrs) == PW_OK;
    if (ok && o->exr)
        ok = pw_image_write_attributes(o->exr, rgb, w, h, o->exposure, o->tonemap, attrs, n_attrs) == PW_OK;
    if (!ok)
        fprintf(stderr, "pathwave: %s\n", pw_last_error());
    free(rgb);
    return ok;
}

static double mrays_of(const pw_render_stats *st)
{
    return st->render_seconds > 0 ? (double)total_rays(st) * 1e-6 / st->render_seconds : 0.0;
}

/* --stats: where the time and the memory went, one figure per line. */
static void print_stats(const cli_options *o, const pw_scene *scene, const pw_renderer *r, const pw_render_stats *st)
{
    pw_scene_info info;
    pw_scene_get_info(scene, &info);
    fprintf(stderr, "load: %.1f ms (%s)\n", o->load_ms, o->from_file ? "reading the file" : "building the scene");
    fprintf(stderr, "bvh: %u nodes built in %.1f ms (%u nodes 4-wide)\n", info.bvh_nodes, info.bvh_build_ms,
            info.bvh4_nodes);
    fprintf(stderr, "geometry: %u spheres, %u triangles, %u materials, %u lights\n", info.spheres, info.triangles,
            info.materials, info.lights);
    fprintf(stderr, "host memory: scene arrays %llu bytes (%.1f MiB), bvh %llu bytes (%.1f MiB)\n",
            (unsigned long long)info.scene_bytes, info.scene_bytes / 1048576.0, (unsigned long long)info.bvh_bytes,
            info.bvh_bytes / 1048576.0);
    if (st->cpu_bvh_bytes)
        fprintf(stderr, "cpu bvh: 8-wide, %llu bytes (%.1f MiB), converted in %.1f ms\n",
                (unsigned long long)st->cpu_bvh_bytes, st->cpu_bvh_bytes / 1048576.0, st->cpu_bvh_ms);
    if (st->device_bytes)
        fprintf(stderr, "device memory: %llu bytes (%.1f MiB)\n", (unsigned long long)st->device_bytes,
                st->device_bytes / 1048576.0);
    fprintf(stderr, "render: %.3f s, %.2f Mray/s on %s\n", st->render_seconds, mrays_of(st),
            pw_backend_name(pw_renderer_backend(r)));
    fprintf(stderr, "rays: %llu camera, %llu bounce, %llu shadow\n", (unsigned long long)st->camera_rays,
            (unsigned long long)st->bounce_rays, (unsigned long long)st->shadow_rays);
}

/* --stats-json FILE: the same figures as one JSON object ("-": stdout). */
static int write_stats_json(const cli_options *o, const pw_scene *scene, const pw_renderer *r,
                            const pw_render_stats *st, const pw_settings *s, int spp_done)
{
    pw_scene_info info;
    pw_scene_get_info(scene, &info);
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "scene", info.name);
    cJSON_AddStringToObject(j, "backend", pw_backend_name(pw_renderer_backend(r)));
    cJSON_AddNumberToObject(j, "width", s->width);
    cJSON_AddNumberToObject(j, "height", s->height);
    cJSON_AddNumberToObject(j, "spp", spp_done);
    cJSON_AddNumberToObject(j, "load_ms", o->load_ms);
    cJSON_AddNumberToObject(j, "bvh_build_ms", info.bvh_build_ms);
    cJSON_AddNumberToObject(j, "bvh_nodes", info.bvh_nodes);
    cJSON_AddNumberToObject(j, "bvh4_nodes", info.bvh4_nodes);
    cJSON_AddNumberToObject(j, "spheres", info.spheres);
    cJSON_AddNumberToObject(j, "triangles", info.triangles);
    cJSON_AddNumberToObject(j, "materials", info.materials);
    cJSON_AddNumberToObject(j, "lights", info.lights);
    cJSON_AddNumberToObject(j, "scene_bytes", (double)info.scene_bytes);
    cJSON_AddNumberToObject(j, "bvh_bytes", (double)info.bvh_bytes);
    if (st->device_bytes)
        cJSON_AddNumberToObject(j, "device_bytes", (double)st->device_bytes);
    if (st->cpu_bvh_bytes) {
        cJSON_AddNumberToObject(j, "cpu_bvh_bytes", (double)st->cpu_bvh_bytes);
        cJSON_AddNumberToObject(j, "cpu_bvh_ms", st->cpu_bvh_ms);
    }
    cJSON_AddNumberToObject(j, "render_seconds", st->render_seconds);
    cJSON_AddNumberToObject(j, "mrays_per_s", mrays_of(st));
    cJSON_AddNumberToObject(j, "camera_rays", (double)st->camera_rays);
    cJSON_AddNumberToObject(j, "bounce_rays", (double)st->bounce_rays);
    cJSON_AddNumberToObject(j, "shadow_rays", (double)st->shadow_rays);
    char *text = cJSON_Print(j);
    cJSON_Delete(j);
    int to_stdout = strcmp(o->stats_json, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(o->stats_json, "w");
    int ok = text && f && fprintf(f, "%s\n", text) >= 0;
    if (f && !to_stdout)
        ok = fclose(f) == 0 && ok;
    if (!ok)
        fprintf(stderr, "pathwave: %s: cannot write the statistics (%s)\n", o->stats_json,
                text ? strerror(errno) : "out of memory");
    free(text);
    return ok;
}

int cmd_render(int argc, char **argv)
{
    cli_options o;
    if (!cli_parse(argc, argv, 2, "render", &o))
        return EXIT_USAGE;
    const char *out = o.output ? o.output : "pathwave.png";
    if (!check_extension(out) || !check_writable(out))
        return EXIT_USAGE;
    if (o.exr && pw_image_format_of(o.exr) != PW_IMAGE_EXR) {
        fprintf(stderr, "pathwave: %s: --exr writes an .exr file\n", o.exr);
        return EXIT_USAGE;
    }
    if (o.exr && !check_writable(o.exr))
        return EXIT_USAGE;
    if (o.stats_json && strcmp(o.stats_json, "-") != 0 && !check_writable(o.stats_json))
        return EXIT_USAGE;
    pw_scene *scene;
    pw_settings s;
    int load = cli_load_scene(&o, &scene, &s);
    if (load != 0)
        return load;
    pw_renderer *r;
    if (pw_renderer_create(scene, &s, &r) != PW_OK) {
        fprintf(stderr, "pathwave: %s\n", pw_last_error());
        pw_scene_free(scene);
        return 1;
    }
    active = r;
    if (!o.quiet && pw_renderer_backend_note(r)[0])
        fprintf(stderr, "pathwave: using the CPU (%s)\n", pw_renderer_backend_note(r));
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int bar = !o.quiet && isatty(STDERR_FILENO);
    int done = 0, rc = 0, chunk = 1;
    pw_render_stats st;
    while (done < s.spp && !interrupted) {
        /* Samples per call grow while calls are short (a fast GPU), so the
         * progress bar still moves a few times a second but the per-call
         * overhead stays small. */
        int n = chunk < s.spp - done ? chunk : s.spp - done;
        pw_renderer_get_stats(r, &st);
        double t0 = st.render_seconds;
        pw_status ps = pw_renderer_render(r, n);
        if (ps == PW_ERR_INTERRUPTED)
            break;
        if (ps != PW_OK) {
            fprintf(stderr, "\npathwave: %s\n", pw_last_error());
            rc = 1;
            break;
        }
        done += n;
        pw_renderer_get_stats(r, &st);
        if (st.render_seconds - t0 < 0.05 && chunk < 1024)
            chunk *= 2;
        if (bar)
            progress(done, s.spp, st.render_seconds, total_rays(&st) * 1e-6 / st.render_seconds);
    }
    if (bar)
        fputc('\n', stderr);
    active = NULL;
    /* A second Ctrl-C while the image is written stops the program; the
     * file it replaces stays whole (pw_image_write renames a finished
     * temporary file into place). */
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    pw_renderer_get_stats(r, &st);
    render_record rec = {argc, argv, &s, done, st.render_seconds};
    if (rc == 0 && !write_outputs(&o, out, r, &rec))
        rc = 1;
    if (rc == 0 && interrupted)
        rc = 128 + interrupted; /* 130 for Ctrl-C, 143 for SIGTERM */
    if (!o.quiet) {
        double rays = (double)total_rays(&st);
        fprintf(stderr, "%s%s: %dx%d, %d spp, %.1f M rays (%.2f per sample) in %.2f s, %.1f Mray/s, %s -> %s\n",
                interrupted ? "interrupted: " : "", o.scene ? o.scene : "cornell", s.width, s.height, done,
                rays * 1e-6, st.samples ? rays / (double)st.samples : 0.0, st.render_seconds,
                st.render_seconds > 0 ? rays * 1e-6 / st.render_seconds : 0.0,
                pw_backend_name(pw_renderer_backend(r)), out);
    }
    if (o.stats)
        print_stats(&o, scene, r, &st);
    if (o.stats_json && !write_stats_json(&o, scene, r, &st, &s, done))
        rc = rc ? rc : 1;
    pw_renderer_free(r);
    pw_scene_free(scene);
    return rc;
}
