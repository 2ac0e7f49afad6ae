/* Shapes into the scene's arrays under a transform: triangle meshes (inline,
 * PLY and .ply.gz through pathwave's reader, bilinear patches split in two,
 * a Loop subdivision surface's control mesh) and spheres, which stay
 * analytic spheres. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"
#include "scene/ply_read.h"

/* A mesh as read: positions, optional normals and uvs (2 per vertex), and
 * 3 vertex indices per triangle, all in object space. patches: the
 * triangles are bilinear patches' halves, in pairs. */
typedef struct mesh_in {
    uint32_t nv, nt;
    const double *P, *N, *uv;
    const uint32_t *idx;
    int patches;
} mesh_in;

static int is_finite3(pw_vec3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

/* Normals go through the inverse transpose. */
static pw_vec3 xform_normal(const pbrt_mat4 *inv, pw_vec3 n)
{
    pw_vec3 r = v3((float)(inv->m[0][0] * n.x + inv->m[1][0] * n.y + inv->m[2][0] * n.z),
                   (float)(inv->m[0][1] * n.x + inv->m[1][1] * n.y + inv->m[2][1] * n.z),
                   (float)(inv->m[0][2] * n.x + inv->m[1][2] * n.y + inv->m[2][2] * n.z));
    float l = v3_len(r);
    return l > 0.0f ? v3_scale(r, 1.0f / l) : v3s(0.0f);
}

/* Winding follows pbrt's geometric normal, which matters for one-sided
 * emission: it faces the interpolated shading normal when the mesh has
 * normals, else it is flipped by ReverseOrientation and by transforms that
 * change handedness. */
static int flip_winding(const pw_vec3 *p, const pw_vec3 *n, const uint32_t *t, int swap)
{
    pw_vec3 ng = v3_cross(v3_sub(p[t[1]], p[t[0]]), v3_sub(p[t[2]], p[t[0]]));
    if (n) {
        pw_vec3 ns = v3_add(v3_add(n[t[0]], n[t[1]]), n[t[2]]);
        float d = v3_dot(ng, ns);
        if (d != 0.0f)
            return d < 0.0f;
    }
    return swap;
}

static pw_status add_mesh_default_uv(pbrt_ctx *c, const pbrt_params *ps, const mesh_in *in, const pbrt_mat4 *m,
                                     uint32_t mat, int reverse);

static pw_status add_mesh(pbrt_ctx *c, const pbrt_params *ps, const mesh_in *in, const pbrt_mat4 *m, uint32_t mat,
                          int reverse)
{
    pbrt_mat4 inv;
    if (!pbrt_mat_inverse(m, &inv))
        return pbrt_error_at(ps->path, ps->line, ps->col, "Shape: the current transform is singular");
    if (!in->uv && PW_MAT_HAS_ALBEDO_TEX(&c->scene->mats[mat]) && in->nt > 0 && (uint64_t)in->nt * 3 <= UINT32_MAX)
        return add_mesh_default_uv(c, ps, in, m, mat, reverse);
    pw_vec3 *p = malloc((size_t)in->nv * sizeof *p);
    pw_vec3 *n = in->N ? malloc((size_t)in->nv * sizeof *n) : NULL;
    float *uv = in->uv ? malloc((size_t)in->nv * 2 * sizeof *uv) : NULL;
    pw_status st = PW_OK;
    if (!p || (in->N && !n) || (in->uv && !uv))
        st =
            pw_fail(PW_ERR_OUT_OF_MEMORY, "%s:%d: out of memory for a mesh of %u vertices", ps->path, ps->line, in->nv);
    for (uint32_t i = 0; st == PW_OK && i < in->nv; i++) {
        p[i] = pbrt_xform_point(m, v3((float)in->P[3 * i], (float)in->P[3 * i + 1], (float)in->P[3 * i + 2]));
        if (!is_finite3(p[i]))
            st = pbrt_error_at(ps->path, ps->line, ps->col,
                               "vertex %u is not finite (NaN or infinity) after the transform", i);
        if (n)
            n[i] = xform_normal(&inv, v3((float)in->N[3 * i], (float)in->N[3 * i + 1], (float)in->N[3 * i + 2]));
        if (uv) {
            uv[2 * i] = (float)in->uv[2 * i];
            uv[2 * i + 1] = (float)in->uv[2 * i + 1];
        }
    }
    uint32_t base = UINT32_MAX;
    if (st == PW_OK && (base = pw_scene_add_vertices(c->scene, p, n, in->nv)) == UINT32_MAX)
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s:%d: out of memory for %u vertices", ps->path, ps->line, in->nv);
    if (st == PW_OK && uv)
        st = pw_scene_set_uvs(c->scene, base, uv, in->nv);
    int swap = reverse ^ (pbrt_mat_det3(m) < 0.0);
    for (uint32_t t = 0; st == PW_OK && t < in->nt; t++) {
        const uint32_t *ix = in->idx + 3 * t;
        int f = flip_winding(p, n, ix, swap);
        st = pw_scene_add_triangle(c->scene, base + ix[0], base + ix[f ? 2 : 1], base + ix[f ? 1 : 2], mat);
    }
    free(p);
    free(n);
    free(uv);
    if (st == PW_OK && in->nt > 0 && !v3_is_zero(c->scene->mats[mat].emission))
        c->emissive_lights++;
    return st;
}

/* A textured mesh without "uv": pbrt gives each triangle's corners (0, 0),
 * (1, 0), (1, 1), and a bilinear patch's corners (0, 0), (1, 0), (0, 1),
 * (1, 1) (its halves (0, 0), (1, 0), (1, 1) and (0, 0), (1, 1), (0, 1)).
 * Shared vertices cannot hold these, so each triangle gets its own three. */
static pw_status add_mesh_default_uv(pbrt_ctx *c, const pbrt_params *ps, const mesh_in *in, const pbrt_mat4 *m,
                                     uint32_t mat, int reverse)
{
    static const double corner[2][6] = {{0, 0, 1, 0, 1, 1}, {0, 0, 1, 1, 0, 1}};
    size_t nv = (size_t)in->nt * 3;
    double *P = malloc(nv * 3 * sizeof *P), *N = in->N ? malloc(nv * 3 * sizeof *N) : NULL;
    double *uv = malloc(nv * 2 * sizeof *uv);
    uint32_t *idx = malloc(nv * sizeof *idx);
    pw_status st = PW_OK;
    if (!P || !uv || !idx || (in->N && !N))
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s:%d: out of memory for a mesh of %u triangles", ps->path, ps->line,
                     in->nt);
    for (size_t i = 0; st == PW_OK && i < nv; i++) {
        uint32_t v = in->idx[i];
        memcpy(P + 3 * i, in->P + 3 * (size_t)v, 3 * sizeof *P);
        if (N)
            memcpy(N + 3 * i, in->N + 3 * (size_t)v, 3 * sizeof *N);
        const double *cuv = corner[in->patches && (i / 3) % 2 == 1];
        uv[2 * i] = cuv[2 * (i % 3)];
        uv[2 * i + 1] = cuv[2 * (i % 3) + 1];
        idx[i] = (uint32_t)i;
    }
    if (st == PW_OK) {
        mesh_in flat = {(uint32_t)nv, in->nt, P, N, uv, idx, 0};
        st = add_mesh(c, ps, &flat, m, mat, reverse);
    }
    free(P);
    free(N);
    free(uv);
    free(idx);
    return st;
}

