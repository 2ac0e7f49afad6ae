/* Direction maps: the build (accel/sphere_dirmap.h says what they hold and
 * why a lookup never drops a sphere). */
#include "accel/sphere_dirmap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Unit direction through point (u, v) in [-1, 1]^2 of cube face f, the
 * face layout of pw_dirmap_texel. */
static void face_dir(uint32_t f, double u, double v, double d[3])
{
    uint32_t axis = f / 2u;
    double s = (f & 1u) ? -1.0 : 1.0;
    double x[3];
    x[axis] = s;
    x[axis == 0 ? 1 : 0] = u;
    x[axis == 2 ? 1 : 2] = v;
    double len = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2]);
    for (int k = 0; k < 3; k++)
        d[k] = x[k] / len;
}

static double angle_between(const double a[3], const double b[3])
{
    double c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    return acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c);
}

/* The masks of one ball (c, rho) over the n spheres of slots sp, with
 * margins of 1e-4 of the radii and 1e-4 radians (texels are 2.8 degrees
 * across) for the rounding of the lookup's direction and of a camera
 * ray's origin; a segment's end is checked with room for its rounding
 * (pw_dirmap_ends_in). */
/* One sphere as the ball's centre sees it: its direction, and the angle
 * around that direction within which a ray from the ball can reach it
 * (every direction when the ball touches it). */
typedef struct seen_sphere {
    double dir[3];
    double reach_angle;
    int always;
} seen_sphere;

static seen_sphere see_sphere(pw_vec3 c, float rho, pw_sphere sp)
{
    seen_sphere e;
    double D[3] = {(double)sp.c.x - c.x, (double)sp.c.y - c.y, (double)sp.c.z - c.z};
    double dist = sqrt(D[0] * D[0] + D[1] * D[1] + D[2] * D[2]);
    double reach = ((double)sp.r + rho) * (1.0 + 1e-4) + 1e-6;
    e.always = dist <= reach;
    e.reach_angle = e.always ? 0.0 : asin(reach / dist);
    for (int k = 0; k < 3; k++)
        e.dir[k] = e.always ? 0.0 : D[k] / dist;
    return e;
}

static void build_map(pw_vec3 c, float rho, const pw_sphere *sp, uint32_t n, uint64_t *masks)
{
    const double res = PW_DIRMAP_RES, ang_margin = 1e-4;
    seen_sphere seen[64];
    for (uint32_t i = 0; i < n; i++)
        seen[i] = see_sphere(c, rho, sp[i]);
    for (uint32_t f = 0; f < 6; f++)
        for (uint32_t iv = 0; iv < PW_DIRMAP_RES; iv++)
            for (uint32_t iu = 0; iu < PW_DIRMAP_RES; iu++) {
                double u0 = 2.0 * iu / res - 1.0, u1 = 2.0 * (iu + 1) / res - 1.0;
                double v0 = 2.0 * iv / res - 1.0, v1 = 2.0 * (iv + 1) / res - 1.0;
                double w[3], corner[3], spread = 0.0;
                face_dir(f, 0.5 * (u0 + u1), 0.5 * (v0 + v1), w);
                double cu[2] = {u0, u1}, cv[2] = {v0, v1};
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++) {
                        face_dir(f, cu[a], cv[b], corner);
                        double t = angle_between(w, corner);
                        spread = t > spread ? t : spread;
                    }
                uint64_t mask = 0;
                for (uint32_t i = 0; i < n; i++)
                    if (seen[i].always || angle_between(w, seen[i].dir) <= seen[i].reach_angle + spread + ang_margin)
                        mask |= (uint64_t)1 << i;
                masks[(f * PW_DIRMAP_RES + iv) * PW_DIRMAP_RES + iu] = mask;
            }
}

int pw_dirmaps_build(const pw_scene_view *s, const pw_sphere *slots, const uint32_t *prims, pw_dirmaps *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = s->n_spheres;
    if (n > 64 || !slots || !prims)
        return 0;
    /* The camera's ball: the lens (a pinhole's is a point). */
    out->maps[0].c = s->cam.origin;
    float rho[PW_DIRMAP_MAX];
    rho[0] = s->cam.lens_radius * 1.001f + 1e-6f;
    out->n = 1;
    /* Each sphere light's: a shadow ray to it stops 1e-4 of its length
     * short of the surface (pw_shadow_tmax_sphere), so the ball reaches a
     * little past the sphere; rays from farther than about 20 units end
     * outside it and walk the runs instead. */
    for (uint32_t i = 0; i < s->n_lights && out->n < PW_DIRMAP_MAX; i++) {
        if (s->lights[i].type != PW_LIGHT_SPHERE)
            continue;
        pw_sphere l = s->spheres[s->lights[i].prim];
        out->maps[out->n].c = l.c;
        rho[out->n] = l.r * 1.001f + 2e-3f;
        for (uint32_t k = 0; k < n; k++)
            if (prims[k] == s->lights[i].prim) {
                out->maps[out->n].own_r = l.r;
                out->maps[out->n].own_slot = k;
            }
        out->n++;
    }
    out->masks = (uint64_t *)malloc((size_t)out->n * PW_DIRMAP_TEXELS * sizeof *out->masks);
    if (!out->masks)
        return 0;
    for (uint32_t m = 0; m < out->n; m++) {
        out->maps[m].rho = rho[m];
        uint64_t *masks = out->masks + (size_t)m * PW_DIRMAP_TEXELS;
        build_map(out->maps[m].c, rho[m], slots, n, masks);
        /* A light's own slot is added back by the lookup where needed
         * (the camera's map, own_r 0, keeps every slot). */
        if (out->maps[m].own_r > 0.0f)
            for (uint32_t t = 0; t < PW_DIRMAP_TEXELS; t++)
                masks[t] &= ~((uint64_t)1 << out->maps[m].own_slot);
    }
    return 1;
}

void pw_dirmaps_free(pw_dirmaps *m)
{
    free(m->masks);
    memset(m, 0, sizeof *m);
}
