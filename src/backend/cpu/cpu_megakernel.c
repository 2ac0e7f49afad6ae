/* CPU megakernel: threads take 16x16 tiles and trace whole paths with the
 * shared integrator code. A pixel's samples are summed in a fixed order by one
 * thread, so images are bit-identical for any thread count. */
#include "backend/backend.h"
#include "backend/cpu/parallel_for.h"
#include "core/error.h"
#include "backend/sample_pool.h"

#define TILE 16

typedef struct mega_job {
    pw_render_job *r;
    uint32_t spp, tiles_x;
} mega_job;

/* One pixel's run of samples in the two-pixel loop below. */
typedef struct cpu_lane {
    pw_path p;
    pw_vec3 sum;
    uint32_t x, y, sample, end;
    int active;
} cpu_lane;

/* What pw_path_trace_pixel does after a closest-hit query (without
 * splitting, materials of PW_KINDS_BASIC): the miss or the shading and its
 * shadow rays; when the path ends, its radiance is added to the pixel and
 * the pixel's next sample begins. */
static inline void lane_step(cpu_lane *l, int hit, const pw_hit *h, const pw_scene_view *s, const pw_render_params *prm,
                             uint32_t *shadow_rays)
{
    int alive = hit;
    if (!hit) {
        pw_path_miss(s, prm, &l->p, PW_KINDS_BASIC);
    } else {
        pw_shadow_ray sh[PW_MAX_SHADOW];
        int n;
        pw_shadow_sink sink = pw_sink_array(sh);
        alive = pw_path_shade(s, prm, &l->p, h, &sink, &n, PW_KINDS_BASIC);
        *shadow_rays += (uint32_t)n;
        pw_trace_shadows(s, sh, n, &l->p.L, NULL);
    }
    if (alive)
        return;
    pw_path_accumulate(&l->sum, v3_add(v3s(0.0f), l->p.L));
    if (++l->sample >= l->end) {
        l->active = 0;
        return;
    }
    l->p = pw_path_begin(s, prm, l->x, l->y, l->sample);
}

/* CPU_LANES pixels' paths traced in step: each iteration traces every
 * lane's ray, then shades every lane. The paths do not depend on each
 * other, so the core overlaps one's divisions, square roots and traversal
 * with another's; a single path is one long dependency chain. Each pixel
 * gets exactly the samples, and the sums in the order, that
 * pw_path_trace_pixel gives it. */
#define CPU_LANES 2 /* measured faster than 1 on one thread, and 4 no better (docs/PERFORMANCE.md) */
__attribute__((flatten)) static void trace_lanes(const pw_scene_view *s, const pw_render_params *prm, cpu_lane *l, uint32_t *ext_rays,
                        uint32_t *shadow_rays)
{
    for (int k = 0; k < CPU_LANES; k++)
        if (l[k].active)
            l[k].p = pw_path_begin(s, prm, l[k].x, l[k].y, l[k].sample);
    for (;;) {
        pw_hit h[CPU_LANES];
        int f[CPU_LANES], any = 0;
        for (int k = 0; k < CPU_LANES; k++) {
            f[k] = 0;
            if (l[k].active) {
                any = 1;
                (*ext_rays)++;
                f[k] = pw_trace(s, l[k].p.ray, s->t_min, PW_INF, 0, &h[k]);
            }
        }
        if (!any)
            return;
        for (int k = 0; k < CPU_LANES; k++)
            if (l[k].active)
                lane_step(&l[k], f[k], &h[k], s, prm, shadow_rays);
    }
}

static void lane_load(cpu_lane *l, const pw_render_job *r, uint32_t x, uint32_t y, uint32_t spp)
{
    size_t i = (size_t)y * r->params.width + x;
    l->x = x, l->y = y;
    l->sample = r->count[i];
    l->end = l->sample + spp;
    l->sum = v3(r->sum[3 * i + 0], r->sum[3 * i + 1], r->sum[3 * i + 2]);
    l->active = spp > 0;
}

