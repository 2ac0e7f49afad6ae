/* Materials: sampling and evaluation of each BSDF. The microfacet materials
 * (GGX conductor, rough dielectric, glTF metallic-roughness) work in the
 * local frame of their normal, one function pair each, behind one dispatch
 * that a PW_KINDS_BASIC caller compiles out; docs/MATERIALS.md gives the
 * formulas and their sources. */
#ifndef PW_BSDF_H
#define PW_BSDF_H

#include "core/rng.h"
#include "core/sampling.h"
#include "shade/ggx.h"
#include "shade/surface.h"

/* Below this GGX alpha a conductor is treated as a perfect mirror and a
 * rough dielectric as a smooth one. */
#define PW_GGX_MIN_ALPHA 1e-3f
/* A rough dielectric whose index is this close to 1 does not bend light:
 * its transmission lobe collapses to a delta (the half vector of wo and
 * wi = -wo is undefined), so it is sampled as a specular lobe. */
#define PW_IOR_MATCHED_EPS 1e-3f

/* Which materials a caller may meet. A megakernel built for scenes without
 * microfacet materials passes PW_KINDS_BASIC as a literal, so the compiler
 * drops their code and the registers it would take (measured faster on
 * the toy scene; docs/PERFORMANCE.md). */
#define PW_KINDS_BASIC 0u /* Lambert, toy metal, smooth dielectric */
#define PW_KINDS_ALL 1u   /* and the microfacet ones: GGX conductor, rough dielectric, metallic-roughness */

/* The kinds a scene needs for this material (the renderer ORs them). */
PW_HD uint32_t pw_material_kinds(const pw_material *m)
{
    return m->type >= PW_MAT_CONDUCTOR ? PW_KINDS_ALL : PW_KINDS_BASIC;
}

typedef struct pw_bsdf_sample {
    pw_vec3 wi;     /* sampled incident direction (unit) */
    pw_vec3 weight; /* f * |cos| / pdf */
    float pdf;      /* solid-angle density; 0 for specular lobes */
    int specular;   /* a delta or near-delta lobe: no light sampling, no MIS */
} pw_bsdf_sample;

PW_HD int pw_rough_dielectric_is_delta(const pw_material *m)
{
    return m->roughness < PW_GGX_MIN_ALPHA || fabsf(m->ior - 1.0f) < PW_IOR_MATCHED_EPS;
}

/* Lobes without a density we can evaluate get no next-event estimation. */
PW_HD int pw_material_is_specular(const pw_material *m)
{
    switch (m->type) {
    case PW_MAT_LAMBERT:
    case PW_MAT_METALLIC_ROUGHNESS:
        return 0;
    case PW_MAT_CONDUCTOR:
        return m->roughness < PW_GGX_MIN_ALPHA;
    case PW_MAT_ROUGH_DIELECTRIC:
        return pw_rough_dielectric_is_delta(m);
    default:
        return 1;
    }
}

/* Shading normal turned toward the side the ray came from (two-sided
 * shading). d . ns in the order of pw_surface_at's d . ng, so that where
 * ns is ng the GPU computes the product once (its fused v3_dot is not
 * commutative to the compiler). */
PW_HD pw_vec3 pw_facing_normal(const pw_surface *sf, pw_vec3 d)
{
    return v3_dot(d, sf->ns) < 0.0f ? sf->ns : v3_neg(sf->ns);
}

/* a / b, through the GPU's approximation where approx is set (a literal). */
PW_HD float pw_div_maybe_approx(float a, float b, int approx) { return approx ? pw_div_approx(a, b) : a / b; }

/* Unpolarised Fresnel reflectance of a smooth dielectric boundary; eta is
 * n_incident / n_transmitted. Returns 1 on total internal reflection.
 * approx (a literal): the GPU's approximate square root and divisions
 * (exact on the host), which the smooth dielectric takes: the IEEE
 * sequences, with their slow paths, made its branch long (a noticeable
 * share of toy-small's instructions, run by few lanes). The microfacet
 * dielectric keeps IEEE: with the approximations the Veach scene's
 * megakernel, which holds that code without running it, ran a little
 * slower (docs/PERFORMANCE.md). */
