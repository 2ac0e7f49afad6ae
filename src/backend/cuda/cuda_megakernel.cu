/* CUDA megakernel: one thread walks whole paths for one pixel, calling the
 * same pw_path_trace_pixel as the CPU backend. Accumulation stays on the device
 * until the image is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/renderer.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_state.h"
#include "integrator/path.h"

/* Rays are counted per thread, summed across the warp, and added to the
 * global counters by one lane: one atomic per warp instead of one per ray. */
__device__ static void count_rays(unsigned long long *counters, uint32_t ext, uint32_t shadow)
{
    uint32_t e = __reduce_add_sync(0xffffffffu, ext), s = __reduce_add_sync(0xffffffffu, shadow);
    if ((threadIdx.x + threadIdx.y * blockDim.x) % 32u == 0u) {
        atomicAdd(&counters[0], (unsigned long long)e);
        atomicAdd(&counters[1], (unsigned long long)s);
    }
}

/* Kernel variants fix at compile time what a render does not change: the
 * light mode, whether rays go through the BVH or the flat sphere list, and
 * which BVH, binary or 4-wide (MEGA_ANY: read at run time). The code each variant does not need is
 * compiled out, so its kernel is smaller and needs fewer registers; the
 * general kernel stalled a quarter of its time fetching instructions (ncu,
 * docs/PERFORMANCE.md). Measured: the toy variants make `toy` 13% faster
 * and leave toy-small and rtiow as they were; an MIS-over-BVH variant made
 * cornell 5% faster but sponza 12% and bunny 16% slower, so it is not kept. */
#define MEGA_ANY (-1)
/* Scenes of one kind of primitive (the `only` argument; 0: any). */
#define ONLY_SPHERES 1
#define ONLY_TRIANGLES 2

/* One pixel's samples, with path regeneration (pw_path_trace_pixel): each
 * added on its own, in order, as on every backend, so their sums round
 * alike. split is 1 (a literal, so the splitting code compiles away) or
 * prm.split; light_mode, list and wide are literals or MEGA_ANY. */
__device__ __forceinline__ static void mega_pixel(pw_scene_view *view, const pw_render_params *prm_in, float *sum,
                                                  uint32_t spp, uint32_t sample_base, unsigned long long *counters,
                                                  uint32_t split, uint32_t kinds, int light_mode, int list, int wide,
                                                  int only)
{
    pw_render_params prm = *prm_in;
    if (light_mode != MEGA_ANY)
        prm.light_mode = (uint32_t)light_mode;
    if (list != MEGA_ANY)
        view->flat_spheres = (uint32_t)list;
    if (wide != MEGA_ANY)
        view->wide_bvh = (uint32_t)wide;
    /* A literal primitive count compiles out the other kind's branches (pw_prim_is_sphere). */
    if (only == ONLY_SPHERES)
        view->n_tris = 0;
    else if (only == ONLY_TRIANGLES) {
        view->n_spheres = 0;
        __builtin_assume(view->n_tris != 0);
    }
    pw_cuda_spheres_to_shared(view);
    uint32_t x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    uint32_t ext = 0, shadow = 0;
    if (x < prm.width && y < prm.height) {
        size_t i = (size_t)y * prm.width + x;
        pw_vec3 acc = v3(sum[3 * i + 0], sum[3 * i + 1], sum[3 * i + 2]);
        pw_path_trace_pixel(view, &prm, x, y, sample_base, spp, split, kinds, &acc, &ext, &shadow);
        sum[3 * i + 0] = acc.x;
        sum[3 * i + 1] = acc.y;
        sum[3 * i + 2] = acc.z;
    }
    count_rays(counters, ext, shadow);
}

/* At most 256 threads a block and 64 registers a thread: 50% occupancy.
 * The kernel wants ~93 registers; capping it at 64 spills a little but
 * doubles resident warps, which measured faster (docs/PERFORMANCE.md). */
