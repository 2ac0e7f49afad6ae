/* CPU wavefront: the stages of backend/wavefront/wavefront.h, each run as one
 * parallel loop over its queue. Path state lives in one allocation carved
 * into SoA arrays; a wave holds several samples of every pixel when they
 * fit, else one sample of as many pixels as fit (pw_wave_plan). */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cpu/parallel_for.h"
#include "core/error.h"
#include "backend/wavefront/wavefront_layout.h"

/* Paths in flight at once: 1M paths are about 184 MiB with one shadow
 * record a path (464 MiB with 8), and more gains nothing on a CPU. */
#define CPU_WAVE_CAP (1u << 20)
#define CHUNK 256

typedef struct cpu_wave {
    pw_wave w;
    void *mem;
} cpu_wave;

typedef struct stage_ctx {
    pw_render_job *r;
    const pw_wave *w;
    uint32_t bounce; /* its ray queue is bounce & 1 */
    uint32_t first_pixel, pixels, sample, samples;
    int stored; /* generate stores the camera paths (generate_body) */
} stage_ctx;

/* Camera paths are stored by generate (pw_wf_generate): making each
 * twice instead, at bounce 0's extend and shade, as the GPU's wavefront
 * does to save memory traffic, made the CPU slower on toy and the
 * Cornell box (docs/PERFORMANCE.md). PATHWAVE_CPU_WAVE_CAMERA=0 makes them
 * where they are needed all the same, so that the tests check the GPU's
 * way through the CPU (test_wavefront). */
static void generate_body(void *p, uint32_t b, uint32_t e)
{
    stage_ctx *c = p;
    if (c->stored)
        for (uint32_t i = b; i < e; i++)
            pw_wf_generate(c->w, &c->r->view, &c->r->params, i, c->first_pixel, c->pixels, c->sample);
}

static void extend_body(void *p, uint32_t b, uint32_t e)
{
    stage_ctx *c = p;
    if (c->bounce == 0 && !c->stored) {
        for (uint32_t i = b; i < e; i++)
            pw_wf_extend_camera(c->w, &c->r->view, &c->r->params, i, c->first_pixel, c->pixels, c->sample);
        return;
    }
    for (uint32_t i = b; i < e; i++)
        pw_wf_extend(c->w, &c->r->view, c->bounce & 1u, i);
}

static void shade_items(const stage_ctx *c, const pw_wave *w, uint32_t b, uint32_t e)
{
    const pw_render_params *prm = &c->r->params;
    const pw_scene_view *v = &c->r->view;
    uint32_t shadows = 0, q = c->bounce & 1u;
    int camera = c->bounce == 0 && !c->stored;
    if (prm->split > 1) {
        for (uint32_t i = b; i < e; i++)
            shadows += camera ? pw_wf_shade_camera(w, v, prm, i, c->first_pixel, c->pixels, c->sample, prm->kinds)
                              : pw_wf_shade(w, v, prm, q, i, prm->kinds);
    } else {
        /* Without splitting, shade's two halves as the GPU's sphere
         * kernels run them (so CI runs them too), each item taking its
         * places on its own (pw_wf_shade_place). */
        for (uint32_t i = b; i < e; i++) {
            pw_wf_shaded r = camera ? pw_wf_shade_hit_camera(w, v, prm, i, c->first_pixel, c->pixels, c->sample,
                                                             prm->kinds)
                                    : pw_wf_shade_hit_at(w, v, prm, q, i, prm->kinds);
            shadows += pw_wf_shade_place(w, q, &r);
        }
    }
    pw_wf_count(&w->counters[PW_WF_SHADOWS], shadows);
}

/* What a piece of at most CHUNK shade items makes (without splitting,
 * each item at most one connect entry and one next-queue entry),
 * before it joins the wave's queues. Shadow records are the paths' own
 * and go straight to the wave. */
typedef struct shade_out {
    PW_ALIGNAS(8) uint32_t counters[PW_WF_COUNTERS];
    uint32_t next[CHUNK];
    pw_f2 to_connect[CHUNK];
#define SHADE_OUT_GROUP(g, vec, word, unpack) pw_f4 g[CHUNK];
    PW_WF_STATE(SHADE_OUT_GROUP) /* the path state's groups (PW_WF_STATE) */
#undef SHADE_OUT_GROUP
} shade_out;

