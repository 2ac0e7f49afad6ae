/* CUDA megakernel: each thread walks whole paths, one after another, taking
 * its samples from its warp's pool of the tile's pixels (in the sphere-only
 * kernels its block's pool, of the block's four tiles; in a stream of
 * tiles, of tile after tile), through the same path loop as the CPU backend
 * (pw_path_trace_pool), or for the sphere list without light sampling
 * (toy-small) a loop over the same path steps that traces camera rays in
 * batches (cuda_camera_batch.h). Accumulation stays on the device until
 * the image is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cuda/cuda_camera_batch.h"
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_state.h"
#include "accel/sphere_groups.h"
#include "backend/sample_pool.h"
#include "integrator/features.h"

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

/* Blocks of four warps: with the sphere-only kernels' block pools, four
 * warps ran toy-small (4x4 tiles), rtiow and toy a little faster than two
 * and the meshes within noise; three ran slower (docs/PERFORMANCE.md). */
#define MEGA_WARPS 4
#define MEGA_WARPS_LOG2 2
static_assert(MEGA_WARPS == 1 << MEGA_WARPS_LOG2, "MEGA_WARPS_LOG2 is the log2 of MEGA_WARPS");

/* Each kernel fixes at compile time what its feature mask leaves out
 * (MEGA_KERNELS below): the code it does not need is compiled out, so it
 * is smaller and needs fewer registers: the general kernel spent much of
 * its time stalled fetching instructions (docs/PERFORMANCE.md). MEGA_ANY:
 * a choice the kernel reads at run time. */
#define MEGA_ANY (-1)
/* list: the sphere list or the BVH, read at run time, never the groups. */
#define MEGA_NO_GROUPS (-2)
/* Scenes of one kind of primitive (the `only` argument; 0: any). */
#define ONLY_SPHERES 1
#define ONLY_TRIANGLES 2

/* Each warp renders one tile of pixels, 2^w_log2 wide and 2^n_log2 in
 * all (8 to PW_POOL_ITEMS), tile after tile across the image (tile_shape);
 * a block's warps, tiles one above the other. */
typedef struct mega_tiles {
    uint32_t w_log2, n_log2, nx; /* nx: tiles across the image */
    uint32_t chunk;              /* samples of each pixel in one pool */
    /* A stream of tiles (pw_sample_pool), in the stream kernels: n_tiles
     * tiles, handed out by the counter next_tile, each tile all 2^spp_log2
     * samples of its pixels; the samples' radiance goes to radiance, which
     * pw_mega_gather adds up afterwards (NULL with one sample a pixel: it
     * goes to the image at once). */
    uint32_t *next_tile, n_tiles, spp_log2;
    pw_vec3 *radiance;
} mega_tiles;

/* Adds a pixel's n samples, radiance[0], radiance[stride], ..., to its
 * 3 floats at px in sample order, as every backend does, so that the sums
 * round alike. */
__device__ static void add_samples(float *px, const pw_vec3 *radiance, size_t stride, uint32_t n)
{
    pw_vec3 acc = v3(px[0], px[1], px[2]);
    for (uint32_t k = 0; k < n; k++)
        pw_path_accumulate(&acc, radiance[k * stride]);
    px[0] = acc.x, px[1] = acc.y, px[2] = acc.z;
}

/* Waits for the threads that share a sample pool: the block's, or the warp's. */
__device__ __forceinline__ static void pool_barrier(int block)
{
    if (block)
        __syncthreads();
    else
        __syncwarp();
}

/* A kernel's compile-time arguments of mega_tile, from its feature mask
 * (integrator/features.h): the code of every feature outside the mask is
 * left out, so each kernel is as small as its scenes allow. */
#define MEGA_LIGHT(F) PW_FEAT_LIGHT_MODE(F, MEGA_ANY)
#define MEGA_LIST(F)                                                                                               \
    (((F) & PW_FEAT_WALKS) == PW_FEAT_LIST                     ? (int)PW_FLAT_LIST                                 \
     : ((F) & PW_FEAT_WALKS) == PW_FEAT_GROUPS                 ? (int)PW_FLAT_GROUPS                               \
     : ((F) & (PW_FEAT_LIST | PW_FEAT_GROUPS)) == (PW_FEAT_LIST | PW_FEAT_GROUPS) ? MEGA_ANY                       \
     : (F) & PW_FEAT_LIST                                      ? MEGA_NO_GROUPS                                    \
                                                               : (int)PW_FLAT_NONE)