#define MEGA_KERNEL(name, split, kinds, light_mode, list, wide, only)                                              \
    __global__ void __launch_bounds__(256, 4)                                                                      \
        name(pw_scene_view view, const pw_render_params prm, float *__restrict__ sum, uint32_t spp,                \
             uint32_t sample_base, unsigned long long *counters)                                                   \
    {                                                                                                              \
        mega_pixel(&view, &prm, sum, spp, sample_base, counters, split, kinds, light_mode, list, wide, only);      \
    }

/* Basic materials, no splitting: any light mode, the list or the binary BVH. */
MEGA_KERNEL(pw_megakernel, 1, PW_KINDS_BASIC, MEGA_ANY, MEGA_ANY, 0, 0)
/* The same over the 4-wide BVH (large meshes), and for small meshes of
 * triangles only over the binary BVH (a triangles-only 4-wide variant was
 * slower: docs/PERFORMANCE.md). */
MEGA_KERNEL(pw_megakernel_wide, 1, PW_KINDS_BASIC, MEGA_ANY, 0, 1, 0)
MEGA_KERNEL(pw_megakernel_mesh, 1, PW_KINDS_BASIC, MEGA_ANY, 0, 0, ONLY_TRIANGLES)
/* The toy estimator on sphere-only scenes, over the BVH (toy) and over the
 * sphere list (16 spheres or fewer): no triangle code at all. */
MEGA_KERNEL(pw_megakernel_toy_bvh, 1, PW_KINDS_BASIC, PW_LIGHT_MODE_TOY, 0, 0, ONLY_SPHERES)
MEGA_KERNEL(pw_megakernel_toy_list, 1, PW_KINDS_BASIC, PW_LIGHT_MODE_TOY, 1, 0, ONLY_SPHERES)
/* The same without light sampling (emission counted when hit), the light
 * mode of toy-small and rtiow. */
MEGA_KERNEL(pw_megakernel_nolight_bvh, 1, PW_KINDS_BASIC, PW_LIGHT_MODE_NONE, 0, 0, ONLY_SPHERES)
MEGA_KERNEL(pw_megakernel_nolight_list, 1, PW_KINDS_BASIC, PW_LIGHT_MODE_NONE, 1, 0, ONLY_SPHERES)
/* Ray splitting, microfacet materials, textures or delta lights: a kernel of
 * its own, so that the registers they need do not burden renders without. */
MEGA_KERNEL(pw_megakernel_split, prm.split, PW_KINDS_ALL, MEGA_ANY, MEGA_ANY, 0, 0)
MEGA_KERNEL(pw_megakernel_split_wide, prm.split, PW_KINDS_ALL, MEGA_ANY, 0, 1, 0)

typedef void (*mega_kernel_fn)(pw_scene_view, const pw_render_params, float *, uint32_t, uint32_t,
                               unsigned long long *);

/* The smallest kernel that renders this frame. PATHWAVE_MEGA_GENERAL=1
 * keeps the general ones, to compare. */
static mega_kernel_fn pick_kernel(const pw_renderer *r, const cuda_state *c)
{
    const pw_scene_view *v = &c->scene.view;
    if (r->params.split > 1 || r->params.kinds != PW_KINDS_BASIC)
        return v->wide_bvh ? pw_megakernel_split_wide : pw_megakernel_split;
    if (v->wide_bvh)
        return pw_megakernel_wide;
    const char *general = getenv("PATHWAVE_MEGA_GENERAL");
    if (general && *general == '1')
        return pw_megakernel;
    if (v->n_spheres == 0)
        return pw_megakernel_mesh;
    if (v->n_tris == 0 && r->params.light_mode == PW_LIGHT_MODE_TOY)
        return v->flat_spheres ? pw_megakernel_toy_list : pw_megakernel_toy_bvh;
    if (v->n_tris == 0 && r->params.light_mode == PW_LIGHT_MODE_NONE)
        return v->flat_spheres ? pw_megakernel_nolight_list : pw_megakernel_nolight_bvh;
    return pw_megakernel;
}

