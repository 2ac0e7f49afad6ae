/* Sphere groups: the cut into runs and the arrays a scene view points to. */
#include "accel/sphere_groups.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Surface area of the box around spheres order[first .. end), in double:
 * a sphere of radius 1e19 has a box area past float's range, and an
 * infinite cost would tie every cut. */
static double run_area(const pw_scene_view *s, const uint32_t *order, uint32_t first, uint32_t end)
{
    float lo[3], hi[3];
    pw_sphere_groups_box(s, order, first, end, lo, hi);
    double dx = (double)hi[0] - lo[0], dy = (double)hi[1] - lo[1], dz = (double)hi[2] - lo[2];
    return dx * dy + dy * dz + dz * dx;
}

void pw_sphere_groups_box(const pw_scene_view *s, const uint32_t *order, uint32_t first, uint32_t end, float lo[3],
                          float hi[3])
{
    for (int a = 0; a < 3; a++) {
        lo[a] = PW_INF;
        hi[a] = -PW_INF;
    }
    for (uint32_t i = first; i < end; i++) {
        pw_sphere sp = s->spheres[order[i]];
        float c[3] = {sp.c.x, sp.c.y, sp.c.z};
        float pad = (fabsf(c[0]) + fabsf(c[1]) + fabsf(c[2]) + sp.r) * 0x1p-16f;
        for (int a = 0; a < 3; a++) {
            lo[a] = pw_minf(lo[a], c[a] - sp.r - pad);
            hi[a] = pw_maxf(hi[a], c[a] + sp.r + pad);
        }
    }
}

/* Dynamic programming over the cut points: cost[i][k] is the least area
 * covering order[0 .. i) with k runs, from[i][k] where its last run starts. */
uint32_t pw_sphere_groups_cut(const pw_scene_view *s, uint32_t max_runs, uint32_t run_len,
                              uint32_t order[PW_GROUPS_MAX_SPHERES], uint32_t first[PW_GROUPS_MAX + 1])
{
    enum { N = PW_GROUPS_MAX_SPHERES, W = PW_GROUPS_MAX };
    uint32_t n = s->n_spheres, L = run_len;
    if (n > N || max_runs > W || max_runs * run_len < n)
        return 0;
    for (uint32_t i = 0; i < n; i++)
        order[i] = s->prim_ref[i];
    double cost[N + 1][W + 1];
    uint32_t from[N + 1][W + 1];
    for (uint32_t i = 0; i <= n; i++)
        for (uint32_t k = 0; k <= W; k++) {
            cost[i][k] = i == 0 && k == 0 ? 0.0 : (double)INFINITY;
            from[i][k] = 0;
        }
    for (uint32_t i = 1; i <= n; i++)
        for (uint32_t j = i > L ? i - L : 0; j < i; j++) {
            double a = run_area(s, order, j, i);
            for (uint32_t k = 1; k <= W; k++)
                if (cost[j][k - 1] + a < cost[i][k]) {
                    cost[i][k] = cost[j][k - 1] + a;
                    from[i][k] = j;
                }
        }
    uint32_t runs = 1;
    for (uint32_t k = 2; k <= max_runs; k++)
        if (cost[n][k] < cost[n][runs])
            runs = k;
    /* No finite cut (a box past double's range, or NaN from a bad sphere
     * the loader let through): decline, and the caller keeps its BVH. */
    if (!(cost[n][runs] < (double)INFINITY))
        return 0;
    first[runs] = n;
    for (uint32_t k = runs; k-- > 0;)
        first[k] = from[first[k + 1]][k + 1];
    return runs;
}

int pw_sphere_groups_build(const pw_scene_view *s, uint32_t max_runs, uint32_t run_len, pw_sphere_groups *out)
{
    memset(out, 0, sizeof *out);
    if (s->n_tris != 0 || s->n_spheres == 0 || s->n_spheres > PW_GROUPS_MAX_SPHERES || !s->prim_ref)
        return 0;
    uint32_t order[PW_GROUPS_MAX_SPHERES], first[PW_GROUPS_MAX + 1];
    uint32_t runs = pw_sphere_groups_cut(s, max_runs, run_len, order, first), n = s->n_spheres;
    if (runs == 0)
        return 0;
    out->groups = calloc(runs, sizeof *out->groups);
    out->spheres = calloc(n, sizeof *out->spheres);
    out->prims = calloc(n, sizeof *out->prims);
    if (!out->groups || !out->spheres || !out->prims) {
        pw_sphere_groups_free(out);
        return 0;
    }
    out->n_groups = runs;
    out->n_spheres = n;
    for (uint32_t k = 0; k < runs; k++) {
        pw_sphere_group *g = &out->groups[k];
        pw_sphere_groups_box(s, order, first[k], first[k + 1], g->lo, g->hi);
        g->first = first[k];
        g->count = first[k + 1] - first[k];
    }
    for (uint32_t i = 0; i < n; i++) {
        out->spheres[i] = s->spheres[order[i]];
        out->prims[i] = order[i];
    }
    return 1;
}

void pw_sphere_groups_free(pw_sphere_groups *g)
{
    free(g->groups);
    free(g->spheres);
    free(g->prims);
    memset(g, 0, sizeof *g);
}
