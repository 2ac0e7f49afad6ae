/* CPU megakernel: each thread takes tiles from an atomic counter and traces
 * whole paths with the shared integrator code. A pixel's samples are summed
 * in a fixed order by one thread, so images are bit-identical for any thread
 * count. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "api/renderer.h"
#include "core/error.h"
#include "integrator/path.h"

#define TILE 16

typedef struct cpu_job {
    pw_renderer *r;
    int spp;
    uint32_t tiles_x, n_tiles;
    atomic_uint next_tile;
} cpu_job;

typedef struct cpu_worker {
    cpu_job *job;
    uint64_t ext_rays, shadow_rays, samples;
} cpu_worker;

static void render_tile(cpu_worker *w, uint32_t tile)
{
    pw_renderer *r = w->job->r;
    const pw_render_params *prm = &r->params;
    uint32_t x0 = (tile % w->job->tiles_x) * TILE, y0 = (tile / w->job->tiles_x) * TILE;
    uint32_t x1 = x0 + TILE < prm->width ? x0 + TILE : prm->width;
    uint32_t y1 = y0 + TILE < prm->height ? y0 + TILE : prm->height;
    for (uint32_t y = y0; y < y1; y++)
        for (uint32_t x = x0; x < x1; x++) {
            size_t i = (size_t)y * prm->width + x;
            uint32_t first = r->count[i], ext = 0, shadow = 0;
            pw_vec3 acc = pw_trace_pixel(&r->view, prm, x, y, first, (uint32_t)w->job->spp, &ext, &shadow);
            r->sum[3 * i + 0] += acc.x;
            r->sum[3 * i + 1] += acc.y;
            r->sum[3 * i + 2] += acc.z;
            r->count[i] = first + (uint32_t)w->job->spp;
            w->ext_rays += ext;
            w->shadow_rays += shadow;
            w->samples += (uint64_t)w->job->spp;
        }
}

static void *worker_main(void *arg)
{
    cpu_worker *w = arg;
    for (;;) {
        if (w->job->r->cancel)
            break;
        uint32_t t = atomic_fetch_add(&w->job->next_tile, 1u);
        if (t >= w->job->n_tiles)
            break;
        render_tile(w, t);
    }
    return NULL;
}

pw_status pw_cpu_render(pw_renderer *r, int spp)
{
    int nt = r->settings.threads > 0 ? r->settings.threads : (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (nt < 1)
        nt = 1;
    cpu_job job;
    job.r = r;
    job.spp = spp;
    job.tiles_x = (r->params.width + TILE - 1) / TILE;
    job.n_tiles = job.tiles_x * ((r->params.height + TILE - 1) / TILE);
    atomic_init(&job.next_tile, 0u);
    cpu_worker *workers = calloc((size_t)nt, sizeof *workers);
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    if (!workers || !th) {
        free(workers);
        free(th);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory starting %d render threads", nt);
    }
    int started = 0;
    for (int i = 0; i < nt; i++) {
        workers[i].job = &job;
        if (i > 0 && pthread_create(&th[i], NULL, worker_main, &workers[i]) != 0)
            break;
        started++;
    }
    worker_main(&workers[0]);
    for (int i = 1; i < started; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < started; i++) {
        r->stats.camera_rays += workers[i].samples;
        r->stats.bounce_rays += workers[i].ext_rays - workers[i].samples;
        r->stats.shadow_rays += workers[i].shadow_rays;
        r->stats.samples += workers[i].samples;
    }
    free(workers);
    free(th);
    return r->cancel ? pw_fail(PW_ERR_INTERRUPTED, "render interrupted") : PW_OK;
}
