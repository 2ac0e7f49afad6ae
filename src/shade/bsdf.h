/* Materials: sampling and evaluation of each BSDF. A new material (GGX
 * conductor, rough dielectric) is one more case in each switch. */
#ifndef PW_BSDF_H
#define PW_BSDF_H

#include "core/rng.h"
#include "core/sampling.h"
#include "geom/surface.h"
#include "shade/ggx.h"

/* Below this GGX alpha a conductor is treated as a perfect mirror. */
#define PW_GGX_MIN_ALPHA 1e-3f

/* Which materials a caller may meet. A megakernel built for scenes without
 * microfacet materials passes PW_KINDS_BASIC as a literal, so the compiler
 * drops their code and the registers it would take (measured: about 9% on
 * the toy scene). */
#define PW_KINDS_BASIC 0u /* Lambert, toy metal, smooth dielectric */
#define PW_KINDS_ALL 1u   /* and the GGX conductor */

typedef struct pw_bsdf_sample {
    pw_vec3 wi;     /* sampled incident direction (unit) */
    pw_vec3 weight; /* f * |cos| / pdf */
    float pdf;      /* solid-angle density; 0 for specular lobes */
    int specular;   /* a delta or near-delta lobe: no light sampling, no MIS */
} pw_bsdf_sample;

/* Lobes without a density we can evaluate get no next-event estimation. */
PW_HD int pw_material_is_specular(const pw_material *m)
{
    return m->type == PW_MAT_CONDUCTOR ? m->roughness < PW_GGX_MIN_ALPHA : m->type != PW_MAT_LAMBERT;
}

/* Shading normal turned toward the side the ray came from (two-sided shading). */
PW_HD pw_vec3 pw_facing_normal(const pw_surface *sf, pw_vec3 d) { return v3_dot(sf->ns, d) < 0.0f ? sf->ns : v3_neg(sf->ns); }

/* Unpolarised Fresnel reflectance of a smooth dielectric boundary; eta is
 * n_incident / n_transmitted. Returns 1 on total internal reflection. */
PW_HD float pw_fresnel_dielectric(float cos_i, float eta, float *cos_t_out)
{
    float sin2_t = eta * eta * pw_maxf(0.0f, 1.0f - cos_i * cos_i);
    if (sin2_t >= 1.0f) {
        *cos_t_out = 0.0f;
        return 1.0f;
    }
    float cos_t = sqrtf(1.0f - sin2_t);
    float rs = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    float rp = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    *cos_t_out = cos_t;
    return 0.5f * (rs * rs + rp * rp);
}

/* f * |cos(wi)| and the solid-angle pdf of sampling wi, for non-specular
 * lobes, among the materials of kinds. */
PW_HD pw_vec3 pw_bsdf_eval_kinds(const pw_material *m, const pw_surface *sf, pw_vec3 d, pw_vec3 wi, float *pdf,
                                 uint32_t kinds)
{
    *pdf = 0.0f;
    if (kinds == PW_KINDS_ALL && m->type == PW_MAT_CONDUCTOR && m->roughness >= PW_GGX_MIN_ALPHA) {
        pw_frame fr = pw_frame_from_normal(pw_facing_normal(sf, d));
        pw_vec3 wo = pw_frame_to_local(&fr, v3_neg(d)), wl = pw_frame_to_local(&fr, wi);
        if (wo.z <= 0.0f || wl.z <= 0.0f)
            return v3s(0.0f);
        pw_vec3 h = v3_norm(v3_add(wo, wl));
        float a = m->roughness;
        float g2 = 1.0f / (1.0f + pw_ggx_lambda(wo, a) + pw_ggx_lambda(wl, a));
        pw_vec3 f = pw_fresnel_conductor(v3_dot(wo, h), m->eta, m->k);
        *pdf = pw_ggx_reflect_pdf(wo, wl, a);
        /* f cos = F D G2 / (4 wo.z) */
        return v3_scale(v3_mul(f, m->albedo), pw_ggx_d(h, a) * g2 / (4.0f * wo.z));
    }
    if (m->type != PW_MAT_LAMBERT)
        return v3s(0.0f);
    pw_vec3 nl = pw_facing_normal(sf, d);
    float c = v3_dot(wi, nl);
    if (c <= 0.0f)
        return v3s(0.0f);
    *pdf = c * PW_INV_PI;
    return v3_scale(m->albedo, c * PW_INV_PI);
}

