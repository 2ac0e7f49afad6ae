/* 4x4 transforms in double precision: pbrt scenes chain many of them, and
 * the camera needs an exact inverse. */
#include <math.h>
#include <string.h>

#include "scene/pbrt/pbrt_internal.h"

pbrt_mat4 pbrt_mat_identity(void)
{
    pbrt_mat4 r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < 4; i++)
        r.m[i][i] = 1.0;
    return r;
}

pbrt_mat4 pbrt_mat_mul(const pbrt_mat4 *a, const pbrt_mat4 *b)
{
    pbrt_mat4 r;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            r.m[i][j] =
                a->m[i][0] * b->m[0][j] + a->m[i][1] * b->m[1][j] + a->m[i][2] * b->m[2][j] + a->m[i][3] * b->m[3][j];
    return r;
}

pbrt_mat4 pbrt_mat_translate(double x, double y, double z)
{
    pbrt_mat4 r = pbrt_mat_identity();
    r.m[0][3] = x;
    r.m[1][3] = y;
    r.m[2][3] = z;
    return r;
}

pbrt_mat4 pbrt_mat_scale(double x, double y, double z)
{
    pbrt_mat4 r = pbrt_mat_identity();
    r.m[0][0] = x;
    r.m[1][1] = y;
    r.m[2][2] = z;
    return r;
}

int pbrt_mat_rotate(double deg, double x, double y, double z, pbrt_mat4 *out)
{
    double len = sqrt(x * x + y * y + z * z);
    if (!(len > 0.0))
        return 0;
    x /= len, y /= len, z /= len;
    double th = deg * (M_PI / 180.0), s = sin(th), c = cos(th);
    pbrt_mat4 r = pbrt_mat_identity();
    r.m[0][0] = x * x + (1 - x * x) * c;
    r.m[0][1] = x * y * (1 - c) - z * s;
    r.m[0][2] = x * z * (1 - c) + y * s;
    r.m[1][0] = x * y * (1 - c) + z * s;
    r.m[1][1] = y * y + (1 - y * y) * c;
    r.m[1][2] = y * z * (1 - c) - x * s;
    r.m[2][0] = x * z * (1 - c) - y * s;
    r.m[2][1] = y * z * (1 - c) + x * s;
    r.m[2][2] = z * z + (1 - z * z) * c;
    *out = r;
    return 1;
}

static void cross3(const double a[3], const double b[3], double r[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static int normalize3(double a[3])
{
    double l = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(l > 1e-300))
        return 0;
    a[0] /= l, a[1] /= l, a[2] /= l;
    return 1;
}

/* Columns right = up x dir, up' = dir x right, dir, eye give world-from-camera
 * (pbrt's convention, a left-handed camera space); its inverse is returned. */
int pbrt_mat_look_at(const double v[9], pbrt_mat4 *out)
{
    double dir[3] = {v[3] - v[0], v[4] - v[1], v[5] - v[2]}, up[3] = {v[6], v[7], v[8]}, right[3], nup[3];
    if (!normalize3(dir) || !normalize3(up))
        return 0;
    cross3(up, dir, right);
    if (!normalize3(right))
        return 0;
    cross3(dir, right, nup);
    pbrt_mat4 w = pbrt_mat_identity();
    for (int i = 0; i < 3; i++) {
        w.m[i][0] = right[i];
        w.m[i][1] = nup[i];
        w.m[i][2] = dir[i];
        w.m[i][3] = v[i];
    }
    return pbrt_mat_inverse(&w, out);
}

/* Gauss-Jordan elimination with partial pivoting. */
int pbrt_mat_inverse(const pbrt_mat4 *m, pbrt_mat4 *out)
{
    double a[4][8];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            a[i][j] = m->m[i][j];
            a[i][j + 4] = i == j;
        }
    for (int c = 0; c < 4; c++) {
        int piv = c;
        for (int r = c + 1; r < 4; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (!(fabs(a[piv][c]) > 1e-300) || !isfinite(a[piv][c]))
            return 0;
        for (int j = 0; j < 8; j++) {
            double t = a[c][j];
            a[c][j] = a[piv][j];
            a[piv][j] = t;
        }
        double inv = 1.0 / a[c][c];
        for (int j = 0; j < 8; j++)
            a[c][j] *= inv;
        for (int r = 0; r < 4; r++) {
            if (r == c)
                continue;
            double f = a[r][c];
            for (int j = 0; j < 8; j++)
                a[r][j] -= f * a[c][j];
        }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            out->m[i][j] = a[i][j + 4];
    return 1;
}

pw_vec3 pbrt_xform_point(const pbrt_mat4 *m, pw_vec3 p)
{
    double r[4];
    for (int i = 0; i < 4; i++)
        r[i] = m->m[i][0] * p.x + m->m[i][1] * p.y + m->m[i][2] * p.z + m->m[i][3];
    if (r[3] != 1.0 && r[3] != 0.0)
        return v3((float)(r[0] / r[3]), (float)(r[1] / r[3]), (float)(r[2] / r[3]));
    return v3((float)r[0], (float)r[1], (float)r[2]);
}

pw_vec3 pbrt_xform_vector(const pbrt_mat4 *m, pw_vec3 v)
{
    return v3((float)(m->m[0][0] * v.x + m->m[0][1] * v.y + m->m[0][2] * v.z),
              (float)(m->m[1][0] * v.x + m->m[1][1] * v.y + m->m[1][2] * v.z),
              (float)(m->m[2][0] * v.x + m->m[2][1] * v.y + m->m[2][2] * v.z));
}

double pbrt_mat_det3(const pbrt_mat4 *m)
{
    const double(*a)[4] = m->m;
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
           a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
}