extern "C" int pw_cuda_compiled(void) { return 1; }

extern "C" int pw_cuda_usable(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* "Insufficient driver" is also what a machine with no driver at
         * all reports: tell the two apart. */
        int driver = 0, runtime = 0;
        cudaDriverGetVersion(&driver);
        cudaRuntimeGetVersion(&runtime);
        if (e == cudaErrorInsufficientDriver && driver == 0)
            pw_fail(PW_ERR_NO_DEVICE, "no usable CUDA GPU: no NVIDIA driver is installed");
        else if (e == cudaErrorInsufficientDriver)
            pw_fail(PW_ERR_NO_DEVICE, "no usable CUDA GPU: the NVIDIA driver supports CUDA %d.%d, this build needs %d.%d",
                    driver / 1000, driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
        else
            pw_fail(PW_ERR_NO_DEVICE, "no usable CUDA GPU: %s", cudaGetErrorString(e));
        return 0;
    }
    if (n == 0) {
        pw_fail(PW_ERR_NO_DEVICE, "no CUDA GPU found");
        return 0;
    }
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess || p.major < 8) {
        pw_fail(PW_ERR_NO_DEVICE, "GPU %s has compute capability %d.%d; pathwave needs 8.0 or newer", p.name, p.major,
                p.minor);
        return 0;
    }
    return 1;
}

/* Block shape: 8x8 measured best on the toy scene (docs/PERFORMANCE.md);
 * PATHWAVE_CUDA_BLOCK=WxH overrides it for tuning. */
static dim3 block_shape(void)
{
    const char *e = getenv("PATHWAVE_CUDA_BLOCK");
    unsigned w = 8, h = 8;
    if (e && (sscanf(e, "%ux%u", &w, &h) != 2 || w * h % 32 != 0 || w * h > 256 || w == 0 || h == 0)) {
        w = 8;
        h = 8;
    }
    return dim3(w, h, 1);
}

static pw_status create(pw_renderer *r, cuda_state *c)
{
    size_t npix = (size_t)r->params.width * r->params.height;
    size_t free_b = 0, total_b = 0;
    PW_CUDA_TRY(cudaSetDevice(0));
    PW_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    size_t need = npix * 3 * sizeof(float) + (size_t)r->scene->bvh.n_nodes * sizeof(pw_bvh_node) +
                  (size_t)r->scene->n_tris * 16 + (size_t)r->scene->n_verts * 24;
    if (need > free_b)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "CUDA: the render needs about %.0f MiB of device memory, the GPU has %.0f MiB free",
                       need / 1048576.0, free_b / 1048576.0);
    pw_status st = pw_cuda_scene_upload(&r->view, r->scene, &c->scene);
    if (st != PW_OK)
        return st;
    cudaError_t e = cudaMalloc((void **)&c->d_sum, npix * 3 * sizeof(float));
    if (e != cudaSuccess)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "CUDA: cannot allocate %.1f MiB for the image: %s",
                       npix * 12 / 1048576.0, cudaGetErrorString(e));
    PW_CUDA_TRY(cudaMemset(c->d_sum, 0, npix * 3 * sizeof(float)));
    PW_CUDA_TRY(cudaMalloc((void **)&c->d_counters, 2 * sizeof(unsigned long long)));
    r->stats.device_bytes = c->scene.bytes + npix * 3 * sizeof(float) + 2 * sizeof(unsigned long long);
    PW_CUDA_TRY(cudaEventCreate(&c->ev_start));
    PW_CUDA_TRY(cudaEventCreate(&c->ev_stop));
    c->block = block_shape();
    /* Measured on the toy scenes: a brute-force loop over spheres in shared
     * memory beats the BVH for the 9 spheres of toy-small, loses to it for
     * the 46 of toy (docs/PERFORMANCE.md). PATHWAVE_CUDA_FLAT=N sets the
     * largest sphere count that uses the list (0: never), for comparisons. */
    const char *flat = getenv("PATHWAVE_CUDA_FLAT");
    uint32_t flat_max = flat && *flat ? (uint32_t)strtoul(flat, NULL, 10) : PW_CUDA_FLAT_MAX;
    if (flat_max > 1024)
        flat_max = 1024; /* 16 KiB of shared memory */
    c->scene.view.flat_spheres = r->scene->n_tris == 0 && r->scene->n_spheres <= flat_max;
    return PW_OK;
}

