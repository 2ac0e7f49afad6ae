/* 8-wide BVH for the CPU: conversion from the binary BVH and AVX2 traversal.
 * The sphere lanes compute exactly the operations of pw_intersect_sphere,
 * the triangle lanes those of pw_intersect_triangle, in the same order, so
 * hits are bit-identical to the shared scalar code. */
#include "accel/bvh8_cpu.h"

#include <stdlib.h>
#include <string.h>

#include "accel/bvh8_flat.h"
#include "accel/bvh_traverse.h"
#include "accel/sphere_groups.h"

#ifdef PW_BVH8_HAVE_AVX2

typedef struct conv {
    const pw_scene_view *s;
    uint32_t *count; /* primitives under each binary node */
    uint32_t *tris;  /* triangles under each binary node */
    pw_bvh8 *b;
    uint32_t cap_nodes, cap_leaves, cap_blocks, cap_tris;
    uint32_t *sph, n_sph; /* scratch: spheres of the leaf being made */
    uint32_t *tri, n_tri; /* scratch: its triangles */
} conv;

static void count_prims(conv *c, uint32_t n)
{
    const pw_bvh_node *nd = &c->s->nodes[n];
    if (nd->count > 0) {
        c->count[n] = nd->count;
        c->tris[n] = 0;
        for (uint32_t i = nd->first; i < nd->first + nd->count; i++)
            c->tris[n] += c->s->prim_ref[i] >= c->s->n_spheres;
        return;
    }
    count_prims(c, nd->first);
    count_prims(c, nd->first + 1);
    c->count[n] = c->count[nd->first] + c->count[nd->first + 1];
    c->tris[n] = c->tris[nd->first] + c->tris[nd->first + 1];
}

static int is_leaf(const conv *c, uint32_t n)
{
    return c->count[n] <= PW_BVH8_LEAF_PRIMS || (c->tris[n] == 0 && c->count[n] <= PW_BVH8_LEAF_SPHERES);
}

static float node_area(const pw_bvh_node *n)
{
    float dx = n->bmax[0] - n->bmin[0], dy = n->bmax[1] - n->bmin[1], dz = n->bmax[2] - n->bmin[2];
    return dx * dy + dy * dz + dz * dx;
}

static int reserve(void **p, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap)
        return 1;
    uint32_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, (size_t)nc * sz);
    if (!q)
        return 0;
    *p = q;
    *cap = nc;
    return 1;
}

static void gather_prims(conv *c, uint32_t n)
{
    const pw_bvh_node *nd = &c->s->nodes[n];
    if (nd->count == 0) {
        gather_prims(c, nd->first);
        gather_prims(c, nd->first + 1);
        return;
    }
    for (uint32_t i = nd->first; i < nd->first + nd->count; i++) {
        uint32_t p = c->s->prim_ref[i];
        if (p < c->s->n_spheres)
            c->sph[c->n_sph++] = p;
        else
            c->tri[c->n_tri++] = p;
    }
}

/* Fills triangle block blk with triangles prims[0 .. n) (n <= 8). */
static void fill_tri_block(const pw_scene_view *s, pw_tri8 *blk, const uint32_t *prims, uint32_t n)
{
    memset(blk, 0, sizeof *blk);
    for (uint32_t lane = 0; lane < 8; lane++) {
        blk->prim[lane] = lane < n ? prims[lane] : PW_NO_HIT;
        if (lane >= n)
            continue;
        const uint32_t *ix = s->tri_idx + 3 * (prims[lane] - s->n_spheres);
        for (int k = 0; k < 3; k++) {
            pw_vec3 p = s->pos[ix[k]];
            blk->v[k][0][lane] = p.x, blk->v[k][1][lane] = p.y, blk->v[k][2][lane] = p.z;
        }
    }
}

/* A small binary subtree becomes one wide leaf: its spheres and its
 * triangles in blocks of 8 lanes. */
