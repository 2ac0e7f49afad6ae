#include "scene/gltf_nodes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

void pw_mat4_mul(const double a[16], const double b[16], double out[16])
{
    double r[16];
    for (int c = 0; c < 4; c++)
        for (int i = 0; i < 4; i++) {
            double x = 0.0;
            for (int k = 0; k < 4; k++)
                x += a[k * 4 + i] * b[c * 4 + k];
            r[c * 4 + i] = x;
        }
    memcpy(out, r, sizeof r);
}

void pw_mat4_trs(const double t[3], const double q[4], const double s[3], double out[16])
{
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double x = 0.0, y = 0.0, z = 0.0, w = 1.0;
    if (len > 0.0)
        x = q[0] / len, y = q[1] / len, z = q[2] / len, w = q[3] / len;
    /* The rotation's columns (the unit quaternion's matrix), scaled. */
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int i = 0; i < 3; i++)
            out[c * 4 + i] = r[c * 3 + i] * s[c];
        out[c * 4 + 3] = 0.0;
    }
    out[12] = t[0], out[13] = t[1], out[14] = t[2], out[15] = 1.0;
}

void pw_mat4_point(const double m[16], const double p[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = m[i] * p[0] + m[4 + i] * p[1] + m[8 + i] * p[2] + m[12 + i];
}

void pw_mat4_direction(const double m[16], const double d[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = m[i] * d[0] + m[4 + i] * d[1] + m[8 + i] * d[2];
}

/* A node's own transform: "matrix", else translation, rotation, scale. */
static pw_status local_transform(const pw_gltf_doc *d, long node, const cJSON *n, double out[16])
{
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, s[3] = {1, 1, 1};
    int m = pw_gltf_numbers(n, "matrix", 16, out);
    if (m == 1)
        return PW_OK;
    if (m < 0 || pw_gltf_numbers(n, "translation", 3, t) < 0 || pw_gltf_numbers(n, "rotation", 4, q) < 0 ||
        pw_gltf_numbers(n, "scale", 3, s) < 0)
        return pw_fail(PW_ERR_FORMAT, "%s: node %ld: its matrix, translation, rotation or scale is not an array "
                       "of 16, 3, 4 or 3 finite numbers", d->path, node);
    pw_mat4_trs(t, q, s, out);
    return PW_OK;
}

typedef struct walk {
    const pw_gltf_doc *d;
    pw_gltf_tree *t;
    uint32_t cap;
    unsigned char *on_path; /* per node: on the way from the root to here (a cycle if reached again) */
} walk;

static pw_status visit(walk *w, long node, uint32_t parent, int depth)
{
    const pw_gltf_doc *d = w->d;
    if (depth > PW_GLTF_MAX_DEPTH)
        return pw_fail(PW_ERR_FORMAT, "%s: node %ld: nodes nested deeper than %d", d->path, node, PW_GLTF_MAX_DEPTH);
    if (w->on_path[node])
        return pw_fail(PW_ERR_FORMAT, "%s: node %ld is its own ancestor (a cycle in \"children\")", d->path, node);
    if (w->t->n == PW_GLTF_MAX_VISITS)
        return pw_fail(PW_ERR_FORMAT, "%s: the scene's node tree expands to more than %u nodes", d->path,
                       PW_GLTF_MAX_VISITS);
    if (w->t->n == w->cap) {
        uint32_t cap = w->cap ? 2 * w->cap : 64;
        pw_gltf_visit *v = realloc(w->t->visits, (size_t)cap * sizeof *v);
        if (!v)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for the node tree", d->path);
        w->t->visits = v;
        w->cap = cap;
    }
    const cJSON *n = pw_gltf_at(d, PW_GLTF_NODES, node);
    uint32_t me = w->t->n++;
    pw_gltf_visit *v = &w->t->visits[me];
    v->node = node;
    v->parent = parent;
    double local[16];
    pw_status st = local_transform(d, node, n, local);
    if (st != PW_OK)
        return st;
    if (parent == PW_GLTF_NO_PARENT)
        memcpy(v->world, local, sizeof local);
    else
        pw_mat4_mul(w->t->visits[parent].world, local, v->world);
    const cJSON *children = pw_gltf_get(n, "children");
    if (children && !cJSON_IsArray(children))
        return pw_fail(PW_ERR_FORMAT, "%s: node %ld: \"children\" is not an array", d->path, node);
    w->on_path[node] = 1;
    for (const cJSON *c = children ? children->child : NULL; c && st == PW_OK; c = c->next) {
        long child;
        if (!pw_gltf_as_index(c, d->lists[PW_GLTF_NODES].n, &child))
            st = pw_fail(PW_ERR_FORMAT, "%s: node %ld: a child that is not a node index", d->path, node);
        else
            st = visit(w, child, me, depth + 1);
    }
    w->on_path[node] = 0;
    return st;
}

pw_status pw_gltf_walk_nodes(const pw_gltf_doc *d, pw_gltf_tree *t)
{
    memset(t, 0, sizeof *t);
    const cJSON *which = pw_gltf_get(d->root, "scene");
    long scene = 0;
    if (d->lists[PW_GLTF_SCENES].n == 0)
        return PW_OK;
    if (which && !pw_gltf_as_index(which, d->lists[PW_GLTF_SCENES].n, &scene))
        return pw_fail(PW_ERR_FORMAT, "%s: \"scene\" is not the index of one of its %d scenes", d->path,
                       d->lists[PW_GLTF_SCENES].n);
    const cJSON *roots = pw_gltf_get(pw_gltf_at(d, PW_GLTF_SCENES, scene), "nodes");
    if (roots && !cJSON_IsArray(roots))
        return pw_fail(PW_ERR_FORMAT, "%s: scene %ld: \"nodes\" is not an array", d->path, scene);
    walk w = {d, t, 0, calloc((size_t)d->lists[PW_GLTF_NODES].n + 1, 1)};
    if (!w.on_path)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for the node tree", d->path);
    pw_status st = PW_OK;
    for (const cJSON *c = roots ? roots->child : NULL; c && st == PW_OK; c = c->next) {
        long node;
        if (!pw_gltf_as_index(c, d->lists[PW_GLTF_NODES].n, &node))
            st = pw_fail(PW_ERR_FORMAT, "%s: scene %ld: a node that is not a node index", d->path, scene);
        else if ((st = visit(&w, node, PW_GLTF_NO_PARENT, 1)) == PW_OK)
            t->roots++;
    }
    free(w.on_path);
    if (st != PW_OK)
        pw_gltf_tree_free(t);
    return st;
}

void pw_gltf_tree_free(pw_gltf_tree *t)
{
    free(t->visits);
    memset(t, 0, sizeof *t);
}
