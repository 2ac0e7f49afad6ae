/* BSDF sampling against the BSDF's own density and value.
 *
 * chi-square: directions sampled by pw_bsdf_sample_dir fall into bins of
 * the hemisphere, or of the whole sphere for the rough dielectric (16 in
 * theta per hemisphere x 32 in phi), as often as the integral of the
 * density pw_bsdf_eval reports over each bin (midpoint quadrature, 16 x 16
 * points a bin, 64 x 16 on the sphere) predicts, with the samples the
 * sampler rejects as one more bin. Pearson's statistic must stay under its
 * 99.9% quantile; bins expecting fewer than 5 samples are pooled. A wrong
 * pdf (a missing G1, a missing Jacobian 1 / (4 wo.h) or the refraction
 * one) or a sampler that does not draw what it reports fails by orders of
 * magnitude.
 *
 * Consistency: every sample's pdf equals eval's pdf for its direction, and
 * its weight equals eval's f cos over that pdf, to float tolerance.
 * Weight: the mean of the sample weights f cos / pdf estimates the
 * directional albedo, reflected and transmitted apart; each must match the
 * quadrature of f cos within 5 standard errors. Energy: a conductor with
 * Fresnel 1 never reflects more than it receives, loses almost nothing when
 * smooth, and loses more as it gets rougher (single scattering); likewise
 * the rough dielectric's reflection plus transmission and the glTF
 * material's lobes. Limits: a nearly smooth rough dielectric reflects the
 * smooth one's Fresnel reflectance, an index-matched one passes light
 * straight through with an analytic weight. */
#include "test_common.h"

#include "scene/scene.h"
#include "shade/bsdf.h"

#define NT 16 /* bins in theta per hemisphere */
#define NP 32
#define Q 16 /* quadrature points per bin in phi, and in theta for hemisphere cases */
#define QT_SPHERE 64 /* in theta for sphere cases */
#define PI_D 3.141592653589793

static pw_surface flat_surface(void)
{
    pw_surface sf;
    memset(&sf, 0, sizeof sf);
    sf.ng = sf.ns = v3(0, 0, 1);
    sf.front = 1;
    return sf;
}

static pw_vec3 sphere_dir(double theta, double phi)
{
    return v3((float)(sin(theta) * cos(phi)), (float)(sin(theta) * sin(phi)), (float)cos(theta));
}

/* A material seen from direction theta_deg off the normal, from outside
 * (front) or from inside (the ray arrives from below, as when leaving a
 * dielectric); sphere: its directions cover both hemispheres. */
typedef struct bsdf_case {
    pw_material m;
    float theta_deg;
    int inside, sphere;
} bsdf_case;

/* What check_case measured: sampled and quadrature albedo split by the side
 * wi lies on (the side of wo: reflection; the other: transmission). */
typedef struct bsdf_result {
    double refl, trans, refl_se, trans_se;
    double refl_q, trans_q;
} bsdf_result;

/* The ray direction of a case: wo makes theta_deg with +z, or with -z inside. */
static pw_vec3 case_dir(const bsdf_case *c, pw_surface *sf)
{
    float th = c->theta_deg * 3.14159265f / 180.0f;
    *sf = flat_surface();
    sf->front = !c->inside;
    return v3(-sinf(th), 0.0f, c->inside ? cosf(th) : -cosf(th));
}

static int wo_side(const bsdf_case *c, pw_vec3 wi) { return c->inside ? wi.z < 0.0f : wi.z > 0.0f; }

/* The chi-square bins are uniform in theta (16 per hemisphere) and phi
 * (32); each bin's probability is the pdf integrated by the midpoint rule in
 * theta and phi with the sin theta of the solid angle. Bins uniform in
 * theta (not cos theta) keep a refracted lobe, which is narrower than the
 * reflected one, resolved near the pole. */