static int32_t make_leaf(conv *c, uint32_t n)
{
    pw_bvh8 *b = c->b;
    uint32_t nb = (c->count[n] - c->tris[n] + 7) / 8, nt = (c->tris[n] + 7) / 8;
    if (!reserve((void **)&b->leaves, &c->cap_leaves, b->n_leaves + 1, sizeof *b->leaves) ||
        !reserve((void **)&b->blocks, &c->cap_blocks, b->n_blocks + nb, sizeof *b->blocks) ||
        !reserve((void **)&b->tri_blocks, &c->cap_tris, b->n_tri_blocks + nt, sizeof *b->tri_blocks))
        return INT32_MIN;
    pw_bvh8_leaf *leaf = &b->leaves[b->n_leaves];
    leaf->tri_first = b->n_tri_blocks;
    leaf->tri_count = c->tris[n];
    leaf->block_first = b->n_blocks;
    leaf->block_count = nb;
    c->n_sph = c->n_tri = 0;
    gather_prims(c, n);
    for (uint32_t k = 0; k < nt; k++) {
        uint32_t left = c->n_tri - 8 * k;
        fill_tri_block(c->s, &b->tri_blocks[b->n_tri_blocks + k], c->tri + 8 * k, left < 8 ? left : 8);
    }
    b->n_tri_blocks += nt;
    for (uint32_t k = 0; k < 8 * nb; k++) {
        pw_sphere8 *blk = &b->blocks[b->n_blocks + k / 8];
        uint32_t lane = k % 8;
        if (k < c->n_sph) {
            pw_sphere sp = c->s->spheres[c->sph[k]];
            blk->cx[lane] = sp.c.x, blk->cy[lane] = sp.c.y, blk->cz[lane] = sp.c.z, blk->r2[lane] = sp.r * sp.r;
            blk->prim[lane] = c->sph[k];
        } else {
            blk->cx[lane] = PW_INF, blk->cy[lane] = blk->cz[lane] = blk->r2[lane] = 0.0f;
            blk->prim[lane] = PW_NO_HIT;
        }
    }
    b->n_blocks += nb;
    return ~(int32_t)b->n_leaves++;
}

static int32_t convert(conv *c, uint32_t n);

/* Collapses binary nodes under n into up to 8 children, opening the largest
 * inner child first (the usual greedy collapse by surface area). */
static int32_t make_inner(conv *c, uint32_t n)
{
    uint32_t kids[8], nk = 2;
    kids[0] = c->s->nodes[n].first;
    kids[1] = kids[0] + 1;
    while (nk < 8) {
        int best = -1;
        float best_area = -1.0f;
        for (uint32_t i = 0; i < nk; i++) {
            const pw_bvh_node *k = &c->s->nodes[kids[i]];
            if (k->count == 0 && !is_leaf(c, kids[i]) && node_area(k) > best_area) {
                best = (int)i;
                best_area = node_area(k);
            }
        }
        if (best < 0)
            break;
        uint32_t open = kids[best];
        kids[best] = c->s->nodes[open].first;
        kids[nk++] = c->s->nodes[open].first + 1;
    }
    pw_bvh8 *b = c->b;
    if (!reserve((void **)&b->nodes, &c->cap_nodes, b->n_nodes + 1, sizeof *b->nodes))
        return INT32_MIN;
    uint32_t me = b->n_nodes++;
    pw_bvh8_node tmp;
    memset(&tmp, 0, sizeof tmp);
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++) {
            tmp.lo[a][k] = PW_INF;
            tmp.hi[a][k] = -PW_INF;
        }
    for (uint32_t i = 0; i < nk; i++) {
        const pw_bvh_node *k = &c->s->nodes[kids[i]];
        for (int a = 0; a < 3; a++) {
            tmp.lo[a][i] = k->bmin[a];
            tmp.hi[a][i] = k->bmax[a];
        }
        tmp.child[i] = convert(c, kids[i]);
        if (tmp.child[i] == INT32_MIN)
            return INT32_MIN;
    }
    for (uint32_t i = nk; i < 8; i++)
        tmp.child[i] = INT32_MIN;
    b->nodes[me] = tmp; /* b->nodes may have moved during the recursion */
    return (int32_t)me;
}

static int32_t convert(conv *c, uint32_t n)
{
    return is_leaf(c, n) ? make_leaf(c, n) : make_inner(c, n);
}

