/* Binned SAH BVH over spheres and triangles (Wald, "On fast construction of
 * SAH-based bounding volume hierarchies", 2007). Subtrees are built in
 * parallel; each subtree writes into its own pre-reserved slice of the node
 * array, and a final pass compacts the nodes in depth-first order, so the
 * layout is the same whatever the thread count. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE__
#include <xmmintrin.h>
#endif

#include "core/error.h"
#include "scene/scene.h"

#define BINS 32
#define MAX_LEAF 4
#define TRAVERSAL_COST 1.0f
#define PARALLEL_MIN_PRIMS 4096
#define MAX_SAH_DEPTH 30

/* Four lanes, the last unused (0), so that growing a box is two vector
 * min/max operations. */
typedef struct box {
    float lo[4], hi[4];
} box;

typedef struct build_ctx {
    box *prim_box;
    float (*centroid)[4]; /* fourth lane 0, like the boxes' */
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

/* Best SAH split over BINS bins on each axis of the centroid bounds. The
 * three axes are binned in one pass over the primitives. */
static split find_split(const build_ctx *c, uint32_t begin, uint32_t end, const box *cb)
{
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
        uint32_t p = c->refs[i];
        for (int axis = 0; axis < 3; axis++) {
            int b = bin_of(c->centroid[p][axis], cb->lo[axis], scale[axis]);
            if (cnt[axis][b]++)
                box_grow(&bb[axis][b], &c->prim_box[p]);
            else
                bb[axis][b] = c->prim_box[p];
        }
    }
    for (int axis = 0; axis < 3; axis++)
        if (used[axis])
            sweep_axis(bb[axis], cnt[axis], axis, cb->lo[axis], scale[axis], &best);
    return best;
}

static uint32_t partition(build_ctx *c, uint32_t begin, uint32_t end, const split *s)
{
    uint32_t i = begin, j = end;
    while (i < j) {
        uint32_t p = c->refs[i];
        if (bin_of(c->centroid[p][s->axis], s->c_lo, s->c_scale) < s->bin) {
            i++;
        } else {
            c->refs[i] = c->refs[--j];
            c->refs[j] = p;
        }
    }
    return i;
}

typedef struct task {
    build_ctx *c;
    uint32_t node, begin, end, free_at;
    int depth;
} task;

static void build_node(build_ctx *c, uint32_t node, uint32_t begin, uint32_t end, uint32_t free_at, int depth);

static void *build_thread(void *arg)
{
    task *t = arg;
    build_node(t->c, t->node, t->begin, t->end, t->free_at, t->depth);
    return NULL;
}

/* Builds the subtree of refs[begin, end) rooted at nodes[node]; its
 * descendants go to nodes[free_at ...], of which 2 (end - begin) - 2 are
 * reserved for it. */
