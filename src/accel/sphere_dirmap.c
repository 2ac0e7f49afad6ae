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

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* A distance made a little longer, so that the float rounding of the
 * tests the lookups stand for never drops a sphere: every reach and
 * radius the build compares goes through it. */
static double widen(double x) { return x * (1.0 + 1e-4) + 1e-6; }

static double angle_between(const double a[3], const double b[3])
{
    double c = dot3(a, b);
    return acos(c > 1.0 ? 1.0 : c < -1.0 ? -1.0 : c);
}

/* Every texel's centre direction, the angle that takes in its corners
 * plus a margin of 1e-4 radians (texels are 2.8 degrees across) for the
 * rounding of the lookup's direction and origin, and that angle's cosine
 * and sine; array by array, for build_map's inner loop over texels. */
typedef struct texel_cones {
    double wx[PW_DIRMAP_TEXELS], wy[PW_DIRMAP_TEXELS], wz[PW_DIRMAP_TEXELS];
    double spread[PW_DIRMAP_TEXELS], cos_spread[PW_DIRMAP_TEXELS], sin_spread[PW_DIRMAP_TEXELS];
} texel_cones;

static void texel_cones_fill(texel_cones *tc)
{
    const double res = PW_DIRMAP_RES, ang_margin = 1e-4;
    for (uint32_t f = 0; f < 6; f++)
        for (uint32_t iv = 0; iv < PW_DIRMAP_RES; iv++)
            for (uint32_t iu = 0; iu < PW_DIRMAP_RES; iu++) {
                uint32_t t = (f * PW_DIRMAP_RES + iv) * PW_DIRMAP_RES + iu;
                double u0 = 2.0 * iu / res - 1.0, u1 = 2.0 * (iu + 1) / res - 1.0;
                double v0 = 2.0 * iv / res - 1.0, v1 = 2.0 * (iv + 1) / res - 1.0;
                double w[3], corner[3], spread = 0.0;
                face_dir(f, 0.5 * (u0 + u1), 0.5 * (v0 + v1), w);
                double cu[2] = {u0, u1}, cv[2] = {v0, v1};
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++) {
                        face_dir(f, cu[a], cv[b], corner);
                        double g = angle_between(w, corner);
                        spread = g > spread ? g : spread;
                    }
                tc->wx[t] = w[0], tc->wy[t] = w[1], tc->wz[t] = w[2];
                tc->spread[t] = spread + ang_margin;
                tc->cos_spread[t] = cos(spread + ang_margin);
                tc->sin_spread[t] = sin(spread + ang_margin);
            }
}

/* One sphere as the ball's centre sees it: its direction, and the cosine
 * and sine of the angle around that direction within which a ray from the
 * ball can reach it (every direction when the ball touches it). */
typedef struct seen_sphere {
    double dir[3];
    double cos_reach, sin_reach;
    int always;
} seen_sphere;

static seen_sphere see_sphere(pw_vec3 c, float rho, pw_sphere sp)
{
    seen_sphere e;
    double D[3] = {(double)sp.c.x - c.x, (double)sp.c.y - c.y, (double)sp.c.z - c.z};
    double dist = sqrt(dot3(D, D));
    double reach = widen((double)sp.r + rho);
    e.always = dist <= reach;
    double s = e.always ? 1.0 : reach / dist;
    e.sin_reach = s;
    e.cos_reach = sqrt(1.0 - s * s);
    for (int k = 0; k < 3; k++)
        e.dir[k] = e.always ? 0.0 : D[k] / dist;
    return e;
}

/* The masks of one ball (c, rho) over the n spheres of slots sp: a sphere
 * is listed in a texel when the angle between the texel's direction and
 * the sphere's is at most its reach plus the texel's spread, that is when
 * their cosine is at least cos(reach + spread). Sphere by sphere over all
 * texels, a loop the compiler vectorises: toy's 800 maps took 0.3 s texel
 * by texel. */