static bsdf_result check_case(const bsdf_case *c)
{
    pw_surface sf;
    pw_vec3 d = case_dir(c, &sf);
    const int nt = c->sphere ? 2 * NT : NT, qt = c->sphere ? QT_SPHERE : Q;
    static double prob[2 * NT * NP];
    double total_p = 0.0, alb[2] = {0, 0};
    for (int t = 0; t < nt; t++)
        for (int p = 0; p < NP; p++) {
            double acc = 0.0;
            for (int a = 0; a < qt; a++)
                for (int b = 0; b < Q; b++) {
                    double th = (t + (a + 0.5) / qt) * (PI_D / 2) / NT, phi = 2 * PI_D * (p + (b + 0.5) / Q) / NP;
                    double dw = sin(th) * ((PI_D / 2) / NT) * (2 * PI_D / NP) / (qt * Q);
                    float pdf;
                    pw_vec3 wi = sphere_dir(th, phi);
                    pw_vec3 f = pw_bsdf_eval(&c->m, &sf, d, wi, &pdf);
                    acc += pdf * dw;
                    alb[!wo_side(c, wi)] += f.x * dw; /* eval returns f cos already */
                }
            prob[t * NP + p] = acc;
            total_p += acc;
        }
    const int n = 300000;
    static int hist[2 * NT * NP];
    memset(hist, 0, sizeof hist);
    int rejected = 0;
    double wsum[2] = {0, 0}, wsum2[2] = {0, 0}, worst = 0.0;
    for (int k = 0; k < n; k++) {
        pw_rng rng = pw_rng_for_bounce(pw_path_key(77, (uint32_t)k, 0), 1);
        pw_bsdf_sample bs;
        double w[2] = {0, 0};
        if (!pw_bsdf_sample_dir(&c->m, &sf, d, &rng, &bs) || (!c->sphere && bs.wi.z <= 0.0f)) {
            rejected++;
        } else {
            w[!wo_side(c, bs.wi)] = bs.weight.x;
            double th = acos(fmax(-1.0, fmin(1.0, bs.wi.z)));
            int t = (int)(th / (PI_D / 2) * NT), p = (int)((atan2(bs.wi.y, bs.wi.x) + (bs.wi.y < 0 ? 2 * PI_D : 0)) /
                                                        (2 * PI_D) * NP);
            t = t < 0 ? 0 : (t >= nt ? nt - 1 : t);
            p = p < 0 ? 0 : (p >= NP ? NP - 1 : p);
            hist[t * NP + p]++;
            /* Each sample agrees with eval: the same pdf, weight = f cos / pdf. */
            float pdf_e;
            pw_vec3 f = pw_bsdf_eval(&c->m, &sf, d, bs.wi, &pdf_e);
            double e_pdf = fabs(pdf_e / bs.pdf - 1.0);
            for (int ch = 0; ch < 3; ch++) {
                double wv = v3_get(bs.weight, ch), we = v3_get(f, ch) / bs.pdf;
                e_pdf = fmax(e_pdf, fabs(wv - we) / fmax(1e-3, fabs(we)));
            }
            if (!(e_pdf <= worst))
                worst = e_pdf; /* NaN sticks */
        }
        for (int s = 0; s < 2; s++) {
            wsum[s] += w[s];
            wsum2[s] += w[s] * w[s];
        }
    }
    double chi2 = 0, pooled_e = 0, pooled_o = 0;
    int dof = 0;
    for (int i = 0; i < nt * NP; i++) {
        double e = prob[i] * n;
        if (e < 5.0) {
            pooled_e += e;
            pooled_o += hist[i];
            continue;
        }
        chi2 += (hist[i] - e) * (hist[i] - e) / e;
        dof++;
    }
    double rej_e = fmax(0.0, 1.0 - total_p) * n;
    pooled_e += rej_e;
    pooled_o += rejected;
    if (pooled_e >= 5.0) {
        chi2 += (pooled_o - pooled_e) * (pooled_o - pooled_e) / pooled_e;
        dof++;
    }
    dof -= 1;
    double z = 3.09, q = dof * pow(1.0 - 2.0 / (9.0 * dof) + z * sqrt(2.0 / (9.0 * dof)), 3.0);
    bsdf_result r;
    double *mean[2] = {&r.refl, &r.trans}, *se[2] = {&r.refl_se, &r.trans_se};
    for (int s = 0; s < 2; s++) {
        *mean[s] = wsum[s] / n;
        *se[s] = sqrt(fmax(0.0, wsum2[s] / n - *mean[s] * *mean[s]) / n);
    }
    r.refl_q = alb[0];
    r.trans_q = alb[1];
    printf("type %u alpha %.3f ior %.2f metallic %.2f, theta %2.0f%s: chi-square %.1f over %d dof (99.9%% %.1f); "
           "R %.4f sampled %.4f quadrature, T %.4f sampled %.4f quadrature; worst sample/eval mismatch %.1e\n",
           c->m.type, c->m.roughness, c->m.ior, c->m.type == PW_MAT_METALLIC_ROUGHNESS ? pw_material_metallic(&c->m) : 0.0f,
           c->theta_deg, c->inside ? " inside" : "", chi2, dof, q, r.refl, r.refl_q, r.trans, r.trans_q, worst);
    assert_true(chi2 < q);
    /* Float tolerance: leaving a dielectric near its critical angle, 1 - F
     * has an infinite slope, so rounding in the half vector eval rebuilds
     * from wi shows there most (measured up to 2e-3). A wrong factor is O(1). */
    assert_true(worst < 5e-3);
    /* Plus the quadrature's own error. */
    assert_true(fabs(r.refl - r.refl_q) <= 5 * r.refl_se + 2e-3 * r.refl_q);
    assert_true(fabs(r.trans - r.trans_q) <= 5 * r.trans_se + 2e-3 * r.trans_q);
    return r;
}

