/* The GGX (Trowbridge-Reitz) microfacet distribution with Smith masking,
 * sampled through its visible normals (Heitz, "Sampling the GGX
 * Distribution of Visible Normals", JCGT 2018), and the Fresnel
 * reflectance of a conductor with complex index eta + i k. Directions are
 * in the local frame of the shading normal (z up). */
#ifndef PW_GGX_H
#define PW_GGX_H

#include "core/vec3.h"

PW_HD float pw_ggx_d(pw_vec3 m, float alpha)
{
    if (m.z <= 0.0f)
        return 0.0f;
    float a2 = alpha * alpha, c2 = m.z * m.z;
    float t = c2 * (a2 - 1.0f) + 1.0f;
    return a2 / (PW_PI * t * t);
}

/* Smith's Lambda for GGX. */
PW_HD float pw_ggx_lambda(pw_vec3 w, float alpha)
{
    float c2 = w.z * w.z;
    if (c2 <= 0.0f)
        return 0.0f;
    float t2 = pw_maxf(0.0f, 1.0f - c2) / c2;
    return 0.5f * (-1.0f + sqrtf(1.0f + alpha * alpha * t2));
}

PW_HD float pw_ggx_g1(pw_vec3 w, float alpha) { return 1.0f / (1.0f + pw_ggx_lambda(w, alpha)); }

/* A visible normal for the view direction wo (wo.z > 0). */
PW_HD pw_vec3 pw_ggx_sample_vndf(pw_vec3 wo, float alpha, float u1, float u2)
{
    pw_vec3 vh = v3_norm(v3(alpha * wo.x, alpha * wo.y, wo.z));
    float len2 = vh.x * vh.x + vh.y * vh.y;
    pw_vec3 t1 = len2 > 0.0f ? v3_scale(v3(-vh.y, vh.x, 0.0f), 1.0f / sqrtf(len2)) : v3(1.0f, 0.0f, 0.0f);
    pw_vec3 t2 = v3_cross(vh, t1);
    float r = sqrtf(u1), sp, cp;
    pw_sincos(2.0f * PW_PI * u2, &sp, &cp);
    float p1 = r * cp, p2 = r * sp;
    float s = 0.5f * (1.0f + vh.z);
    p2 = (1.0f - s) * sqrtf(pw_maxf(0.0f, 1.0f - p1 * p1)) + s * p2;
    pw_vec3 nh = v3_add(v3_add(v3_scale(t1, p1), v3_scale(t2, p2)),
                        v3_scale(vh, sqrtf(pw_maxf(0.0f, 1.0f - p1 * p1 - p2 * p2))));
    return v3_norm(v3(alpha * nh.x, alpha * nh.y, pw_maxf(1e-6f, nh.z)));
}

/* Density of reflecting wo into wi through a sampled visible normal. */
PW_HD float pw_ggx_reflect_pdf(pw_vec3 wo, pw_vec3 wi, float alpha)
{
    pw_vec3 h = v3_add(wo, wi);
    float l2 = v3_len2(h);
    if (wo.z <= 0.0f || wi.z <= 0.0f || l2 <= 0.0f)
        return 0.0f;
    h = v3_scale(h, 1.0f / sqrtf(l2));
    return pw_ggx_g1(wo, alpha) * pw_ggx_d(h, alpha) / (4.0f * wo.z);
}

/* Unpolarised Fresnel reflectance of a conductor, per channel. */
PW_HD float pw_fresnel_conductor1(float c, float eta, float k)
{
    c = pw_minf(1.0f, pw_maxf(0.0f, c));
    float c2 = c * c, s2 = 1.0f - c2;
    float t0 = eta * eta - k * k - s2;
    float a2b2 = sqrtf(t0 * t0 + 4.0f * eta * eta * k * k);
    float a = sqrtf(pw_maxf(0.0f, 0.5f * (a2b2 + t0)));
    float rs = (a2b2 + c2 - 2.0f * a * c) / (a2b2 + c2 + 2.0f * a * c);
    float t1 = c2 * a2b2 + s2 * s2, t2 = 2.0f * a * c * s2;
    float rp = rs * (t1 - t2) / (t1 + t2);
    return 0.5f * (rs + rp);
}

PW_HD pw_vec3 pw_fresnel_conductor(float c, pw_vec3 eta, pw_vec3 k)
{
    return v3(pw_fresnel_conductor1(c, eta.x, k.x), pw_fresnel_conductor1(c, eta.y, k.y),
              pw_fresnel_conductor1(c, eta.z, k.z));
}

#endif
