/* The CPU backends' operations: both trace through the CPU's own 8-wide
 * BVH where it can be built, and differ in how they schedule the paths
 * (cpu_megakernel.c, cpu_wavefront.c). */
#include "backend/backend.h"

/* Measured (docs/PERFORMANCE.md): the 8-wide BVH, whose leaves test 8
 * spheres or 8 triangles at a time, wins on spheres and on meshes (on the
 * bunny by far, against the 4-wide tree). Without AVX2, or without the
 * memory for it (about 60-70 bytes a triangle), the CPU walks the shared
 * tree; PATHWAVE_CPU_BVH=2 makes it do so. */
static pw_status cpu_create(pw_render_job *j)
{
    if (j->tuning.cpu_bvh_width == 2)
        return PW_OK;
    double t0 = pw_now_seconds();
    if (pw_bvh8_build(&j->view, &j->bvh8)) {
        j->view.cpu_bvh8 = &j->bvh8;
        j->stats.cpu_bvh_bytes = pw_bvh8_bytes(&j->bvh8);
        j->stats.cpu_bvh_ms = (pw_now_seconds() - t0) * 1e3;
    }
    return PW_OK;
}

static void cpu_destroy(pw_render_job *j)
{
    pw_cpu_wave_free(j);
    pw_bvh8_free(&j->bvh8);
}

const pw_backend_ops pw_cpu_mega_ops = {cpu_create, pw_cpu_render, NULL, cpu_destroy, 1};
const pw_backend_ops pw_cpu_wave_ops = {cpu_create, pw_cpu_wave_render, NULL, cpu_destroy, 1};