static pw_material white_conductor(float alpha)
{
    /* eta 1, k 1e4: Fresnel reflectance 1 to six digits at every angle. */
    return pw_conductor(v3s(1.0f), v3s(1e4f), alpha);
}

static void ggx_conductor_sampling(void **state)
{
    (void)state;
    /* Rough enough for the bins to resolve the lobe: a narrower one would
     * need finer quadrature than 256 steps in cos theta. */
    const float alphas[] = {0.2f, 0.5f, 0.9f}, thetas[] = {10.0f, 60.0f, 85.0f};
    for (int a = 0; a < 3; a++)
        for (int t = 0; t < 3; t++) {
            bsdf_case c = {pw_conductor(v3(0.2f, 0.9f, 1.1f), v3(3.9f, 2.4f, 2.2f), alphas[a]), thetas[t], 0, 0};
            check_case(&c);
        }
}

static void lambert_sampling(void **state)
{
    (void)state;
    bsdf_case c = {pw_lambert(0.7f, 0.7f, 0.7f), 30.0f, 0, 0};
    check_case(&c);
}

/* Directional albedo of a Fresnel-1 conductor: at most 1, nearly 1 when
 * smooth, falling with roughness (energy lost to single scattering). */
static void ggx_conductor_energy(void **state)
{
    (void)state;
    pw_surface sf = flat_surface();
    const float alphas[] = {0.01f, 0.1f, 0.3f, 0.6f, 1.0f};
    double prev = 2.0;
    for (int a = 0; a < 5; a++) {
        pw_material m = white_conductor(alphas[a]);
        pw_vec3 d = v3(0, 0, -1);
        double sum = 0, sum2 = 0;
        const int n = 200000;
        for (int k = 0; k < n; k++) {
            pw_rng rng = pw_rng_for_bounce(pw_path_key(5, (uint32_t)k, 0), 1);
            pw_bsdf_sample bs;
            double w = pw_bsdf_sample_dir(&m, &sf, d, &rng, &bs) ? bs.weight.x : 0.0;
            sum += w;
            sum2 += w * w;
        }
        double mean = sum / n, se = sqrt(fmax(0.0, sum2 / n - mean * mean) / n);
        printf("alpha %.2f: albedo at normal incidence %.5f (se %.5f)\n", alphas[a], mean, se);
        assert_true(mean <= 1.0 + 4 * se + 1e-5);
        if (alphas[a] <= 0.01f)
            assert_true(mean > 0.999);
        assert_true(mean < prev + 4 * se);
        prev = mean;
    }
}