PW_HD float pw_fresnel_dielectric_ex(float cos_i, float eta, float *cos_t_out, int approx)
{
    float sin2_t = eta * eta * pw_maxf(0.0f, 1.0f - cos_i * cos_i);
    if (sin2_t >= 1.0f) {
        *cos_t_out = 0.0f;
        return 1.0f;
    }
    float cos_t = approx ? pw_sqrt_approx(1.0f - sin2_t) : sqrtf(1.0f - sin2_t);
    float rs = pw_div_maybe_approx(eta * cos_i - cos_t, eta * cos_i + cos_t, approx);
    float rp = pw_div_maybe_approx(cos_i - eta * cos_t, cos_i + eta * cos_t, approx);
    float f = 0.5f * (rs * rs + rp * rp);
    *cos_t_out = cos_t;
    /* The approximate divisions can put |rs| or |rp| an ulp over 1 at a
     * grazing angle: clamped, so that 1 - f stays a weight. */
    return approx ? pw_minf(1.0f, f) : f;
}

PW_HD float pw_fresnel_dielectric(float cos_i, float eta, float *cos_t_out)
{
    return pw_fresnel_dielectric_ex(cos_i, eta, cos_t_out, 0);
}

/* Schlick's approximation F0 + (1 - F0) (1 - c)^5, per channel (glTF 2.0). */
PW_HD pw_vec3 pw_fresnel_schlick(float c, pw_vec3 f0)
{
    float m = 1.0f - pw_minf(1.0f, pw_maxf(0.0f, c)), m2 = m * m;
    return v3_add(f0, v3_scale(v3_sub(v3s(1.0f), f0), m2 * m2 * m));
}

/* Height-correlated Smith masking-shadowing 1 / (1 + Lambda(wo) + Lambda(wi))
 * (Heitz 2014). Used for transmission as well, as pbrt-v4 does; the exact
 * height-correlated term for opposite sides differs slightly. */
PW_HD float pw_ggx_g2(pw_vec3 wo, pw_vec3 wi, float alpha)
{
    return 1.0f / (1.0f + pw_ggx_lambda(wo, alpha) + pw_ggx_lambda(wi, alpha));
}

/* ---- GGX conductor. Local frame: z is the facing shading normal, wo.z > 0. */

PW_HD pw_vec3 pw_conductor_eval(const pw_material *m, pw_vec3 wo, pw_vec3 wl, float *pdf)
{
    if (m->roughness < PW_GGX_MIN_ALPHA || wl.z <= 0.0f)
        return v3s(0.0f);
    pw_vec3 h = v3_norm(v3_add(wo, wl));
    float a = m->roughness;
    pw_vec3 f = pw_fresnel_conductor(v3_dot(wo, h), m->eta, m->k);
    *pdf = pw_ggx_reflect_pdf(wo, wl, a);
    /* f cos = F D G2 / (4 wo.z) */
    return v3_scale(v3_mul(f, m->albedo), pw_ggx_d(h, a) * pw_ggx_g2(wo, wl, a) / (4.0f * wo.z));
}

PW_HD int pw_conductor_sample(const pw_material *m, pw_vec3 wo, float u1, float u2, pw_vec3 *wl, pw_bsdf_sample *out)
{
    float a = m->roughness;
    pw_vec3 h = a < PW_GGX_MIN_ALPHA ? v3(0.0f, 0.0f, 1.0f) : pw_ggx_sample_vndf(wo, a, u1, u2);
    *wl = v3_sub(v3_scale(h, 2.0f * v3_dot(wo, h)), wo);
    if (wl->z <= 0.0f)
        return 0;
    pw_vec3 f = v3_mul(pw_fresnel_conductor(v3_dot(wo, h), m->eta, m->k), m->albedo);
    if (a < PW_GGX_MIN_ALPHA) {
        out->pdf = 0.0f;
        out->weight = f;
        out->specular = 1;
        return 1;
    }
    /* f cos / pdf = F G2 / G1(wo) for visible-normal sampling. */
    out->pdf = pw_ggx_reflect_pdf(wo, *wl, a);
    out->weight = v3_scale(f, pw_ggx_g2(wo, *wl, a) / pw_ggx_g1(wo, a));
    out->specular = 0;
    return out->pdf > 0.0f;
}