#define MEGA_WIDE(F) ((F) & PW_FEAT_BVH4 ? ((F) & PW_FEAT_BVH2 ? MEGA_ANY : 1) : 0)
#define MEGA_ONLY(F)                                                                                               \
    (((F) & (PW_FEAT_SPHERES | PW_FEAT_TRIANGLES)) == PW_FEAT_SPHERES     ? ONLY_SPHERES                           \
     : ((F) & (PW_FEAT_SPHERES | PW_FEAT_TRIANGLES)) == PW_FEAT_TRIANGLES ? ONLY_TRIANGLES                         \
                                                                          : 0)
/* Whether the kernel deals a warp's shadow rays through shared slots
 * (pw_trace_shadows): the toy estimator's, but over the sphere groups,
 * whose shadow rays go through their lights' direction maps. */
#define MEGA_SLOTS(F) (MEGA_LIGHT(F) == (int)PW_LIGHT_MODE_TOY && MEGA_LIST(F) != (int)PW_FLAT_GROUPS)

/* How a kernel schedules its paths (mega_tile): tile by tile, as a stream
 * of tiles through persistent warps, or with camera rays in batches. */
#define MEGA_PLAIN 0
#define MEGA_STREAMED 1
#define MEGA_BATCHED 2

/* One warp's tile, spp samples of each of its pixels (samples sample_base
 * ...), with path regeneration from the warp's sample pool
 * (pw_path_trace_pool; in the sphere-only kernels the block's pool, of
 * its warps' tiles together): a lane whose path ends takes the pool's next
 * unstarted sample, of any pixel of the tile, so the warp waits only for
 * the last paths begun, not for the lane whose pixel had the longest ones
 * (with one sample per pixel and launch there is nothing to hand out, and
 * the lanes trace one path each). Finished samples' radiance waits in
 * shared memory until the lanes add each pixel's samples up in sample
 * order, as on every backend, so their sums round alike. features (a
 * literal, the kernel's mask) decides what is compiled in: the splitting
 * code, the material kinds, the light mode, the walk, the geometry (the
 * MEGA_* arguments above). schedule (a literal): MEGA_STREAMED, the warp
 * is persistent and goes on from tile to tile (mega_tiles,
 * pw_sample_pool), and its samples' radiance goes to device memory
 * instead; MEGA_BATCHED, the lanes take the pool's samples 32 at a time,
 * camera rays traced, through mega_pool_batched (cuda_camera_batch.h). */