/* The conductor Fresnel term: 1 for a perfect conductor, the dielectric
 * value for k = 0, and gold's normal-incidence reflectance from its
 * complex index ((n-1)^2 + k^2) / ((n+1)^2 + k^2). */
static void conductor_fresnel(void **state)
{
    (void)state;
    assert_true(fabsf(pw_fresnel_conductor1(0.3f, 1.0f, 1e4f) - 1.0f) < 1e-4f);
    float ct;
    for (float c = 0.05f; c <= 1.0f; c += 0.05f)
        assert_true(fabsf(pw_fresnel_conductor1(c, 1.5f, 0.0f) - pw_fresnel_dielectric(c, 1.0f / 1.5f, &ct)) < 1e-5f);
    float n = 0.18f, k = 3.4f;
    float r0 = ((n - 1) * (n - 1) + k * k) / ((n + 1) * (n + 1) + k * k);
    assert_true(fabsf(pw_fresnel_conductor1(1.0f, n, k) - r0) < 1e-5f);
}

/* Rough dielectric of index 1.5, entering (from outside) and leaving (from
 * inside: beyond 41.8 degrees a smooth one reflects totally), reflection
 * and transmission binned together over the whole sphere. */
static void rough_dielectric_sampling(void **state)
{
    (void)state;
    const float alphas[] = {0.2f, 0.5f, 0.9f}, thetas[] = {10.0f, 60.0f, 85.0f};
    for (int inside = 0; inside < 2; inside++)
        for (int a = 0; a < 3; a++)
            for (int t = 0; t < 3; t++) {
                bsdf_case c = {pw_rough_dielectric(1.5f, alphas[a]), thetas[t], inside, 1};
                check_case(&c);
            }
}

/* glTF metallic-roughness over its parameter range, with a coloured base so
 * channels differ (the checker bins the red channel's sampler, compares
 * weights in all three). */
static void metallic_roughness_sampling(void **state)
{
    (void)state;
    const float metallic[] = {0.0f, 0.5f, 1.0f}, rough[] = {0.45f, 0.7f, 0.95f}, thetas[] = {10.0f, 60.0f, 85.0f};
    for (int mi = 0; mi < 3; mi++)
        for (int r = 0; r < 3; r++)
            for (int t = 0; t < 3; t += (mi == 1 ? 1 : 2)) {
                bsdf_case c = {pw_metallic_roughness(v3(0.8f, 0.5f, 0.2f), metallic[mi], rough[r]), thetas[t], 0, 0};
                check_case(&c);
            }
}

/* Energy of a colourless rough dielectric: reflected plus transmitted
 * albedo, with the transmission's radiance factor eta^2 divided out, is the
 * fraction of the energy that leaves after one scattering: never above 1.
 *
 * From inside at normal incidence there is an exact upper bound: facets
 * tilted past 45 degrees are met beyond the critical angle (41.8), reflect
 * totally, and send the ray back into the surface, where single scattering
 * loses it. The visible normals at normal incidence are D cos, whose slope
 * tan^2 is distributed as x / (x + alpha^2), so that fraction is alpha^2 /
 * (1 + alpha^2): R + T <= 1 / (1 + alpha^2) (0.8 at alpha 0.5).
 *
 * The lower bounds are the model's values (measured once, 100000 samples:
 * se < 0.0015) less 0.02 or more: what single scattering loses grows with
 * roughness and obliquity, little from outside (0.968 at alpha 0.5, normal
 * incidence), much from inside (total reflection). A transmission lobe off
 * by eta^2 (T is most of the sum) or a missing (1 - F) / F split fails them. */
