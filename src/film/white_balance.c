#include "film/white_balance.h"

/* Linear sRGB to CIE XYZ (IEC 61966-2-1, D65 white). */
static const double XYZ_FROM_RGB[9] = {0.4124564, 0.3575761, 0.1804375, 0.2126729, 0.7151522,
                                       0.0721750, 0.0193339, 0.1191920, 0.9503041};
/* XYZ to the Bradford cone responses (the cone space pbrt-v4 uses). */
static const double LMS_FROM_XYZ[9] = {0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296};

int pw_daylight_xy(double t, double *x, double *y)
{
    if (!(t >= 4000.0 && t <= 25000.0))
        return 0;
    double t1 = 1e3 / t, t2 = t1 * t1, t3 = t2 * t1;
    *x = t <= 7000.0 ? -4.6070 * t3 + 2.9678 * t2 + 0.09911 * t1 + 0.244063
                     : -2.0064 * t3 + 1.9018 * t2 + 0.24748 * t1 + 0.237040;
    *y = -3.0 * *x * *x + 2.870 * *x - 0.275;
    return 1;
}

static void mul3(const double a[9], const double b[9], double out[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            out[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

static void inverse3(const double m[9], double out[9])
{
    double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6];
    double inv_det = 1.0 / (m[0] * c0 + m[1] * c1 + m[2] * c2);
    out[0] = c0 * inv_det, out[1] = (m[2] * m[7] - m[1] * m[8]) * inv_det, out[2] = (m[1] * m[5] - m[2] * m[4]) * inv_det;
    out[3] = c1 * inv_det, out[4] = (m[0] * m[8] - m[2] * m[6]) * inv_det, out[5] = (m[2] * m[3] - m[0] * m[5]) * inv_det;
    out[6] = c2 * inv_det, out[7] = (m[1] * m[6] - m[0] * m[7]) * inv_det, out[8] = (m[0] * m[4] - m[1] * m[3]) * inv_det;
}

/* The cone responses of the colour xyz. */
static void lms_of(const double xyz[3], double lms[3])
{
    for (int i = 0; i < 3; i++)
        lms[i] = LMS_FROM_XYZ[3 * i] * xyz[0] + LMS_FROM_XYZ[3 * i + 1] * xyz[1] + LMS_FROM_XYZ[3 * i + 2] * xyz[2];
}

int pw_white_balance_srgb(double t, float m[9])
{
    double sx, sy, src[3], dst[3];
    if (!pw_daylight_xy(t, &sx, &sy))
        return 0;
    /* The source: the illuminant's white at Y = 1; the target: the colour
     * space's own white, RGB 1 1 1 (D65 as the matrix above rounds it). */
    double src_xyz[3] = {sx / sy, 1.0, (1.0 - sx - sy) / sy}, dst_xyz[3];
    for (int i = 0; i < 3; i++)
        dst_xyz[i] = XYZ_FROM_RGB[3 * i] + XYZ_FROM_RGB[3 * i + 1] + XYZ_FROM_RGB[3 * i + 2];
    lms_of(src_xyz, src);
    lms_of(dst_xyz, dst);
    /* RGB -> XYZ -> LMS, scaled cone by cone, -> XYZ -> RGB. */
    double scale[9] = {dst[0] / src[0], 0, 0, 0, dst[1] / src[1], 0, 0, 0, dst[2] / src[2]};
    double xyz_from_lms[9], rgb_from_xyz[9], a[9], b[9], c[9], d[9];
    inverse3(LMS_FROM_XYZ, xyz_from_lms);
    inverse3(XYZ_FROM_RGB, rgb_from_xyz);
    mul3(LMS_FROM_XYZ, XYZ_FROM_RGB, a);
    mul3(scale, a, b);
    mul3(xyz_from_lms, b, c);
    mul3(rgb_from_xyz, c, d);
    for (int i = 0; i < 9; i++)
        m[i] = (float)d[i];
    return 1;
}