__device__ __forceinline__ static void mega_tile(pw_scene_view *view, const pw_render_params *prm_in, float *sum,
                                                 uint32_t spp, uint32_t sample_base, unsigned long long *counters,
                                                 mega_tiles tiles, uint32_t features, int schedule)
{
    const uint32_t split = features & PW_FEAT_SPLIT ? prm_in->split : 1u, kinds = PW_FEAT_KINDS(features);
    const int light_mode = MEGA_LIGHT(features), list = MEGA_LIST(features), wide = MEGA_WIDE(features);
    const int only = MEGA_ONLY(features), streamed = schedule == MEGA_STREAMED, batched = schedule == MEGA_BATCHED;
    pw_render_params prm = *prm_in;
    if (light_mode != MEGA_ANY)
        prm.light_mode = (uint32_t)light_mode;
    if (list == MEGA_NO_GROUPS)
        view->flat_spheres = view->flat_spheres == PW_FLAT_LIST ? PW_FLAT_LIST : PW_FLAT_NONE;
    else if (list != MEGA_ANY)
        view->flat_spheres = (uint32_t)list;
    if (wide != MEGA_ANY)
        view->wide_bvh = (uint32_t)wide;
    /* Without origin maps camera rays walk the sphere groups here, not the
     * camera's direction map: a warp's lanes begin new paths at different
     * passes, and its camera and bounce rays would take the two walks one
     * after the other (toy ran slower with the camera's map than without
     * it; docs/PERFORMANCE.md). With origin maps, every closest hit takes
     * a map. */
    if (!view->dirmap_origin)
        view->dirmap_camera = 0;
    /* A literal primitive count compiles out the other kind's branches (pw_prim_is_sphere). */
    if (only == ONLY_SPHERES)
        view->n_tris = 0;
    else if (only == ONLY_TRIANGLES) {
        view->n_spheres = 0;
        __builtin_assume(view->n_tris != 0);
    }
    size_t flat_bytes = pw_cuda_flat_bytes(view);
    pw_cuda_spheres_to_shared(view);

    __shared__ uint32_t next_item[PW_CUDA_MAX_WARPS], ring[PW_CUDA_MAX_WARPS][4];
    /* A block's warps take tiles one above the other (with the default 8x4
     * tiles and four warps, 8x16 pixels a block). In the sphere-only
     * kernels the block's warps draw their samples from one pool, of their
     * tiles together (one tile MEGA_WARPS times as tall, launched in blocks
     * of MEGA_WARPS warps): the lanes wait for the pool's last paths once a
     * block, not once a warp, which made toy-small and rtiow faster. In the
     * mesh kernels it won nothing (cornell, Sponza and the bunny within
     * noise; docs/PERFORMANCE.md). */
    int block_pool = !streamed && only == ONLY_SPHERES;
    uint32_t lane = threadIdx.x % 32u, warp = threadIdx.x / 32u, tile_x = blockIdx.x % tiles.nx;
    uint32_t tile_y = block_pool ? blockIdx.x / tiles.nx : blockIdx.x / tiles.nx * MEGA_WARPS + warp;
    uint32_t per_chunk = tiles.chunk;
    uint32_t n_log2 = tiles.n_log2 + (block_pool ? MEGA_WARPS_LOG2 : 0u), npix = 1u << n_log2;
    /* Dynamic shared memory after the spheres: each warp's radiance (or,
     * in one piece of the same size, the block pool's), then
     * each warp's 32 shadow slots, which the toy kernels over the list and
     * the BVH deal their shadow rays through (pw_trace_shadows); in the
     * others NULL is a literal, the code that deals them compiles away and
     * the launch leaves the slots out (pw_cuda_render). Over the sphere
     * groups, shadow rays go through their lights' direction maps
     * (accel/sphere_dirmap.h), a few sphere tests each, and dealing them
     * out cost toy more than it saved (docs/PERFORMANCE.md). The batched
     * kernel has each warp's
     * ring of camera hits there instead (cuda_camera_batch.h). */
    pw_vec3 *radiance = (pw_vec3 *)((char *)pw_shared_spheres + flat_bytes);
    pw_shadow_slot *slots = (pw_shadow_slot *)(radiance + ((MEGA_WARPS * per_chunk) << tiles.n_log2));
    mega_ring *rings = (mega_ring *)slots;
    pw_sample_pool pool = {tile_x << tiles.w_log2, tile_y << (n_log2 - tiles.w_log2),
                           tiles.w_log2, n_log2, 0, 0, &next_item[block_pool ? 0u : warp],
                           radiance + (block_pool ? 0u : (warp * per_chunk) << tiles.n_log2),
                           light_mode == PW_LIGHT_MODE_TOY && list != PW_FLAT_GROUPS ? slots + 32u * warp : NULL,
                           NULL, NULL, 0, 0, 0, NULL, 0};
    /* Tiles inside the image skip the pixel test in the sphere-only
     * kernels, whose path starts are a large share of their work; in the
     * mesh kernels the flag cost the 4-wide BVH's kernel more spill loads
     * (docs/PERFORMANCE.md), so there it is a literal 0. */
    pool.whole = only == ONLY_SPHERES && pool.x0 + (1u << tiles.w_log2) <= prm.width &&
                 pool.y0 + (1u << (n_log2 - tiles.w_log2)) <= prm.height;
    if (streamed) {
        pool.ring = ring[warp];
        pool.next_tile = tiles.next_tile;
        pool.n_tiles = tiles.n_tiles;
        pool.tiles_x = tiles.nx;
        pool.items_log2 = tiles.n_log2 + tiles.spp_log2;
        pool.radiance = tiles.radiance;
        pool.sum = tiles.radiance ? NULL : sum;
    }
    /* The batched loop's list of the spheres the block's camera rays may hit. */
    mega_camera_list cam_list = {NULL, NULL, 0};
    if (batched)
        cam_list = mega_camera_cull(view, pool.x0, pool.y0, pool.x0 + (1u << tiles.w_log2),
                                    pool.y0 + (1u << (n_log2 - tiles.w_log2)));
    uint32_t ext = 0, shadow = 0;
    for (uint32_t done = 0; done < spp && (streamed || pool.y0 < prm.height); done += per_chunk) {
        pool.first = sample_base + done;
        pool.spp = min(spp - done, per_chunk);
        /* The pool's counter is reset by one thread of those that share it;
         * the barrier after the pool's paths orders that reset, and the next
         * pool's radiance, after this pool's sums. */
        if (block_pool ? threadIdx.x == 0 : lane == 0) {
            next_item[block_pool ? 0u : warp] = 0;
            if (streamed)
                ring[warp][0] = pw_pool_fetch_tile(&pool);
        }
        pool_barrier(block_pool);
        if (batched)
            mega_pool_batched(view, &prm, &pool, cam_list, rings + warp, kinds, &ext);
        else
            pw_path_trace_pool(view, &prm, &pool, split, kinds, &ext, &shadow);
        if (streamed)
            break;
        pool_barrier(block_pool);
        uint32_t first = block_pool ? threadIdx.x : lane, step = block_pool ? 32u * MEGA_WARPS : 32u;
        for (uint32_t j = first; j < npix; j += step) {
            uint32_t x = pw_pool_x(&pool, j), y = pw_pool_y(&pool, j);
            if (x >= prm.width || y >= prm.height)
                continue;
            add_samples(sum + 3 * ((size_t)y * prm.width + x), pool.radiance + j, npix, pool.spp);
        }
    }
    count_rays(counters, ext, shadow);
}


