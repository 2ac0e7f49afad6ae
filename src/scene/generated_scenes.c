/* Generated scenes for scaling measurements: a height field of exactly N
 * triangles, and K copies of a mesh (the Stanford bunny by default) on a
 * ground plane. Both are the same on every run and need no download
 * (the bunny comes from the shared scenes folder). */
#include "scene/generated_scenes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"

#define TERRAIN_HALF 50.0  /* the terrain covers [-50, 50] in x and z */
#define TERRAIN_AMP 8.0    /* and heights in [-8, 8] */
#define BUNNIES_MAX 4096
#define BUNNY_SPACING 1.25f /* grid pitch; each copy is scaled to a largest extent of 1 */

/* Parses the decimal count in text[0 .. len) (digits only) into 1..max. */
static pw_status parse_count(const char *scene, const char *text, size_t len, uint64_t max, const char *what,
                             uint64_t *out)
{
    uint64_t v = 0;
    int ok = len > 0 && len <= 20;
    for (size_t i = 0; ok && i < len; i++) {
        ok = text[i] >= '0' && text[i] <= '9';
        v = ok && v <= max ? v * 10 + (uint64_t)(text[i] - '0') : v;
        ok = ok && v <= max;
    }
    if (!ok || v < 1)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: '%.*s' is not a %s count in 1..%llu", scene, (int)len, text, what,
                       (unsigned long long)max);
    *out = v;
    return PW_OK;
}

/* Height at (x, z): three octaves of sines with weights summing to 1, so
 * |height| <= TERRAIN_AMP. Computed in double for the same value everywhere. */
static float terrain_height(double x, double z)
{
    double h = 0.5 * sin(0.09 * x + 0.4) * sin(0.11 * z + 1.3) + 0.3 * sin(0.31 * x + 0.23 * z) +
               0.2 * sin(1.3 * x + 0.2) * sin(1.7 * z + 0.9);
    return (float)(TERRAIN_AMP * h);
}

/* Sky light, a camera and render defaults that suit a large outdoor scene. */
static void outdoor_setup(pw_scene *s, pw_vec3 from, pw_vec3 at, float vfov)
{
    s->cam.look_from = from;
    s->cam.look_at = at;
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = vfov;
    s->env.type = PW_ENV_GRADIENT;
    s->env.bottom = v3(1.0f, 1.0f, 1.0f);
    s->env.top = v3(0.5f, 0.7f, 1.0f);
    s->env.scale = 1.0f;
    s->defaults.width = 960;
    s->defaults.height = 540;
    s->defaults.spp = 16;
    s->defaults.max_depth = 4;
}

/* Quads of a cols x rows grid, two triangles each, filled row by row; the
 * last row may be partial and its last quad may hold one triangle, so any
 * N is met exactly. Every triangle faces +y. */