/* Flat mode: the sphere groups' runs (accel/sphere_groups.h) as blocks of
 * 8, their boxes the children of one node. */
static int build_flat(const pw_scene_view *s, pw_bvh8 *b)
{
    enum { W = PW_BVH8_WIDTH };
    uint32_t order[PW_GROUPS_MAX_SPHERES], first[PW_GROUPS_MAX + 1];
    uint32_t runs = pw_sphere_groups_cut(s, W, W, order, first);
    if (runs == 0)
        return 0;
    b->nodes = calloc(1, sizeof *b->nodes);
    b->blocks = calloc(runs, sizeof *b->blocks);
    if (!b->nodes || !b->blocks)
        return 0;
    b->n_nodes = 1;
    b->n_blocks = runs;
    pw_bvh8_node *nd = b->nodes;
    for (int k = 0; k < W; k++) {
        for (int a = 0; a < 3; a++) {
            nd->lo[a][k] = PW_INF;
            nd->hi[a][k] = -PW_INF;
        }
        nd->child[k] = k < (int)runs ? k : INT32_MIN;
    }
    for (uint32_t k = 0; k < runs; k++) {
        float lo[3], hi[3];
        pw_sphere_groups_box(s, order, first[k], first[k + 1], lo, hi);
        for (int a = 0; a < 3; a++) {
            nd->lo[a][k] = lo[a];
            nd->hi[a][k] = hi[a];
        }
        pw_sphere8 *blk = &b->blocks[k];
        for (uint32_t lane = 0; lane < W; lane++) {
            if (first[k] + lane < first[k + 1]) {
                pw_sphere sp = s->spheres[order[first[k] + lane]];
                blk->cx[lane] = sp.c.x, blk->cy[lane] = sp.c.y, blk->cz[lane] = sp.c.z, blk->r2[lane] = sp.r * sp.r;
                blk->prim[lane] = order[first[k] + lane];
            } else {
                blk->cx[lane] = PW_INF, blk->cy[lane] = blk->cz[lane] = blk->r2[lane] = 0.0f;
                blk->prim[lane] = PW_NO_HIT;
            }
        }
    }
    for (uint32_t k = 0; k < runs; k++)
        b->block_spheres[k] = (uint8_t)(first[k + 1] - first[k]);
    b->flat = 1;
    return 1;
}

int pw_bvh8_build(const pw_scene_view *s, pw_bvh8 *out)
{
    memset(out, 0, sizeof *out);
    if (s->n_tris == 0 && s->n_spheres > 0 && s->n_spheres <= PW_GROUPS_MAX_SPHERES) {
        if (build_flat(s, out))
            return 1;
        pw_bvh8_free(out);
        return 0;
    }
    conv c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.b = out;
    uint32_t n_bin = 2 * (s->n_spheres + s->n_tris);
    c.count = malloc((size_t)n_bin * sizeof *c.count);
    c.tris = malloc((size_t)n_bin * sizeof *c.tris);
    /* No leaf holds more than PW_BVH8_LEAF_SPHERES primitives (is_leaf). */
    c.sph = malloc((size_t)PW_BVH8_LEAF_SPHERES * sizeof *c.sph);
    c.tri = malloc((size_t)PW_BVH8_LEAF_SPHERES * sizeof *c.tri);
    int32_t root = INT32_MIN;
    if (c.count && c.tris && c.sph && c.tri) {
        count_prims(&c, 0);
        root = convert(&c, 0);
    }
    free(c.count);
    free(c.tris);
    free(c.sph);
    free(c.tri);
    if (root == INT32_MIN) {
        pw_bvh8_free(out);
        return 0;
    }
    out->root_is_leaf = root < 0;
    return 1;
}

/* Nearest sphere of a leaf closer than *tmax: the blocks keep a running
 * per-lane minimum and one horizontal reduction picks the winner. */
