/* Binned SAH BVH over spheres and triangles (Wald, "On fast construction of
 * SAH-based bounding volume hierarchies", 2007). Subtrees are built in
 * parallel; each subtree writes into its own pre-reserved slice of the node
 * array, and a final pass compacts the nodes in depth-first order, so the
 * layout is the same whatever the thread count. */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE4_1__
#include <smmintrin.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif

#include "accel/bvh_build.h"
#include "core/error.h"

#define BINS 32
#define MAX_LEAF 4
#define TRAVERSAL_COST 1.0f
#define PARALLEL_MIN_PRIMS 4096
#define MAX_SAH_DEPTH 30
#define SMALL_NODE 16 /* nodes up to this size are binned by sorting (find_split_small) */

/* Four lanes, the last unused (0), so that growing a box is two vector
 * min/max operations. */
typedef struct box {
    float lo[4], hi[4];
} box;

/* 48 bytes: a primitive's box and centroid (fourth lanes 0). */
typedef struct item {
    box b;
    float c[4];
} item;

typedef struct build_ctx {
    item *items; /* in the order of refs: partitions move them together */
    uint32_t *refs;
    pw_bvh_node *nodes;
    int spawn_depth;
    float pad; /* absolute outward padding of every box */
} build_ctx;

static void box_empty(box *b)
{
    for (int k = 0; k < 3; k++) {
        b->lo[k] = PW_INF;
        b->hi[k] = -PW_INF;
    }
    b->lo[3] = b->hi[3] = 0.0f;
}

/* fminf and fmaxf for finite input, ties included (they keep their first
 * argument), but inlined: as libm calls they took half the build time.
 * SSE's minps(x, y) is x < y ? x : y, so min_keep(a, b) is minps(b, a). */
static inline float min_keep(float a, float b) { return b < a ? b : a; }
static inline float max_keep(float a, float b) { return b > a ? b : a; }

#ifdef __SSE__
static inline void box_grow(box *b, const box *o)
{
    _mm_storeu_ps(b->lo, _mm_min_ps(_mm_loadu_ps(o->lo), _mm_loadu_ps(b->lo)));
    _mm_storeu_ps(b->hi, _mm_max_ps(_mm_loadu_ps(o->hi), _mm_loadu_ps(b->hi)));
}

static inline void box_grow_point(box *b, const float pt[4])
{
    __m128 v = _mm_loadu_ps(pt);
    _mm_storeu_ps(b->lo, _mm_min_ps(v, _mm_loadu_ps(b->lo)));
    _mm_storeu_ps(b->hi, _mm_max_ps(v, _mm_loadu_ps(b->hi)));
}
#else
static inline void box_grow_point(box *b, const float pt[4])
{
    for (int k = 0; k < 4; k++) {
        b->lo[k] = min_keep(b->lo[k], pt[k]);
        b->hi[k] = max_keep(b->hi[k], pt[k]);
    }
}

static inline void box_grow(box *b, const box *o)
{
    for (int k = 0; k < 4; k++) {
        b->lo[k] = min_keep(b->lo[k], o->lo[k]);
        b->hi[k] = max_keep(b->hi[k], o->hi[k]);
    }
}
#endif

static float box_area(const box *b)
{
    float dx = b->hi[0] - b->lo[0], dy = b->hi[1] - b->lo[1], dz = b->hi[2] - b->lo[2];
    if (dx < 0.0f)
        return 0.0f;
    return 2.0f * (dx * dy + dy * dz + dz * dx);
}

typedef struct split {
    int axis;
    int bin; /* prims with bin index < bin go left */
    float cost;
    float c_lo, c_scale;
} split;

static inline int bin_of(float c, float lo, float scale)
{
    int b = (int)((c - lo) * scale);
    return b < 0 ? 0 : (b >= BINS ? BINS - 1 : b);
}

/* bin_of on the three axes at once: the same subtraction, product and
 * truncation per lane, so the same bins. */
