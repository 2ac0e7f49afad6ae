/* Next-event estimation: choosing an emissive primitive in proportion to its
 * power (alias table, O(1)) and a direction toward it, and the density of
 * that choice for MIS when a BSDF-sampled ray hits the same light. */
#ifndef PW_LIGHT_SAMPLE_H
#define PW_LIGHT_SAMPLE_H

#include "core/sampling.h"
#include "geom/intersect.h"
#include "shade/environment.h"
#include "shade/scene_view.h"

typedef struct pw_light_sample {
    pw_vec3 wi;  /* unit direction from the shading point to the light */
    float dist;  /* distance to the sampled point */
    pw_vec3 Le;  /* emitted radiance toward the shading point */
    float pdf;   /* solid-angle density including the light's selection probability */
} pw_light_sample;

PW_HD uint32_t pw_light_pick(const pw_scene_view *s, float u)
{
    float x = u * (float)s->n_lights;
    uint32_t i = (uint32_t)x;
    if (i >= s->n_lights)
        i = s->n_lights - 1;
    return (x - (float)i) < s->alias_prob[i] ? i : s->alias_idx[i];
}

/* 1 - cos of the half-angle a sphere of radius r subtends from a point at
 * squared distance d2 (the cone's solid angle over 2 pi), or -1 if the
 * point is inside it. Written as s2 / (1 + sqrt(1 - s2)), with s2 the
 * squared sine: 1 - sqrt(1 - s2) loses the digits of a small or distant
 * light to cancellation (0.4% at r / d = 0.005 in float, a percent with the
 * GPU's approximate root), where every step here

 * keeps its relative error, approximations on the GPU included. */
PW_HD float pw_sphere_one_minus_cos(float r, float d2)
{
    float s2 = pw_div_approx(r * r, d2);
    return s2 < 1.0f ? pw_div_approx(s2, 1.0f + pw_sqrt_approx(1.0f - s2)) : -1.0f;
}

PW_HD int pw_emits_toward(const pw_material *m, int front, int is_sphere)
{
    return is_sphere || front || (m->flags & PW_MATF_TWO_SIDED);
}

/* lights: point, distant and spot lights have no area for a ray to hit,
 * so their one direction is taken with MIS weight 1. */
PW_HD int pw_light_is_delta(uint32_t type) { return type >= PW_LIGHT_POINT; }

/* lights: pbrt-v4's smoothstep: 0 below a, 1 above b, 3 t^2 - 2 t^3 of
 * t = (x - a) / (b - a) between; with a == b a step at a. */
PW_HD float pw_smoothstep(float x, float a, float b)
{
    if (a == b)
        return x < a ? 0.0f : 1.0f;
    float t = pw_minf(pw_maxf((x - a) / (b - a), 0.0f), 1.0f);
    return t * t * (3.0f - 2.0f * t);
}

/* lights: the share of a spot's axial intensity it sends at an angle
 * whose cosine to its axis is cos_theta. */
PW_HD float pw_spot_falloff(const pw_spot_cone *c, float cos_theta)
{
    return pw_smoothstep(cos_theta, c->cos_end, c->cos_start);
}

/* lights: the direction to a point, spot or distant light; pdf is then
 * the discrete probability of choosing the light. Returns 0 when p lies
 * outside a spot's cone (or on a point light). */
PW_HD int pw_delta_light_sample(const pw_scene_view *s, uint32_t li, pw_vec3 p, pw_light_sample *ls)
{
    pw_light l = s->lights[li];
    pw_delta_light d = s->delta_lights[l.prim];
    ls->pdf = s->light_pmf[li] * (1.0f - s->env_prob);
    if (l.type == PW_LIGHT_DISTANT) {
        ls->wi = d.v;
        ls->dist = PW_INF;
        ls->Le = d.L;
        return 1;
    }
    pw_vec3 to = v3_sub(d.v, p);
    float d2 = v3_len2(to);
    if (!(d2 > 0.0f))
        return 0;
    ls->dist = sqrtf(d2);
    ls->wi = v3_scale(to, 1.0f / ls->dist);
    float k = 1.0f / d2; /* intensity falls off as 1 / d^2 */
    if (l.type == PW_LIGHT_SPOT) {
        /* The light leaves the spot along -wi. */
        const pw_spot_cone *c = &s->delta_cones[l.prim];
        float falloff = pw_spot_falloff(c, -v3_dot(c->axis, ls->wi));
        if (!(falloff > 0.0f))
            return 0;
        k *= falloff;
    }
    ls->Le = v3_scale(d.L, k);
    return 1;
}