static void build_node(build_ctx *c, uint32_t node, uint32_t begin, uint32_t end, uint32_t free_at, int depth)
{
    box nb, cb;
    box_empty(&nb);
    box_empty(&cb);
    for (uint32_t i = begin; i < end; i++) {
        uint32_t p = c->refs[i];
        box_grow(&nb, &c->prim_box[p]);
        box_grow_point(&cb, c->centroid[p]);
    }
    pw_bvh_node *n = &c->nodes[node];
    /* Padded outward: a ray lying exactly in a face's plane (an axis-aligned
     * ray along a wall) then still enters the box. Unpadded, its zero
     * direction component makes the slab's far distance exactly 0 and the
     * box is culled. The pad must be absolute (a scene-relative 2^-20), since
     * an ulp of 0 is too small to survive the 1e30 reciprocal. */
    for (int k = 0; k < 3; k++) {
        n->bmin[k] = fminf(nextafterf(nb.lo[k], -PW_INF), nb.lo[k] - c->pad);
        n->bmax[k] = fmaxf(nextafterf(nb.hi[k], PW_INF), nb.hi[k] + c->pad);
    }
    uint32_t count = end - begin;
    split s = count > 1 ? find_split(c, begin, end, &cb) : (split){-1, 0, PW_INF, 0, 0};
    float leaf_cost = (float)count;
    float split_cost = s.axis >= 0 ? TRAVERSAL_COST + s.cost / box_area(&nb) : PW_INF;
    if (count == 1 || (count <= MAX_LEAF && leaf_cost <= split_cost)) {
        n->first = begin;
        n->count = count;
        return;
    }
    /* Past MAX_SAH_DEPTH the list is halved, so no tree is deeper than
     * MAX_SAH_DEPTH + 32 and traversal stacks of PW_BVH_STACK never overflow. */
    uint32_t mid = s.axis >= 0 && depth < MAX_SAH_DEPTH ? partition(c, begin, end, &s) : begin + count / 2;
    if (mid == begin || mid == end)
        mid = begin + count / 2; /* all centroids coincide: split the list in half */
    n->first = free_at;
    n->count = 0;
    uint32_t left_free = free_at + 2, right_free = free_at + 2 * (mid - begin);
    if (depth < c->spawn_depth && count >= PARALLEL_MIN_PRIMS) {
        pthread_t th;
        task t = {c, free_at, begin, mid, left_free, depth + 1};
        if (pthread_create(&th, NULL, build_thread, &t) == 0) {
            build_node(c, free_at + 1, mid, end, right_free, depth + 1);
            pthread_join(th, NULL);
            return;
        }
    }
    build_node(c, free_at, begin, mid, left_free, depth + 1);
    build_node(c, free_at + 1, mid, end, right_free, depth + 1);
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

pw_status pw_bvh_build(const pw_scene *s, int threads, pw_bvh *out)
{
    double t0 = now_ms();
    memset(out, 0, sizeof *out);
    uint32_t n = s->n_spheres + s->n_tris;
    build_ctx c;
    memset(&c, 0, sizeof c);
    c.prim_box = malloc((size_t)n * sizeof *c.prim_box);
    c.centroid = malloc((size_t)n * sizeof *c.centroid);
    c.refs = malloc((size_t)n * sizeof *c.refs);
    c.nodes = malloc((2 * (size_t)n) * sizeof *c.nodes);
    out->nodes = malloc((2 * (size_t)n) * sizeof *out->nodes);
    if (!c.prim_box || !c.centroid || !c.refs || !c.nodes || !out->nodes) {
        free(c.prim_box);
        free(c.centroid);
        free(c.refs);
        free(c.nodes);
        free(out->nodes);
        out->nodes = NULL;
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory building the BVH over %u primitives", s->name, n);
    }
    for (uint32_t p = 0; p < n; p++) {
        pw_prim_bounds(s, p, c.prim_box[p].lo, c.prim_box[p].hi);
        c.prim_box[p].lo[3] = c.prim_box[p].hi[3] = 0.0f;
        for (int k = 0; k < 3; k++)
            c.centroid[p][k] = 0.5f * (c.prim_box[p].lo[k] + c.prim_box[p].hi[k]);
        c.centroid[p][3] = 0.0f;
        c.refs[p] = p;
    }
    box all;
    box_empty(&all);
    for (uint32_t p = 0; p < n; p++)
        box_grow(&all, &c.prim_box[p]);
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
    build_node(&c, 0, 0, n, 1, 0);
    out->n_nodes = compact(c.nodes, out->nodes);
    pw_bvh_node *shrunk = realloc(out->nodes, out->n_nodes * sizeof *shrunk);
    if (shrunk)
        out->nodes = shrunk;
    out->prim_ref = c.refs;
    out->n_refs = n;
    free(c.prim_box);
    free(c.centroid);
    free(c.nodes);
    out->build_ms = now_ms() - t0;
    return PW_OK;
}

void pw_bvh_free(pw_bvh *b)
{
    free(b->nodes);
    free(b->prim_ref);
    memset(b, 0, sizeof *b);
}