/* Feature masks of the kernels below. */
#define F_SPH PW_FEAT_SPHERES
#define F_TRI PW_FEAT_TRIANGLES
#define F_GEOM (PW_FEAT_SPHERES | PW_FEAT_TRIANGLES)
#define F_ANY_LIGHT PW_FEAT_LIGHTS

/* The megakernels, in the order they are tried: a render runs the first
 * whose mask covers its features (pick_kernel). X(name, features, stream,
 * batched): stream, a twin for streams of tiles (mega_tiles,
 * use_stream); batched, a twin whose camera rays go out in batches
 * (cuda_camera_batch.h). Why these masks (docs/PERFORMANCE.md): the
 * sphere-only kernels without triangle code, each light mode compiled in,
 * made toy, toy-small and rtiow faster; a triangles-only kernel over the
 * binary BVH made small meshes faster, over the 4-wide BVH it was slower;
 * an MIS-over-BVH kernel made the Cornell box faster but Sponza and the
 * bunny slower, so it is not in the list; the kernel for every material
 * kind leaves the sphere groups out (with them, and the maps of bounce
 * rays, the Veach scene ran slower), and the split kernel takes those
 * scenes. Only the kernels of toy and of small meshes have a stream twin:
 * the 4-wide BVH's kernel ran Sponza and the bunny slower as a stream. */
#define MEGA_KERNELS(X)                                                                                            \
    X(toy_list, F_SPH | PW_FEAT_LIGHT_TOY | PW_FEAT_LIST, 0, 0)                                                    \
    X(toy_groups, F_SPH | PW_FEAT_LIGHT_TOY | PW_FEAT_GROUPS, 1, 0)                                                \
    X(toy_bvh, F_SPH | PW_FEAT_LIGHT_TOY | PW_FEAT_BVH2, 0, 0)                                                     \
    X(nolight_list, F_SPH | PW_FEAT_LIGHT_NONE | PW_FEAT_LIST, 0, 1)                                               \
    X(nolight_groups, F_SPH | PW_FEAT_LIGHT_NONE | PW_FEAT_GROUPS, 0, 0)                                           \
    X(nolight_bvh, F_SPH | PW_FEAT_LIGHT_NONE | PW_FEAT_BVH2, 0, 0)                                                \
    X(mesh, F_TRI | F_ANY_LIGHT | PW_FEAT_BVH2, 1, 0)                                                              \
    X(wide, F_GEOM | F_ANY_LIGHT | PW_FEAT_BVH4, 0, 0)                                                             \
    X(basic, F_GEOM | F_ANY_LIGHT | PW_FEAT_BVH2 | PW_FEAT_LIST | PW_FEAT_GROUPS, 0, 0)                            \
    X(all_wide, F_GEOM | F_ANY_LIGHT | PW_FEAT_ALL_KINDS | PW_FEAT_BVH4, 0, 0)                                     \
    X(all, F_GEOM | F_ANY_LIGHT | PW_FEAT_ALL_KINDS | PW_FEAT_BVH2 | PW_FEAT_LIST, 0, 0)                           \
    X(split_wide, F_GEOM | F_ANY_LIGHT | PW_FEAT_ALL_KINDS | PW_FEAT_SPLIT | PW_FEAT_BVH4, 0, 0)                    \
    X(split, F_GEOM | F_ANY_LIGHT | PW_FEAT_ALL_KINDS | PW_FEAT_SPLIT | PW_FEAT_BVH2 | PW_FEAT_LIST | PW_FEAT_GROUPS, \
      0, 0)