static pw_status build_terrain(pw_scene *s, uint64_t n)
{
    uint32_t cols = (uint32_t)ceil(sqrt((double)n / 2.0));
    uint32_t rows = (uint32_t)((n + 2 * (uint64_t)cols - 1) / (2 * (uint64_t)cols));
    uint64_t nv = ((uint64_t)cols + 1) * ((uint64_t)rows + 1);
    pw_vec3 *p = malloc((size_t)nv * sizeof *p);
    if (!p)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for %llu vertices", s->name, (unsigned long long)nv);
    for (uint32_t j = 0; j <= rows; j++)
        for (uint32_t i = 0; i <= cols; i++) {
            double x = -TERRAIN_HALF + 2.0 * TERRAIN_HALF * i / cols, z = -TERRAIN_HALF + 2.0 * TERRAIN_HALF * j / rows;
            p[(size_t)j * (cols + 1) + i] = v3((float)x, terrain_height(x, z), (float)z);
        }
    uint32_t base = pw_scene_add_vertices(s, p, NULL, (uint32_t)nv);
    free(p);
    uint32_t mat = pw_scene_push_material(s, pw_lambert(0.45f, 0.5f, 0.35f));
    if (base == UINT32_MAX || mat == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    for (uint64_t t = 0; t < n; t++) {
        uint32_t q = (uint32_t)(t / 2), i = q % cols, j = q / cols;
        uint32_t v00 = base + j * (cols + 1) + i, v10 = v00 + 1, v01 = v00 + cols + 1, v11 = v01 + 1;
        pw_status st = t % 2 == 0 ? pw_scene_add_triangle(s, v00, v01, v10, mat)
                                  : pw_scene_add_triangle(s, v10, v01, v11, mat);
        if (st != PW_OK)
            return st;
    }
    outdoor_setup(s, v3(0.0f, 70.0f, 110.0f), v3(0.0f, -5.0f, 0.0f), 45.0f);
    return PW_OK;
}

pw_status pw_generate_terrain(pw_scene *s, const char *param)
{
    uint64_t n = 0;
    pw_status st = parse_count("terrain:N", param, strlen(param), PW_GENERATED_MAX_TRIANGLES, "triangle", &n);
    return st != PW_OK ? st : build_terrain(s, n);
}

/* The bunny under $PATHWAVE_SHARED, else under ../shared from the current
 * folder (the repository's root, where the README's commands run). No
 * folder of the build machine is compiled in: the binary is carried to
 * other machines. */
static void default_bunny(char *buf, size_t n)
{
    const char *dir = getenv("PATHWAVE_SHARED");
    snprintf(buf, n, "%s/scenes/stanford-bunny/bunny.ply", dir && *dir ? dir : "../shared");
}

/* Appends copy k of mesh m: scaled to a largest extent of 1, standing on
 * y = 0 at its grid cell, turned about y by an angle drawn from a hash. */
static pw_status add_copy(pw_scene *s, const pw_scene *m, uint32_t k, uint32_t side, pw_vec3 lo, pw_vec3 hi,
                          pw_vec3 *buf_p, pw_vec3 *buf_n, uint32_t mat)
{
    pw_vec3 ext = v3_sub(hi, lo);
    float scale = 1.0f / fmaxf(ext.x, fmaxf(ext.y, ext.z));
    pw_vec3 pivot = v3(0.5f * (lo.x + hi.x), lo.y, 0.5f * (lo.z + hi.z));
    float angle = 2.0f * PW_PI * (float)(pw_hash32(0xb0bb1e5u + k) >> 8) * (1.0f / 16777216.0f);
    float c = cosf(angle), sn = sinf(angle);
    float half = 0.5f * (float)(side - 1) * BUNNY_SPACING;
    pw_vec3 cell = v3((float)(k % side) * BUNNY_SPACING - half, 0.0f, (float)(k / side) * BUNNY_SPACING - half);
    for (uint32_t i = 0; i < m->n_verts; i++) {
        pw_vec3 q = v3_scale(v3_sub(m->pos[i], pivot), scale);
        buf_p[i] = v3_add(cell, v3(c * q.x + sn * q.z, q.y, -sn * q.x + c * q.z));
        if (m->nrm)
            buf_n[i] = v3(c * m->nrm[i].x + sn * m->nrm[i].z, m->nrm[i].y, -sn * m->nrm[i].x + c * m->nrm[i].z);
    }
    uint32_t base = pw_scene_add_vertices(s, buf_p, m->nrm ? buf_n : NULL, m->n_verts);
    if (base == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for copy %u", s->name, k);
    for (uint32_t t = 0; t < m->n_tris; t++) {
        const uint32_t *ix = m->tri_idx + 3 * t;
        pw_status st = pw_scene_add_triangle(s, base + ix[0], base + ix[1], base + ix[2], mat);
        if (st != PW_OK)
            return st;
    }
    return PW_OK;
}

/* A ground square of 2 triangles under the whole grid, facing +y. */
static pw_status add_ground(pw_scene *s, float half)
{
    pw_vec3 g[4] = {v3(-half, 0, -half), v3(half, 0, -half), v3(half, 0, half), v3(-half, 0, half)};
    uint32_t mat = pw_scene_push_material(s, pw_lambert(0.5f, 0.5f, 0.5f));
    uint32_t b = pw_scene_add_vertices(s, g, NULL, 4);
    if (mat == UINT32_MAX || b == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    pw_status st = pw_scene_add_triangle(s, b, b + 2, b + 1, mat);
    return st != PW_OK ? st : pw_scene_add_triangle(s, b, b + 3, b + 2, mat);
}

/* bunnies-mixed: the copies take these in turn, one of each kind the
 * renderer has, so that shading is as diverse as a real scene's (the
 * megakernel-or-wavefront comparison of docs/PERFORMANCE.md). */
#define N_MIXED 6
static pw_status add_mixed_materials(pw_scene *s, uint32_t mats[N_MIXED])
{
    pw_material m[N_MIXED] = {
        pw_lambert(0.8f, 0.8f, 0.8f),
        pw_metal(0.9f, 0.6f, 0.3f, 0.1f),
        pw_dielectric(1.5f),
        /* gold: complex index of refraction at about 650, 550, 450 nm */
        pw_conductor(v3(0.16f, 0.42f, 1.37f), v3(3.6f, 2.3f, 1.8f), 0.2f),
        pw_rough_dielectric(1.5f, 0.15f),
        pw_metallic_roughness(v3(0.7f, 0.1f, 0.1f), 0.0f, 0.4f),
    };
    for (int i = 0; i < N_MIXED; i++)
        if ((mats[i] = pw_scene_push_material(s, m[i])) == UINT32_MAX)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    return PW_OK;
}

static pw_status build_bunnies(pw_scene *s, const pw_scene *m, uint32_t k, int mixed)
{
    if ((uint64_t)k * m->n_tris + 2 > PW_GENERATED_MAX_TRIANGLES)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %u copies of %u triangles exceed %u triangles", s->name, k,
                       m->n_tris, PW_GENERATED_MAX_TRIANGLES);
    pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
    for (uint32_t i = 0; i < m->n_verts; i++) {
        lo = v3_min(lo, m->pos[i]);
        hi = v3_max(hi, m->pos[i]);
    }
    uint32_t side = (uint32_t)ceil(sqrt((double)k));
    uint32_t mats[N_MIXED];
    pw_status st = PW_OK;
    if (mixed)
        st = add_mixed_materials(s, mats);
    else if ((mats[0] = pw_scene_push_material(s, pw_lambert(0.8f, 0.8f, 0.8f))) == UINT32_MAX)
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    pw_vec3 *bp = malloc((size_t)m->n_verts * sizeof *bp), *bn = malloc((size_t)m->n_verts * sizeof *bn);
    if (st == PW_OK && !(bp && bn))
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    for (uint32_t i = 0; st == PW_OK && i < k; i++)
        st = add_copy(s, m, i, side, lo, hi, bp, bn, mats[mixed ? i % N_MIXED : 0]);
    free(bp);
    free(bn);
    float half = 0.5f * (float)side * BUNNY_SPACING + 1.0f;
    if (st == PW_OK)
        st = add_ground(s, half);
    float d = 0.5f * (float)side * BUNNY_SPACING;
    outdoor_setup(s, v3(0.0f, 0.9f * d + 1.0f, 1.6f * d + 2.0f), v3(0.0f, 0.3f, 0.0f), 40.0f);
    return st;
}

static pw_status generate_bunnies(pw_scene *s, const char *param, int mixed)
{
    const char *colon = strchr(param, ':');
    size_t len = colon ? (size_t)(colon - param) : strlen(param);
    uint64_t k = 0;
    pw_status st = parse_count(mixed ? "bunnies-mixed:K" : "bunnies:K", param, len, BUNNIES_MAX, "copy", &k);
    if (st != PW_OK)
        return st;
    char path[4096];
    if (colon)
        snprintf(path, sizeof path, "%s", colon + 1);
    else
        default_bunny(path, sizeof path);
    pw_scene *m;
    /* The mesh file is not the scene's name: a missing one is an I/O
     * problem, not an unknown scene (pw_last_error names the file). */
    if ((st = pw_scene_load(path, &m)) != PW_OK)
        return st == PW_ERR_NOT_FOUND ? PW_ERR_IO : st;
    st = build_bunnies(s, m, (uint32_t)k, mixed);
    pw_scene_free(m);
    return st;
}

pw_status pw_generate_bunnies(pw_scene *s, const char *param) { return generate_bunnies(s, param, 0); }
pw_status pw_generate_bunnies_mixed(pw_scene *s, const char *param) { return generate_bunnies(s, param, 1); }
