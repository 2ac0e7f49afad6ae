/* Stage shade surface: at a path's hit, its emission, the light samples
 * it wants traced (into a shadow sink, stage_shadow.h), the BSDF sample
 * of its next direction and Russian roulette. */
#ifndef PW_STAGE_SHADE_SURFACE_H
#define PW_STAGE_SHADE_SURFACE_H

#include "integrator/path_state.h"
#include "integrator/stage_shadow.h"
#include "shade/bsdf.h"
#include "shade/environment.h"
#include "shade/light_sample.h"
#include "shade/texture.h"

/* The origins of the rays that leave the surface at sf (pw_offsets,
 * geom/ray.h); cache: precompute the triangles' offset toward the side
 * the arriving ray came from, for several rays. */
PW_HD pw_offsets pw_surface_offsets(const pw_scene_view *s, const pw_surface *sf, pw_vec3 arriving, int cache)
{
    int sphere = pw_prim_is_sphere(s, sf->prim);
    return pw_offsets_make(sf->p, sf->ng, arriving, sphere, sphere ? s->spheres[sf->prim].r : 0.0f, cache);
}

/* Length of a shadow ray from its (offset) origin to a sphere light: the
 * distance from the shading point would let the offset ray reach into the
 * light near the edge of its cone, and the light would shadow itself. The
 * ray stops 1e-4 of its length short, far more than the sphere test's
 * rounding. Where rounding lets the ray miss the sphere, it stops at
 * sqrt(fallback2) instead, a length the caller gives squared, so that the
 * square root is taken only there. */
PW_HD float pw_shadow_tmax_sphere(pw_sphere sp, pw_vec3 origin, pw_vec3 dir, float fallback2)
{
    float t = pw_intersect_sphere(origin, dir, sp.c, sp.r, 0.0f, PW_INF);
    return (t > 0.0f ? t : sqrtf(fallback2)) * 0.9999f;
}

/* Emission of the surface just hit, weighted against light sampling. */
PW_HD void pw_path_add_emission(const pw_scene_view *s, const pw_render_params *prm, pw_path *p,
                                const pw_surface *sf, const pw_material *m)
{
    if (v3_is_zero(m->emission) || !pw_emits_toward(m, sf->front, pw_prim_is_sphere(s, sf->prim)))
        return;
    float w = 1.0f;
    if (prm->light_mode == PW_LIGHT_MODE_TOY) {
        if (!(p->flags & PW_PATH_COUNT_EMISSION))
            return;
    } else if (prm->light_mode == PW_LIGHT_MODE_MIS && !(p->flags & PW_PATH_SPECULAR)) {
        w = pw_power_heuristic(p->prev_pdf, pw_light_pdf(s, sf->prim, p->ray.o, sf->p, sf->ng));
    }
    p->L = v3_add_rn(p->L, v3_scale(v3_mul(p->beta, m->emission), w));
}

/* The toy tracer's light sampling at a Lambert hit: one cone-sampled shadow
 * ray to every emissive sphere but the one hit, weighted by its solid angle. */