/* __launch_bounds__(256, 4): 4 blocks of 256 threads resident per SM, so
 * at most 64 registers a thread and 50% occupancy (the launches use blocks
 * of MEGA_WARPS warps; the bound only sets the register cap). The kernel
 * wants far more registers; capping it at 64 spills a little but doubles
 * resident warps, which measured faster (docs/PERFORMANCE.md). The batched
 * loop (cuda_camera_batch.h) fits under that bound; capped at 56 (9 blocks
 * of 128 threads) it spills a little, and an earlier form of it ran
 * toy-small slightly faster than at 8 blocks (docs/PERFORMANCE.md). */
#define MEGA_KERNEL_DEF(name, F, schedule)                                                                         \
    __global__ void __launch_bounds__(schedule == MEGA_BATCHED ? 32 * MEGA_WARPS : 256,                            \
                                      schedule == MEGA_BATCHED ? 9 : 4)                                            \
        name(pw_scene_view view, const pw_render_params prm, float *__restrict__ sum, uint32_t spp,                \
             uint32_t sample_base, unsigned long long *counters, mega_tiles tiles)                                 \
    {                                                                                                              \
        mega_tile(&view, &prm, sum, spp, sample_base, counters, tiles, (uint32_t)(F), schedule);                   \
    }
/* Each entry's kernel, and its twins where it has them. */
#define MEGA_TWIN_STREAM_1(name, F) MEGA_KERNEL_DEF(pw_megakernel_##name##_stream, F, MEGA_STREAMED)
#define MEGA_TWIN_STREAM_0(name, F)
#define MEGA_TWIN_BATCHED_1(name, F) MEGA_KERNEL_DEF(pw_megakernel_##name##_batched, F, MEGA_BATCHED)
#define MEGA_TWIN_BATCHED_0(name, F)
#define MEGA_DEFINE(name, F, stream, batched)                                                                      \
    MEGA_KERNEL_DEF(pw_megakernel_##name, F, MEGA_PLAIN)                                                           \
    MEGA_TWIN_STREAM_##stream(name, F) MEGA_TWIN_BATCHED_##batched(name, F)
MEGA_KERNELS(MEGA_DEFINE)

typedef void (*mega_kernel_fn)(pw_scene_view, const pw_render_params, float *, uint32_t, uint32_t,
                               unsigned long long *, mega_tiles);

/* A compiled kernel: its mask and its twins (NULL where it has none). */
typedef struct mega_kernel {
    const char *name;
    uint32_t features;
    mega_kernel_fn fn, stream, batched;
    int slots; /* it deals shadow rays through shared slots (MEGA_SLOTS) */
} mega_kernel;

#define MEGA_FN_STREAM_1(name) pw_megakernel_##name##_stream
#define MEGA_FN_STREAM_0(name) NULL
#define MEGA_FN_BATCHED_1(name) pw_megakernel_##name##_batched
#define MEGA_FN_BATCHED_0(name) NULL
#define MEGA_ENTRY(name, F, stream, batched)                                                                       \
    {#name, (uint32_t)(F), pw_megakernel_##name, MEGA_FN_STREAM_##stream(name), MEGA_FN_BATCHED_##batched(name),  \
     MEGA_SLOTS(F)},
static const mega_kernel mega_kernels[] = {MEGA_KERNELS(MEGA_ENTRY)};

/* The first kernel of the list that covers the render's features (the
 * list holds one for every render: its last covers them all). */
static const mega_kernel *pick_kernel(const pw_render_job *r, const cuda_state *c)
{
    uint32_t need = pw_features_of(&c->scene.view, &r->params);
    size_t n = sizeof mega_kernels / sizeof mega_kernels[0];
    for (size_t i = 0; i < n; i++)
        if (pw_features_cover(mega_kernels[i].features, need))
            return &mega_kernels[i];
    return &mega_kernels[n - 1];
}

/* Camera rays in batches test every sphere of a block's list, at most
 * MEGA_CAMERA_LIST of them (cuda_camera_batch.h); PATHWAVE_MEGA_BATCH=0
 * takes the shared loop, to compare. */
static int use_batched(const pw_render_job *r, const cuda_state *c, const mega_kernel *k)
{
    return k->batched && r->tuning.mega_batch && c->scene.view.n_spheres <= MEGA_CAMERA_LIST;
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

/* A warp's tile: 8x4 pixels, one a lane, or 16x4 when a launch takes one
 * or two samples a pixel and the scene is not traced through the 4-wide
 * BVH: the pool then has two items a lane to hand out, which made the
 * sphere scenes and small meshes faster, where it made the kernels over
 * the 4-wide BVH slower (sponza, bunny, bunnies-mixed:16). At 4 samples a
 * pixel and more 8x4 is as fast as 16x4 or faster, and far larger tiles
 * make too few warps for a 1280x720 frame. From 17 samples a launch, 4x4:
 * a pool then holds up to 32 samples of each pixel, and a warp waits for
 * its last paths at the end of each pool once a launch of 32 samples
 * instead of twice (faster than 8x4 on toy-small, cornell and Sponza at
 * 32 samples and more). docs/PERFORMANCE.md has the figures.
 * PATHWAVE_MEGA_TILE=WxH (powers of two, 8 to 512 pixels, 256 for the
 * batched kernel; in a stream, 32 samples or more) sets another shape, for
 * tuning. A warp's pool holds PW_POOL_ITEMS samples, 16 of each pixel of
 * a 32-pixel tile (6 KB of radiance a warp; a block pool MEGA_WARPS times
 * that, 24 KB): its radiance takes shared memory, which comes out of the
 * L1 cache. A pool of 8 samples a pixel ran slower, as rtiow's 10 samples
 * a launch then took two pools and toy-small's 32 four. The batched loop's
 * ring (10 KB a block) leaves room for half that, 8 samples of each pixel
 * of a 32-pixel tile, or 32 of an 8-pixel one: 4x2 from 9 samples a
 * launch (on toy-small at 32 samples 4x2, 8x1 and 2x4 ran alike;
 * docs/PERFORMANCE.md). */
static mega_tiles tile_shape(const pw_tuning *tuning, uint32_t width, uint32_t spp, int wide_bvh, int streamed,
                             int batched)
{
    unsigned w = spp <= 2 && !wide_bvh ? 16 : spp > 16 ? 4 : 8, h = 4;
    if (batched && spp > 8)
        w = 4, h = 2;
    /* A stream's tiles: 8x4 pixels at one sample a pixel, 4x4 at two,
     * 8x2 at four. Small tiles leave the last tiles of a frame little
     * work, and all SMs are done sooner (cornell at 1: 8x4 faster than
     * 16x4); at four samples, with blocks of four warps, 8x2's 64 items
     * beat 4x2's 32, and 4x4 and 8x4 too, on toy (docs/PERFORMANCE.md). */
    if (streamed)
        w = spp == 2 ? 4 : 8, h = spp == 4 ? 2 : 4;
    /* A tuned shape where this kernel can take it (pw_tuning checked the rest). */
    uint32_t items = batched ? PW_POOL_ITEMS / 2 : PW_POOL_ITEMS; /* a warp's pool */
    unsigned ew = (unsigned)tuning->mega_tile_w, eh = (unsigned)tuning->mega_tile_h;
    if (ew && (streamed ? ew * eh * spp >= 32 : 1) && ew * eh <= items)
        w = ew, h = eh;
    mega_tiles t;
    t.w_log2 = (uint32_t)__builtin_ctz(w);
    t.n_log2 = (uint32_t)__builtin_ctz(w * h);
    t.nx = (width + w - 1) / w;
    uint32_t most = items >> t.n_log2; /* samples of each pixel a pool holds: 16 with 32-pixel tiles */
    t.chunk = spp < most ? spp : most;
    t.next_tile = NULL;
    t.n_tiles = t.spp_log2 = 0;
    t.radiance = NULL;
    return t;
}

/* A stream's samples, added to the image pixel by pixel in sample order. */
__global__ void pw_mega_gather(float *__restrict__ sum, const pw_vec3 *__restrict__ radiance, uint32_t npix,
                               uint32_t spp)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= npix)
        return;
    add_samples(sum + 3 * (size_t)i, radiance + i, npix, spp);
}