static int leaf_spheres(const pw_sphere8 *blocks, uint32_t n, const pw_ray8 *r, float tmin, float *tmax, pw_hit *hit,
                        int any_hit)
{
    __m256 lo = _mm256_set1_ps(tmin), best = _mm256_set1_ps(*tmax);
    __m256i best_prim = _mm256_setzero_si256();
    __m256 behind_ok = _mm256_cmp_ps(lo, _mm256_setzero_ps(), _CMP_GE_OQ);
    int found = 0;
    for (uint32_t k = 0; k < n; k++) {
        found |= pw_sphere8_test(&blocks[k], r, lo, behind_ok, &best, &best_prim);
        if (any_hit && found)
            return 1;
    }
    if (!found)
        return 0;
    pw_sphere8_resolve(best, best_prim, tmax, hit);
    return 1;
}

/* The ray in the frame of the watertight test: origin coordinates and
 * shear in the order kx, ky, kz (pw_ray_shear), and the scalar origin and
 * shear for the blocks that go through the scalar test. */
typedef struct tri_ray8 {
    __m256 o[3], s[3];
    int k[3];
    pw_vec3 org;
    const pw_ray_shear *sh;
} tri_ray8;

static tri_ray8 tri_ray8_make(pw_vec3 o, const pw_ray_shear *sh)
{
    tri_ray8 t;
    t.org = o;
    t.sh = sh;
    const float oo[3] = {o.x, o.y, o.z};
    t.k[0] = sh->kx, t.k[1] = sh->ky, t.k[2] = sh->kz;
    for (int i = 0; i < 3; i++)
        t.o[i] = _mm256_set1_ps(oo[t.k[i]]);
    t.s[0] = _mm256_set1_ps(sh->sx), t.s[1] = _mm256_set1_ps(sh->sy), t.s[2] = _mm256_set1_ps(sh->sz);
    return t;
}

/* Vertex j of the block's lanes translated to the ray's origin and sheared:
 * x, y and the unscaled z, exactly as pw_intersect_triangle computes them. */
static inline void tri8_vertex(const pw_tri8 *blk, int j, const tri_ray8 *t, __m256 *x, __m256 *y, __m256 *z)
{
    *z = _mm256_sub_ps(_mm256_loadu_ps(blk->v[j][t->k[2]]), t->o[2]);
    *x = _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(blk->v[j][t->k[0]]), t->o[0]), _mm256_mul_ps(t->s[0], *z));
    *y = _mm256_sub_ps(_mm256_sub_ps(_mm256_loadu_ps(blk->v[j][t->k[1]]), t->o[1]), _mm256_mul_ps(t->s[1], *z));
}

/* The block's n triangles one by one with the shared scalar test (a lane
 * had an edge function of exactly zero, which it decides in double). */
static int tri8_scalar(const pw_tri8 *blk, uint32_t n, const tri_ray8 *tr, float tmin, float *tmax, pw_hit *hit,
                       int any_hit)
{
    int found = 0;
    for (uint32_t lane = 0; lane < n; lane++) {
        pw_vec3 v[3];
        for (int k = 0; k < 3; k++)
            v[k] = v3(blk->v[k][0][lane], blk->v[k][1][lane], blk->v[k][2][lane]);
        float t, u, w;
        if (!pw_intersect_triangle(tr->org, tr->sh, v[0], v[1], v[2], tmin, *tmax, &t, &u, &w))
            continue;
        *tmax = t;
        hit->t = t, hit->prim = blk->prim[lane], hit->u = u, hit->v = w;
        found = 1;
        if (any_hit)
            return 1;
    }
    return found;
}

/* The nearest of the block's first n triangles closer than *tmax, each lane
 * with the operations of pw_intersect_triangle; ties go to the lowest lane,
 * as a scalar loop with a strict comparison gives. With any_hit it reports
 * the nearest too, where a scalar loop stops at the first: callers of an
 * any-hit query read only whether there was a hit. */