/* Vertex indices from an "integer indices" parameter, checked against the vertex count. */
static pw_status read_indices(pbrt_params *ps, uint32_t nv, int per_face, uint32_t **out, uint32_t *n_idx)
{
    const double *v;
    uint32_t n;
    pw_status st = pbrt_get_array(ps, "indices", PBRT_P_INTEGER, &v, &n);
    *out = NULL;
    if (st != PW_OK)
        return st;
    pbrt_param *p = pbrt_param_find(ps, "indices");
    if (!p) {
        if (nv != (uint32_t)per_face)
            return pbrt_error_at(ps->path, ps->line, ps->col,
                                 "\"integer indices\" is missing (allowed only for a single %s)",
                                 per_face == 3 ? "triangle of 3 vertices" : "patch of 4 vertices");
        n = (uint32_t)per_face;
    } else if (n == 0 || n % (uint32_t)per_face != 0) {
        return pbrt_param_error(p, ps, "%u indices are not a positive multiple of %d", n, per_face);
    }
    uint32_t *idx = malloc((size_t)n * sizeof *idx);
    if (!idx)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s:%d: out of memory for %u indices", ps->path, ps->line, n);
    for (uint32_t i = 0; i < n; i++) {
        double x = p ? v[i] : (double)i;
        if (x < 0 || x >= nv) {
            free(idx);
            return pbrt_param_error(p, ps, "index %u is %.0f, but there are %u vertices", i, x, nv);
        }
        idx[i] = (uint32_t)x;
    }
    *out = idx;
    *n_idx = n;
    return PW_OK;
}