/* Shades items [b, e), at most CHUNK of them, into o, then moves what they
 * made into the wave's queues. Which entries items take does not change
 * the image (connect and gather add in path and sample order). */
static void shade_piece(const stage_ctx *c, shade_out *o, uint32_t b, uint32_t e)
{
    const pw_wave *w = c->w;
    uint32_t nq = (c->bounce & 1u) ^ 1u;
    pw_wave lw = *w;
    memset(o->counters, 0, sizeof o->counters);
    lw.counters = o->counters;
    lw.to_connect = o->to_connect;
    lw.queue[nq] = o->next;
#define POINT_AT_GROUP(g, vec, word, unpack) lw.g[nq] = o->g;
    PW_WF_STATE(POINT_AT_GROUP)
#undef POINT_AT_GROUP
    shade_items(c, &lw, b, e);

    uint32_t n_connect = o->counters[PW_WF_TO_CONNECT], n_next = o->counters[PW_WF_NEXT];
    pw_wf_count(&w->counters[PW_WF_SHADOWS], o->counters[PW_WF_SHADOWS]);
    memcpy(w->to_connect + pw_wf_alloc(&w->counters[PW_WF_TO_CONNECT], n_connect), o->to_connect,
           n_connect * sizeof *o->to_connect);
    uint32_t next = pw_wf_alloc(&w->counters[PW_WF_NEXT], n_next);
    memcpy(w->queue[nq] + next, o->next, n_next * sizeof *o->next);
#define COPY_GROUP(g, vec, word, unpack) memcpy(w->g[nq] + next, o->g, n_next * sizeof *o->g);
    PW_WF_STATE(COPY_GROUP)
#undef COPY_GROUP
}

/* Shade takes queue slots item by item through the wave's shared counters
 * (pw_wf_alloc_pair: two atomics an item on the CPU). Each of them moved a
 * cache line from core to core, and the threads' entries interleaved in
 * the queues, so that stores to one line came from both: two threads
 * shaded toy little faster than one. So items are shaded in pieces of

 * CHUNK into outputs of the piece's own (shade_piece), which join the
 * wave's queues with one atomic a queue. Ray splitting shades straight
 * into the wave: a split item makes more entries than a piece holds. */
static void shade_body(void *p, uint32_t b, uint32_t e)
{
    stage_ctx *c = p;
    shade_out *o = c->r->params.split <= 1 ? malloc(sizeof *o) : NULL;
    if (!o) {
        shade_items(c, c->w, b, e);
        return;
    }
    for (uint32_t i = b; i < e; i += CHUNK)
        shade_piece(c, o, i, e - i < CHUNK ? e : i + CHUNK);
    free(o);
}

static void connect_body(void *p, uint32_t b, uint32_t e)
{
    stage_ctx *c = p;
    for (uint32_t i = b; i < e; i++)
        pw_wf_connect(c->w, &c->r->view, i);
}

static void gather_body(void *p, uint32_t b, uint32_t e)
{
    stage_ctx *c = p;
    if (c->r->params.split > 1) {
        for (uint32_t i = b; i < e; i++)
            pw_wf_gather_split(c->w, &c->r->params, i, c->first_pixel, c->pixels, c->r->sum);
        return;
    }
    for (uint32_t i = b; i < e; i++)
        pw_wf_gather(c->w, &c->r->params, i, c->first_pixel, c->pixels, c->samples, c->r->sum);
}

/* Runs one stage over n items and records its time and the rays (or
 * paths) it counts as its items. */
static void run_stage(stage_ctx *c, int stage, uint32_t bounce, uint32_t n, uint32_t items, pw_range_fn body)
{
    double t0 = pw_now_seconds();
    pw_parallel_for(c->r->settings.threads, n, CHUNK, body, c);
    pw_stage_record(c->r, bounce, stage, pw_now_seconds() - t0, items);
}

/* All bounces of samples [sample, sample + samples) of pixels [first,
 * first + pixels), then each pixel's sum. */
