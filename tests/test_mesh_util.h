/* Closed test meshes (a cube of 12 triangles and a subdivided icosphere) and
 * a brute-force "every crossing along the ray" query over them. */
#ifndef PW_TEST_MESH_UTIL_H
#define PW_TEST_MESH_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "geom/intersect.h"

typedef struct test_mesh {
    pw_vec3 *v;
    uint32_t *idx; /* 3 per triangle, counter-clockwise seen from outside */
    uint32_t nv, nt;
    uint32_t (*edges)[2]; /* unique edges, each shared by exactly two triangles */
    uint32_t ne;
} test_mesh;

static inline void test_mesh_free(test_mesh *m)
{
    free(m->v);
    free(m->idx);
    free(m->edges);
    memset(m, 0, sizeof *m);
}

static inline void test_mesh_collect_edges(test_mesh *m)
{
    m->edges = malloc((size_t)3 * m->nt * sizeof *m->edges);
    m->ne = 0;
    for (uint32_t t = 0; t < m->nt; t++)
        for (int k = 0; k < 3; k++) {
            uint32_t a = m->idx[3 * t + k], b = m->idx[3 * t + (k + 1) % 3];
            if (a < b) { /* every edge appears once as (a < b) in a closed, consistently wound mesh */
                m->edges[m->ne][0] = a;
                m->edges[m->ne][1] = b;
                m->ne++;
            }
        }
}

/* The cube [lo, hi]^3 as 12 triangles with outward winding. */
static inline test_mesh test_mesh_cube(float lo, float hi)
{
    static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                     {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    static const uint32_t faces[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                                          {3, 7, 6}, {3, 6, 2}, {0, 4, 7}, {0, 7, 3}, {1, 2, 6}, {1, 6, 5}};
    test_mesh m;
    memset(&m, 0, sizeof m);
    m.nv = 8;
    m.nt = 12;
    m.v = malloc(8 * sizeof *m.v);
    m.idx = malloc(36 * sizeof *m.idx);
    for (int i = 0; i < 8; i++)
        m.v[i] = v3(corner[i][0] ? hi : lo, corner[i][1] ? hi : lo, corner[i][2] ? hi : lo);
    memcpy(m.idx, faces, sizeof faces);
    test_mesh_collect_edges(&m);
    return m;
}

/* An icosahedron subdivided `levels` times, vertices on the sphere of the
 * given centre and radius (computed in double, stored as float). */
static inline test_mesh test_mesh_icosphere(int levels, pw_vec3 centre, double radius)
{
    const double p = (1.0 + sqrt(5.0)) / 2.0;
    double (*pos)[3] = malloc(sizeof(double[3]) * 12);
    const double base[12][3] = {{-1, p, 0}, {1, p, 0}, {-1, -p, 0}, {1, -p, 0}, {0, -1, p}, {0, 1, p},
                                {0, -1, -p}, {0, 1, -p}, {p, 0, -1}, {p, 0, 1}, {-p, 0, -1}, {-p, 0, 1}};
    static const uint32_t f20[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                        {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                        {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                        {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    uint32_t nv = 12, nt = 20;
    uint32_t *idx = malloc(sizeof f20);
    memcpy(pos, base, sizeof base);
    memcpy(idx, f20, sizeof f20);
    for (uint32_t i = 0; i < nv; i++) {
        double l = sqrt(pos[i][0] * pos[i][0] + pos[i][1] * pos[i][1] + pos[i][2] * pos[i][2]);
        for (int k = 0; k < 3; k++)
            pos[i][k] /= l;
    }
    for (int lv = 0; lv < levels; lv++) {
        uint32_t max_v = nv + 3 * nt; /* upper bound on the vertices after this level */
        uint32_t *mid = malloc((size_t)nv * nv * sizeof *mid);
        memset(mid, 0xff, (size_t)nv * nv * sizeof *mid);
        pos = realloc(pos, sizeof(double[3]) * max_v);
        uint32_t *nidx = malloc((size_t)12 * nt * sizeof *nidx);
        uint32_t onv = nv;
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t m3[3];
            for (int k = 0; k < 3; k++) {
                uint32_t a = idx[3 * t + k], b = idx[3 * t + (k + 1) % 3];
                uint32_t key = a < b ? a * onv + b : b * onv + a;
                if (mid[key] == 0xffffffffu) {
                    double q[3], l = 0;
                    for (int c = 0; c < 3; c++) {
                        q[c] = 0.5 * (pos[a][c] + pos[b][c]);
                        l += q[c] * q[c];
                    }
                    l = sqrt(l);
                    for (int c = 0; c < 3; c++)
                        pos[nv][c] = q[c] / l;
                    mid[key] = nv++;
                }
                m3[k] = mid[key];
            }
            uint32_t a = idx[3 * t], b = idx[3 * t + 1], c = idx[3 * t + 2];
            uint32_t tris[4][3] = {{a, m3[0], m3[2]}, {b, m3[1], m3[0]}, {c, m3[2], m3[1]}, {m3[0], m3[1], m3[2]}};
            memcpy(nidx + 12 * t, tris, sizeof tris);
        }
        free(mid);
        free(idx);
        idx = nidx;
        nt *= 4;
    }
    test_mesh m;
    memset(&m, 0, sizeof m);
    m.nv = nv;
    m.nt = nt;
    m.idx = idx;
    m.v = malloc((size_t)nv * sizeof *m.v);
    for (uint32_t i = 0; i < nv; i++)
        m.v[i] = v3((float)(centre.x + radius * pos[i][0]), (float)(centre.y + radius * pos[i][1]),
                    (float)(centre.z + radius * pos[i][2]));
    free(pos);
    test_mesh_collect_edges(&m);
    return m;
}

/* Every triangle hit of the ray in (0, inf), sorted by t; returns the count
 * (at most cap are stored). */
static inline int test_mesh_all_hits(const test_mesh *m, pw_vec3 o, pw_vec3 d, float *ts, uint32_t *tris, int cap)
{
    pw_ray_shear sh = pw_ray_shear_make(d);
    int n = 0;
    for (uint32_t t = 0; t < m->nt; t++) {
        float th, u, v;
        const uint32_t *ix = m->idx + 3 * t;
        if (pw_intersect_triangle(o, &sh, m->v[ix[0]], m->v[ix[1]], m->v[ix[2]], 0.0f, PW_INF, &th, &u, &v)) {
            if (n < cap) {
                int j = n;
                while (j > 0 && ts[j - 1] > th) {
                    ts[j] = ts[j - 1];
                    tris[j] = tris[j - 1];
                    j--;
                }
                ts[j] = th;
                tris[j] = t;
            }
            n++;
        }
    }
    return n;
}

/* Number of distinct surface crossings among sorted hit distances: hits
 * closer than tol are the same crossing (a ray through a shared edge or
 * vertex may be reported by each triangle there). */
static inline int test_count_crossings(const float *ts, int n, float tol)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || ts[i] - ts[i - 1] > tol)
            c++;
    return c;
}

#endif