static void lane_store(const cpu_lane *l, pw_render_job *r)
{
    size_t i = (size_t)l->y * r->params.width + l->x;
    r->sum[3 * i + 0] = l->sum.x;
    r->sum[3 * i + 1] = l->sum.y;
    r->sum[3 * i + 2] = l->sum.z;
    r->count[i] = l->end;
}

/* The pixels [x0, x1) x [y0, y1), paths one by one (two in step where
 * the materials allow); returns the samples traced. */
static uint32_t render_pixels(mega_job *j, uint32_t x0, uint32_t y0, uint32_t x1, uint32_t y1, uint32_t *ext,
                              uint32_t *shadow)
{
    pw_render_job *r = j->r;
    const pw_render_params *prm = &r->params;
    uint32_t samples = 0;
    int lanes = prm->split <= 1 && prm->kinds == PW_KINDS_BASIC;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = x0; x < x1; x++) {
            if (lanes && x + CPU_LANES <= x1) {
                cpu_lane l[CPU_LANES];
                for (int k = 0; k < CPU_LANES; k++)
                    lane_load(&l[k], r, x + k, y, j->spp);
                trace_lanes(&r->view, prm, l, ext, shadow);
                for (int k = 0; k < CPU_LANES; k++)
                    lane_store(&l[k], r);
                samples += CPU_LANES * j->spp;
                x += CPU_LANES - 1;
                continue;
            }
            size_t i = (size_t)y * prm->width + x;
            uint32_t first = r->count[i];
            pw_vec3 sum = v3(r->sum[3 * i + 0], r->sum[3 * i + 1], r->sum[3 * i + 2]);
            if (prm->split > 1 || prm->kinds != PW_KINDS_BASIC)
                pw_path_trace_pixel(&r->view, prm, x, y, first, j->spp, prm->split, PW_KINDS_ALL, &sum, ext, shadow);
            else
                pw_path_trace_pixel(&r->view, prm, x, y, first, j->spp, 1, PW_KINDS_BASIC, &sum, ext, shadow);
            r->sum[3 * i + 0] = sum.x;
            r->sum[3 * i + 1] = sum.y;
            r->sum[3 * i + 2] = sum.z;
            r->count[i] = first + j->spp;
            samples += j->spp;
        }
    return samples;
}

static void render_tile(mega_job *j, uint32_t tile)
{
    pw_render_job *r = j->r;
    const pw_render_params *prm = &r->params;
    uint32_t x0 = (tile % j->tiles_x) * TILE, y0 = (tile / j->tiles_x) * TILE;
    uint32_t x1 = x0 + TILE < prm->width ? x0 + TILE : prm->width;
    uint32_t y1 = y0 + TILE < prm->height ? y0 + TILE : prm->height;
    uint32_t ext = 0, shadow = 0, samples;
    samples = render_pixels(j, x0, y0, x1, y1, &ext, &shadow);
    __atomic_fetch_add(&r->stats.camera_rays, (uint64_t)samples, __ATOMIC_RELAXED);
    __atomic_fetch_add(&r->stats.bounce_rays, (uint64_t)(ext - samples), __ATOMIC_RELAXED);
    __atomic_fetch_add(&r->stats.shadow_rays, (uint64_t)shadow, __ATOMIC_RELAXED);
    __atomic_fetch_add(&r->stats.samples, (uint64_t)samples, __ATOMIC_RELAXED);
}

static void tiles_body(void *ctx, uint32_t begin, uint32_t end)
{
    mega_job *j = ctx;
    for (uint32_t t = begin; t < end && !j->r->cancel; t++)
        render_tile(j, t);
}

pw_status pw_cpu_render(pw_render_job *r, int spp)
{
    mega_job j = {r, (uint32_t)spp, (r->params.width + TILE - 1) / TILE};
    uint32_t n_tiles = j.tiles_x * ((r->params.height + TILE - 1) / TILE);
    pw_parallel_for(r->settings.threads, n_tiles, 1, tiles_body, &j);
    return r->cancel ? pw_fail(PW_ERR_INTERRUPTED, "render interrupted") : PW_OK;
}