static void rough_dielectric_energy(void **state)
{
    (void)state;
    const float alphas[] = {0.1f, 0.5f, 0.9f}, thetas[] = {0.0f, 45.0f, 80.0f};
    const double lower[2][3][3] = {{{0.99, 0.99, 0.92}, {0.95, 0.91, 0.82}, {0.89, 0.80, 0.70}},
                                   {{0.97, 0.95, 0.86}, {0.73, 0.66, 0.64}, {0.44, 0.49, 0.49}}};
    for (int inside = 0; inside < 2; inside++)
        for (int a = 0; a < 3; a++)
            for (int t = 0; t < 3; t++) {
                bsdf_case c = {pw_rough_dielectric(1.5f, alphas[a]), thetas[t], inside, 1};
                pw_surface sf;
                pw_vec3 d = case_dir(&c, &sf);
                float eta = inside ? 1.5f : 1.0f / 1.5f;
                double sum = 0, sum2 = 0, r = 0;
                const int n = 100000;
                for (int k = 0; k < n; k++) {
                    pw_rng rng = pw_rng_for_bounce(pw_path_key(9, (uint32_t)k, 0), 1);
                    pw_bsdf_sample bs;
                    double w = 0.0;
                    if (pw_bsdf_sample_dir(&c.m, &sf, d, &rng, &bs)) {
                        int refl = wo_side(&c, bs.wi);
                        w = refl ? bs.weight.x : bs.weight.x / (eta * eta);
                        r += refl ? w : 0.0;
                    }
                    sum += w;
                    sum2 += w * w;
                }
                double mean = sum / n, se = sqrt(fmax(0.0, sum2 / n - mean * mean) / n);
                double upper = inside && thetas[t] == 0.0f ? 1.0 / (1.0 + alphas[a] * alphas[a]) : 1.0;
                printf("alpha %.1f theta %2.0f%s: R + T / eta^2 = %.5f (se %.5f), R %.4f; bounds [%.2f, %.4f]\n",
                       alphas[a], thetas[t], inside ? " inside" : "", mean, se, r / n, lower[inside][a][t], upper);
                assert_true(mean <= upper + 3 * se + 1e-6);
                assert_true(mean >= lower[inside][a][t]);
            }
}

/* Index-matched (ior 1): no Fresnel reflection and no bending, so every
 * sample goes straight through, wi = -wo, with the weight G2 / G1 =
 * (1 + Lambda) / (1 + 2 Lambda) (Lambda(wi) = Lambda(wo)): exactly 1 at
 * normal incidence, the energy single scattering loses at an angle. The
 * lobe is a delta, so it is specular and eval gives nothing. */
static void rough_dielectric_index_matched(void **state)
{
    (void)state;
    const float thetas[] = {0.0f, 30.0f, 60.0f, 80.0f};
    for (int inside = 0; inside < 2; inside++)
        for (int t = 0; t < 4; t++) {
            bsdf_case c = {pw_rough_dielectric(1.0f, 0.5f), thetas[t], inside, 1};
            assert_int_equal(c.m.type, PW_MAT_ROUGH_DIELECTRIC);
            assert_true(pw_material_is_specular(&c.m));
            pw_surface sf;
            pw_vec3 d = case_dir(&c, &sf);
            double th = thetas[t] * PI_D / 180.0, t2 = tan(th) * tan(th);
            double lambda = 0.5 * (-1.0 + sqrt(1.0 + 0.25 * t2)), expect = (1 + lambda) / (1 + 2 * lambda);
            double worst_dir = 0, worst_w = 0;
            for (int k = 0; k < 20000; k++) {
                pw_rng rng = pw_rng_for_bounce(pw_path_key(3, (uint32_t)k, 0), 1);
                pw_bsdf_sample bs = {0};
                assert_true(pw_bsdf_sample_dir(&c.m, &sf, d, &rng, &bs));
                assert_true(bs.specular);
                worst_dir = fmax(worst_dir, v3_len(v3_sub(bs.wi, d)));
                worst_w = fmax(worst_w, fabs(bs.weight.x - expect));
            }
            float pdf;
            assert_true(v3_is_zero(pw_bsdf_eval(&c.m, &sf, d, d, &pdf)));
            printf("ior 1, theta %2.0f%s: |wi - d| <= %.1e, |weight - %.6f| <= %.1e\n", thetas[t],
                   inside ? " inside" : "", worst_dir, expect, worst_w);
            /* Rounding only: through a facet seen at 80 degrees the float
             * refraction and G2 / G1 reach about 1.5e-5 (some 100 ulps). */
            assert_true(worst_dir < 4e-5);
            assert_true(worst_w < 4e-5);
        }
}