#ifdef __SSE4_1__
static inline void bins_of(const float c[4], const float lo[4], const float scale[3], int out[3])
{
    __m128 x = _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(c), _mm_loadu_ps(lo)), _mm_setr_ps(scale[0], scale[1], scale[2], 0));
    __m128i b = _mm_min_epi32(_mm_max_epi32(_mm_cvttps_epi32(x), _mm_setzero_si128()), _mm_set1_epi32(BINS - 1));
    out[0] = _mm_cvtsi128_si32(b);
    out[1] = _mm_extract_epi32(b, 1);
    out[2] = _mm_extract_epi32(b, 2);
}
#else
static inline void bins_of(const float c[4], const float lo[4], const float scale[3], int out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = bin_of(c[k], lo[k], scale[k]);
}
#endif

/* Best split of one axis's bins: prims in bins below the returned split's
 * bin go left. Empty bins are skipped: a boundary after an empty bin costs
 * exactly what the one before it did, and only a strictly lower cost wins,
 * so the split is the one a sweep over every boundary would find. */
static void sweep_axis(const box *bb, const uint32_t *cnt, int axis, float c_lo, float scale, split *best)
{
    float right_area[BINS], area = 0.0f;
    uint32_t right_cnt[BINS];
    box acc;
    box_empty(&acc);
    uint32_t n = 0;
    for (int i = BINS - 1; i > 0; i--) {
        if (cnt[i]) {
            box_grow(&acc, &bb[i]);
            n += cnt[i];
            area = box_area(&acc);
        }
        right_area[i] = area;
        right_cnt[i] = n;
    }
    box_empty(&acc);
    n = 0;
    for (int i = 1; i < BINS; i++) {
        if (cnt[i - 1] == 0)
            continue;
        box_grow(&acc, &bb[i - 1]);
        n += cnt[i - 1];
        if (right_cnt[i] == 0)
            break;
        float cost = box_area(&acc) * (float)n + right_area[i] * (float)right_cnt[i];
        if (cost < best->cost) {
            best->axis = axis;
            best->bin = i;
            best->cost = cost;
            best->c_lo = c_lo;
            best->c_scale = scale;
        }
    }
}

/* find_split for a node of at most SMALL_NODE primitives, where clearing
 * and sweeping all BINS bins cost more than the binning: per axis the
 * primitives are sorted by bin (stably, so each bin's box grows in the same
 * order) and only the occupied bins are swept, in the same order and with
 * the same arithmetic as sweep_axis, so the split found is the same. */
static split find_split_small(const build_ctx *c, uint32_t begin, uint32_t end, const box *cb)
{
    split best = {-1, 0, PW_INF, 0.0f, 0.0f};
    uint32_t n = end - begin;
    for (int axis = 0; axis < 3; axis++) {
        float extent = cb->hi[axis] - cb->lo[axis];
        if (!(extent > 0.0f))
            continue;
        float scale = (float)BINS / extent;
        int bins[SMALL_NODE];
        uint32_t at[SMALL_NODE]; /* positions in items[] */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t p = begin + i, j = i;
            int b = bin_of(c->items[p].c[axis], cb->lo[axis], scale);
            for (; j > 0 && bins[j - 1] > b; j--) {
                bins[j] = bins[j - 1];
                at[j] = at[j - 1];
            }
            bins[j] = b;
            at[j] = p;
        }
        /* Groups of equal bins: box, count and bin of each. */
        box gb[SMALL_NODE];
        uint32_t gc[SMALL_NODE];
        int gbin[SMALL_NODE], m = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (m > 0 && gbin[m - 1] == bins[i]) {
                box_grow(&gb[m - 1], &c->items[at[i]].b);
                gc[m - 1]++;
            } else {
                gb[m] = c->items[at[i]].b;
                gc[m] = 1;
                gbin[m++] = bins[i];
            }
        }
        float right_area[SMALL_NODE];
        uint32_t right_cnt[SMALL_NODE], cnt = 0;
        box acc;
        box_empty(&acc);
        for (int k = m - 1; k > 0; k--) {
            box_grow(&acc, &gb[k]);
            cnt += gc[k];
            right_area[k] = box_area(&acc);
            right_cnt[k] = cnt;
        }
        box_empty(&acc);
        cnt = 0;
        for (int k = 0; k + 1 < m; k++) {
            box_grow(&acc, &gb[k]);
            cnt += gc[k];
            float cost = box_area(&acc) * (float)cnt + right_area[k + 1] * (float)right_cnt[k + 1];
            if (cost < best.cost) {
                best.axis = axis;
                best.bin = gbin[k] + 1;
                best.cost = cost;
                best.c_lo = cb->lo[axis];
                best.c_scale = scale;
            }
        }
    }
    return best;
}