static void build_map(pw_vec3 c, float rho, const pw_sphere *sp, uint32_t n, const texel_cones *tc,
                      uint64_t *masks)
{
    memset(masks, 0, PW_DIRMAP_TEXELS * sizeof *masks);
    for (uint32_t i = 0; i < n; i++) {
        seen_sphere e = see_sphere(c, rho, sp[i]);
        if (e.always) {
            for (uint32_t t = 0; t < PW_DIRMAP_TEXELS; t++)
                masks[t] |= (uint64_t)1 << i;
            continue;
        }
        for (uint32_t t = 0; t < PW_DIRMAP_TEXELS; t++) {
            double dot = tc->wx[t] * e.dir[0] + tc->wy[t] * e.dir[1] + tc->wz[t] * e.dir[2];
            masks[t] |= (uint64_t)(dot >= e.cos_reach * tc->cos_spread[t] - e.sin_reach * tc->sin_spread[t]) << i;
        }
    }
}

/* The masks of the rays that leave a sphere (centre c, ball radius rho):
 * as build_map's, except for the spheres the ball touches, which a ray
 * meets only if they meet the half-cylinder of radius rho around c + s d,
 * s >= 0 (sphere_dirmap.h). With D the direction and L the distance of a
 * sphere of radius rp at angle a from d, that is L sin a <= rho + rp for
 * a <= 90 degrees, else L^2 cos^2 a + max(0, L sin a - rho)^2 <= rp^2 (the
 * sphere reaches over the cylinder's end disc). The distance from the
 * sphere's centre to the half-cylinder grows with a, so the texel lists it
 * when its nearest direction, a minus the texel's spread, passes. */
static void build_outward_map(pw_vec3 c, float rho, const pw_sphere *sp, uint32_t n, const texel_cones *tc,
                              uint64_t *masks)
{
    build_map(c, rho, sp, n, tc, masks);
    double R = widen(rho);
    for (uint32_t i = 0; i < n; i++) {
        double D[3] = {(double)sp[i].c.x - c.x, (double)sp[i].c.y - c.y, (double)sp[i].c.z - c.z};
        double L = sqrt(dot3(D, D)), P = widen(sp[i].r);
        if (!(L > 0.0) || L > widen(R + P))
            continue; /* not touching the ball: its cone test is the same */
        for (uint32_t t = 0; t < PW_DIRMAP_TEXELS; t++) {
            double cos_a = (tc->wx[t] * D[0] + tc->wy[t] * D[1] + tc->wz[t] * D[2]) / L;
            double a = acos(cos_a > 1.0 ? 1.0 : cos_a < -1.0 ? -1.0 : cos_a) - tc->spread[t];
            a = a < 0.0 ? 0.0 : a;
            double along = L * cos(a), across = L * sin(a), gap = across - R > 0.0 ? across - R : 0.0;
            int meets = a <= 0.5 * PW_PI ? across <= R + P : along * along + gap * gap <= P * P;
            if (!meets)
                masks[t] &= ~((uint64_t)1 << i);
        }
    }
}

/* Room around the surface of a sphere of radius r near p for the offset of
 * a bounce ray's origin (pw_sphere_offset_dist: 2^-15 max(|p_i|, 1/2) +
 * 2^-22 r) and the rounding of the hit point, with a margin of 3 or more. */
static float origin_pad(pw_vec3 p, float r) { return 1e-4f * v3_max_abs(p) + 1e-4f + 1e-6f * r; }

static pw_vec3 dv3(const double a[3]) { return v3((float)a[0], (float)a[1], (float)a[2]); }

/* The point of the large sphere (centre C, radius R) above (u, v) of the
 * grid: C + u t1 + v t2 + sqrt(R^2 - u^2 - v^2) a. */
static void cell_point(const double C[3], double R, const double a[3], const double t1[3], const double t2[3],
                       double u, double v, double out[3])
{
    double h = sqrt(R * R - u * u - v * v);
    for (int k = 0; k < 3; k++)
        out[k] = C[k] + u * t1[k] + v * t2[k] + h * a[k];
}

/* Plans the cells over sphere L (slot l) of the n spheres of slots, the
 * others' largest radius r2: fills out->cells but first; returns the number
 * of cells (0: none fit, as when the others' centre lies inside L). */