static void run_wave(pw_render_job *r, cpu_wave *cw, uint32_t first, uint32_t pixels, uint32_t sample,
                     uint32_t samples)
{
    pw_wave *w = &cw->w;
    uint32_t n = pixels * samples;
    stage_ctx c = {r, w, 0, first, pixels, sample, samples, r->tuning.cpu_wave_camera};
    run_stage(&c, PW_STAGE_GENERATE, 0, n, n, generate_body);
    uint32_t rays = n;
    for (uint32_t bounce = 0; rays > 0; bounce++) {
        c.bounce = bounce;
        w->counters[PW_WF_NEXT] = 0;
        w->counters[PW_WF_SHADOWS] = 0;
        w->counters[PW_WF_TO_CONNECT] = 0;
        run_stage(&c, PW_STAGE_EXTEND, bounce, rays, rays, extend_body);
        run_stage(&c, PW_STAGE_SHADE, bounce, rays, rays, shade_body);
        uint32_t shadows = w->counters[PW_WF_SHADOWS];
        run_stage(&c, PW_STAGE_CONNECT, bounce, w->counters[PW_WF_TO_CONNECT], shadows, connect_body);
        r->stats.bounce_rays += rays;
        r->stats.shadow_rays += shadows;
        rays = w->counters[PW_WF_NEXT];
    }
    pw_parallel_for(r->settings.threads, pixels, CHUNK, gather_body, &c);
    r->stats.bounce_rays -= n; /* the first extension of each path was its camera ray */
    r->stats.camera_rays += n;
    r->stats.samples += n;
}

static pw_status setup(pw_render_job *r, cpu_wave **out)
{
    uint32_t npix = r->params.width * r->params.height;
    uint32_t split = r->params.split;
    uint32_t cap = pw_wave_wanted_paths(npix, split, CPU_WAVE_CAP);
    if (cap > CPU_WAVE_CAP)
        cap = CPU_WAVE_CAP;
    uint32_t limit = (uint32_t)r->settings.wave_paths;
    if (limit > 0 && limit < cap)
        cap = limit;
    if (cap < split)
        cap = split;
    uint32_t per = pw_wave_shadows_per_path(&r->view, r->params.light_mode);
    cpu_wave *cw = calloc(1, sizeof *cw);
    size_t bytes = pw_wave_bytes(cap, per);
    if (cw)
        cw->mem = aligned_alloc(256, bytes);
    if (!cw || !cw->mem) {
        free(cw);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for %u wavefront paths (%.0f MiB)", cap, bytes / 1048576.0);
    }
    pw_wave_carve(&cw->w, cw->mem, cap, per);
    *out = cw;
    return PW_OK;
}

pw_status pw_cpu_wave_render(pw_render_job *r, int spp)
{
    if (!r->cpu_wave) {
        pw_status st = setup(r, (cpu_wave **)&r->cpu_wave);
        if (st != PW_OK)
            return st;
    }
    cpu_wave *cw = r->cpu_wave;
    uint32_t npix = r->params.width * r->params.height;
    for (uint32_t s = 0; s < (uint32_t)spp && !r->cancel;) {
        uint32_t per_wave, samples;
        pw_wave_plan(cw->w.cap, npix, r->params.split, (uint32_t)spp - s, &per_wave, &samples);
        /* Split children take fixed slots past their parents' (pw_wf_child_slot): a wave with no room
         * for them would write past the path state. */
        if (!pw_wf_split_fits(&cw->w, r->params.split, per_wave))
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "a wave of %u paths has no slots for their children (split %u)",
                           per_wave, r->params.split);
        /* Waves always cover the same pixel ranges, so the pixels of one
         * wave share their sample count even after an interruption. */
        for (uint32_t first = 0; first < npix && !r->cancel; first += per_wave) {
            uint32_t n = npix - first < per_wave ? npix - first : per_wave;
            run_wave(r, cw, first, n, r->count[first], samples);
            for (uint32_t i = first; i < first + n; i++)
                r->count[i] += samples;
        }
        s += samples;
    }
    return r->cancel ? pw_fail(PW_ERR_INTERRUPTED, "render interrupted") : PW_OK;
}

void pw_cpu_wave_free(pw_render_job *r)
{
    cpu_wave *cw = r->cpu_wave;
    if (!cw)
        return;
    free(cw->mem);
    free(cw);
    r->cpu_wave = NULL;
}
