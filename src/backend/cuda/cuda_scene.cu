/* Uploads every array the integrator reads into device memory. */
#include "backend/cuda/cuda_check.h"
#include "backend/cuda/cuda_scene.h"

#include "accel/sphere_groups.h"

#include <stdlib.h>
#include <string.h>

/* Copies n bytes of host data to a new device buffer, remembered for freeing. */
static pw_status upload(pw_cuda_scene *d, const void *src, size_t n, const void **dst, const char *what)
{
    *dst = NULL;
    if (!src || n == 0)
        return PW_OK;
    if (d->n_allocs == (int)(sizeof d->allocs / sizeof d->allocs[0]))
        return pw_fail(PW_ERR_NO_DEVICE, "CUDA: too many scene arrays for %s", what);
    void *p = NULL;
    cudaError_t e = cudaMalloc(&p, n);
    if (e != cudaSuccess)
        return pw_fail(e == cudaErrorMemoryAllocation ? PW_ERR_OUT_OF_MEMORY : PW_ERR_NO_DEVICE,
                       "CUDA: cannot allocate %.1f MiB of device memory for %s: %s", n / 1048576.0, what,
                       cudaGetErrorString(e));
    d->allocs[d->n_allocs++] = p;
    d->bytes += n;
    PW_CUDA_TRY(cudaMemcpy(p, src, n, cudaMemcpyHostToDevice));
    *dst = p;
    return PW_OK;
}

#define UP(field, count, what)                                                                          \
    do {                                                                                                \
        pw_status st_ = upload(out, host->field, (size_t)(count) * sizeof *host->field,                \
                               (const void **)&out->view.field, what);                                  \
        if (st_ != PW_OK) {                                                                             \
            pw_cuda_scene_free(out);                                                                    \
            return st_;                                                                                 \
        }                                                                                               \
    } while (0)

pw_status pw_cuda_scene_upload(const pw_scene_view *host, const pw_scene *s, pw_cuda_scene *out)
{
    memset(out, 0, sizeof *out);
    out->view = *host;
    out->view.cpu_bvh8 = NULL;
    uint32_t n_prims = host->n_spheres + host->n_tris;
    UP(spheres, host->n_spheres, "spheres");
    UP(sphere_mat, host->n_spheres, "sphere materials");
    UP(pos, s->n_verts, "vertex positions");
    UP(nrm, s->n_verts, "vertex normals");
    UP(uv, 2 * (size_t)s->n_verts, "texture coordinates");
    UP(tri_idx, 3 * (size_t)host->n_tris, "triangle indices");
    UP(tri_mat, host->n_tris, "triangle materials");
    UP(mats, host->n_mats, "materials");
    UP(textures, host->n_textures, "texture table");
    UP(texels, 3 * (size_t)s->n_texels, "texture pixels");
    UP(nodes, s->bvh.n_nodes, "BVH nodes");
    UP(leaf_prims, s->bvh.n_refs, "BVH leaf primitives");
    if (host->wide_bvh)
        UP(nodes4, s->bvh.n_nodes4, "4-wide BVH nodes");
    out->view.prim_ref = NULL; /* the host's: device code reads leaf_prims */
    UP(lights, host->n_lights, "lights");
    UP(light_pmf, host->n_lights, "light probabilities");
    UP(alias_prob, host->n_lights, "light alias table");
    UP(alias_idx, host->n_lights, "light alias table");
    UP(prim_light, n_prims, "primitive-to-light map");
    UP(delta_lights, s->n_delta_lights, "point, distant and spot lights");
    UP(delta_cones, s->n_delta_lights, "spot light cones");
    if (host->env.type == PW_ENV_MAP) {
        const pw_env *e = &host->env;
        size_t w = e->w, h = e->h;
        pw_status st = upload(out, e->map, 3 * w * h * sizeof(float), (const void **)&out->view.env.map,
                              "the environment map");
        if (st == PW_OK)
            st = upload(out, e->marginal, (h + 1) * sizeof(float), (const void **)&out->view.env.marginal,
                        "the environment's distribution");
        if (st == PW_OK)
            st = upload(out, e->cond, h * (w + 1) * sizeof(float), (const void **)&out->view.env.cond,
                        "the environment's distribution");
        if (st != PW_OK) {
            pw_cuda_scene_free(out);
            return st;
        }
    }
    return PW_OK;
}

/* The direction maps of a scene of sphere groups g (accel/sphere_dirmap.h). */
static pw_status upload_dirmaps(const pw_scene_view *host, const pw_sphere_groups *g, float cell_scale,
                                pw_cuda_scene *out)
{
    /* Maps that cannot be built (host memory) leave those rays on the runs. */
    /* The origin maps (toy's: 37 MB) only save time: they may take a
     * quarter of the free device memory at most. */
    size_t free_b = 0, total_b = 0;
    PW_CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    pw_dirmaps dm;
    if (!pw_dirmaps_build(host, g->spheres, g->prims, cell_scale, free_b / 4, &dm))
        return PW_OK;
    pw_status st = upload(out, dm.maps, dm.n_all * sizeof *dm.maps, (const void **)&out->view.dirmaps,
                          "direction maps");
    if (st == PW_OK)
        st = upload(out, dm.masks, (size_t)dm.n_all * PW_DIRMAP_TEXELS * sizeof *dm.masks,
                    (const void **)&out->view.dirmap_masks, "direction maps");
    if (st == PW_OK && dm.origin)
        st = upload(out, dm.origin, host->n_spheres * sizeof *dm.origin, (const void **)&out->view.dirmap_origin,
                    "direction maps");
    if (st == PW_OK) {
        out->view.n_dirmaps = dm.n;
        out->view.dirmap_camera = 1;
        out->view.dirmap_cells = dm.cells;
    }
    pw_dirmaps_free(&dm);
    return st;
}

pw_status pw_cuda_scene_upload_groups(const pw_scene_view *host, uint32_t max_runs, uint32_t run_len,
                                      float cell_scale, pw_cuda_scene *out)
{
    /* Groups that cannot be built (a cut whose boxes overflow, or host
     * memory short for three small arrays) leave the scene on its BVH,
     * already uploaded: slower, never wrong. */
    pw_sphere_groups g;
    if (!pw_sphere_groups_build(host, max_runs, run_len, &g))
        return PW_OK;
    pw_status st = upload(out, g.groups, g.n_groups * sizeof *g.groups, (const void **)&out->view.groups,
                          "sphere groups");
    if (st == PW_OK)
        st = upload(out, g.spheres, g.n_spheres * sizeof *g.spheres, (const void **)&out->view.group_spheres,
                    "sphere groups");
    if (st == PW_OK)
        st = upload(out, g.prims, g.n_spheres * sizeof *g.prims, (const void **)&out->view.group_prims,
                    "sphere groups");
    if (st == PW_OK) {
        out->view.n_groups = g.n_groups;
        out->view.flat_spheres = PW_FLAT_GROUPS;
    }
    if (st == PW_OK)
        st = upload_dirmaps(host, &g, cell_scale, out);
    pw_sphere_groups_free(&g);
    return st;
}

void pw_cuda_scene_free(pw_cuda_scene *d)
{
    for (int i = 0; i < d->n_allocs; i++)
        cudaFree(d->allocs[i]);
    memset(d, 0, sizeof *d);
}