/* P, N and uv of an inline mesh, with their counts checked. */
static pw_status read_vertices(pbrt_params *ps, mesh_in *in)
{
    uint32_t n_p, n_n, n_uv;
    pw_status st;
    memset(in, 0, sizeof *in);
    if ((st = pbrt_get_array(ps, "P", PBRT_P_POINT3, &in->P, &n_p)) != PW_OK ||
        (st = pbrt_get_array(ps, "N", PBRT_P_NORMAL, &in->N, &n_n)) != PW_OK)
        return st;
    pbrt_param *uvp = pbrt_param_find(ps, "uv");
    if (!uvp)
        uvp = pbrt_param_find(ps, "st");
    if (uvp && uvp->type != PBRT_P_POINT2 && uvp->type != PBRT_P_FLOAT)
        return pbrt_param_error(uvp, ps, "should be of type point2");
    if (!in->P)
        return pbrt_error_at(ps->path, ps->line, ps->col, "the mesh has no \"point3 P\"");
    in->nv = n_p / 3;
    if (in->N && n_n != n_p)
        return pbrt_param_error(pbrt_param_find(ps, "N"), ps, "%u normals for %u vertices", n_n / 3, in->nv);
    n_uv = uvp ? uvp->n : 0;
    if (uvp && n_uv != 2 * in->nv)
        return pbrt_param_error(uvp, ps, "%u texture coordinates for %u vertices", n_uv / 2, in->nv);
    in->uv = uvp ? uvp->num : NULL;
    return PW_OK;
}

static pw_status triangle_mesh(pbrt_ctx *c, pbrt_params *ps, const pbrt_mat4 *m, uint32_t mat, int reverse)
{
    mesh_in in;
    uint32_t *idx, n;
    pw_status st = read_vertices(ps, &in);
    if (st != PW_OK || (st = read_indices(ps, in.nv, 3, &idx, &n)) != PW_OK)
        return st;
    in.idx = idx;
    in.nt = n / 3;
    st = add_mesh(c, ps, &in, m, mat, reverse);
    free(idx);
    return st;
}

/* Each patch (v00, v10, v01, v11) as the triangles (v00, v10, v11) and (v00, v11, v01). */
static pw_status bilinear_mesh(pbrt_ctx *c, pbrt_params *ps, const pbrt_mat4 *m, uint32_t mat, int reverse)
{
    mesh_in in;
    uint32_t *quad, n;
    pw_status st = read_vertices(ps, &in);
    if (st != PW_OK || (st = read_indices(ps, in.nv, 4, &quad, &n)) != PW_OK)
        return st;
    uint32_t *tri = malloc((size_t)n / 4 * 6 * sizeof *tri);
    if (!tri) {
        free(quad);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s:%d: out of memory", ps->path, ps->line);
    }
    for (uint32_t q = 0; q < n / 4; q++) {
        const uint32_t *v = quad + 4 * q;
        uint32_t *t = tri + 6 * q;
        t[0] = v[0], t[1] = v[1], t[2] = v[3];
        t[3] = v[0], t[4] = v[3], t[5] = v[2];
    }
    in.idx = tri;
    in.nt = n / 4 * 2;
    in.patches = 1;
    st = add_mesh(c, ps, &in, m, mat, reverse);
    free(quad);
    free(tri);
    return st;
}