/* ---- Rough dielectric (Walter et al., "Microfacet Models for Refraction
 * through Rough Surfaces", EGSR 2007). Local frame: z is the shading normal
 * on the side the ray arrives from (by the geometric normal, as for the
 * smooth dielectric), wo.z > 0; eta = n(wo side) / n(other side).
 *
 * Radiance convention: pathwave's paths carry radiance from the camera, and
 * radiance crossing an interface is scaled by (n_wo / n_wi)^2 = eta^2 (L /
 * n^2 is what is conserved along a ray), so the BTDF carries that factor and
 * is not symmetric. On a closed object seen from outside the factors of
 * entering and leaving cancel; they matter when the camera or a light sits
 * inside the medium, and for light samples taken from inside. (The smooth
 * PW_MAT_DIELECTRIC leaves the factor out, which gives the same images for
 * closed objects seen from outside and keeps its throughput at 1.) */

/* The microfacet normal of a refraction wo -> wl: along eta wo + wl, turned up. */
PW_HD pw_vec3 pw_refraction_half(pw_vec3 wo, pw_vec3 wl, float eta)
{
    pw_vec3 h = v3_add(v3_scale(wo, eta), wl);
    float l2 = v3_len2(h);
    if (l2 <= 0.0f)
        return v3s(0.0f);
    return v3_scale(h, (h.z < 0.0f ? -1.0f : 1.0f) / sqrtf(l2));
}

PW_HD pw_vec3 pw_rough_dielectric_eval(const pw_material *m, pw_vec3 wo, pw_vec3 wl, float eta, float *pdf)
{
    if (pw_rough_dielectric_is_delta(m) || wl.z == 0.0f)
        return v3s(0.0f);
    float a = m->roughness, g1 = pw_ggx_g1(wo, a), g2 = pw_ggx_g2(wo, wl, a), cos_t;
    if (wl.z > 0.0f) {
        /* Reflection: Jacobian d(omega_h) / d(omega_i) = 1 / (4 |wo.h|). */
        pw_vec3 h = v3_norm(v3_add(wo, wl));
        float f = pw_fresnel_dielectric(v3_dot(wo, h), eta, &cos_t), dh = pw_ggx_d(h, a);
        *pdf = f * g1 * dh / (4.0f * wo.z);
        return v3_scale(m->albedo, f * dh * g2 / (4.0f * wo.z));
    }
    pw_vec3 h = pw_refraction_half(wo, wl, eta);
    float co = v3_dot(wo, h), cl = v3_dot(wl, h);
    if (co <= 0.0f || cl >= 0.0f)
        return v3s(0.0f); /* the facet faces away from one of the two */
    float f = pw_fresnel_dielectric(co, eta, &cos_t), dh = pw_ggx_d(h, a);
    float denom = eta * co + cl;
    /* Refraction: d(omega_h) / d(omega_i) = n_wi^2 |wi.h| / (n_wo wo.h + n_wi wi.h)^2. */
    float jac = -cl / (denom * denom);
    float vis = (1.0f - f) * dh * co * jac / wo.z; /* (1 - F) D(h) (wo.h) / wo.z times the Jacobian */
    *pdf = g1 * vis;
    /* f cos = (1 - F) D G2 |wo.h| |wi.h| eta^2 / (wo.z (eta wo.h + wi.h)^2) */
    return v3_scale(m->albedo, vis * g2 * eta * eta);
}