/* Best SAH split over BINS bins on each axis of the centroid bounds. The
 * three axes are binned in one pass over the primitives. */
static split find_split(const build_ctx *c, uint32_t begin, uint32_t end, const box *cb)
{
    if (end - begin <= SMALL_NODE)
        return find_split_small(c, begin, end, cb);
    split best = {-1, 0, PW_INF, 0.0f, 0.0f};
    float scale[3];
    int used[3];
    box bb[3][BINS];
    uint32_t cnt[3][BINS];
    memset(cnt, 0, sizeof cnt);
    for (int axis = 0; axis < 3; axis++) {
        float extent = cb->hi[axis] - cb->lo[axis];
        used[axis] = extent > 0.0f;
        scale[axis] = used[axis] ? (float)BINS / extent : 0.0f;
    }
    /* A bin's box starts as its first primitive's box, which is what
     * growing an empty box by it gives; empty bins are never read. */
    for (uint32_t i = begin; i < end; i++) {
        const item *it = &c->items[i];
        int bins[3];
        bins_of(it->c, cb->lo, scale, bins);
        for (int axis = 0; axis < 3; axis++) {
            int b = bins[axis];
            if (cnt[axis][b]++)
                box_grow(&bb[axis][b], &it->b);
            else
                bb[axis][b] = it->b;
        }
    }
    for (int axis = 0; axis < 3; axis++)
        if (used[axis])
            sweep_axis(bb[axis], cnt[axis], axis, cb->lo[axis], scale[axis], &best);
    return best;
}

/* Bounds of the primitives and of the centroids of items[begin, end). */
static void range_bounds(const build_ctx *c, uint32_t begin, uint32_t end, box *nb, box *cb)
{
    box_empty(nb);
    box_empty(cb);
    for (uint32_t i = begin; i < end; i++) {
        box_grow(nb, &c->items[i].b);
        box_grow_point(cb, c->items[i].c);
    }
}

/* The bounds of one side of a split. */
typedef struct side {
    box nb, cb;
} side;

/* Puts the prims of bins below s->bin first and returns where the others
 * start; grows each side's bounds on the way, which spares the children a
 * pass of their own. In another order than such a pass, min and max can
 * only differ in the sign of a zero, which neither the node boxes (padded
 * away from it) nor the split (differences of the bounds) can see. */
static uint32_t partition(build_ctx *c, uint32_t begin, uint32_t end, const split *s, side *l, side *r)
{
    box_empty(&l->nb);
    box_empty(&l->cb);
    box_empty(&r->nb);
    box_empty(&r->cb);
    uint32_t i = begin, j = end;
    while (i < j) {
        item it = c->items[i];
        if (bin_of(it.c[s->axis], s->c_lo, s->c_scale) < s->bin) {
            i++;
            box_grow(&l->nb, &it.b);
            box_grow_point(&l->cb, it.c);
        } else {
            uint32_t p = c->refs[i];
            c->refs[i] = c->refs[--j];
            c->refs[j] = p;
            c->items[i] = c->items[j];
            c->items[j] = it;
            box_grow(&r->nb, &it.b);
            box_grow_point(&r->cb, it.c);
        }
    }
    return i;
}

/* The float next to x toward -inf (down) or +inf: nextafterf for the finite
 * and infinite values boxes hold, inlined (it was a library call per box
 * side). */
static inline float next_float(float x, int down)
{
    if (isinf(x))
        return x;
    if (x == 0.0f)
        return down ? -FLT_TRUE_MIN : FLT_TRUE_MIN;
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    u = (x > 0.0f) == !down ? u + 1 : u - 1;
    memcpy(&x, &u, sizeof x);
    return x;
}

typedef struct task {
    build_ctx *c;
    uint32_t node, begin, end, free_at;
    int depth;
    side bounds;
} task;

static void build_node(build_ctx *c, uint32_t node, uint32_t begin, uint32_t end, uint32_t free_at, int depth,
                       const side *bounds);

