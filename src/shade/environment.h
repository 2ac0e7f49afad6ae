/* Radiance of rays that leave the scene, and light sampling of an
 * environment map. */
#ifndef PW_ENVIRONMENT_H
#define PW_ENVIRONMENT_H

#include "core/sampling.h"

enum pw_env_type { PW_ENV_CONSTANT = 0, PW_ENV_GRADIENT = 1, PW_ENV_MAP = 2 };
/* How a MAP's pixels cover the sphere of directions of its own frame:
 * equirectangular (row 0 looks up, +y), or pbrt-v4's square equal-area
 * octahedral layout (Clarberg 2008; +z at the centre), whose pixels each
 * cover the same solid angle. */
enum pw_env_layout { PW_ENV_EQUIRECT = 0, PW_ENV_EQUAL_AREA = 1 };

/* Radiance arriving from directions that hit nothing. GRADIENT is the toy
 * scene's sky: lerp(bottom, top, 0.5 (dir.y + 1)) * scale. MAP is an
 * equirectangular image (row 0 looks up, +y), importance-sampled through a
 * 2D piecewise-constant distribution of luminance times sin(theta). */
typedef struct pw_env {
    uint32_t type;
    pw_vec3 bottom, top;
    float scale;
    /* CONSTANT and GRADIENT, set when the view is made (scene.c,
     * pw_scene_host_view; zero in a pw_scene's own env): the radiance is
     * sky_mid + sky_slope d.y (the gradient's lerp from bottom at d.y = -1
     * to top at 1, times scale, folded: 3 fused multiply-adds a miss). */
    pw_vec3 sky_mid, sky_slope;
    const float *map;      /* MAP: 3 floats per pixel, w x h */
    const float *marginal; /* MAP: h + 1 cumulative row weights, 0 .. 1 */
    const float *cond;     /* MAP: h rows of w + 1 cumulative weights, 0 .. 1 */
    uint32_t w, h;
    float total;           /* MAP: sum of the cell weights */
    uint32_t layout;       /* MAP: a pw_env_layout */
    /* MAP: where rotated is set, a world direction d is m = (to_map[0].d,
     * to_map[1].d, to_map[2].d) in the map's frame (a rotation: the
     * light's transform); else the map's frame is the world's. */
    uint32_t rotated;
    pw_vec3 to_map[3];
} pw_env;

/* A world direction in the map's frame, and back. */
PW_HD pw_vec3 pw_env_to_map(const pw_env *e, pw_vec3 d)
{
    return e->rotated ? v3(v3_dot(e->to_map[0], d), v3_dot(e->to_map[1], d), v3_dot(e->to_map[2], d)) : d;
}

PW_HD pw_vec3 pw_env_from_map(const pw_env *e, pw_vec3 m)
{
    if (!e->rotated)
        return m;
    return v3_add(v3_add(v3_scale(e->to_map[0], m.x), v3_scale(e->to_map[1], m.y)), v3_scale(e->to_map[2], m.z));
}

/* The equal-area octahedral map (Clarberg, "Fast equal-area mapping of
 * the (hemi)sphere using SIMD", 2008, as pbrt-v4 lays it out): a point
 * (px, py) of [0,1]^2 to a unit direction, +z at the centre, -z at the
 * corners. */
PW_HD pw_vec3 pw_equal_area_square_to_sphere(float px, float py)
{
    float u = 2.0f * px - 1.0f, v = 2.0f * py - 1.0f, up = fabsf(u), vp = fabsf(v);
    float sd = 1.0f - (up + vp), r = 1.0f - fabsf(sd);
    float phi = (r == 0.0f ? 1.0f : (vp - up) / r + 1.0f) * (0.25f * PW_PI);
    float z = copysignf(1.0f - r * r, sd), sp, cp;
    pw_sincos(phi, &sp, &cp);
    float s = r * sqrtf(pw_maxf(0.0f, 2.0f - r * r));
    return v3(copysignf(cp, u) * s, copysignf(sp, v) * s, z);
}

/* Its inverse: where direction d (unit) lies in the square. */
PW_HD void pw_equal_area_sphere_to_square(pw_vec3 d, float *px, float *py)
{
    float ax = fabsf(d.x), ay = fabsf(d.y), az = fabsf(d.z);
    float r = sqrtf(pw_maxf(0.0f, 1.0f - az));
    float phi = ax > 0.0f || ay > 0.0f ? atan2f(ay, ax) : 0.0f; /* 0 .. pi/2 */
    float diff = r * (phi * (4.0f * PW_INV_PI) - 1.0f);        /* vp - up */
    float sum = d.z >= 0.0f ? r : 2.0f - r;                      /* up + vp */
    float up = 0.5f * (sum - diff), vp = 0.5f * (sum + diff);
    *px = 0.5f * (copysignf(up, d.x) + 1.0f);
    *py = 0.5f * (copysignf(vp, d.y) + 1.0f);
}

/* The map's (u, v) in [0,1]^2 of world direction d. */
PW_HD void pw_env_map_uv(const pw_env *e, pw_vec3 d, float *u, float *v);

