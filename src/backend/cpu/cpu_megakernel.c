/* CPU megakernel: threads take 16x16 tiles and trace whole paths with the
 * shared integrator code. A pixel's samples are summed in a fixed order by
 * one thread, so images are bit-identical for any thread count. */
#include "api/renderer.h"
#include "backend/cpu/parallel_for.h"
#include "core/error.h"
#include "integrator/path.h"

#define TILE 16

typedef struct mega_job {
    pw_renderer *r;
    uint32_t spp, tiles_x;
} mega_job;

static void render_tile(mega_job *j, uint32_t tile)
{
    pw_renderer *r = j->r;
    const pw_render_params *prm = &r->params;
    uint32_t x0 = (tile % j->tiles_x) * TILE, y0 = (tile / j->tiles_x) * TILE;
    uint32_t x1 = x0 + TILE < prm->width ? x0 + TILE : prm->width;
    uint32_t y1 = y0 + TILE < prm->height ? y0 + TILE : prm->height;
    uint32_t ext = 0, shadow = 0, samples = 0;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = x0; x < x1; x++) {
            size_t i = (size_t)y * prm->width + x;
            uint32_t first = r->count[i];
            pw_vec3 sum = v3(r->sum[3 * i + 0], r->sum[3 * i + 1], r->sum[3 * i + 2]);
            if (prm->split > 1 || prm->kinds != PW_KINDS_BASIC)
                pw_path_trace_pixel(&r->view, prm, x, y, first, j->spp, prm->split, PW_KINDS_ALL, &sum, &ext, &shadow);
            else
                pw_path_trace_pixel(&r->view, prm, x, y, first, j->spp, 1, PW_KINDS_BASIC, &sum, &ext, &shadow);
            r->sum[3 * i + 0] = sum.x;
            r->sum[3 * i + 1] = sum.y;
            r->sum[3 * i + 2] = sum.z;
            r->count[i] = first + j->spp;
            samples += j->spp;
        }
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

pw_status pw_cpu_render(pw_renderer *r, int spp)
{
    mega_job j = {r, (uint32_t)spp, (r->params.width + TILE - 1) / TILE};
    uint32_t n_tiles = j.tiles_x * ((r->params.height + TILE - 1) / TILE);
    pw_parallel_for(r->settings.threads, n_tiles, 1, tiles_body, &j);
    return r->cancel ? pw_fail(PW_ERR_INTERRUPTED, "render interrupted") : PW_OK;
}