static void *build_thread(void *arg)
{
    task *t = arg;
    build_node(t->c, t->node, t->begin, t->end, t->free_at, t->depth, &t->bounds);
    return NULL;
}

/* Builds the subtree of refs[begin, end) rooted at nodes[node], whose
 * primitive and centroid bounds are given; its descendants go to
 * nodes[free_at ...], of which 2 (end - begin) - 2 are reserved for it. */
static void build_node(build_ctx *c, uint32_t node, uint32_t begin, uint32_t end, uint32_t free_at, int depth,
                       const side *bounds)
{
    const box *nb = &bounds->nb;
    pw_bvh_node *n = &c->nodes[node];
    /* Padded outward: a ray lying exactly in a face's plane (an axis-aligned
     * ray along a wall) then still enters the box. Unpadded, its zero
     * direction component makes the slab's far distance exactly 0 and the
     * box is culled. The pad must be absolute (a scene-relative 2^-20), since
     * an ulp of 0 is too small to survive the 1e30 reciprocal. */
    for (int k = 0; k < 3; k++) {
        n->bmin[k] = fminf(next_float(nb->lo[k], 1), nb->lo[k] - c->pad);
        n->bmax[k] = fmaxf(next_float(nb->hi[k], 0), nb->hi[k] + c->pad);
    }
    uint32_t count = end - begin;
    split s = count > 1 ? find_split(c, begin, end, &bounds->cb) : (split){-1, 0, PW_INF, 0, 0};
    float leaf_cost = (float)count;
    float split_cost = s.axis >= 0 ? TRAVERSAL_COST + s.cost / box_area(nb) : PW_INF;
    if (count == 1 || (count <= MAX_LEAF && leaf_cost <= split_cost)) {
        n->first = begin;
        n->count = count;
        return;
    }
    /* Past MAX_SAH_DEPTH the list is halved, so no tree is deeper than
     * MAX_SAH_DEPTH + 32 and traversal stacks of PW_BVH_STACK never overflow. */
    side l, r;
    uint32_t mid = s.axis >= 0 && depth < MAX_SAH_DEPTH ? partition(c, begin, end, &s, &l, &r) : begin;
    if (mid == begin || mid == end) {
        mid = begin + count / 2; /* all centroids coincide: split the list in half */
        range_bounds(c, begin, mid, &l.nb, &l.cb);
        range_bounds(c, mid, end, &r.nb, &r.cb);
    }
    n->first = free_at;
    n->count = 0;
    uint32_t left_free = free_at + 2, right_free = free_at + 2 * (mid - begin);
    if (depth < c->spawn_depth && count >= PARALLEL_MIN_PRIMS) {
        pthread_t th;
        task t = {c, free_at, begin, mid, left_free, depth + 1, l};
        if (pthread_create(&th, NULL, build_thread, &t) == 0) {
            build_node(c, free_at + 1, mid, end, right_free, depth + 1, &r);
            pthread_join(th, NULL);
            return;
        }
    }
    build_node(c, free_at, begin, mid, left_free, depth + 1, &l);
    build_node(c, free_at + 1, mid, end, right_free, depth + 1, &r);
}

/* Copies the tree into depth-first order with child pairs adjacent. */
static uint32_t compact(const pw_bvh_node *src, pw_bvh_node *dst)
{
    uint32_t stack[128], n = 1, sp = 0;
    uint32_t src_of[128]; /* paired with stack: source index of dst node */
    dst[0] = src[0];
    stack[sp] = 0;
    src_of[sp++] = 0;
    while (sp) {
        sp--;
        uint32_t d = stack[sp], s = src_of[sp];
        if (src[s].count > 0)
            continue;
        uint32_t l = src[s].first;
        dst[d].first = n;
        dst[n] = src[l];
        dst[n + 1] = src[l + 1];
        stack[sp] = n + 1;
        src_of[sp++] = l + 1;
        stack[sp] = n;
        src_of[sp++] = l;
        n += 2;
    }
    return n;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The primitives' geometry in leaf order (pw_leaf_prim). */
static pw_status fill_leaf_prims(const pw_prims *s, const char *name, pw_bvh *b)
{
    b->leaf_prims = calloc(b->n_refs ? b->n_refs : 1, sizeof *b->leaf_prims);
    if (!b->leaf_prims)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory building the BVH over %u primitives", name,
                       b->n_refs);
    for (uint32_t i = 0; i < b->n_refs; i++) {
        pw_leaf_prim *l = &b->leaf_prims[i];
        uint32_t p = b->prim_ref[i];
        l->prim = p;
        if (p < s->n_spheres) {
            pw_sphere sp = s->spheres[p];
            l->a[0] = sp.c.x, l->a[1] = sp.c.y, l->a[2] = sp.c.z, l->a[3] = sp.r;
            continue;
        }
        const uint32_t *ix = s->tri_idx + 3 * (size_t)(p - s->n_spheres);
        pw_vec3 v0 = s->pos[ix[0]], v1 = s->pos[ix[1]], v2 = s->pos[ix[2]];
        l->a[0] = v0.x, l->a[1] = v0.y, l->a[2] = v0.z, l->a[3] = -1.0f;
        l->b[0] = v1.x, l->b[1] = v1.y, l->b[2] = v1.z;
        l->c[0] = v2.x, l->c[1] = v2.y, l->c[2] = v2.z;
    }
    return PW_OK;
}