/* Direction to equirectangular (u, v) in [0,1)^2: u follows the azimuth
 * about +y, v runs from +y (0) to -y (1). */
PW_HD void pw_env_dir_to_uv(pw_vec3 d, float *u, float *v)
{
    float phi = atan2f(d.x, -d.z);
    *u = (phi + PW_PI) * (0.5f * PW_INV_PI);
    *v = acosf(pw_minf(1.0f, pw_maxf(-1.0f, d.y))) * PW_INV_PI;
}

PW_HD pw_vec3 pw_env_uv_to_dir(float u, float v)
{
    float phi = 2.0f * PW_PI * u - PW_PI, theta = PW_PI * v;
    float sp, cp, st, ct;
    pw_sincos(phi, &sp, &cp);
    pw_sincos(theta, &st, &ct);
    return v3(st * sp, ct, -st * cp);
}

PW_HD void pw_env_map_uv(const pw_env *e, pw_vec3 d, float *u, float *v)
{
    pw_vec3 m = pw_env_to_map(e, d);
    if (e->layout == PW_ENV_EQUAL_AREA)
        pw_equal_area_sphere_to_square(m, u, v);
    else
        pw_env_dir_to_uv(m, u, v);
}

PW_HD uint32_t pw_env_cell(const pw_env *e, float u, float v, uint32_t *col, uint32_t *row)
{
    uint32_t i = (uint32_t)(u * (float)e->w), j = (uint32_t)(v * (float)e->h);
    *col = i < e->w ? i : e->w - 1;
    *row = j < e->h ? j : e->h - 1;
    return *row * e->w + *col;
}

/* The constant or gradient sky's radiance (any type but MAP). */
PW_HD pw_vec3 pw_sky_radiance(const pw_env *e, pw_vec3 d)
{
    return v3(fmaf(e->sky_slope.x, d.y, e->sky_mid.x), fmaf(e->sky_slope.y, d.y, e->sky_mid.y),
              fmaf(e->sky_slope.z, d.y, e->sky_mid.z));
}

PW_HD pw_vec3 pw_env_radiance(const pw_env *e, pw_vec3 d)
{
    if (e->type == PW_ENV_MAP) {
        float u, v;
        uint32_t i, j;
        pw_env_map_uv(e, d, &u, &v);
        const float *p = e->map + 3 * (size_t)pw_env_cell(e, u, v, &i, &j);
        return v3_scale(v3(p[0], p[1], p[2]), e->scale);
    }
    return pw_sky_radiance(e, d);
}

/* Index k with cdf[k] <= u < cdf[k + 1] in a cumulative table of n + 1. */
PW_HD uint32_t pw_cdf_find(const float *cdf, uint32_t n, float u)
{
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (cdf[mid] <= u)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* Solid-angle density of sampling direction d from the map. */
PW_HD float pw_env_pdf(const pw_env *e, pw_vec3 d)
{
    if (e->type != PW_ENV_MAP || e->total <= 0.0f)
        return 0.0f;
    float u, v;
    uint32_t i, j;
    pw_env_map_uv(e, d, &u, &v);
    pw_env_cell(e, u, v, &i, &j);
    float cell = (e->cond[j * (e->w + 1) + i + 1] - e->cond[j * (e->w + 1) + i]) * (e->marginal[j + 1] - e->marginal[j]);
    /* Equal-area: every cell covers 4 pi / (w h) of solid angle. */
    if (e->layout == PW_ENV_EQUAL_AREA)
        return cell * (float)(e->w * e->h) * (0.25f * PW_INV_PI);
    float st = sinf(PW_PI * v);
    if (st <= 0.0f)
        return 0.0f;
    /* The cell's share of the total, spread over its area in (u, v), mapped
     * to solid angle (d omega = 2 pi^2 sin(theta) du dv). */
    return cell * (float)(e->w * e->h) / (2.0f * PW_PI * PW_PI * st);
}

/* Samples a direction from the map in proportion to luminance; returns 0
 * where the sample cannot be used (a pole). */
PW_HD int pw_env_sample(const pw_env *e, float u1, float u2, pw_vec3 *wi, float *pdf)
{
    uint32_t j = pw_cdf_find(e->marginal, e->h, u1);
    const float *row = e->cond + (size_t)j * (e->w + 1);
    uint32_t i = pw_cdf_find(row, e->w, u2);
    float dv = (u1 - e->marginal[j]) / pw_maxf(e->marginal[j + 1] - e->marginal[j], 1e-30f);
    float du = (u2 - row[i]) / pw_maxf(row[i + 1] - row[i], 1e-30f);
    float u = ((float)i + pw_minf(du, 0.99999f)) / (float)e->w, v = ((float)j + pw_minf(dv, 0.99999f)) / (float)e->h;
    *wi = pw_env_from_map(e, e->layout == PW_ENV_EQUAL_AREA ? pw_equal_area_square_to_sphere(u, v)
                                                             : pw_env_uv_to_dir(u, v));
    *pdf = pw_env_pdf(e, *wi);
    return *pdf > 0.0f;
}

#endif