PW_HD int pw_rough_dielectric_sample(const pw_material *m, pw_vec3 wo, float eta, float u1, float u2, float u3,
                                     pw_vec3 *wl, pw_bsdf_sample *out)
{
    int delta = pw_rough_dielectric_is_delta(m);
    float a = m->roughness;
    pw_vec3 h = a < PW_GGX_MIN_ALPHA ? v3(0.0f, 0.0f, 1.0f) : pw_ggx_sample_vndf(wo, a, u1, u2);
    float c = v3_dot(wo, h), cos_t;
    if (c <= 0.0f)
        return 0;
    float f = pw_fresnel_dielectric(c, eta, &cos_t);
    int reflect = u3 < f;
    if (reflect)
        *wl = v3_sub(v3_scale(h, 2.0f * c), wo);
    else
        *wl = v3_norm(v3_add(v3_scale(wo, -eta), v3_scale(h, eta * c - cos_t)));
    if (reflect ? wl->z <= 0.0f : wl->z >= 0.0f)
        return 0; /* scattered into the microsurface again: lost to single scattering */
    /* With the facet's Fresnel as the choice probability, f cos / pdf is
     * G2 / G1(wo), times eta^2 through the interface (radiance). */
    float g1 = pw_ggx_g1(wo, a), g = pw_ggx_g2(wo, *wl, a) / g1;
    out->weight = v3_scale(m->albedo, reflect ? g : g * eta * eta);
    out->specular = delta;
    out->pdf = 0.0f;
    if (delta)
        return 1;
    float vis = g1 * pw_ggx_d(h, a) * c / wo.z; /* the visible normal's density */
    if (reflect) {
        out->pdf = f * vis / (4.0f * c);
    } else {
        float cl = v3_dot(*wl, h), denom = eta * c + cl;
        out->pdf = (1.0f - f) * vis * -cl / (denom * denom);
    }
    return out->pdf > 0.0f;
}

/* ---- glTF 2.0 metallic-roughness (the core BRDF of the glTF 2.0
 * specification, appendix B, in the form of its implementation notes):
 * GGX specular with Schlick's Fresnel, F0 = lerp(dielectric F0, base,
 * metallic) with the dielectric's 0.04 unless KHR_materials_ior changes it,
 * plus Lambert diffuse of base (1 - metallic) weighted by 1 - F. albedo is
 * the base colour, roughness the GGX alpha (glTF roughness squared). Local
 * frame as the conductor's. */

/* Probability of sampling the specular lobe: the lobes' weights estimated
 * with Fresnel at the macro normal. It depends on wo only, so the density
 * of the mixture is the sum of the lobes' densities weighted by it. */
PW_HD float pw_mr_specular_prob(const pw_material *m, float cos_o)
{
    float metallic = pw_material_metallic(m);
    pw_vec3 f = pw_fresnel_schlick(cos_o, v3_lerp(v3s(pw_material_dielectric_f0(m)), m->albedo, metallic));
    float ws = v3_luminance(f);
    float wd = v3_luminance(v3_mul(v3_sub(v3s(1.0f), f), m->albedo)) * (1.0f - metallic);
    if (wd <= 0.0f)
        return 1.0f;
    /* Kept away from 0 and 1 so neither lobe is starved (a lobe whose
     * estimate is low still has bright spots at grazing half vectors). */
    return pw_minf(0.9f, pw_maxf(0.1f, ws / (ws + wd)));
}

PW_HD pw_vec3 pw_mr_eval(const pw_material *m, pw_vec3 wo, pw_vec3 wl, float *pdf)
{
    if (wl.z <= 0.0f)
        return v3s(0.0f);
    float a = pw_maxf(m->roughness, PW_GGX_MIN_ALPHA), metallic = pw_material_metallic(m);
    pw_vec3 h = v3_norm(v3_add(wo, wl));
    pw_vec3 f = pw_fresnel_schlick(v3_dot(wo, h), v3_lerp(v3s(pw_material_dielectric_f0(m)), m->albedo, metallic));
    float dh = pw_ggx_d(h, a), ps = pw_mr_specular_prob(m, wo.z);
    *pdf = ps * pw_ggx_g1(wo, a) * dh / (4.0f * wo.z) + (1.0f - ps) * wl.z * PW_INV_PI;
    pw_vec3 spec = v3_scale(f, dh * pw_ggx_g2(wo, wl, a) / (4.0f * wo.z));
    pw_vec3 diff = v3_scale(v3_mul(v3_sub(v3s(1.0f), f), m->albedo), (1.0f - metallic) * wl.z * PW_INV_PI);
    return v3_add(spec, diff);
}

