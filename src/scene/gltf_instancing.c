#include "scene/gltf_instancing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/gltf_accessor.h"

/* Instances are copied, so their number is bounded like the triangles
 * they make (mesh_walk.c refuses models of more than 10^8). */
#define GLTF_MAX_INSTANCES (1u << 20)

/* One attribute of a node's instances: absent (*data NULL) or n values of
 * ncomp components, finite. */
static pw_status read_attribute(pw_gltf_doc *d, long node, const cJSON *attrs, const char *name, int ncomp,
                                 float **data, uint32_t *n)
{
    *data = NULL;
    const cJSON *ref = pw_gltf_get(attrs, name);
    if (!ref)
        return PW_OK;
    long acc;
    if (!pw_gltf_as_index(ref, d->lists[PW_GLTF_ACCESSORS].n, &acc))
        return pw_fail(PW_ERR_FORMAT, "%s: node %ld: EXT_mesh_gpu_instancing %s is not an accessor index", d->path,
                       node, name);
    /* The count is checked before the data is read: an accessor without a
     * bufferView is all zeros, so a tiny file may claim 2^28 instances. */
    int bad = 0;
    double count = pw_gltf_number(pw_gltf_at(d, PW_GLTF_ACCESSORS, acc), "count", 0.0, &bad);
    if (bad || !(count <= GLTF_MAX_INSTANCES))
        return pw_fail(PW_ERR_FORMAT, "%s: node %ld: EXT_mesh_gpu_instancing %s has %.0f instances, more than the %u "
                       "pathwave copies", d->path, node, name, count, GLTF_MAX_INSTANCES);
    char what[128];
    snprintf(what, sizeof what, "node %ld's EXT_mesh_gpu_instancing %s", node, name);
    pw_status st = pw_gltf_read_accessor(d, acc, ncomp, what, data, n);
    if (st != PW_OK)
        return st;
    for (size_t i = 0; i < (size_t)*n * (size_t)ncomp; i++)
        if (!isfinite((*data)[i])) {
            free(*data);
            *data = NULL;
            return pw_fail(PW_ERR_FORMAT, "%s: %s: instance %zu is not finite", d->path, what, i / (size_t)ncomp);
        }
    return PW_OK;
}

static pw_status read_node(pw_gltf_doc *d, long node, const cJSON *ext, pw_gltf_instances *out)
{
    const cJSON *attrs = pw_gltf_get(ext, "attributes");
    static const char *const names[3] = {"TRANSLATION", "ROTATION", "SCALE"};
    static const int ncomp[3] = {3, 4, 3};
    float **dst[3] = {&out->t, &out->r, &out->s};
    uint32_t count = 0;
    for (int a = 0; a < 3; a++) {
        uint32_t n = 0;
        pw_status st = read_attribute(d, node, attrs, names[a], ncomp[a], dst[a], &n);
        if (st != PW_OK)
            return st;
        if (*dst[a] && count && n != count)
            return pw_fail(PW_ERR_FORMAT, "%s: node %ld: EXT_mesh_gpu_instancing %s has %u instances, the other "
                           "attributes %u", d->path, node, names[a], n, count);
        if (*dst[a])
            count = n;
    }
    if (!count)
        return pw_fail(PW_ERR_FORMAT, "%s: node %ld: EXT_mesh_gpu_instancing without TRANSLATION, ROTATION or SCALE",
                       d->path, node);
    out->n = count;
    return PW_OK;
}

pw_status pw_gltf_read_instances(pw_gltf_doc *d, const pw_gltf_tree *t, pw_gltf_instances **out)
{
    /* Read per node, for the nodes the scene visits: a node visited twice
     * shares its instances. */
    uint32_t n = (uint32_t)d->lists[PW_GLTF_NODES].n;
    *out = n ? calloc(n, sizeof **out) : NULL;
    unsigned char *done = n ? calloc(n, 1) : NULL;
    if (n && (!*out || !done)) {
        free(*out);
        free(done);
        *out = NULL;
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", d->path);
    }
    pw_status st = PW_OK;
    for (uint32_t k = 0; k < t->n && st == PW_OK; k++) {
        long node = t->visits[k].node;
        const cJSON *ext = pw_gltf_extension(pw_gltf_at(d, PW_GLTF_NODES, node), "EXT_mesh_gpu_instancing");
        if (ext && !done[node])
            st = read_node(d, node, ext, &(*out)[node]);
        done[node] = 1;
    }
    free(done);
    if (st != PW_OK) {
        pw_gltf_instances_free(*out, n);
        *out = NULL;
    }
    return st;
}

void pw_gltf_instances_free(pw_gltf_instances *inst, uint32_t n)
{
    for (uint32_t k = 0; inst && k < n; k++) {
        free(inst[k].t);
        free(inst[k].r);
        free(inst[k].s);
    }
    free(inst);
}

void pw_gltf_instance_matrix(const pw_gltf_instances *inst, uint32_t i, const double world[16], double out[16])
{
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1}, m[16];
    for (int c = 0; c < 3; c++) {
        if (inst->t)
            t[c] = inst->t[3 * (size_t)i + (size_t)c];
        if (inst->s)
            s[c] = inst->s[3 * (size_t)i + (size_t)c];
    }
    for (int c = 0; c < 4 && inst->r; c++)
        q[c] = inst->r[4 * (size_t)i + (size_t)c];
    pw_mat4_trs(t, q, s, m);
    pw_mat4_mul(world, m, out);
}