/* Nearly smooth (alpha 0.002): the reflected fraction is the smooth
 * dielectric's Fresnel reflectance, total beyond the critical angle from
 * inside; below PW_GGX_MIN_ALPHA the constructor gives the smooth one. */
static void rough_dielectric_smooth_limit(void **state)
{
    (void)state;
    assert_int_equal(pw_rough_dielectric(1.5f, 0.0f).type, PW_MAT_DIELECTRIC);
    assert_int_equal(pw_rough_dielectric(1.5f, 0.5f * PW_GGX_MIN_ALPHA).type, PW_MAT_DIELECTRIC);
    const float thetas[] = {0.0f, 30.0f, 60.0f, 80.0f};
    for (int inside = 0; inside < 2; inside++)
        for (int t = 0; t < 4; t++) {
            bsdf_case c = {pw_rough_dielectric(1.5f, 0.002f), thetas[t], inside, 1};
            pw_surface sf;
            pw_vec3 d = case_dir(&c, &sf);
            float cos_t, fr = pw_fresnel_dielectric(cosf(thetas[t] * 3.14159265f / 180.0f), inside ? 1.5f : 1 / 1.5f, &cos_t);
            double sum = 0, sum2 = 0;
            const int n = 100000;
            for (int k = 0; k < n; k++) {
                pw_rng rng = pw_rng_for_bounce(pw_path_key(11, (uint32_t)k, 0), 1);
                pw_bsdf_sample bs;
                double w = pw_bsdf_sample_dir(&c.m, &sf, d, &rng, &bs) && wo_side(&c, bs.wi) ? bs.weight.x : 0.0;
                sum += w;
                sum2 += w * w;
            }
            double mean = sum / n, se = sqrt(fmax(0.0, sum2 / n - mean * mean) / n);
            printf("alpha 0.002 theta %2.0f%s: reflectance %.5f (se %.5f), Fresnel %.5f\n", thetas[t],
                   inside ? " inside" : "", mean, se, fr);
            assert_true(fabs(mean - fr) <= 5 * se + 2e-3);
        }
}

/* Directional albedo of metallic-roughness at normal incidence: a white
 * metal (F = 1) never above 1 and falling with roughness like the
 * conductor; a white dielectric (diffuse under a 4% coat) never above 1;
 * nearly smooth, a metal reflects Schlick's F0 = base colour and a black
 * dielectric 0.04 (glTF's dielectric F0). */
