/* What the CUDA backends keep between calls, and what they share. */
#ifndef PW_CUDA_STATE_H
#define PW_CUDA_STATE_H

#include "backend/backend.h"
#include "accel/sphere_groups.h"
#include "backend/cuda/cuda_scene.h"

#define PW_CUDA_FLAT_MAX 16
/* Blocks have at most 256 threads (__launch_bounds__ of the kernels). */
#define PW_CUDA_MAX_WARPS 8

typedef struct cuda_state {
    pw_cuda_scene scene;
    float *d_sum;                   /* 3 floats per pixel */
    unsigned long long *d_counters; /* [0] camera + bounce rays, [1] shadow rays */
    cudaEvent_t ev_start, ev_stop;
    uint32_t samples_done;          /* every pixel has this many samples */
    struct cuda_wave *wave;         /* the CUDA wavefront's buffers, made on first use */
    /* The megakernel's stream of tiles: its counter, and the radiance of
     * each sample of a launch of 2 or 4 samples a pixel (made on first use;
     * a size that could not be allocated is not asked for again); its
     * kernel's grid of persistent blocks, found once. */
    uint32_t *d_next_tile;
    pw_vec3 *d_samples;
    size_t samples_bytes, samples_refused;
    const void *stream_fn;
    uint32_t stream_blocks;
} cuda_state;

/* Bytes of dynamic shared memory a flat sphere scene takes (PW_FLAT_LIST:
 * the spheres; PW_FLAT_GROUPS: the spheres in run order, the runs, the
 * spheres' ids), a multiple of 16; 0 for other scenes. */
static inline __host__ __device__ size_t pw_cuda_flat_bytes(const pw_scene_view *v)
{
    if (v->flat_spheres == PW_FLAT_LIST)
        return v->n_spheres * sizeof(pw_sphere);
    if (v->flat_spheres == PW_FLAT_GROUPS)
        return v->n_spheres * sizeof(pw_sphere) + v->n_groups * sizeof(pw_sphere_group) +
               (v->n_spheres * sizeof(uint32_t) + 15) / 16 * 16;
    return 0;
}

/* A small sphere-only scene's spheres (and runs), copied to shared memory
 * per block (launch with pw_cuda_flat_bytes of dynamic shared memory). */
extern __shared__ pw_sphere pw_shared_spheres[];

__device__ static inline void pw_cuda_spheres_to_shared(pw_scene_view *view)
{
    if (!view->flat_spheres)
        return;
    uint32_t tid = threadIdx.x + threadIdx.y * blockDim.x, nt = blockDim.x * blockDim.y;
    if (view->flat_spheres == PW_FLAT_LIST) {
        for (uint32_t i = tid; i < view->n_spheres; i += nt)
            pw_shared_spheres[i] = view->spheres[i];
        __syncthreads();
        view->spheres = pw_shared_spheres;
        return;
    }
    pw_sphere_group *groups = (pw_sphere_group *)(pw_shared_spheres + view->n_spheres);
    uint32_t *prims = (uint32_t *)(groups + view->n_groups);
    for (uint32_t i = tid; i < view->n_spheres; i += nt) {
        pw_shared_spheres[i] = view->group_spheres[i];
        prims[i] = view->group_prims[i];
    }
    for (uint32_t i = tid; i < view->n_groups; i += nt)
        groups[i] = view->groups[i];
    __syncthreads();
    view->group_spheres = pw_shared_spheres;
    view->groups = groups;
    view->group_prims = prims;
}

/* The CUDA backends' operations (pw_cuda_mega_ops, pw_cuda_wave_ops):
 * both share create, download and destroy, and differ in render. */
extern "C" pw_status pw_cuda_create(pw_render_job *r);
extern "C" pw_status pw_cuda_render(pw_render_job *r, int spp);
extern "C" pw_status pw_cuda_wave_render(pw_render_job *r, int spp);
extern "C" pw_status pw_cuda_download(pw_render_job *r);
extern "C" void pw_cuda_destroy(pw_render_job *r);
void pw_cuda_wave_free(cuda_state *c);
/* Ends a frame queued on stream: waits for it, adds its event time to the
 * statistics and reads two 64-bit ray counters from the device. */
pw_status pw_cuda_finish_frame(pw_render_job *r, cuda_state *c, cudaStream_t stream,
                               const unsigned long long *d_counters, unsigned long long counters[2]);

#endif
