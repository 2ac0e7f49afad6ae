/* The light table: every emissive primitive and every point, spot and
 * distant light, chosen in proportion to its emitted power through an
 * alias table (Vose's method) so that drawing a light costs O(1) whatever
 * their number. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "shade/light_build.h"

/* Luminance, or the mean of the channels for colours without luminance. */
static float power_weight(pw_vec3 c)
{
    float l = v3_luminance(c);
    return l > 0.0f ? l : (c.x + c.y + c.z) / 3.0f;
}

static float prim_power(const pw_light_sources *s, uint32_t prim, const pw_material *m)
{
    float le = power_weight(m->emission);
    if (prim < s->prims.n_spheres) {
        float r = s->prims.spheres[prim].r;
        return le * PW_PI * 4.0f * PW_PI * r * r;
    }
    const uint32_t *ix = s->prims.tri_idx + 3 * (prim - s->prims.n_spheres);
    pw_vec3 p0 = s->prims.pos[ix[0]];
    float area = 0.5f * v3_len(v3_cross(v3_sub(s->prims.pos[ix[1]], p0), v3_sub(s->prims.pos[ix[2]], p0)));
    return le * PW_PI * area * ((m->flags & PW_MATF_TWO_SIDED) ? 2.0f : 1.0f);
}

static const pw_material *prim_material(const pw_light_sources *s, uint32_t prim)
{
    return &s->mats[prim < s->prims.n_spheres ? s->sphere_mat[prim] : s->tri_mat[prim - s->prims.n_spheres]];
}

/* lights: radius of a sphere around all geometry, for the power a distant
 * light sends into the scene. */
static float scene_radius(const pw_light_sources *s)
{
    pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
    for (uint32_t p = 0; p < s->prims.n_spheres + s->prims.n_tris; p++) {
        float bmin[3], bmax[3];
        pw_prim_bounds(&s->prims, p, bmin, bmax);
        lo = v3_min(lo, v3(bmin[0], bmin[1], bmin[2]));
        hi = v3_max(hi, v3(bmax[0], bmax[1], bmax[2]));
    }
    float r = 0.5f * v3_len(v3_sub(hi, lo));
    return r > 0.0f && isfinite(r) ? r : 1.0f;
}

/* lights: power of a point light (4 pi I), of a spot light (pbrt-v4's
 * Phi: 2 pi I (1 - (cos_start + cos_end) / 2), the full cone plus half the
 * falloff's band) or of a distant light over the disc the scene's bounding
 * sphere casts (pi r^2 E), as pbrt estimates them. */
static float delta_power(const pw_light_sources *s, uint32_t i, float radius)
{
    float w = power_weight(s->delta_lights[i].L);
    const pw_spot_cone *c = &s->delta_cones[i];
    switch (s->delta_type[i]) {
    case PW_LIGHT_POINT:
        return 4.0f * PW_PI * w;
    case PW_LIGHT_SPOT:
        return 2.0f * PW_PI * (1.0f - 0.5f * (c->cos_start + c->cos_end)) * w;
    default:
        return PW_PI * radius * radius * w;
    }
}

/* Vose's alias method: split probabilities into "small" and "large" and pair
 * each small slot with a large donor. */
static void build_alias(const float *pmf, uint32_t n, float *prob, uint32_t *alias, uint32_t *work)
{
    uint32_t *small = work, *large = work + n;
    uint32_t ns = 0, nl = 0;
    float *scaled = prob; /* reused in place */
    for (uint32_t i = 0; i < n; i++) {
        scaled[i] = pmf[i] * (float)n;
        alias[i] = i;
        if (scaled[i] < 1.0f)
            small[ns++] = i;
        else
            large[nl++] = i;
    }
    while (ns && nl) {
        uint32_t sm = small[--ns], lg = large[nl - 1];
        alias[sm] = lg;
        scaled[lg] -= 1.0f - scaled[sm];
        if (scaled[lg] < 1.0f) {
            nl--;
            small[ns++] = lg;
        }
    }
    while (nl)
        scaled[large[--nl]] = 1.0f;
    while (ns)
        scaled[small[--ns]] = 1.0f; /* only rounding leaves these */
}

pw_status pw_light_table_build(const pw_light_sources *s, const char *name, pw_light_table *t)
{
    memset(t, 0, sizeof *t);
    uint32_t n_prims = s->prims.n_spheres + s->prims.n_tris, n = 0;
    for (uint32_t p = 0; p < n_prims; p++)
        if (pw_material_is_light(prim_material(s, p)))
            n++;
    for (uint32_t i = 0; i < s->n_delta_lights; i++)
        n += !v3_is_zero(s->delta_lights[i].L);
    t->prim_light = malloc((size_t)n_prims * sizeof *t->prim_light);
    if (!t->prim_light)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for the light table", name);
    memset(t->prim_light, 0xff, (size_t)n_prims * sizeof *t->prim_light);
    if (n == 0)
        return PW_OK;
    t->lights = malloc(n * sizeof *t->lights);
    t->pmf = malloc(n * sizeof *t->pmf);
    t->alias_prob = malloc(n * sizeof *t->alias_prob);
    t->alias_idx = malloc(n * sizeof *t->alias_idx);
    uint32_t *work = malloc(2 * (size_t)n * sizeof *work);
    if (!t->lights || !t->pmf || !t->alias_prob || !t->alias_idx || !work) {
        free(work);
        pw_light_table_free(t);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for the light table", name);
    }
    double total = 0.0;
    for (uint32_t p = 0; p < n_prims; p++) {
        const pw_material *m = prim_material(s, p);
        if (!pw_material_is_light(m))
            continue;
        t->lights[t->count].type = p < s->prims.n_spheres ? PW_LIGHT_SPHERE : PW_LIGHT_TRIANGLE;
        t->lights[t->count].prim = p;
        t->pmf[t->count] = prim_power(s, p, m);
        total += t->pmf[t->count];
        t->prim_light[p] = t->count++;
    }
    float radius = s->n_delta_lights ? scene_radius(s) : 0.0f;
    for (uint32_t i = 0; i < s->n_delta_lights; i++) {
        if (v3_is_zero(s->delta_lights[i].L))
            continue;
        t->lights[t->count].type = s->delta_type[i];
        t->lights[t->count].prim = i;
        t->pmf[t->count] = delta_power(s, i, radius);
        total += t->pmf[t->count++];
    }
    for (uint32_t i = 0; i < n; i++)
        t->pmf[i] = total > 0.0 ? (float)(t->pmf[i] / total) : 1.0f / (float)n;
    build_alias(t->pmf, n, t->alias_prob, t->alias_idx, work);
    free(work);
    return PW_OK;
}

void pw_light_table_free(pw_light_table *t)
{
    free(t->lights);
    free(t->pmf);
    free(t->alias_prob);
    free(t->alias_idx);
    free(t->prim_light);
    memset(t, 0, sizeof *t);
}