/* Samples a point on area light li (sphere or triangle; delta lights go
 * through pw_delta_light_sample) as seen from p. Returns 0 when it cannot
 * contribute (p inside a sphere light, behind a one-sided emitter). */
PW_HD int pw_light_sample_dir(const pw_scene_view *s, uint32_t li, pw_vec3 p, float u1, float u2, pw_light_sample *ls)
{
    pw_light l = s->lights[li];
    float pmf = s->light_pmf[li] * (1.0f - s->env_prob);
    if (pw_light_is_delta(l.type)) /* never here from a caller that knows them; no area to sample */
        return 0;
    if (l.type == PW_LIGHT_SPHERE) {
        pw_sphere sp = s->spheres[l.prim];
        pw_vec3 to_c = v3_sub(sp.c, p);
        float d2 = v3_len2(to_c);
        float omc = pw_sphere_one_minus_cos(sp.r, d2);
        if (omc < 0.0f)
            return 0;
        pw_vec3 w = v3_scale(to_c, pw_rsqrt(d2));
        ls->wi = pw_sample_cone(w, omc, u1, u2);
        float t = pw_intersect_sphere(p, ls->wi, sp.c, sp.r, 0.0f, PW_INF);
        ls->dist = t > 0.0f ? t : sqrtf(pw_maxf(0.0f, d2 - sp.r * sp.r));
        ls->Le = s->mats[s->sphere_mat[l.prim]].emission;
        ls->pdf = pmf / (2.0f * PW_PI * omc);
        return 1;
    }
    uint32_t tri = l.prim - s->n_spheres;
    const uint32_t *ix = s->tri_idx + 3 * tri;
    pw_vec3 p0 = s->pos[ix[0]], p1 = s->pos[ix[1]], p2 = s->pos[ix[2]];
    float b1, b2;
    pw_sample_triangle(u1, u2, &b1, &b2);
    pw_vec3 q = v3_add(v3_add(v3_scale(p0, 1.0f - b1 - b2), v3_scale(p1, b1)), v3_scale(p2, b2));
    pw_vec3 cr = v3_cross(v3_sub(p1, p0), v3_sub(p2, p0));
    float area2 = v3_len(cr);
    pw_vec3 to_q = v3_sub(q, p);
    float dist2 = v3_len2(to_q);
    if (area2 <= 0.0f || dist2 <= 0.0f)
        return 0;
    ls->dist = sqrtf(dist2);
    ls->wi = v3_scale(to_q, 1.0f / ls->dist);
    float cos_l = -v3_dot(ls->wi, cr) / area2;
    const pw_material *m = &s->mats[s->tri_mat[tri]];
    if (!pw_emits_toward(m, cos_l > 0.0f, 0) || cos_l == 0.0f)
        return 0;
    ls->Le = m->emission;
    ls->pdf = pmf * dist2 / (fabsf(cos_l) * 0.5f * area2);
    return 1;
}

/* Density with which pw_light_sample_dir would have chosen the point q (with
 * geometric normal ng) on primitive prim from p. */
PW_HD float pw_light_pdf(const pw_scene_view *s, uint32_t prim, pw_vec3 p, pw_vec3 q, pw_vec3 ng)
{
    uint32_t li = s->prim_light ? s->prim_light[prim] : PW_NO_LIGHT;
    if (li == PW_NO_LIGHT)
        return 0.0f;
    float pmf = s->light_pmf[li] * (1.0f - s->env_prob);
    if (pw_prim_is_sphere(s, prim)) {
        pw_sphere sp = s->spheres[prim];
        float omc = pw_sphere_one_minus_cos(sp.r, v3_len2(v3_sub(sp.c, p)));
        return omc < 0.0f ? 0.0f : pmf / (2.0f * PW_PI * omc);
    }
    const uint32_t *ix = s->tri_idx + 3 * (prim - s->n_spheres);
    pw_vec3 p0 = s->pos[ix[0]], p1 = s->pos[ix[1]], p2 = s->pos[ix[2]];
    float area = 0.5f * v3_len(v3_cross(v3_sub(p1, p0), v3_sub(p2, p0)));
    pw_vec3 to_q = v3_sub(q, p);
    float dist2 = v3_len2(to_q);
    float cos_l = fabsf(v3_dot(v3_scale(to_q, 1.0f / sqrtf(dist2)), ng));
    return cos_l > 0.0f && area > 0.0f ? pmf * dist2 / (cos_l * area) : 0.0f;
}

#endif
