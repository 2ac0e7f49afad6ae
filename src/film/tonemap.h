/* Display transforms from linear radiance to 8-bit sRGB. */
#ifndef PW_TONEMAP_H
#define PW_TONEMAP_H

#include "core/vec3.h"
#include "pathwave.h"

/* Narkowicz's fit of the ACES filmic curve. */
PW_HD float pw_aces(float x)
{
    float y = (x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f);
    return pw_minf(1.0f, pw_maxf(0.0f, y));
}

PW_HD float pw_linear_to_srgb(float x)
{
    if (!(x > 0.0f)) /* negative and NaN */
        return 0.0f;
    if (x >= 1.0f)
        return 1.0f;
    return x <= 0.0031308f ? 12.92f * x : 1.055f * powf(x, 1.0f / 2.4f) - 0.055f;
}

PW_HD float pw_srgb_to_linear(float x)
{
    return x <= 0.04045f ? x / 12.92f : powf((x + 0.055f) / 1.055f, 2.4f);
}

PW_HD float pw_tonemap_channel(float x, float exposure, int tm)
{
    x *= exposure;
    if (!(x > 0.0f)) /* negative and NaN */
        return 0.0f;
    /* Both curves are 1 to float precision long before this, and inf / inf
     * would make a NaN of the brightest pixels. */
    x = pw_minf(x, 1e6f);
    if (tm == PW_TONEMAP_ACES)
        return pw_aces(x);
    if (tm == PW_TONEMAP_REINHARD)
        return x / (1.0f + x);
    return x;
}

#endif