/* A PLY mesh as add_mesh takes it: coordinates in doubles. */
static pw_status add_ply_mesh(pbrt_ctx *c, pbrt_params *ps, const pw_ply_mesh *pm, const char *file,
                              const pbrt_mat4 *m, uint32_t mat, int reverse)
{
    size_t nv = pm->n_verts;
    double *P = malloc((nv + 1) * 3 * sizeof *P);
    double *N = pm->nrm ? malloc((nv + 1) * 3 * sizeof *N) : NULL;
    double *uv = pm->uv ? malloc((nv + 1) * 2 * sizeof *uv) : NULL;
    pw_status st = PW_OK;
    if (!P || (pm->nrm && !N) || (pm->uv && !uv))
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", file);
    for (size_t i = 0; st == PW_OK && i < nv; i++) {
        P[3 * i] = pm->pos[i].x, P[3 * i + 1] = pm->pos[i].y, P[3 * i + 2] = pm->pos[i].z;
        if (N)
            N[3 * i] = pm->nrm[i].x, N[3 * i + 1] = pm->nrm[i].y, N[3 * i + 2] = pm->nrm[i].z;
        if (uv)
            uv[2 * i] = pm->uv[2 * i], uv[2 * i + 1] = pm->uv[2 * i + 1];
    }
    if (st == PW_OK) {
        mesh_in in = {pm->n_verts, pm->n_tris, P, N, uv, pm->tri, 0};
        st = add_mesh(c, ps, &in, m, mat, reverse);
    }
    free(P);
    free(N);
    free(uv);
    return st;
}

typedef struct ply_warn_to {
    pbrt_ctx *c;
    const pbrt_params *ps;
} ply_warn_to;

/* The PLY reader's warnings, under the Shape's line, each once. */
static void ply_warning(const char *msg, void *user)
{
    const ply_warn_to *w = user;
    pbrt_warn_once(w->c, msg, w->ps->path, w->ps->line, "plymesh: %s", msg);
}

static pw_status ply_mesh(pbrt_ctx *c, pbrt_params *ps, const pbrt_mat4 *m, uint32_t mat, int reverse)
{
    const char *name;
    pw_status st = pbrt_get_string(ps, "filename", NULL, &name);
    if (st != PW_OK)
        return st;
    if (!name)
        return pbrt_error_at(ps->path, ps->line, ps->col, "plymesh has no \"string filename\"");
    char full[4096];
    if (!pbrt_resolve_path(c, name, full, sizeof full))
        return pbrt_error_at(ps->path, ps->line, ps->col, "file name too long");
    /* pathwave's own reader (scene/ply_read.c): .ply.gz inflated, damaged files an error. */
    pw_ply_mesh pm;
    ply_warn_to to = {c, ps};
    if (pw_ply_read(full, ply_warning, &to, &pm) != PW_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", pw_last_error());
        return pbrt_error_at(ps->path, ps->line, ps->col, "plymesh: %s", why);
    }
    if (pm.n_tris == 0)
        pbrt_warn_once(c, full, ps->path, ps->line, "plymesh: %s has no triangles", full);
    st = add_ply_mesh(c, ps, &pm, full, m, mat, reverse);
    pw_ply_free(&pm);
    static const char *const ignored[] = {"displacement", "edgelength"};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
        if (pbrt_param_find(ps, ignored[i]))
            pbrt_warn_once(c, "displacement", ps->path, ps->line, "plymesh: displacement is not supported (ignored)");
    return st;
}

