/* BSDF sampling against the BSDF's own density and value.
 *
 * chi-square: directions sampled by pw_bsdf_sample_dir fall into bins of
 * the hemisphere (16 in cos theta x 32 in phi) as often as the integral of
 * the density pw_bsdf_eval reports over each bin (16 x 16 quadrature points a
 * bin) predicts, with the samples the sampler rejects as one more bin.
 * Pearson's statistic must stay under its 99.9% quantile; bins expecting
 * fewer than 5 samples are pooled. A wrong pdf (a missing G1, a missing
 * Jacobian 1 / (4 wo.h)) or a sampler that does not draw what it reports
 * fails by orders of magnitude.
 *
 * Weight: the mean of the sample weights f cos / pdf estimates the
 * directional albedo; it must match the quadrature of f cos within 5
 * standard errors. Energy: a conductor with Fresnel 1 never reflects more
 * than it receives, loses almost nothing when smooth, and loses more as it
 * gets rougher (single scattering). */
#include "test_common.h"

#include "scene/scene.h"
#include "shade/bsdf.h"

#define NT 16
#define NP 32
#define Q 16

static pw_surface flat_surface(void)
{
    pw_surface sf;
    memset(&sf, 0, sizeof sf);
    sf.ng = sf.ns = v3(0, 0, 1);
    sf.front = 1;
    return sf;
}

static pw_vec3 bin_dir(double ct, double phi)
{
    double st = sqrt(fmax(0.0, 1.0 - ct * ct));
    return v3((float)(st * cos(phi)), (float)(st * sin(phi)), (float)ct);
}

typedef struct bsdf_case {
    pw_material m;
    float theta_deg;
} bsdf_case;

static void check_case(const bsdf_case *c)
{
    pw_surface sf = flat_surface();
    float th = c->theta_deg * 3.14159265f / 180.0f;
    pw_vec3 wo = v3(sinf(th), 0.0f, cosf(th)), d = v3_neg(wo);
    /* Expected probability of each bin, and the albedo, by quadrature. */
    static double prob[NT * NP];
    double albedo = 0.0, total_p = 0.0;
    for (int t = 0; t < NT; t++)
        for (int p = 0; p < NP; p++) {
            double acc = 0.0;
            for (int a = 0; a < Q; a++)
                for (int b = 0; b < Q; b++) {
                    double ct = (t + (a + 0.5) / Q) / NT, phi = 2 * 3.141592653589793 * (p + (b + 0.5) / Q) / NP;
                    float pdf;
                    pw_vec3 f = pw_bsdf_eval(&c->m, &sf, d, bin_dir(ct, phi), &pdf);
                    double dw = (1.0 / NT) * (2 * 3.141592653589793 / NP) / (Q * Q); /* d omega = d(cos) d phi */
                    acc += pdf * dw;
                    albedo += f.x * dw; /* eval returns f cos already */
                }
            prob[t * NP + p] = acc;
            total_p += acc;
        }
    const int n = 300000;
    static int hist[NT * NP];
    memset(hist, 0, sizeof hist);
    int rejected = 0;
    double wsum = 0, wsum2 = 0;
    for (int k = 0; k < n; k++) {
        pw_rng rng = pw_rng_for_bounce(pw_path_key(77, (uint32_t)k, 0), 1);
        pw_bsdf_sample bs;
        double w = 0.0;
        if (!pw_bsdf_sample_dir(&c->m, &sf, d, &rng, &bs) || bs.wi.z <= 0.0f) {
            rejected++;
        } else {
            w = bs.weight.x;
            int t = (int)(bs.wi.z * NT), p = (int)((atan2(bs.wi.y, bs.wi.x) + (bs.wi.y < 0 ? 2 * 3.141592653589793 : 0)) /
                                                 (2 * 3.141592653589793) * NP);
            t = t < 0 ? 0 : (t >= NT ? NT - 1 : t);
            p = p < 0 ? 0 : (p >= NP ? NP - 1 : p);
            hist[t * NP + p]++;
        }
        wsum += w;
        wsum2 += w * w;
    }
    double chi2 = 0, pooled_e = 0, pooled_o = 0;
    int dof = 0;
    for (int i = 0; i < NT * NP; i++) {
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
    double mean = wsum / n, se = sqrt(fmax(0.0, wsum2 / n - mean * mean) / n);
    printf("alpha %.2f, theta %2.0f: chi-square %.1f over %d dof (99.9%% %.1f); albedo %.4f sampled, %.4f quadrature "
           "(%.2f se)\n",
           c->m.roughness, c->theta_deg, chi2, dof, q, mean, albedo, (mean - albedo) / se);
    assert_true(chi2 < q);
    assert_true(fabs(mean - albedo) <= 5 * se + 2e-3 * albedo); /* plus the quadrature's own error */
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
            bsdf_case c = {pw_conductor(v3(0.2f, 0.9f, 1.1f), v3(3.9f, 2.4f, 2.2f), alphas[a]), thetas[t]};
            check_case(&c);
        }
}

static void lambert_sampling(void **state)
{
    (void)state;
    bsdf_case c = {pw_lambert(0.7f, 0.7f, 0.7f), 30.0f};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conductor_fresnel),
        cmocka_unit_test(lambert_sampling),
        cmocka_unit_test(ggx_conductor_sampling),
        cmocka_unit_test(ggx_conductor_energy),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