static int tri8_test(const pw_tri8 *blk, uint32_t n, const tri_ray8 *tr, float tmin, float *tmax, pw_hit *hit,
                     int any_hit)
{
    __m256 ax, ay, az, bx, by, bz, cx, cy, cz;
    tri8_vertex(blk, 0, tr, &ax, &ay, &az);
    tri8_vertex(blk, 1, tr, &bx, &by, &bz);
    tri8_vertex(blk, 2, tr, &cx, &cy, &cz);
    __m256 U = _mm256_sub_ps(_mm256_mul_ps(cx, by), _mm256_mul_ps(cy, bx));
    __m256 V = _mm256_sub_ps(_mm256_mul_ps(ax, cy), _mm256_mul_ps(ay, cx));
    __m256 W = _mm256_sub_ps(_mm256_mul_ps(bx, ay), _mm256_mul_ps(by, ax));
    __m256 zero = _mm256_setzero_ps();
    __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256 valid = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32((int)n), lanes));
    __m256 on_edge = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(U, zero, _CMP_EQ_OQ), _mm256_cmp_ps(V, zero, _CMP_EQ_OQ)),
                                  _mm256_cmp_ps(W, zero, _CMP_EQ_OQ));
    if (_mm256_movemask_ps(_mm256_and_ps(on_edge, valid)))
        return tri8_scalar(blk, n, tr, tmin, tmax, hit, any_hit);
    __m256 neg = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(U, zero, _CMP_LT_OQ), _mm256_cmp_ps(V, zero, _CMP_LT_OQ)),
                              _mm256_cmp_ps(W, zero, _CMP_LT_OQ));
    __m256 pos = _mm256_or_ps(_mm256_or_ps(_mm256_cmp_ps(U, zero, _CMP_GT_OQ), _mm256_cmp_ps(V, zero, _CMP_GT_OQ)),
                              _mm256_cmp_ps(W, zero, _CMP_GT_OQ));
    __m256 det = _mm256_add_ps(_mm256_add_ps(U, V), W);
    __m256 ok = _mm256_andnot_ps(_mm256_and_ps(neg, pos), valid);
    ok = _mm256_and_ps(ok, _mm256_cmp_ps(det, zero, _CMP_NEQ_UQ));
    if (!_mm256_movemask_ps(ok))
        return 0;
    __m256 sz = tr->s[2];
    __m256 T = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(U, _mm256_mul_ps(sz, az)), _mm256_mul_ps(V, _mm256_mul_ps(sz, bz))),
                             _mm256_mul_ps(W, _mm256_mul_ps(sz, cz)));
    __m256 inv = _mm256_div_ps(_mm256_set1_ps(1.0f), det);
    __m256 t = _mm256_mul_ps(T, inv);
    ok = _mm256_and_ps(ok, _mm256_and_ps(_mm256_cmp_ps(t, _mm256_set1_ps(tmin), _CMP_GT_OQ),
                                         _mm256_cmp_ps(t, _mm256_set1_ps(*tmax), _CMP_LT_OQ)));
    int mask = _mm256_movemask_ps(ok);
    if (!mask)
        return 0;
    float ts[8] __attribute__((aligned(32)));
    _mm256_store_ps(ts, t);
    int best = __builtin_ctz((unsigned)mask);
    for (int m = mask & (mask - 1); m; m &= m - 1) {
        int k = __builtin_ctz((unsigned)m);
        if (ts[k] < ts[best])
            best = k;
    }
    float us[8] __attribute__((aligned(32))), ws[8] __attribute__((aligned(32)));
    _mm256_store_ps(us, _mm256_mul_ps(V, inv));
    _mm256_store_ps(ws, _mm256_mul_ps(W, inv));
    *tmax = ts[best];
    hit->t = ts[best], hit->prim = blk->prim[best], hit->u = us[best], hit->v = ws[best];
    return 1;
}