static uint32_t plan_cells(const pw_sphere *slots, uint32_t n, uint32_t l, float r2, float cell_scale,
                           pw_dirmap_cells *out)
{
    double lo[3] = {1e30, 1e30, 1e30}, hi[3] = {-1e30, -1e30, -1e30};
    for (uint32_t k = 0; k < n; k++) {
        if (k == l)
            continue;
        double c[3] = {slots[k].c.x, slots[k].c.y, slots[k].c.z};
        for (int j = 0; j < 3; j++) {
            lo[j] = fmin(lo[j], c[j] - slots[k].r);
            hi[j] = fmax(hi[j], c[j] + slots[k].r);
        }
    }
    double C[3] = {slots[l].c.x, slots[l].c.y, slots[l].c.z}, R = slots[l].r, a[3], t1[3], t2[3];
    for (int j = 0; j < 3; j++)
        a[j] = 0.5 * (lo[j] + hi[j]) - C[j];
    double len = sqrt(dot3(a, a));
    if (!(len > R))
        return 0;
    for (int j = 0; j < 3; j++)
        a[j] /= len;
    /* t1 across a, from the axis a is least aligned with; t2 = a x t1. */
    int m = fabs(a[0]) <= fabs(a[1]) && fabs(a[0]) <= fabs(a[2]) ? 0 : fabs(a[1]) <= fabs(a[2]) ? 1 : 2;
    double e[3] = {0.0, 0.0, 0.0};
    e[m] = 1.0;
    double ea = dot3(e, a);
    for (int j = 0; j < 3; j++)
        t1[j] = e[j] - ea * a[j];
    double l1 = sqrt(dot3(t1, t1));
    for (int j = 0; j < 3; j++)
        t1[j] /= l1;
    t2[0] = a[1] * t1[2] - a[2] * t1[1];
    t2[1] = a[2] * t1[0] - a[0] * t1[2];
    t2[2] = a[0] * t1[1] - a[1] * t1[0];
    /* The others' box seen along a, widened by a quarter of its size on
     * each side (bounces from the ground nearby reach them too). */
    double u0 = 1e30, u1 = -1e30, v0 = 1e30, v1 = -1e30;
    for (int k = 0; k < 8; k++) {
        double p[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]}, q[3];
        for (int j = 0; j < 3; j++)
            q[j] = p[j] - C[j];
        u0 = fmin(u0, dot3(q, t1)), u1 = fmax(u1, dot3(q, t1));
        v0 = fmin(v0, dot3(q, t2)), v1 = fmax(v1, dot3(q, t2));
    }
    if (!isfinite(u1 - u0) || !isfinite(v1 - v0))
        return 0;
    double wide = 0.25 * fmax(u1 - u0, v1 - v0);
    u0 -= wide, u1 += wide, v0 -= wide, v1 += wide;
    double size = cell_scale * 2.0 * r2;
    if (!(size > 0.0))
        return 0;
    while (ceil((u1 - u0) / size) * ceil((v1 - v0) / size) > PW_DIRMAP_MAX_CELLS)
        size *= 1.25;
    out->c = dv3(C);
    out->t1 = dv3(t1);
    out->t2 = dv3(t2);
    out->u0 = (float)u0;
    out->v0 = (float)v0;
    out->inv_size = (float)(1.0 / size);
    out->nu = (uint32_t)ceil((u1 - u0) / size);
    out->nv = (uint32_t)ceil((v1 - v0) / size);
    return out->nu * out->nv;
}

/* The ball around the large sphere's surface above cell (i, j): centred
 * on the point above the cell's centre, through every point above the
 * cell (5 x 5 points, corners included: the patch is nearly flat), with
 * room for the origins' offsets. Cells that reach past the sphere's rim
 * get rho 0, and every slot in their masks. */
typedef struct cell_axes {
    double t1[3], t2[3], a[3]; /* the grid's axes, and a = t1 x t2 away from the sphere's centre */
} cell_axes;