PW_HD int pw_path_toy_lights(const pw_scene_view *s, const pw_path *p, const pw_surface *sf, const pw_material *m,
                             const pw_offsets *off, pw_rng *rng, const pw_shadow_sink *out)
{
    int n = 0;
    pw_vec3 nl = pw_facing_normal(sf, p->ray.d);
    for (uint32_t i = 0; i < s->n_lights && n < PW_MAX_SHADOW; i++) {
        pw_light l = s->lights[i];
        if (l.type != PW_LIGHT_SPHERE || l.prim == sf->prim)
            continue;
        pw_sphere sp = s->spheres[l.prim];
        pw_vec3 to_c = v3_sub(sp.c, sf->p);
        float d2 = v3_len2(to_c);
        float u1, u2;
        pw_rng_next2(rng, &u1, &u2);
        float omc = pw_sphere_one_minus_cos(sp.r, d2);
        if (omc < 0.0f)
            continue;
        pw_vec3 dir = pw_sample_cone(v3_scale(to_c, pw_rsqrt(d2)), omc, u1, u2);
        float omega = 2.0f * PW_PI * omc;
        pw_vec3 le = s->mats[s->sphere_mat[l.prim]].emission;
        pw_vec3 o = pw_offsets_for(off, dir);
        /* Missed by rounding: the length of the tangent. */
        float tmax = pw_shadow_tmax_sphere(sp, o, dir, pw_maxf(0.0f, d2 - sp.r * sp.r));
        pw_vec3 contrib =
            v3_scale(v3_mul(v3_mul(p->beta, m->albedo), le), pw_maxf(0.0f, v3_dot(dir, nl)) * omega * PW_INV_PI);
        pw_sink_put(out, n++, o, dir, tmax, contrib);
    }
    return n;
}

/* One power-proportional light sample with MIS against the BSDF. */
PW_HD int pw_path_sample_light(const pw_scene_view *s, const pw_path *p, const pw_surface *sf, const pw_material *m,
                               const pw_offsets *off, pw_rng *rng, const pw_shadow_sink *out, uint32_t kinds)
{
    /* Three numbers of 24 bits: an environment map is sampled by
     * inverting its tables (pw_rng_next2's 16 bits would miss entries). */
    float ul = pw_rng_next(rng), u1 = pw_rng_next(rng), u2 = pw_rng_next(rng);
    if ((s->n_lights == 0 && s->env_prob == 0.0f) || pw_material_is_specular(m))
        return 0;
    pw_light_sample ls;
    uint32_t li = PW_NO_LIGHT;
    int delta = 0;
    /* An environment map: only in scenes of kinds other than PW_KINDS_BASIC
     * (pw_path_miss), so the basic kernels compile its sampling out. */
    if (kinds != PW_KINDS_BASIC && ul < s->env_prob) {
        /* The environment map: a direction by luminance, unbounded. */
        float pdf;
        if (!pw_env_sample(&s->env, u1, u2, &ls.wi, &pdf))
            return 0;
        ls.pdf = s->env_prob * pdf;
        ls.dist = PW_INF;
        ls.Le = pw_env_radiance(&s->env, ls.wi);
    } else {
        li = pw_light_pick(s, (ul - s->env_prob) / (1.0f - s->env_prob));
        /* lights: scenes with point or distant lights run with kinds other
         * than PW_KINDS_BASIC, so the basic megakernel compiles them out. */
        delta = kinds != PW_KINDS_BASIC && pw_light_is_delta(s->lights[li].type);
        int ok = delta ? pw_delta_light_sample(s, li, sf->p, &ls) : pw_light_sample_dir(s, li, sf->p, u1, u2, &ls);
        if (!ok || ls.pdf <= 0.0f)
            return 0;
    }
    float bsdf_pdf;
    pw_vec3 f = pw_bsdf_eval_kinds(m, sf, p->ray.d, ls.wi, &bsdf_pdf, kinds);
    if (v3_is_zero(f))
        return 0;
    /* lights: BSDF sampling never finds a point or distant light, so its
     * own sample carries the full weight. */
    float w = delta ? 1.0f : pw_power_heuristic(ls.pdf, bsdf_pdf);
    pw_vec3 o = pw_offsets_for(off, ls.wi);
    float tmax = PW_INF;
    if (li != PW_NO_LIGHT && ls.dist != PW_INF) {
        pw_light l = s->lights[li];
        tmax = l.type == PW_LIGHT_SPHERE ? pw_shadow_tmax_sphere(s->spheres[l.prim], o, ls.wi, ls.dist * ls.dist)
                                         : ls.dist * 0.9999f;
    }
    pw_sink_put(out, 0, o, ls.wi, tmax, v3_scale(v3_mul(v3_mul(p->beta, f), ls.Le), w / ls.pdf));
    return 1;
}