/* One lobe sampled, weighted by the whole BSDF over the mixture density
 * (one-sample MIS with the balance heuristic over the lobes). */
PW_HD int pw_mr_sample(const pw_material *m, pw_vec3 wo, float u1, float u2, float u3, pw_vec3 *wl,
                       pw_bsdf_sample *out)
{
    if (u3 < pw_mr_specular_prob(m, wo.z)) {
        pw_vec3 h = pw_ggx_sample_vndf(wo, pw_maxf(m->roughness, PW_GGX_MIN_ALPHA), u1, u2);
        *wl = v3_sub(v3_scale(h, 2.0f * v3_dot(wo, h)), wo);
    } else {
        *wl = pw_sample_cosine_about(v3(0.0f, 0.0f, 1.0f), u1, u2);
    }
    if (wl->z <= 0.0f)
        return 0;
    pw_vec3 fc = pw_mr_eval(m, wo, *wl, &out->pdf);
    if (!(out->pdf > 0.0f))
        return 0;
    out->weight = v3_scale(fc, 1.0f / out->pdf);
    out->specular = 0;
    return 1;
}

/* ---- Dispatch. */

/* The local frame of a microfacet material: the facing shading normal for
 * the two-sided reflectors, the normal on the arriving side by the
 * geometric normal for the dielectric (its inside differs from its outside). */
PW_HD pw_frame pw_microfacet_frame(const pw_material *m, const pw_surface *sf, pw_vec3 d, float *eta)
{
    int dielectric = m->type == PW_MAT_ROUGH_DIELECTRIC;
    *eta = sf->front ? 1.0f / m->ior : m->ior;
    return pw_frame_from_normal(dielectric ? (sf->front ? sf->ns : v3_neg(sf->ns)) : pw_facing_normal(sf, d));
}

PW_HD pw_vec3 pw_microfacet_eval(const pw_material *m, const pw_surface *sf, pw_vec3 d, pw_vec3 wi, float *pdf)
{
    float eta;
    pw_frame fr = pw_microfacet_frame(m, sf, d, &eta);
    pw_vec3 wo = pw_frame_to_local(&fr, v3_neg(d)), wl = pw_frame_to_local(&fr, wi);
    if (wo.z <= 0.0f)
        return v3s(0.0f);
    switch (m->type) {
    case PW_MAT_CONDUCTOR:
        return pw_conductor_eval(m, wo, wl, pdf);
    case PW_MAT_ROUGH_DIELECTRIC:
        return pw_rough_dielectric_eval(m, wo, wl, eta, pdf);
    case PW_MAT_METALLIC_ROUGHNESS:
        return pw_mr_eval(m, wo, wl, pdf);
    default:
        return v3s(0.0f);
    }
}