/* A sphere under a transform stays a sphere when the scale is uniform;
 * otherwise it becomes the sphere of the mean scale, with a warning. */
static pw_status sphere(pbrt_ctx *c, pbrt_params *ps, const pbrt_mat4 *m, uint32_t mat)
{
    float r, zmin, zmax, phimax;
    pw_status st;
    if ((st = pbrt_get_float(ps, "radius", 1.0f, &r)) != PW_OK ||
        (st = pbrt_get_float(ps, "zmin", -r, &zmin)) != PW_OK || (st = pbrt_get_float(ps, "zmax", r, &zmax)) != PW_OK ||
        (st = pbrt_get_float(ps, "phimax", 360.0f, &phimax)) != PW_OK)
        return st;
    if (!(r > 0.0f))
        return pbrt_param_error(pbrt_param_find(ps, "radius"), ps, "must be positive");
    if (zmin > -r || zmax < r || phimax < 360.0f)
        pbrt_warn_once(c, "partial sphere", ps->path, ps->line,
                       "partial spheres (zmin, zmax, phimax) are rendered whole");
    double s[3];
    for (int j = 0; j < 3; j++)
        s[j] = sqrt(m->m[0][j] * m->m[0][j] + m->m[1][j] * m->m[1][j] + m->m[2][j] * m->m[2][j]);
    double lo = fmin(s[0], fmin(s[1], s[2])), hi = fmax(s[0], fmax(s[1], s[2]));
    if (hi > lo * (1.0 + 1e-4))
        pbrt_warn_once(c, "nonuniform sphere", ps->path, ps->line,
                       "sphere under a non-uniform scale (%g, %g, %g): rendered as a sphere of the mean radius", s[0],
                       s[1], s[2]);
    if (PW_MAT_HAS_ALBEDO_TEX(&c->scene->mats[mat]))
        pbrt_warn_once(c, "textured sphere", ps->path, ps->line,
                       "textured sphere: pathwave's sphere coordinates (u around world +y) replace pbrt's (u around "
                       "the object's +z)");
    pw_vec3 centre = pbrt_xform_point(m, v3(0, 0, 0));
    float radius = (float)(r * (s[0] + s[1] + s[2]) / 3.0);
    if (!is_finite3(centre) || !(radius > 0.0f) || !isfinite(radius))
        return pbrt_error_at(ps->path, ps->line, ps->col, "sphere: the transformed centre or radius is not finite");
    if ((st = pw_scene_push_sphere(c->scene, centre, radius, mat)) != PW_OK)
        return st;
    if (!v3_is_zero(c->scene->mats[mat].emission))
        c->emissive_lights++;
    return PW_OK;
}

pw_status pbrt_shape(pbrt_ctx *c, const char *type, pbrt_params *ps, const pbrt_mat4 *m, uint32_t mat, int reverse)
{
    pw_status st;
    char what[80];
    snprintf(what, sizeof what, "Shape \"%s\"", type);
    if (strcmp(type, "trianglemesh") == 0) {
        st = triangle_mesh(c, ps, m, mat, reverse);
    } else if (strcmp(type, "plymesh") == 0) {
        st = ply_mesh(c, ps, m, mat, reverse);
    } else if (strcmp(type, "sphere") == 0) {
        st = sphere(c, ps, m, mat);
    } else if (strcmp(type, "bilinearmesh") == 0) {
        st = bilinear_mesh(c, ps, m, mat, reverse);
    } else if (strcmp(type, "loopsubdiv") == 0) {
        pbrt_warn_once(c, "loopsubdiv", ps->path, ps->line, "Shape \"loopsubdiv\" is rendered as its control mesh");
        pbrt_param_find(ps, "levels");
        st = triangle_mesh(c, ps, m, mat, reverse);
    } else {
        pbrt_warn_once(c, what, ps->path, ps->line, "Shape \"%s\" is not supported: left out", type);
        return PW_OK;
    }
    if (st == PW_OK)
        pbrt_warn_unused(c, ps, what);
    return st;
}