extern "C" pw_status pw_cuda_create(pw_renderer *r)
{
    if (!pw_cuda_usable())
        return PW_ERR_NO_DEVICE;
    cuda_state *c = (cuda_state *)calloc(1, sizeof *c);
    if (!c)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
    r->cuda = c;
    pw_status st = create(r, c);
    if (st != PW_OK)
        pw_cuda_destroy(r);
    return st;
}

extern "C" pw_status pw_cuda_render(pw_renderer *r, int spp)
{
    cuda_state *c = (cuda_state *)r->cuda;
    dim3 grid((r->params.width + c->block.x - 1) / c->block.x, (r->params.height + c->block.y - 1) / c->block.y, 1);
    PW_CUDA_TRY(cudaMemset(c->d_counters, 0, 2 * sizeof(unsigned long long)));
    PW_CUDA_TRY(cudaEventRecord(c->ev_start));
    size_t smem = c->scene.view.flat_spheres ? c->scene.view.n_spheres * sizeof(pw_sphere) : 0;
    mega_kernel_fn kernel = pick_kernel(r, c);
    kernel<<<grid, c->block, smem>>>(c->scene.view, r->params, c->d_sum, (uint32_t)spp, c->samples_done,
                                     c->d_counters);
    PW_CUDA_LAUNCH_CHECK("pw_megakernel");
    unsigned long long counters[2];
    pw_status st = pw_cuda_finish_frame(r, c, 0, c->d_counters, counters);
    if (st != PW_OK)
        return st;
    uint64_t samples = (uint64_t)r->params.width * r->params.height * (uint64_t)spp;
    c->samples_done += (uint32_t)spp;
    r->stats.camera_rays += samples;
    r->stats.bounce_rays += counters[0] - samples;
    r->stats.shadow_rays += counters[1];
    r->stats.samples += samples;
    return PW_OK;
}

pw_status pw_cuda_finish_frame(pw_renderer *r, cuda_state *c, cudaStream_t stream,
                               const unsigned long long *d_counters, unsigned long long counters[2])
{
    PW_CUDA_TRY(cudaEventRecord(c->ev_stop, stream));
    PW_CUDA_TRY(cudaEventSynchronize(c->ev_stop));
    PW_CUDA_TRY(cudaGetLastError());
    float ms = 0.0f;
    PW_CUDA_TRY(cudaEventElapsedTime(&ms, c->ev_start, c->ev_stop));
    r->stats.device_seconds += ms * 1e-3;
    PW_CUDA_TRY(cudaMemcpy(counters, d_counters, 2 * sizeof *counters, cudaMemcpyDeviceToHost));
    return PW_OK;
}

extern "C" pw_status pw_cuda_download(pw_renderer *r)
{
    cuda_state *c = (cuda_state *)r->cuda;
    size_t npix = (size_t)r->params.width * r->params.height;
    PW_CUDA_TRY(cudaMemcpy(r->sum, c->d_sum, npix * 3 * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < npix; i++)
        r->count[i] = c->samples_done;
    return PW_OK;
}

extern "C" void pw_cuda_destroy(pw_renderer *r)
{
    cuda_state *c = (cuda_state *)r->cuda;
    if (!c)
        return;
    pw_cuda_wave_free(c);
    pw_cuda_scene_free(&c->scene);
    cudaFree(c->d_sum);
    cudaFree(c->d_counters);
    if (c->ev_start)
        cudaEventDestroy(c->ev_start);
    if (c->ev_stop)
        cudaEventDestroy(c->ev_stop);
    free(c);
    r->cuda = NULL;
}