static void metallic_roughness_energy(void **state)
{
    (void)state;
    const float rough[] = {0.1f, 0.5f, 0.8f, 1.0f};
    for (int metal = 0; metal < 2; metal++) {
        double prev = 2.0;
        for (int r = 0; r < 4; r++) {
            bsdf_case c = {pw_metallic_roughness(v3s(1.0f), (float)metal, rough[r]), 0.0f, 0, 0};
            pw_surface sf;
            pw_vec3 d = case_dir(&c, &sf);
            double sum = 0, sum2 = 0;
            const int n = 100000;
            for (int k = 0; k < n; k++) {
                pw_rng rng = pw_rng_for_bounce(pw_path_key(13, (uint32_t)k, 0), 1);
                pw_bsdf_sample bs;
                double w = pw_bsdf_sample_dir(&c.m, &sf, d, &rng, &bs) ? bs.weight.x : 0.0;
                sum += w;
                sum2 += w * w;
            }
            double mean = sum / n, se = sqrt(fmax(0.0, sum2 / n - mean * mean) / n);
            printf("white %s, roughness %.1f: albedo %.5f (se %.5f)\n", metal ? "metal" : "dielectric", rough[r], mean,
                   se);
            assert_true(mean <= 1.0 + 3 * se + 1e-6);
            if (metal) {
                assert_true(mean < prev + 3 * se);
                prev = mean;
            } else {
                assert_true(mean > 0.9); /* the diffuse base takes what the coat lets through */
            }
        }
    }
    const pw_vec3 base = v3(0.9f, 0.5f, 0.2f);
    pw_material metal = pw_metallic_roughness(base, 1.0f, 0.02f), black = pw_metallic_roughness(v3s(0.0f), 0.0f, 0.02f);
    pw_surface sf = flat_surface();
    /* A black base has no diffuse lobe, so every sample is specular. The
     * weight of a sampled microfacet is Schlick's Fresnel at its normal, the
     * half vector (times G2 / G1, within 2e-3 of 1 at this roughness). */
    for (int t = 0; t < 2; t++) {
        float c = t ? 0.5f : 1.0f;
        pw_vec3 d = v3(-sqrtf(1.0f - c * c), 0.0f, -c);
        for (int k = 0; k < 64; k++) {
            pw_rng rng = pw_rng_for_bounce(pw_path_key(15, (uint32_t)k, 0), 1);
            pw_bsdf_sample bs;
            assert_true(pw_bsdf_sample_dir(&metal, &sf, d, &rng, &bs));
            float m5 = powf(1.0f - v3_dot(v3_neg(d), v3_norm(v3_sub(bs.wi, d))), 5.0f);
            assert_true(fabsf(bs.weight.x - (base.x + (1 - base.x) * m5)) < 2e-3f);
            assert_true(fabsf(bs.weight.z - (base.z + (1 - base.z) * m5)) < 2e-3f);
            assert_true(pw_bsdf_sample_dir(&black, &sf, d, &rng, &bs));
            m5 = powf(1.0f - v3_dot(v3_neg(d), v3_norm(v3_sub(bs.wi, d))), 5.0f);
            assert_true(fabsf(bs.weight.x - (0.04f + 0.96f * m5)) < 2e-3f);
        }
    }
}

/* Scenes with these materials need the microfacet code; without, not. */
static void material_kinds(void **state)
{
    (void)state;
    pw_material basic[] = {pw_lambert(1, 1, 1), pw_metal(1, 1, 1, 0.1f), pw_dielectric(1.5f),
                           pw_rough_dielectric(1.5f, 0.0f)};
    pw_material micro[] = {pw_conductor(v3s(1), v3s(1), 0.3f), pw_rough_dielectric(1.5f, 0.3f),
                           pw_metallic_roughness(v3s(1), 0.5f, 0.5f)};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pw_material_kinds(&basic[i]), PW_KINDS_BASIC);
    for (int i = 0; i < 3; i++)
        assert_int_equal(pw_material_kinds(&micro[i]), PW_KINDS_ALL);
    assert_false(pw_material_is_specular(&micro[1]));
    assert_false(pw_material_is_specular(&micro[2]));
    assert_true(pw_material_is_specular(&basic[3]));
    /* glTF roughness is squared into alpha; metallic is clamped to [0, 1]. */
    pw_material m = pw_metallic_roughness(v3s(1), 2.0f, 0.5f);
    assert_true(fabsf(m.roughness - 0.25f) < 1e-7f && pw_material_metallic(&m) == 1.0f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conductor_fresnel),
        cmocka_unit_test(lambert_sampling),
        cmocka_unit_test(ggx_conductor_sampling),
        cmocka_unit_test(ggx_conductor_energy),
        cmocka_unit_test(material_kinds),
        cmocka_unit_test(rough_dielectric_sampling),
        cmocka_unit_test(rough_dielectric_energy),
        cmocka_unit_test(rough_dielectric_index_matched),
        cmocka_unit_test(rough_dielectric_smooth_limit),
        cmocka_unit_test(metallic_roughness_sampling),
        cmocka_unit_test(metallic_roughness_energy),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
