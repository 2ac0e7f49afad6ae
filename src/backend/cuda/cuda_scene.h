/* The scene in device memory: the same pw_scene_view, with device pointers. */
#ifndef PW_CUDA_SCENE_H
#define PW_CUDA_SCENE_H

#include "scene/scene.h"

typedef struct pw_cuda_scene {
    pw_scene_view view;  /* device pointers; what kernels take by value */
    void *allocs[32];
    int n_allocs;
    size_t bytes;
} pw_cuda_scene;

pw_status pw_cuda_scene_upload(const pw_scene_view *host, const pw_scene *s, pw_cuda_scene *out);
/* Adds the sphere groups of a small sphere-only scene (accel/sphere_groups.h)
 * and their direction maps, origin maps with cells of cell_scale
 * (pw_dirmaps_build), and sets out->view.flat_spheres to PW_FLAT_GROUPS;
 * where the groups cannot be built it changes nothing (the BVH stays) and
 * returns PW_OK. */
pw_status pw_cuda_scene_upload_groups(const pw_scene_view *host, uint32_t max_runs, uint32_t run_len,
                                      float cell_scale, pw_cuda_scene *out);
void pw_cuda_scene_free(pw_cuda_scene *d);

#endif
