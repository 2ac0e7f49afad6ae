#include "backend/backend.h"

#include <time.h>

double pw_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void pw_stage_record(pw_render_job *j, uint32_t bounce, int stage, double seconds, uint64_t items)
{
    uint32_t row = bounce < PW_STATS_BOUNCES ? bounce : PW_STATS_BOUNCES - 1;
    j->stage[row].seconds[stage] += seconds;
    j->stage[row].items[stage] += items;
    if ((int)row + 1 > j->stage_rows)
        j->stage_rows = (int)row + 1;
}

const pw_backend_ops *pw_backend_ops_of(pw_backend b)
{
    switch (b) {
    case PW_BACKEND_CUDA_MEGA:
        return &pw_cuda_mega_ops;
    case PW_BACKEND_CUDA_WAVE:
        return &pw_cuda_wave_ops;
    case PW_BACKEND_CPU_WAVE:
        return &pw_cpu_wave_ops;
    default:
        return &pw_cpu_mega_ops;
    }
}