/* Whether this launch runs as a stream of tiles (pw_sample_pool), and if
 * so its kernel, tiles and buffers: launches of 1, 2 or 4 samples a pixel
 * (a tile's items a power of two) over an image of whole tiles, through a
 * kernel that has a stream twin. PATHWAVE_MEGA_STREAM=0 turns it off,
 * for comparisons. */
static int use_stream(pw_render_job *r, cuda_state *c, int spp, const mega_kernel *mk, mega_kernel_fn *kernel,
                      mega_tiles *t)
{
    if (!r->tuning.mega_stream || !mk->stream || (spp != 1 && spp != 2 && spp != 4) ||
        r->params.width > 16384 || r->params.height > 16384)
        return 0;
    mega_tiles s = tile_shape(&r->tuning, r->params.width, (uint32_t)spp, 0, 1, 0);
    if (r->params.width % (1u << s.w_log2) || r->params.height % (1u << (s.n_log2 - s.w_log2)))
        return 0;
    mega_kernel_fn k = mk->stream;
    if (c->stream_fn != (const void *)k) {
        /* Persistent warps: as many blocks as stay resident. */
        int per_sm = 0, sms = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 32 * MEGA_WARPS,
                                                          pw_cuda_flat_bytes(&c->scene.view)) != cudaSuccess ||
            cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess || per_sm < 1) {
            cudaGetLastError(); /* not a sticky error: the launch goes on tile by tile */
            return 0;
        }
        c->stream_fn = (const void *)k;
        c->stream_blocks = (uint32_t)(per_sm * sms);
    }
    if (!c->d_next_tile) {
        if (cudaMalloc((void **)&c->d_next_tile, sizeof(uint32_t)) != cudaSuccess) {
            cudaGetLastError();
            c->d_next_tile = NULL;
            return 0;
        }
        r->stats.device_bytes += sizeof(uint32_t);
    }
    size_t bytes = spp > 1 ? (size_t)r->params.width * r->params.height * spp * sizeof(pw_vec3) : 0;
    if (bytes > c->samples_bytes) {
        if (c->samples_refused && bytes >= c->samples_refused)
            return 0;
        cudaFree(c->d_samples);
        r->stats.device_bytes -= c->samples_bytes;
        c->samples_bytes = 0;
        if (cudaMalloc((void **)&c->d_samples, bytes) != cudaSuccess) {
            cudaGetLastError(); /* too little memory for the samples: tile by tile */
            c->d_samples = NULL;
            c->samples_refused = bytes;
            return 0;
        }
        c->samples_bytes = bytes;
        r->stats.device_bytes += bytes;
    }
    s.next_tile = c->d_next_tile;
    s.spp_log2 = (uint32_t)__builtin_ctz((unsigned)spp);
    s.radiance = spp > 1 ? c->d_samples : NULL;
    *t = s;
    *kernel = k;
    return 1;
}