/* For the microfacet types only (the callers send no others). */
PW_HD int pw_microfacet_sample(const pw_material *m, const pw_surface *sf, pw_vec3 d, float u1, float u2,
                               pw_rng *rng, pw_bsdf_sample *out)
{
    float eta;
    pw_frame fr = pw_microfacet_frame(m, sf, d, &eta);
    pw_vec3 wo = pw_frame_to_local(&fr, v3_neg(d)), wl;
    if (wo.z <= 0.0f)
        return 0;
    int ok;
    switch (m->type) {
    case PW_MAT_CONDUCTOR:
        ok = pw_conductor_sample(m, wo, u1, u2, &wl, out);
        break;
    case PW_MAT_ROUGH_DIELECTRIC:
        ok = pw_rough_dielectric_sample(m, wo, eta, u1, u2, pw_rng_next(rng), &wl, out);
        break;
    case PW_MAT_METALLIC_ROUGHNESS:
        ok = pw_mr_sample(m, wo, u1, u2, pw_rng_next(rng), &wl, out);
        break;
    default:
        return 0;
    }
    /* Normalised, as the smooth dielectric's reflection (pw_bsdf_sample_kinds):
     * a direction off unit length drifts further at each bounce. */
    out->wi = v3_norm_approx(pw_frame_to_world(&fr, wl));
    return ok;
}

/* f * |cos(wi)| and the solid-angle pdf of sampling wi, for non-specular
 * lobes, among the materials of kinds. */
PW_HD pw_vec3 pw_bsdf_eval_kinds(const pw_material *m, const pw_surface *sf, pw_vec3 d, pw_vec3 wi, float *pdf,
                                 uint32_t kinds)
{
    *pdf = 0.0f;
    if (kinds == PW_KINDS_ALL && m->type >= PW_MAT_CONDUCTOR)
        return pw_microfacet_eval(m, sf, d, wi, pdf);
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
 * materials of kinds. Returns 0 when the path is absorbed. Every branch
 * returns a unit out->wi, normalised where rounding could move it off:
 * the next ray's sphere tests assume a unit direction, and a small error
 * grows from bounce to bounce (the smooth dielectric's reflection). */
PW_HD int pw_bsdf_sample_kinds(const pw_material *m, const pw_surface *sf, pw_vec3 d, pw_rng *rng,
                               pw_bsdf_sample *out, uint32_t kinds)
{
    /* Two numbers of 24 bits: one pw_rng_next2 for both made toy-small
     * a little faster but the bunny's megakernel slower (docs/PERFORMANCE.md). */

    float u1 = pw_rng_next(rng), u2 = pw_rng_next(rng);
    /* One switch over the type, with the microfacet types unreachable for
     * PW_KINDS_BASIC: nvcc spills less this way than with a test before
     * the switch. */
    uint32_t type = kinds == PW_KINDS_ALL || m->type < PW_MAT_CONDUCTOR ? m->type : (uint32_t)PW_MAT_COUNT;
    switch (type) {
    case PW_MAT_CONDUCTOR:
    case PW_MAT_ROUGH_DIELECTRIC:
    case PW_MAT_METALLIC_ROUGHNESS:
        return pw_microfacet_sample(m, sf, d, u1, u2, rng, out);
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
        out->wi = v3_norm_approx(refl);
        out->pdf = 0.0f;
        out->weight = m->albedo;
        out->specular = 1;
        return v3_dot(out->wi, nl) > 0.0f;
    }
    case PW_MAT_DIELECTRIC: {
        pw_vec3 n = sf->front ? sf->ns : v3_neg(sf->ns);
        float eta = sf->front ? pw_rcp(m->ior) : m->ior;
        float cos_i = pw_minf(1.0f, -v3_dot(d, n));
        float cos_t;
        float f = pw_fresnel_dielectric_ex(cos_i, eta, &cos_t, 1);
        /* The reflection is normalised too: inside a sphere, a direction
         * a few ulps off unit length put the next hit (o + t d, t from a
         * test that assumes a unit direction) off the surface, whose
         * normal then put the next direction further off, several times
         * as far each bounce (more near normal incidence), until the ray
         * met the surface past the critical angle and circled inside by
         * total internal reflection for good (test_furnace's white_cluster
         * lost such paths). */
        if (u1 < f)
            out->wi = v3_norm_approx(v3_reflect(d, n));
        else
            out->wi = v3_norm_approx(v3_add(v3_scale(d, eta), v3_scale(n, eta * cos_i - cos_t)));
        out->pdf = 0.0f;
        out->weight = m->albedo;
        out->specular = 1;
        return 1;
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