pw_status pw_bvh_build(const pw_prims *s, const char *name, int threads, pw_bvh *out)
{
    double t0 = now_ms();
    memset(out, 0, sizeof *out);
    uint32_t n = s->n_spheres + s->n_tris;
    build_ctx c;
    memset(&c, 0, sizeof c);
    c.items = malloc((size_t)n * sizeof *c.items);
    c.refs = malloc((size_t)n * sizeof *c.refs);
    c.nodes = malloc((2 * (size_t)n) * sizeof *c.nodes);
    out->nodes = malloc((2 * (size_t)n) * sizeof *out->nodes);
    if (!c.items || !c.refs || !c.nodes || !out->nodes) {
        free(c.items);
        free(c.refs);
        free(c.nodes);
        free(out->nodes);
        out->nodes = NULL;
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory building the BVH over %u primitives", name, n);
    }
    for (uint32_t p = 0; p < n; p++) {
        box *b = &c.items[p].b;
        pw_prim_bounds(s, p, b->lo, b->hi);
        b->lo[3] = b->hi[3] = 0.0f;
        for (int k = 0; k < 3; k++)
            c.items[p].c[k] = 0.5f * (b->lo[k] + b->hi[k]);
        c.items[p].c[3] = 0.0f;
        c.refs[p] = p;
    }
    box all;
    box_empty(&all);
    for (uint32_t p = 0; p < n; p++)
        box_grow(&all, &c.items[p].b);
    float extent = fmaxf(all.hi[0] - all.lo[0], fmaxf(all.hi[1] - all.lo[1], all.hi[2] - all.lo[2]));
    c.pad = extent > 0.0f ? extent * (1.0f / 1048576.0f) : 1e-30f;
    if (threads <= 0)
        threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
    c.spawn_depth = 0;
    while ((1 << c.spawn_depth) < threads)
        c.spawn_depth++;
    c.spawn_depth += 2; /* a few more tasks than threads evens out unbalanced splits */
    if (threads == 1)
        c.spawn_depth = 0;
    side root;
    range_bounds(&c, 0, n, &root.nb, &root.cb);
    build_node(&c, 0, 0, n, 1, 0, &root);
    out->n_nodes = compact(c.nodes, out->nodes);
    pw_bvh_node *shrunk = realloc(out->nodes, out->n_nodes * sizeof *shrunk);
    if (shrunk)
        out->nodes = shrunk;
    out->prim_ref = c.refs;
    out->n_refs = n;
    free(c.items);
    free(c.nodes);
    pw_status st = fill_leaf_prims(s, name, out);
    if (st == PW_OK)
        st = pw_bvh4_build(name, out->nodes, out->n_nodes, out->n_refs, &out->nodes4, &out->n_nodes4);
    if (st != PW_OK) {
        pw_bvh_free(out);
        return st;
    }
    out->build_ms = now_ms() - t0;
    return PW_OK;
}

void pw_bvh_free(pw_bvh *b)
{
    free(b->nodes);
    free(b->prim_ref);
    free(b->leaf_prims);
    free(b->nodes4);
    memset(b, 0, sizeof *b);
}