static pw_status create(pw_render_job *r, cuda_state *c)
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
    /* Measured on the toy scenes: a brute-force loop over spheres in shared
     * memory beats the BVH for the 9 spheres of toy-small, the sphere
     * groups beat it for the 46 of toy (docs/PERFORMANCE.md).
     * PATHWAVE_CUDA_FLAT=N sets the largest sphere count that uses the list
     * (0: never, at most 1,024: 16 KiB of shared memory), for comparisons. */
    uint32_t flat_max =
        r->tuning.cuda_flat_max == PW_TUNING_AUTO ? PW_CUDA_FLAT_MAX : (uint32_t)r->tuning.cuda_flat_max;
    c->scene.view.flat_spheres = PW_FLAT_NONE;
    /* The list takes no direction maps: its 9 spheres in shared memory
     * cost toy-small's camera rays less than a map's lookup (toy-small ran
     * clearly faster without the camera's map; docs/PERFORMANCE.md). */
    if (r->scene->n_tris == 0 && r->scene->n_spheres <= flat_max)
        c->scene.view.flat_spheres = PW_FLAT_LIST;
    else if (r->scene->n_tris == 0 && r->scene->n_spheres <= PW_GROUPS_MAX_SPHERES) {
        /* At most 8 runs of 8: measured best on toy against 16x4, 12x6,
         * 32x2, 16x8, 24x4, 4x16, 6x11, 3x22 and 8x12 (docs/PERFORMANCE.md). */
        unsigned runs = 8, len = 8;
        /* Origin maps' cells half a sphere across for the megakernel, a
         * whole one for the wavefront: on toy each size is the faster one
         * for its backend (docs/PERFORMANCE.md). */
        float cells = r->backend == PW_BACKEND_CUDA_WAVE ? 1.0f : 0.5f;
        st = pw_cuda_scene_upload_groups(&r->view, runs, len, cells, &c->scene);
    }
    return st;
}

