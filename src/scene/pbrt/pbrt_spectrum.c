/* Spectra as pathwave's RGB: pbrt's named spectra as tabulated RGB values,
 * blackbodies and sampled spectra through the CIE 1931 observer (Wyman,
 * Sloan and Shirley's multi-lobe Gaussian fit) and the XYZ to linear sRGB
 * matrix. */
#include <math.h>
#include <string.h>

#include "scene/pbrt/pbrt_internal.h"

/* Complex IORs of metals at the R, G, B primaries, and glasses' IOR at the
 * d line (587.6 nm) for all three channels. */
static const struct {
    const char *name;
    float r, g, b;
} named[] = {
    {"metal-Cu-eta", 0.200438f, 0.924033f, 1.102212f}, {"metal-Cu-k", 3.912949f, 2.452848f, 2.142188f},
    {"metal-Au-eta", 0.143119f, 0.374957f, 1.442479f}, {"metal-Au-k", 3.983160f, 2.385721f, 1.603215f},
    {"metal-Ag-eta", 0.155265f, 0.116723f, 0.138342f}, {"metal-Ag-k", 4.828181f, 3.122249f, 2.146963f},
    {"metal-Al-eta", 1.657460f, 0.880369f, 0.521229f}, {"metal-Al-k", 9.223869f, 6.269523f, 4.837001f},
    {"metal-CuZn-eta", 0.444f, 0.527f, 1.094f},        {"metal-CuZn-k", 3.695f, 2.765f, 1.829f},
    {"glass-BK7", 1.5168f, 1.5168f, 1.5168f},          {"glass-BAF10", 1.6700f, 1.6700f, 1.6700f},
    {"glass-FK51A", 1.4866f, 1.4866f, 1.4866f},        {"glass-LASF9", 1.8503f, 1.8503f, 1.8503f},
    {"glass-F5", 1.6034f, 1.6034f, 1.6034f},           {"glass-F10", 1.6200f, 1.6200f, 1.6200f},
    {"glass-F11", 1.6209f, 1.6209f, 1.6209f},          {"stdillum-D65", 1.0f, 1.0f, 1.0f},
};

int pbrt_named_spectrum(const char *name, pw_vec3 *rgb)
{
    for (size_t i = 0; i < sizeof named / sizeof *named; i++)
        if (strcmp(name, named[i].name) == 0) {
            *rgb = v3(named[i].r, named[i].g, named[i].b);
            return 1;
        }
    return 0;
}

static double lobe(double l, double mu, double s1, double s2)
{
    double t = (l - mu) / (l < mu ? s1 : s2);
    return exp(-0.5 * t * t);
}

static void cie_xyz(double l, double xyz[3])
{
    xyz[0] =
        1.056 * lobe(l, 599.8, 37.9, 31.0) + 0.362 * lobe(l, 442.0, 16.0, 26.7) - 0.065 * lobe(l, 501.1, 20.4, 26.2);
    xyz[1] = 0.821 * lobe(l, 568.8, 46.9, 40.5) + 0.286 * lobe(l, 530.9, 16.3, 31.1);
    xyz[2] = 1.217 * lobe(l, 437.0, 11.8, 36.0) + 0.681 * lobe(l, 459.0, 26.0, 13.8);
}

static void xyz_to_rgb(const double xyz[3], double rgb[3])
{
    rgb[0] = 3.2404542 * xyz[0] - 1.5371385 * xyz[1] - 0.4985314 * xyz[2];
    rgb[1] = -0.9692660 * xyz[0] + 1.8760108 * xyz[1] + 0.0415560 * xyz[2];
    rgb[2] = 0.0556434 * xyz[0] - 0.2040259 * xyz[1] + 1.0572252 * xyz[2];
}

/* Integrates f over 360..830 nm against the observer. */
static void integrate(double (*f)(double, const void *), const void *arg, double xyz[3])
{
    xyz[0] = xyz[1] = xyz[2] = 0.0;
    for (double l = 360.0; l <= 830.0; l += 1.0) {
        double c[3], v = f(l, arg);
        cie_xyz(l, c);
        for (int i = 0; i < 3; i++)
            xyz[i] += v * c[i];
    }
}

static double planck(double l, const void *arg)
{
    double t = *(const double *)arg, m = l * 1e-9;
    const double h = 6.62606957e-34, c = 299792458.0, k = 1.3806488e-23;
    return 2.0 * h * c * c / (pow(m, 5.0) * (exp(h * c / (m * k * t)) - 1.0));
}

pw_vec3 pbrt_blackbody_rgb(double kelvin)
{
    if (!(kelvin > 0.0))
        return v3s(0.0f);
    double xyz[3], rgb[3];
    integrate(planck, &kelvin, xyz);
    if (!(xyz[1] > 0.0))
        return v3s(0.0f);
    for (int i = 0; i < 3; i++)
        xyz[i] /= xyz[1];
    xyz_to_rgb(xyz, rgb);
    return v3((float)fmax(rgb[0], 0.0), (float)fmax(rgb[1], 0.0), (float)fmax(rgb[2], 0.0));
}

typedef struct sampled {
    const double *p;
    uint32_t n;
} sampled;

/* Piecewise-linear interpolation, constant beyond the ends. */
static double sampled_at(double l, const void *arg)
{
    const sampled *s = arg;
    if (l <= s->p[0])
        return s->p[1];
    for (uint32_t i = 1; i < s->n; i++)
        if (l <= s->p[2 * i]) {
            double l0 = s->p[2 * i - 2], l1 = s->p[2 * i];
            double t = l1 > l0 ? (l - l0) / (l1 - l0) : 1.0;
            return s->p[2 * i - 1] + t * (s->p[2 * i + 1] - s->p[2 * i - 1]);
        }
    return s->p[2 * s->n - 1];
}

static double one(double l, const void *arg)
{
    (void)l;
    (void)arg;
    return 1.0;
}

pw_vec3 pbrt_sampled_rgb(const double *pairs, uint32_t n_pairs, int illuminant)
{
    if (n_pairs == 0)
        return v3s(0.0f);
    sampled s = {pairs, n_pairs};
    double xyz[3], rgb[3], wxyz[3], white[3];
    integrate(sampled_at, &s, xyz);
    if (illuminant) {
        if (!(xyz[1] > 0.0))
            return v3s(0.0f);
        for (int i = 0; i < 3; i++)
            xyz[i] /= xyz[1];
        xyz_to_rgb(xyz, rgb);
    } else {
        integrate(one, NULL, wxyz);
        xyz_to_rgb(xyz, rgb);
        xyz_to_rgb(wxyz, white);
        for (int i = 0; i < 3; i++)
            rgb[i] /= white[i];
    }
    return v3((float)fmax(rgb[0], 0.0), (float)fmax(rgb[1], 0.0), (float)fmax(rgb[2], 0.0));
}