/* Samples the incident direction for a ray arriving along d, among the
 * materials of kinds. Returns 0 when the path is absorbed. */
PW_HD int pw_bsdf_sample_kinds(const pw_material *m, const pw_surface *sf, pw_vec3 d, pw_rng *rng,
                               pw_bsdf_sample *out, uint32_t kinds)
{
    float u1 = pw_rng_next(rng), u2 = pw_rng_next(rng);
    uint32_t type = kinds == PW_KINDS_ALL || m->type != PW_MAT_CONDUCTOR ? m->type : (uint32_t)PW_MAT_COUNT;
    switch (type) {
    case PW_MAT_LAMBERT: {
        pw_vec3 nl = pw_facing_normal(sf, d);
        out->wi = pw_sample_cosine_about(nl, u1, u2);
        float c = v3_dot(out->wi, nl);
        if (c <= 0.0f)
            return 0;
        out->pdf = c * PW_INV_PI;
        out->weight = m->albedo;
        out->specular = 0;
        return 1;
    }
    case PW_MAT_METAL: {
        pw_vec3 nl = pw_facing_normal(sf, d);
        pw_vec3 refl = v3_reflect(d, nl);
        if (m->roughness > 0.0f)
            refl = v3_add(refl, v3_scale(pw_sample_unit_ball(u1, u2, pw_rng_next(rng)), m->roughness));
        out->wi = v3_norm(refl);
        out->pdf = 0.0f;
        out->weight = m->albedo;
        out->specular = 1;
        return v3_dot(out->wi, nl) > 0.0f;
    }
    case PW_MAT_DIELECTRIC: {
        pw_vec3 n = sf->front ? sf->ns : v3_neg(sf->ns);
        float eta = sf->front ? 1.0f / m->ior : m->ior;
        float cos_i = pw_minf(1.0f, -v3_dot(d, n));
        float cos_t;
        float f = pw_fresnel_dielectric(cos_i, eta, &cos_t);
        if (u1 < f)
            out->wi = v3_reflect(d, n);
        else
            out->wi = v3_norm(v3_add(v3_scale(d, eta), v3_scale(n, eta * cos_i - cos_t)));
        out->pdf = 0.0f;
        out->weight = m->albedo;
        out->specular = 1;
        return 1;
    }
    case PW_MAT_CONDUCTOR: {
        pw_frame fr = pw_frame_from_normal(pw_facing_normal(sf, d));
        pw_vec3 wo = pw_frame_to_local(&fr, v3_neg(d));
        if (wo.z <= 0.0f)
            return 0;
        float a = m->roughness;
        pw_vec3 h = a < PW_GGX_MIN_ALPHA ? v3(0.0f, 0.0f, 1.0f) : pw_ggx_sample_vndf(wo, a, u1, u2);
        pw_vec3 wl = v3_sub(v3_scale(h, 2.0f * v3_dot(wo, h)), wo);
        if (wl.z <= 0.0f)
            return 0;
        out->wi = pw_frame_to_world(&fr, wl);
        pw_vec3 f = v3_mul(pw_fresnel_conductor(v3_dot(wo, h), m->eta, m->k), m->albedo);
        if (a < PW_GGX_MIN_ALPHA) {
            out->pdf = 0.0f;
            out->weight = f;
            out->specular = 1;
            return 1;
        }
        /* f cos / pdf = F G2 / G1(wo) for visible-normal sampling. */
        float g1 = pw_ggx_g1(wo, a), g2 = 1.0f / (1.0f + pw_ggx_lambda(wo, a) + pw_ggx_lambda(wl, a));
        out->pdf = pw_ggx_reflect_pdf(wo, wl, a);
        out->weight = v3_scale(f, g2 / g1);
        out->specular = 0;
        return out->pdf > 0.0f;
    }
    default:
        return 0;
    }
}

PW_HD pw_vec3 pw_bsdf_eval(const pw_material *m, const pw_surface *sf, pw_vec3 d, pw_vec3 wi, float *pdf)
{
    return pw_bsdf_eval_kinds(m, sf, d, wi, pdf, PW_KINDS_ALL);
}

PW_HD int pw_bsdf_sample_dir(const pw_material *m, const pw_surface *sf, pw_vec3 d, pw_rng *rng, pw_bsdf_sample *out)
{
    return pw_bsdf_sample_kinds(m, sf, d, rng, out, PW_KINDS_ALL);
}

#endif
