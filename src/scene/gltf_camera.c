/* A glTF file's camera, read from the file's JSON: the camera sits at its
 * node's origin looking down the node's -z with +y up (the node's world
 * transform from gltf_nodes.c), its vertical field of view is yfov.
 * assimp's aiCamera is not used: its mHorizontalFOV holds yfov x aspect in
 * some versions and a true horizontal angle in others, and its mPosition
 * repeats the node's translation. */
#include "scene/gltf_camera.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int finite_vec(pw_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

static pw_vec3 vec_of(const double v[3]) { return v3((float)v[0], (float)v[1], (float)v[2]); }

/* Camera i at visit v into s; 0 with a warning when it cannot be used. */
static int use_camera(pw_scene *s, const pw_gltf_doc *d, long i, const pw_gltf_visit *v)
{
    const cJSON *c = pw_gltf_at(d, PW_GLTF_CAMERAS, i);
    const char *type = pw_gltf_string(c, "type", "");
    if (strcmp(type, "perspective") != 0) {
        pw_scene_warn(s, "%s: camera %ld is not a perspective camera (not supported; skipped)", d->path, i);
        return 0;
    }
    const cJSON *p = pw_gltf_get(c, "perspective");
    double yfov = pw_gltf_number(p, "yfov", 0.0, NULL), aspect = pw_gltf_number(p, "aspectRatio", 0.0, NULL);
    static const double origin[3] = {0, 0, 0}, down_z[3] = {0, 0, -1}, up_y[3] = {0, 1, 0};
    double e[3], dir[3], up[3];
    pw_mat4_point(v->world, origin, e);
    pw_mat4_direction(v->world, down_z, dir);
    pw_mat4_direction(v->world, up_y, up);
    pw_vec3 eye = vec_of(e), fwd = vec_of(dir), upv = vec_of(up);
    if (!(yfov > 0.0 && yfov < PW_PI)) {
        pw_scene_warn(s, "%s: camera %ld has no usable yfov (skipped)", d->path, i);
        return 0;
    }
    if (!finite_vec(eye) || !(v3_len(fwd) > 0.0f) || !(v3_len(v3_cross(fwd, upv)) > 0.0f) ||
        !isfinite(v3_len(v3_cross(fwd, upv)))) {
        pw_scene_warn(s, "%s: camera %ld has a degenerate transform (skipped)", d->path, i);
        return 0;
    }
    s->cam.look_from = eye;
    s->cam.look_at = v3_add(eye, v3_norm(fwd));
    s->cam.up = v3_norm(upv);
    s->cam.vfov_deg = (float)(yfov * 180.0 / PW_PI);
    s->cam.aperture = 0.0f;
    s->cam.focus_dist = 0.0f;
    if (aspect > 0.05 && aspect < 20.0)
        s->defaults.height = (int)lround(s->defaults.width / aspect);
    return 1;
}

int pw_gltf_camera(pw_scene *s, const pw_gltf_doc *d, const pw_gltf_tree *t)
{
    long n = d->lists[PW_GLTF_CAMERAS].n;
    if (n == 0)
        return 0;
    /* The first visit of a node carrying each camera. */
    uint32_t *first = malloc((size_t)n * sizeof *first);
    if (!first)
        return 0;
    for (long i = 0; i < n; i++)
        first[i] = UINT32_MAX;
    for (uint32_t k = 0; k < t->n; k++) {
        long c;
        if (pw_gltf_as_index(pw_gltf_get(pw_gltf_at(d, PW_GLTF_NODES, t->visits[k].node), "camera"), n, &c) &&
            first[c] == UINT32_MAX)
            first[c] = k;
    }
    int found = 0;
    for (long i = 0; i < n && !found; i++)
        found = first[i] != UINT32_MAX && use_camera(s, d, i, &t->visits[first[i]]);
    free(first);
    return found;
}