static cell_axes grid_axes(const pw_dirmap_cells *g)
{
    cell_axes x = {{g->t1.x, g->t1.y, g->t1.z}, {g->t2.x, g->t2.y, g->t2.z}, {0.0, 0.0, 0.0}};
    x.a[0] = x.t1[1] * x.t2[2] - x.t1[2] * x.t2[1];
    x.a[1] = x.t1[2] * x.t2[0] - x.t1[0] * x.t2[2];
    x.a[2] = x.t1[0] * x.t2[1] - x.t1[1] * x.t2[0];
    return x;
}

static int cell_ball(const pw_dirmap_cells *g, const cell_axes *ax, const pw_sphere *L, uint32_t i, uint32_t j,
                     pw_dirmap *out)
{
    double C[3] = {L->c.x, L->c.y, L->c.z}, R = L->r;
    const double *t1 = ax->t1, *t2 = ax->t2, *a = ax->a;
    double size = 1.0 / g->inv_size, ua = g->u0 + i * size, va = g->v0 + j * size;
    double corner_u = fmax(fabs(ua), fabs(ua + size)), corner_v = fmax(fabs(va), fabs(va + size));
    memset(out, 0, sizeof *out);
    if (corner_u * corner_u + corner_v * corner_v >= 0.81 * R * R)
        return 0;
    double centre[3], p[3], far = 0.0;
    cell_point(C, R, a, t1, t2, ua + 0.5 * size, va + 0.5 * size, centre);
    for (int y = 0; y <= 4; y++)
        for (int x = 0; x <= 4; x++) {
            cell_point(C, R, a, t1, t2, ua + 0.25 * x * size, va + 0.25 * y * size, p);
            double d[3] = {p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]};
            far = fmax(far, sqrt(dot3(d, d)));
        }
    out->c = dv3(centre);
    out->rho = (float)far * 1.0001f + origin_pad(out->c, (float)R);
    return 1;
}

/* Origin maps need a ball per sphere, and for a sphere 8 times larger than
 * any other the cells instead (which are smaller than its ball by far). */
static uint32_t large_slot(const pw_sphere *slots, uint32_t n, float *r2)
{
    uint32_t l = 0;
    for (uint32_t k = 1; k < n; k++)
        l = slots[k].r > slots[l].r ? k : l;
    *r2 = 0.0f;
    for (uint32_t k = 0; k < n; k++)
        if (k != l)
            *r2 = fmaxf(*r2, slots[k].r);
    return n >= 2 && slots[l].r > 8.0f * *r2 ? l : PW_NO_DIRMAP;
}