/* Shades the hit: adds emission, puts up to PW_MAX_SHADOW shadow rays into
 * shadows (*n_shadows of them), samples the next direction and plays
 * Russian roulette. Next: intersect while the path goes on, with p->ray
 * set to the next segment, else the end (either once the shadow rays are
 * traced). */
PW_HD pw_next pw_path_shade(const pw_scene_view *s, const pw_render_params *prm, pw_path *p, const pw_hit *h,
                        const pw_shadow_sink *shadows, int *n_shadows, uint32_t kinds)
{
    *n_shadows = 0;
    pw_surface sf = pw_surface_at(s, p->ray, h);
    const pw_material *m = &s->mats[sf.mat];
    /* textures: a textured material is shaded through a copy with this
     * point's albedo, metallic, roughness and emission, and its normal map
     * bends the shading normal (the geometric one stays for offsets and
     * sides). Scenes with textures run with kinds other than
     * PW_KINDS_BASIC, so the basic megakernel compiles this out. */
    pw_material textured;
    if (kinds != PW_KINDS_BASIC && PW_MAT_IS_TEXTURED(m)) {
        float u, v;
        pw_surface_uv(s, h, &sf, &u, &v);
        textured = pw_material_textured(s, m, u, v);
        if (PW_MAT_HAS_MAPS(m))
            pw_surface_normal_map(s, h, m, u, v, &sf);
        m = &textured;
    }
    pw_path_add_emission(s, prm, p, &sf, m);
    if (p->depth >= prm->max_depth)
        return PW_NEXT_END;
    pw_rng rng = pw_rng_for_bounce(p->key, p->depth + 1);
    /* A toy Lambert hit sends three rays from the point, usually all on
     * the side the path arrived from: off a triangle, the CPU computes
     * that offset once (the same values; on the GPU keeping it live costs
     * spills). */
    int toy_lambert = prm->light_mode == PW_LIGHT_MODE_TOY && m->type == PW_MAT_LAMBERT;
    pw_offsets off = pw_surface_offsets(s, &sf, p->ray.d, toy_lambert && !PW_DEVICE_CODE);
    if (toy_lambert)
        *n_shadows = pw_path_toy_lights(s, p, &sf, m, &off, &rng, shadows);
    else if (prm->light_mode == PW_LIGHT_MODE_MIS)
        *n_shadows = pw_path_sample_light(s, p, &sf, m, &off, &rng, shadows, kinds);
    pw_bsdf_sample bs;
    if (!pw_bsdf_sample_kinds(m, &sf, p->ray.d, &rng, &bs, kinds))
        return PW_NEXT_END;
    p->beta = v3_mul(p->beta, bs.weight);
    p->prev_pdf = bs.pdf;
    /* The next ray's self hint (accel/trace.h). Renders of every material
     * kind leave it unknown: their kernels walk no structure that reads it,
     * and making it slowed their megakernel on the Veach scene
     * (docs/PERFORMANCE.md). */
    uint32_t self = kinds == PW_KINDS_BASIC ? pw_self_hint(s, h->prim) : PW_SELF_UNKNOWN;
    p->flags = (bs.specular ? PW_PATH_SPECULAR : 0u) | (m->type != PW_MAT_LAMBERT ? PW_PATH_COUNT_EMISSION : 0u) |
               self << PW_PATH_SELF_SHIFT;
    p->ray.o = pw_offsets_for(&off, bs.wi);
    p->ray.d = bs.wi;
    p->depth++;
    if (p->depth >= prm->rr_depth) {
        float survive = pw_minf(1.0f, v3_maxc(p->beta));
        if (pw_rng_next(&rng) >= survive)
            return PW_NEXT_END;
        p->beta = v3_scale(p->beta, pw_div_approx(1.0f, survive));
    }
    return v3_is_zero(p->beta) ? PW_NEXT_END : PW_NEXT_INTERSECT;
}

#endif