int pw_bvh8_trace(const pw_scene_view *s, const pw_bvh8 *b, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
    if (b->flat)
        return pw_bvh8_trace_flat(b, r, tmin, tmax, any_hit, hit);
    pw_hit_none(hit, tmax);
    /* A ray with a NaN or infinite component hits nothing: its slab tests
     * would enter every slot of a node, empty ones (no child) included. */
    __m128 lim = _mm_set1_ps(PW_INF), abs_bits = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    __m128 o4 = _mm_and_ps(_mm_setr_ps(r.o.x, r.o.y, r.o.z, 0.0f), abs_bits);
    __m128 d4 = _mm_and_ps(_mm_setr_ps(r.d.x, r.d.y, r.d.z, 0.0f), abs_bits);
    if (_mm_movemask_ps(_mm_and_ps(_mm_cmple_ps(o4, lim), _mm_cmple_ps(d4, lim))) != 0xf)
        return 0;
    pw_ray8 r8 = pw_ray8_make(r);
    pw_vec3 inv = pw_safe_inverse(r.d);
    pw_ray_shear sh;
    tri_ray8 tr;
    if (s->n_tris) {
        sh = pw_ray_shear_make(r.d);
        tr = tri_ray8_make(r.o, &sh);
    }
    /* The near plane on each axis is the lower bound when the direction is
     * positive; an empty slot (lo = +inf, hi = -inf) is then never entered. */
    int nx = inv.x < 0.0f, ny = inv.y < 0.0f, nz = inv.z < 0.0f;
    __m256 ix = _mm256_set1_ps(inv.x), iy = _mm256_set1_ps(inv.y), iz = _mm256_set1_ps(inv.z);
    __m256 vtmin = _mm256_set1_ps(tmin);
    int32_t stack[PW_BVH_STACK * 8];
    float stack_t[PW_BVH_STACK * 8];
    int sp = 0, found = 0;
    stack[sp] = b->root_is_leaf ? ~0 : 0;
    stack_t[sp++] = tmin;
    while (sp > 0) {
        sp--;
        if (stack_t[sp] >= tmax)
            continue; /* a closer hit was found since this entry was pushed */
        int32_t cur = stack[sp];
        if (cur < 0) {
            const pw_bvh8_leaf *l = &b->leaves[~cur];
            if (l->block_count && leaf_spheres(b->blocks + l->block_first, l->block_count, &r8, tmin, &tmax, hit, any_hit)) {
                if (any_hit)
                    return 1;
                found = 1;
            }
            for (uint32_t k = 0; 8 * k < l->tri_count; k++) {
                uint32_t left = l->tri_count - 8 * k;
                if (tri8_test(b->tri_blocks + l->tri_first + k, left < 8 ? left : 8, &tr, tmin, &tmax, hit, any_hit)) {
                    if (any_hit)
                        return 1;
                    found = 1;
                }
            }
            continue;
        }
        __m256 tn;
        int mask = pw_bvh8_node_mask(&b->nodes[cur], &r8, ix, iy, iz, nx, ny, nz, vtmin, _mm256_set1_ps(tmax), &tn);
        if (!mask)
            continue;
        float tns[8] __attribute__((aligned(32)));
        _mm256_store_ps(tns, tn);
        /* Push hit children farthest first so the nearest is popped next. */
        int base = sp;
        while (mask) {
            int k = __builtin_ctz((unsigned)mask);
            mask &= mask - 1;
            float t = tns[k];
            int j = sp++;
            while (j > base && stack_t[j - 1] < t) {
                stack[j] = stack[j - 1];
                stack_t[j] = stack_t[j - 1];
                j--;
            }
            stack[j] = b->nodes[cur].child[k];
            stack_t[j] = t;
        }
    }
    return found;
}

#else /* no AVX2: the CPU traces the binary BVH */

int pw_bvh8_build(const pw_scene_view *s, pw_bvh8 *out)
{
    (void)s;
    memset(out, 0, sizeof *out);
    return 0;
}

int pw_bvh8_trace(const pw_scene_view *s, const pw_bvh8 *b, pw_ray r, float tmin, float tmax, int any_hit, pw_hit *hit)
{
    (void)b;
    return pw_bvh_trace(s, r, tmin, tmax, any_hit, hit);
}

#endif

uint64_t pw_bvh8_bytes(const pw_bvh8 *b)
{
    return (uint64_t)b->n_nodes * sizeof *b->nodes + (uint64_t)b->n_leaves * sizeof *b->leaves +
           (uint64_t)b->n_blocks * sizeof *b->blocks + (uint64_t)b->n_tri_blocks * sizeof *b->tri_blocks;
}

void pw_bvh8_free(pw_bvh8 *b)
{
    free(b->nodes);
    free(b->leaves);
    free(b->blocks);
    free(b->tri_blocks);
    memset(b, 0, sizeof *b);
}
