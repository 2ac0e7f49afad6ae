#include "backend/cpu/parallel_for.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct pf_job {
    uint32_t n, chunk;
    atomic_uint next;
    pw_range_fn body;
    void *ctx;
} pf_job;

static void *pf_worker(void *arg)
{
    pf_job *j = arg;
    for (;;) {
        uint32_t b = atomic_fetch_add(&j->next, j->chunk);
        if (b >= j->n)
            return NULL;
        uint32_t e = b + j->chunk < j->n ? b + j->chunk : j->n;
        j->body(j->ctx, b, e);
    }
}

int pw_cpu_threads(int requested)
{
    int n = requested > 0 ? requested : (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n;
}

void pw_parallel_for(int threads, uint32_t n, uint32_t chunk, pw_range_fn body, void *ctx)
{
    if (n == 0)
        return;
    pf_job j;
    j.n = n;
    j.chunk = chunk ? chunk : 1;
    atomic_init(&j.next, 0u);
    j.body = body;
    j.ctx = ctx;
    int nt = pw_cpu_threads(threads);
    uint32_t max_useful = (n + j.chunk - 1) / j.chunk;
    if ((uint32_t)nt > max_useful)
        nt = (int)max_useful;
    pthread_t *th = nt > 1 ? malloc((size_t)nt * sizeof *th) : NULL;
    int started = 0;
    for (int i = 1; th && i < nt; i++)
        if (pthread_create(&th[started], NULL, pf_worker, &j) == 0)
            started++;
    pf_worker(&j);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
}