int pw_dirmaps_build(const pw_scene_view *s, const pw_sphere *slots, const uint32_t *prims, float cell_scale,
                     size_t max_origin_bytes, pw_dirmaps *out)
{
    memset(out, 0, sizeof *out);
    uint32_t n = s->n_spheres;
    if (n > 64 || !slots || !prims)
        return 0;
    float r2 = 0.0f;
    uint32_t large = cell_scale > 0.0f ? large_slot(slots, n, &r2) : PW_NO_DIRMAP;
    uint32_t n_cells = large != PW_NO_DIRMAP ? plan_cells(slots, n, large, r2, cell_scale, &out->cells) : 0;
    /* A large sphere whose cells cannot be planned (the others' box centred
     * inside it: spheres sunk in a ground) takes ball maps like the rest. */
    if (n_cells == 0)
        large = PW_NO_DIRMAP;
    uint32_t n_origin = cell_scale > 0.0f ? 2 * n + n_cells : 0;
    if ((size_t)n_origin * PW_DIRMAP_TEXELS * sizeof *out->masks > max_origin_bytes) {
        n_origin = 0;
        memset(&out->cells, 0, sizeof out->cells);
    }
    uint32_t most = PW_DIRMAP_MAX + n_origin;
    out->maps = (pw_dirmap *)calloc(most, sizeof *out->maps);
    out->masks = (uint64_t *)malloc((size_t)most * PW_DIRMAP_TEXELS * sizeof *out->masks);
    texel_cones *tc = (texel_cones *)malloc(sizeof *tc);
    if (n_origin)
        out->origin = (uint32_t *)malloc(n * sizeof *out->origin);
    if (!out->maps || !out->masks || !tc || (n_origin && !out->origin)) {
        free(tc);
        pw_dirmaps_free(out);
        return 0;
    }
    texel_cones_fill(tc);
    /* The camera's ball: the lens (a pinhole's is a point). */
    out->maps[0].c = s->cam.origin;
    out->maps[0].rho = s->cam.lens_radius * 1.001f + 1e-6f;
    out->n = 1;
    /* Each sphere light's: a shadow ray to it stops 1e-4 of its length
     * short of the surface (pw_shadow_tmax_sphere), so the ball reaches a
     * little past the sphere; rays from farther than about 20 units end
     * outside it and walk the runs instead. */
    for (uint32_t i = 0; i < s->n_lights && out->n < PW_DIRMAP_MAX; i++) {
        if (s->lights[i].type != PW_LIGHT_SPHERE)
            continue;
        pw_sphere l = s->spheres[s->lights[i].prim];
        pw_dirmap *m = &out->maps[out->n++];
        m->c = l.c;
        m->rho = l.r * 1.001f + 2e-3f;
        for (uint32_t k = 0; k < n; k++)
            if (prims[k] == s->lights[i].prim) {
                m->own_r = l.r;
                m->own_slot = k;
            }
    }
    out->n_all = out->n;
    /* Origin maps: each sphere's ball, with room for the offset origins
     * of the rays that leave it; the large sphere's cells. */
    for (uint32_t k = 0; out->origin && k < n; k++) {
        out->origin[prims[k]] = k == large ? PW_DIRMAP_CELLS : out->n_all;
        if (k == large)
            continue;
        pw_dirmap *m = &out->maps[out->n_all];
        m->c = slots[k].c;
        m->rho = slots[k].r * 1.0001f + origin_pad(slots[k].c, slots[k].r) + 1e-4f * slots[k].r;
        m->own_r = slots[k].r;
        m->own_slot = k;
        m->outward = 1;
        out->maps[out->n_all + 1] = *m; /* the rays that leave it: the same ball */
        out->maps[out->n_all + 1].outward = 0;
        out->n_all += 2;
    }
    if (out->origin && n_cells) {
        out->cells.first = out->n_all;
        cell_axes axes = grid_axes(&out->cells);
        for (uint32_t j = 0; j < out->cells.nv; j++)
            for (uint32_t i = 0; i < out->cells.nu; i++) {
                pw_dirmap *m = &out->maps[out->n_all++];
                if (cell_ball(&out->cells, &axes, &slots[large], i, j, m)) {
                    m->own_r = slots[large].r;
                    m->own_slot = large;
                }
            }
    }
    for (uint32_t m = 0; m < out->n_all; m++) {
        uint64_t *masks = out->masks + (size_t)m * PW_DIRMAP_TEXELS;
        if (m > 0 && out->maps[m].rho == 0.0f) { /* a cell past the rim: every slot */
            for (uint32_t t = 0; t < PW_DIRMAP_TEXELS; t++)
                masks[t] = n == 64 ? ~(uint64_t)0 : ((uint64_t)1 << n) - 1u;
            continue;
        }
        if (m > 0 && out->maps[m - 1].outward && out->origin)
            build_outward_map(out->maps[m].c, out->maps[m].rho, slots, n, tc, masks);
        else
            build_map(out->maps[m].c, out->maps[m].rho, slots, n, tc, masks);
        /* A map's own sphere is added back by the lookup where needed (the
         * camera's map, own_r 0, keeps every slot). */
        if (out->maps[m].own_r > 0.0f)
            for (uint32_t t = 0; t < PW_DIRMAP_TEXELS; t++)
                masks[t] &= ~((uint64_t)1 << out->maps[m].own_slot);
    }
    free(tc);
    return 1;
}

void pw_dirmaps_view(pw_scene_view *view, const pw_dirmaps *m)
{
    view->dirmaps = m->maps;
    view->dirmap_masks = m->masks;
    view->n_dirmaps = m->n;
    view->dirmap_camera = 1;
    view->dirmap_origin = m->origin;
    view->dirmap_cells = m->cells;
}

void pw_dirmaps_free(pw_dirmaps *m)
{
    free(m->maps);
    free(m->masks);
    free(m->origin);
    memset(m, 0, sizeof *m);
}