extern "C" pw_status pw_cuda_create(pw_render_job *r)
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

extern "C" pw_status pw_cuda_render(pw_render_job *r, int spp)
{
    cuda_state *c = (cuda_state *)r->cuda;
    const mega_kernel *mk = pick_kernel(r, c);
    int slots = mk->slots, batched = use_batched(r, c, mk);
    mega_kernel_fn kernel = batched ? mk->batched : mk->fn;
    mega_tiles tiles;
    int streamed = !batched && use_stream(r, c, spp, mk, &kernel, &tiles);
    if (!streamed)
        tiles = tile_shape(&r->tuning, r->params.width, (uint32_t)spp, (int)c->scene.view.wide_bvh, 0, batched);
    uint32_t tile_h = 1u << (tiles.n_log2 - tiles.w_log2), ny = (r->params.height + tile_h - 1) / tile_h;
    uint32_t n_blocks = tiles.nx * ((ny + MEGA_WARPS - 1) / MEGA_WARPS);
    /* Dynamic shared memory: the spheres of a flat scene, then each warp's
     * pool of radiance (or the block pool's, of the same size), then, for
     * the toy kernels that deal shadow rays, each warp's shadow slots
     * (mega_tile): only those kernels get them, as the 3,584 bytes a block
     * would cost the others resident blocks at 16 samples a pixel and
     * more; or, for the batched kernel, each warp's ring of camera hits. A
     * stream's radiance goes to device memory. */
    size_t smem = pw_cuda_flat_bytes(&c->scene.view);
    if (streamed) {
        tiles.n_tiles = tiles.nx * ny;
        n_blocks = c->stream_blocks < n_blocks ? c->stream_blocks : n_blocks;
        PW_CUDA_TRY(cudaMemset(tiles.next_tile, 0, sizeof(uint32_t)));
        r->gpu_stream_launches++;
    } else
        smem += ((size_t)MEGA_WARPS * tiles.chunk << tiles.n_log2) * sizeof(pw_vec3) +
                (slots ? (size_t)MEGA_WARPS * 32 * sizeof(pw_shadow_slot) : 0) +
                (batched ? (size_t)MEGA_WARPS * sizeof(mega_ring) : 0);
    PW_CUDA_TRY(cudaMemset(c->d_counters, 0, 2 * sizeof(unsigned long long)));
    PW_CUDA_TRY(cudaEventRecord(c->ev_start));
    kernel<<<n_blocks, 32 * MEGA_WARPS, smem>>>(c->scene.view, r->params, c->d_sum, (uint32_t)spp, c->samples_done,
                                                c->d_counters, tiles);
    PW_CUDA_LAUNCH_CHECK("pw_megakernel");
    if (tiles.radiance) {
        uint32_t npix = r->params.width * r->params.height;
        pw_mega_gather<<<(npix + 255) / 256, 256>>>(c->d_sum, tiles.radiance, npix, (uint32_t)spp);
        PW_CUDA_LAUNCH_CHECK("pw_mega_gather");
    }
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

pw_status pw_cuda_finish_frame(pw_render_job *r, cuda_state *c, cudaStream_t stream,
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

extern "C" pw_status pw_cuda_download(pw_render_job *r)
{
    cuda_state *c = (cuda_state *)r->cuda;
    size_t npix = (size_t)r->params.width * r->params.height;
    PW_CUDA_TRY(cudaMemcpy(r->sum, c->d_sum, npix * 3 * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < npix; i++)
        r->count[i] = c->samples_done;
    return PW_OK;
}

extern "C" void pw_cuda_destroy(pw_render_job *r)
{
    cuda_state *c = (cuda_state *)r->cuda;
    if (!c)
        return;
    pw_cuda_wave_free(c);
    pw_cuda_scene_free(&c->scene);
    cudaFree(c->d_sum);
    cudaFree(c->d_counters);
    cudaFree(c->d_next_tile);
    cudaFree(c->d_samples);
    if (c->ev_start)
        cudaEventDestroy(c->ev_start);
    if (c->ev_stop)
        cudaEventDestroy(c->ev_stop);
    free(c);
    r->cuda = NULL;
}

const pw_backend_ops pw_cuda_mega_ops = {pw_cuda_create, pw_cuda_render, pw_cuda_download, pw_cuda_destroy, 0};
const pw_backend_ops pw_cuda_wave_ops = {pw_cuda_create, pw_cuda_wave_render, pw_cuda_download, pw_cuda_destroy, 0};
