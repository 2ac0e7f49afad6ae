/* Wavefront path tracing: paths advance one bounce at a time through
 * queues, stage by stage (Laine, Karras and Aila, "Megakernels Considered
 * Harmful", HPG 2013). The stage bodies below act on one queue item each and
 * are shared by the CPU wavefront (a parallel loop per stage) and the CUDA
 * wavefront (a kernel per stage); they call the same path functions as the
 * megakernels, so every backend traces the same paths.
 *
 * A bounce is: extend (closest hit for every queued path) -> shade
 * (emission, light sampling into the path's shadow records, next direction
 * into the next ray queue) -> connect (for every path that made shadow
 * rays: any hit for each, and the unoccluded contributions added to its
 * radiance, in order; a finished path keeps its radiance in its slot). A
 * wave may hold several samples of each pixel (sample k of the wave's p-th
 * pixel in slot k * pixels + p, its pixels in rows or in 8x4 tiles,
 * pw_wf_tiled); when the wave is done, gather adds each pixel's samples
 * in sample order, so the pixel sum needs no atomics and the image is the
 * megakernel's to the last bit, whatever order items ran in. With ray
 * splitting a wave holds one sample a pixel and each child has a slot
 * fixed by its parent's slot and its rank (pw_wf_child_slot), so gather
 * sums a pixel's children in child order, as the megakernel does, and the
 * image is again the megakernel's to the last bit (pw_wf_gather_split). */
#ifndef PW_WAVEFRONT_H
#define PW_WAVEFRONT_H

#include "backend/wavefront/queue.h"
#include "integrator/path.h"
#include "integrator/soa.h"

/* Shading keys: the material type of the hit, or a miss. */
#define PW_WF_N_KEYS (PW_MAT_COUNT + 1)

/* Device-side counters, read by the next stage instead of the host. The
 * shading keys' come last, so a new material type makes room for itself. */
enum {
    PW_WF_RAYS = 0,          /* items in the current ray queue */
    PW_WF_SHADOWS = 1,       /* shadow rays made this bounce */
    PW_WF_TO_CONNECT = 2,    /* entries of the connect list: the paths with shadow rays */
    PW_WF_NEXT = 3,          /* items appended to the next ray queue (with TO_CONNECT, one pair: pw_wf_alloc_pair) */
    PW_WF_TAIL = 4,          /* paths of the current queue left to the tail kernel (GPU) */
    PW_WF_FETCH = 5,         /* GPU: items of the current queue taken by extend's warps */
    PW_WF_FETCH_CONNECT = 6, /* GPU: entries of the connect list taken by connect's warps */
    PW_WF_FETCH_TAIL = 7,    /* GPU: paths of the tail taken by the tail kernel's warps */
    PW_WF_KEYS = 8,          /* GPU: the current queue's items of each shading key (pw_wf_shade_key), PW_WF_N_KEYS words */
    PW_WF_COUNTERS = PW_WF_KEYS + PW_WF_N_KEYS
};

/* pw_wf_alloc_pair adds to TO_CONNECT and NEXT with one 64-bit atomic:
 * they must be adjacent, TO_CONNECT first and 8-byte aligned in a counter
 * block that is itself 8-byte aligned (256 in pw_wave_carve, PW_ALIGNAS(8)
 * in the CPU wavefront's shade_out). */
PW_STATIC_ASSERT(PW_WF_NEXT == PW_WF_TO_CONNECT + 1 && PW_WF_TO_CONNECT % 2 == 0,
                 "TO_CONNECT and NEXT are no aligned pair");

/* Depth, PW_WF_HELD and flags (16 bits: PW_PATH_* and the self hint) share
 * a word: depth is at most 1024 (the settings' bound). */
#define PW_WF_FLAGS_SHIFT 16
/* Whether the path's radiance slot holds what it gathered so far. A slot
 * is written only once the path has gathered something, or ends: until
 * then its radiance is zero and nothing reads or writes the slot, which
 * spares most paths a write at their first hit and a read later
 * (pw_wf_add_radiance). */
#define PW_WF_HELD (1u << 15)
PW_STATIC_ASSERT(PW_MAX_DEPTH_LIMIT + 1u < PW_WF_HELD, "depth (at most max depth + 1) overflows into the held bit");

/* The path state (integrator/path_state.h) as the wavefront keeps it by
 * queue position: groups of a vec3 of the path and a 32-bit word, 16
 * bytes each, one load or store a group. The packing is declared here:
 * G(group, the path's vec3, the word from path p and held, what the word W
 * gives back to path p and *held). The radiance L is kept by slot (rad). */
#define PW_WF_STATE(G)                                                                                             \
    G(org, ray.o, p->prev_pdf, p.prev_pdf = W)                                                                     \
    G(dir, ray.d, pw_int_as_float((int32_t)(p->depth | (held ? PW_WF_HELD : 0u) | p->flags << PW_WF_FLAGS_SHIFT)), \
      (p.depth = pw_f4_bits(W) & (PW_WF_HELD - 1u), *held = (pw_f4_bits(W) & PW_WF_HELD) != 0,                    \
       p.flags = pw_f4_bits(W) >> PW_WF_FLAGS_SHIFT))                                                              \
    G(thr, beta, pw_int_as_float((int32_t)p->key), p.key = pw_f4_bits(W))
#define PW_WF_STATE_MEMBER(g, vec, word, unpack) pw_f4 *g[2];
#define PW_WF_STATE_BYTES(g, vec, word, unpack) +2 * sizeof(pw_f4)
/* A path slot's bytes: the state groups in the current and the next
 * queue, the slot of each position (4 each), the hit (8) and a triangle's
 * (u, v) (8), the radiance (16) and the connect list's entry (8). */
#define PW_WF_SLOT_BYTES ((0 PW_WF_STATE(PW_WF_STATE_BYTES)) + 2 * 4 + 8 + 8 + 16 + 8)
PW_STATIC_ASSERT(PW_WF_SLOT_BYTES == 144, "a wavefront path slot is not the 144 bytes the comments say");

/* Path state in structure-of-arrays form, each array a group of four
 * 4-byte fields that are read and written together. A path has a slot,
 * which is its sample (what gather and connect read), and, while it is
 * alive, a position in the bounce's ray queue. What travels from bounce to
 * bounce is kept by queue position, and shade writes each surviving path
 * to its position in the next queue: the queue is the state, compacted, so
 * every stage reads and writes its items side by side however few paths
 * are left (with the state kept by slot, a late bounce's survivors were a
 * sparse subset of the slots and each access cost a sector of its own).
 *   By position, current and next queue: org: ray origin, BSDF pdf 16;
 *   dir: ray direction, depth and flags 16; thr: throughput, RNG key 16;
 *   the path's slot 4; and the current queue's hits: hit: t, prim 8 and
 *   hit_uv: u, v 8, written and read for triangle hits only (a sphere's
 *   are 0), so that sphere scenes move 16 bytes less a path and bounce.
 *   By slot: rad: radiance 16 (w unused).
 *   By entry: the connect list, the paths connect visits: slot, shadow
 *   rays made and whether the slot holds the radiance 8 (pw_wf_list).
 * 144 bytes a path slot. Shade adds to a path's radiance only when it
 * changes (emission, the sky), so a bounce that gathers nothing leaves
 * rad alone, and a slot is first written when its path gathers something
 * or ends (PW_WF_HELD): most paths' first hits write nothing there.
 * Directions and throughputs are kept as full floats: packing them would
 * change the paths against the megakernel. Shadow records are
 * 40 bytes (pw_shadow_records, integrator/soa.h). A path's records are its
 * own, slot * per to slot * per + per - 1
 * (per: the most shadow rays a path makes at a hit), so shading writes
 * them without waiting on a queue's atomic, and connect, which goes
 * through the paths that made any, finds them there. */
typedef struct pw_wave {
    uint32_t cap;         /* path slots, and positions in each queue */
    uint32_t per;         /* shadow records a slot: the most shadow rays a path makes at a hit */
    PW_WF_STATE(PW_WF_STATE_MEMBER) /* org, dir, thr: by position in queue[q], q the bounce's parity */
    uint32_t *queue[2];   /* the slot of each position of the current and next ray queue */
    pw_f2 *hit, *hit_uv;  /* by position in the current queue: (t, prim), and (u, v) of a triangle */
    pw_f4 *rad;           /* by slot */
    pw_f2 *to_connect;    /* the connect list: the paths connect visits this bounce (pw_wf_list) */
    pw_shadow_records shadow; /* by slot * per + ray */
    uint32_t *counters;   /* PW_WF_COUNTERS words */
} pw_wave;


/* The path at position i of queue q, with zero radiance: what it gathered
 * so far stays in its slot where *held says so (pw_wf_add_radiance). */
PW_HD pw_path pw_wf_load(const pw_wave *w, uint32_t q, uint32_t i, int *held)
{
    pw_path p;
    p.L = v3s(0.0f);
#define PW_WF_LOAD(g, vec, word, unpack)                                                                           \
    {                                                                                                              \
        pw_f4 g4 = pw_f4_load(&w->g[q][i]);                                                                        \
        float W = g4.w;                                                                                            \
        p.vec = v3(g4.x, g4.y, g4.z);                                                                              \
        unpack;                                                                                                    \
    }
    PW_WF_STATE(PW_WF_LOAD)
#undef PW_WF_LOAD
    return p;
}

/* Path p (its radiance aside: its slot holds it where held is set) at
 * position i of queue q. */
PW_HD void pw_wf_store(const pw_wave *w, uint32_t q, uint32_t i, const pw_path *p, int held)
{
#define PW_WF_STORE(g, vec, word, unpack) pw_f4_store(&w->g[q][i], p->vec.x, p->vec.y, p->vec.z, word);
    PW_WF_STATE(PW_WF_STORE)
#undef PW_WF_STORE
}

/* Adds L, what one shading step gathered, to the radiance of slot i,
 * which holds the path's radiance so far where held is set (PW_WF_HELD;
 * else it is zero); returns whether the slot holds it now. A zero L is
 * written only for a path that ends here and that connect will not visit
 * (ends_unlisted), so gather finds its zero. A step adds at most one term
 * to a path's radiance (its emission or the sky), so the sum is the
 * megakernel's to the bit: 0 + x is x exactly (a sum begun at +0 never
 * becomes -0), and a zero L leaves the slot as adding it would. */
PW_HD int pw_wf_add_radiance(const pw_wave *w, uint32_t i, pw_vec3 L, int held, int ends_unlisted)
{
    if (v3_is_zero(L) && (held || !ends_unlisted))
        return held;
    if (held) {
        pw_f4 l = pw_f4_load(&w->rad[i]);
        L = v3_add_rn(v3(l.x, l.y, l.z), L);
    }
    pw_f4_store(&w->rad[i], L.x, L.y, L.z, 0.0f);
    return 1;
}

/* The first of slot i's shadow records. */
PW_HD uint32_t pw_wf_records(const pw_wave *w, uint32_t i) { return i * w->per; }

/* Entry k of the connect list: path slot pi, its shadow rays made and
 * whether its slot holds its radiance (count | PW_WF_LIST_HELD), 8 bytes,
 * written side by side with the entries before and after it and read so
 * by connect. */
#define PW_WF_LIST_HELD (1u << 30)
#define PW_WF_LIST_COUNT (PW_WF_LIST_HELD - 1u)
PW_STATIC_ASSERT(PW_MAX_SHADOW <= PW_WF_LIST_COUNT, "a path's shadow-ray count overflows into the held bit");
PW_HD void pw_wf_list(const pw_wave *w, uint32_t k, uint32_t pi, uint32_t held, uint32_t count)
{
    uint32_t info = count | (held ? PW_WF_LIST_HELD : 0u);
    pw_f2_store(&w->to_connect[k], pw_int_as_float((int32_t)pi), pw_int_as_float((int32_t)info));
}

/* Camera rays of a wave go out in 8x4 pixel tiles, a warp's worth each,
 * rather than in rows, so a warp's camera rays (and the bounces from their
 * hits) stay close together. That needs the wave's pixels to be whole rows
 * of tiles: the image whole tiles across, and the wave starting and ending
 * on a multiple of 4 rows (the whole image, or a half of it cut there:
 * cuda_wavefront.cu's run_waves), else the order stays row by row.
 * Position p of the wave's pixels maps to pixel first_pixel +
 * pw_wf_tile_pixel(p). */
#define PW_WF_TILE_W 8u
#define PW_WF_TILE_H 4u

PW_HD int pw_wf_tiled(const pw_render_params *prm, uint32_t first_pixel, uint32_t pixels)
{
    uint32_t band = prm->width * PW_WF_TILE_H;
    return prm->width % PW_WF_TILE_W == 0 && first_pixel % band == 0 && pixels % band == 0 && pixels > 0;
}

PW_HD uint32_t pw_wf_tile_pixel(const pw_render_params *prm, uint32_t p)
{
    const uint32_t tile = PW_WF_TILE_W * PW_WF_TILE_H;
    uint32_t t = p / tile, j = p % tile, tiles_x = prm->width / PW_WF_TILE_W;
    uint32_t x = (t % tiles_x) * PW_WF_TILE_W + j % PW_WF_TILE_W, y = (t / tiles_x) * PW_WF_TILE_H + j / PW_WF_TILE_W;
    return y * prm->width + x;
}

/* The inverse: the position of pixel first_pixel + q. */
PW_HD uint32_t pw_wf_tile_position(const pw_render_params *prm, uint32_t q)
{
    uint32_t x = q % prm->width, y = q / prm->width, tiles_x = prm->width / PW_WF_TILE_W;
    uint32_t t = (y / PW_WF_TILE_H) * tiles_x + x / PW_WF_TILE_W;
    return t * PW_WF_TILE_W * PW_WF_TILE_H + (y % PW_WF_TILE_H) * PW_WF_TILE_W + x % PW_WF_TILE_W;
}

/* The pixel of item i of a wave: pixel first_pixel + i % pixels of the
 * image (in tile order, above, where it applies). */
PW_HD uint32_t pw_wf_item_pixel(const pw_render_params *prm, uint32_t i, uint32_t first_pixel, uint32_t pixels)
{
    uint32_t p = i % pixels;
    return first_pixel + (pw_wf_tiled(prm, first_pixel, pixels) ? pw_wf_tile_pixel(prm, p) : p);
}

/* The camera path of item i of a wave: sample first_sample + i / pixels
 * of its pixel (pw_wf_item_pixel). A pure function of i, so the GPU's
 * wavefront makes it where bounce 0 needs it instead of storing it
 * (pw_wf_extend_camera, pw_wf_shade_camera): there the bytes generate
 * wrote and bounce 0 read back cost more than making the path twice. The
 * CPU's stores it (pw_wf_generate): there making it twice cost more. */
PW_HD pw_path pw_wf_camera_path(const pw_scene_view *s, const pw_render_params *prm, uint32_t i,
                                uint32_t first_pixel, uint32_t pixels, uint32_t first_sample)
{
    uint32_t pixel = pw_wf_item_pixel(prm, i, first_pixel, pixels);
    return pw_path_begin(s, prm, pixel % prm->width, pixel / prm->width, first_sample + i / pixels);
}

/* generate, storing the camera paths: item i starts, in slot i and
 * position i of queue 0, as its camera path, its radiance slot not yet
 * written (PW_WF_HELD). */
PW_HD void pw_wf_generate(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, uint32_t i,
                          uint32_t first_pixel, uint32_t pixels, uint32_t first_sample)
{
    pw_path path = pw_wf_camera_path(s, prm, i, first_pixel, pixels, first_sample);
    pw_wf_store(w, 0, i, &path, 0);
    w->queue[0][i] = i;
}

/* What shading a hit on prim takes: its material's type, PW_MAT_COUNT for
 * a miss. (The GPU's wavefront shades its queue in order of this key.) */
PW_HD uint32_t pw_wf_shade_key(const pw_scene_view *s, uint32_t prim)
{
    return prim == PW_NO_HIT ? (uint32_t)PW_MAT_COUNT : s->mats[pw_prim_material(s, prim)].type;
}

/* extend: the closest hit of ray r, with its self hint (accel/trace.h),
 * for position i of the queue (pw_trace_extend); returns its primitive
 * (PW_NO_HIT on a miss). */
PW_HD_INLINE uint32_t pw_wf_extend_ray(const pw_wave *w, const pw_scene_view *s, pw_ray r, uint32_t self, uint32_t i)
{
    pw_hit h;
    pw_trace_extend(s, r, self, s->t_min, PW_INF, &h);
    pw_f2_store(&w->hit[i], h.t, pw_int_as_float((int32_t)h.prim));
    if (h.prim != PW_NO_HIT && !pw_prim_is_sphere(s, h.prim))
        pw_f2_store(&w->hit_uv[i], h.u, h.v);
    return h.prim;
}

/* extend for the path at position i of queue q. */
PW_HD uint32_t pw_wf_extend(const pw_wave *w, const pw_scene_view *s, uint32_t q, uint32_t i)
{
    pw_f4 o = pw_f4_load(&w->org[q][i]), d = pw_f4_load(&w->dir[q][i]);
    pw_ray r;
    r.o = v3(o.x, o.y, o.z);
    r.d = v3(d.x, d.y, d.z);
    return pw_wf_extend_ray(w, s, r, pw_flags_self(pw_f4_bits(d.w) >> PW_WF_FLAGS_SHIFT), i);
}

/* extend for item i of a wave whose camera paths are made where they are
 * needed (pw_wf_camera_path), not stored by generate. */
PW_HD uint32_t pw_wf_extend_camera(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, uint32_t i,
                                   uint32_t first_pixel, uint32_t pixels, uint32_t first_sample)
{
    pw_path p = pw_wf_camera_path(s, prm, i, first_pixel, pixels, first_sample);
    return pw_wf_extend_ray(w, s, p.ray, PW_SELF_CAMERA, i);
}

/* A path shaded at its hit (pw_wf_shade_hit), before it takes its entry
 * in the connect list and its position in the next ray queue
 * (pw_wf_shade_commit). Shade is cut in these two halves so that the GPU
 * can take the positions of a whole block's paths with one atomic
 * between them (cuda_wavefront.cu). */
typedef struct pw_wf_shaded {
    pw_path p;   /* after the hit: the next segment, or ended */
    uint32_t pi; /* its slot */
    uint32_t n;  /* shadow rays made, in the slot's records */
    int held;    /* whether the slot holds the radiance gathered before this hit */
    int alive;   /* whether it goes on: it takes a position in the next queue */
    int visit;   /* whether connect visits it: it takes an entry in the connect list */
} pw_wf_shaded;

/* What shading a path at a hit makes: nothing, where a thread has no
 * path but takes part in its block's allocation. */
PW_HD pw_wf_shaded pw_wf_shaded_none(void)
{
    pw_wf_shaded r;
    r.p = pw_path_none();
    r.pi = r.n = 0;
    r.held = r.alive = r.visit = 0;
    return r;
}

/* Shades path p (hit h, radiance so far in slot pi where held is set;
 * held is never set at a path's first hit or for a split child): adds
 * its emission, puts its shadow rays into the path's shadow records (the
 * only memory it writes) and returns the path after the hit, with its
 * next segment where it goes on, for pw_wf_shade_commit. kinds: the
 * material kinds the scene holds (a literal in the GPU's kernels, so that
 * those for the basic materials leave the microfacet code out, as the
 * megakernel's do). */
PW_HD pw_wf_shaded pw_wf_shade_hit(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm,
                                   uint32_t pi, int held, pw_path p, const pw_hit *h, uint32_t kinds)
{
    pw_wf_shaded r;
    pw_shadow_sink sink = {NULL, w->shadow, pw_wf_records(w, pi)};
    int n = 0;
    r.p = p;
    r.pi = pi;
    r.held = held;
    r.alive = 0;
    if (h->prim == PW_NO_HIT)
        pw_path_miss(s, prm, &r.p, kinds);
    else
        r.alive = pw_path_shade(s, prm, &r.p, h, &sink, &n, kinds);
    r.n = (uint32_t)n;
    /* Connect visits only the paths it has work for: those with shadow
     * rays. Any other path goes on (its radiance in its slot where held)
     * or ends with its radiance written by pw_wf_shade_commit, so it
     * takes no entry (on toy most hits are metal, glass or sky, and on
     * scenes without light sampling no path has shadow rays). */
    r.visit = n > 0;
    return r;
}

/* Puts shaded path r into the connect list at entry listed (where it
 * visits connect) and into queue q ^ 1 at position next (where it goes
 * on), and its radiance into its slot where it must be there. */
PW_HD void pw_wf_shade_commit(const pw_wave *w, uint32_t q, const pw_wf_shaded *r, uint32_t listed, uint32_t next)
{
    /* A path connect visits has its slot written there. */
    int held = pw_wf_add_radiance(w, r->pi, r->p.L, r->held, !r->alive && !r->visit);
    if (r->visit)
        pw_wf_list(w, listed, r->pi, (uint32_t)held, r->n);
    /* Connect, which runs before the next bounce, writes the slot of
     * every path it visits. */
    if (r->alive) {
        pw_wf_store(w, q ^ 1u, next, &r->p, held || r->visit);
        w->queue[q ^ 1u][next] = r->pi;
    }
}

/* Shade's second half for the calling thread alone: shaded path r takes
 * its places with the calling warp's lanes together (pw_wf_alloc_pair;
 * the GPU's sphere kernels take a block's at once instead) and is put
 * there. Returns the shadow rays r made, which the caller adds to
 * PW_WF_SHADOWS once for all its items: a count per item was a second
 * atomic a warp on the counters' cache line, which every warp's
 * allocation waits on. */
PW_HD uint32_t pw_wf_shade_place(const pw_wave *w, uint32_t q, const pw_wf_shaded *r)
{
    uint32_t listed, next;
    pw_wf_alloc_pair(&w->counters[PW_WF_TO_CONNECT], r->visit, r->alive, &listed, &next);
    pw_wf_shade_commit(w, q, r, listed, next);
    return r->n;
}

/* Both halves; returns the shadow rays made. */
PW_HD uint32_t pw_wf_shade_one(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, uint32_t q,
                               uint32_t pi, int held, pw_path p, const pw_hit *h, uint32_t kinds)
{
    pw_wf_shaded r = pw_wf_shade_hit(w, s, prm, pi, held, p, h, kinds);
    return pw_wf_shade_place(w, q, &r);
}

/* The hit extend found for position i of the current queue. */
PW_HD pw_hit pw_wf_hit_at(const pw_wave *w, const pw_scene_view *s, uint32_t i)
{
    pw_f2 hf = pw_f2_load(&w->hit[i]);
    pw_hit h;
    h.t = hf.x;
    h.prim = pw_f4_bits(hf.y);
    h.u = h.v = 0.0f;
    if (h.prim != PW_NO_HIT && !pw_prim_is_sphere(s, h.prim)) {
        pw_f2 uv = pw_f2_load(&w->hit_uv[i]);
        h.u = uv.x;
        h.v = uv.y;
    }
    return h;
}

/* Ray splitting: the slot of child k (0 .. split - 1) of the path in slot
 * pi, child 0 being the path itself. The slots are split groups of
 * cap / split, group k holding the children k of the wave's paths in
 * their parents' order; a split wave holds at most cap / split paths
 * (pw_wave_plan, pw_wf_split_fits), so every child has a slot, fixed by
 * its parent and its rank whatever order threads ran in, and gather finds
 * a pixel's children without any record of where they went. (Slots taken
 * from a counter as children were made depended on timing, and so did the
 * order in which children, adding to their pixel with atomics, summed.) */
PW_HD uint32_t pw_wf_child_slot(const pw_wave *w, uint32_t split, uint32_t pi, uint32_t k)
{
    return k * (w->cap / split) + pi;
}

/* Whether a wave of n paths has a slot for each of their split children
 * (pw_wf_child_slot). */
PW_HD int pw_wf_split_fits(const pw_wave *w, uint32_t split, uint32_t n)
{
    return split <= 1 || n <= w->cap / split;
}

/* A split render's path in slot pi that missed at its first hit has no
 * children: their slots get zero radiance, which gather then adds as the
 * megakernel adds nothing for them (x + 0 is x exactly; x is never -0, a
 * sum begun at +0). */
PW_HD void pw_wf_no_children(const pw_wave *w, uint32_t split, uint32_t pi)
{
    for (uint32_t k = 1; k < split; k++)
        pw_f4_store(&w->rad[pw_wf_child_slot(w, split, pi, k)], 0.0f, 0.0f, 0.0f, 0.0f);
}

/* shade: path p, at position i of queue q and in slot pi (which holds its
 * radiance so far where held is set). At the first hit with ray splitting
 * on, it spawns prm->split children in their slots (pw_wf_child_slot),
 * each shading the hit with 1/split of the throughput (pw_path_child).
 * Returns the shadow rays made, children's included. */
PW_HD_INLINE uint32_t pw_wf_shade_path(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm,
                                       uint32_t q, uint32_t i, uint32_t pi, pw_path p, int held, uint32_t kinds)
{
    pw_hit h = pw_wf_hit_at(w, s, i);
    uint32_t split = 1u;
    if (p.depth == 0 && prm->split > 1) {
        if (h.prim != PW_NO_HIT)
            split = prm->split;
        else
            pw_wf_no_children(w, prm->split, pi);
    }
    uint32_t shadows = 0;
    /* Child 0 is the path itself, in its own slot: a render without
     * splitting takes no division here. */
    for (uint32_t k = 0; k < split; k++)
        shadows += pw_wf_shade_one(w, s, prm, q, k == 0 ? pi : pw_wf_child_slot(w, split, pi, k), k == 0 && held,
                                   split > 1 ? pw_path_child(&p, k, split) : p, &h, kinds);
    return shadows;
}

/* shade for the path at position i of queue q; returns the shadow rays
 * made (pw_wf_shade_one). */
PW_HD uint32_t pw_wf_shade(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, uint32_t q,
                           uint32_t i, uint32_t kinds)
{
    int held;
    pw_path p = pw_wf_load(w, q, i, &held);
    return pw_wf_shade_path(w, s, prm, q, i, w->queue[q][i], p, held, kinds);
}

/* shade for item i of a wave whose camera paths are not stored
 * (pw_wf_extend_camera): slot i, position i of queue 0; returns the
 * shadow rays made. */
PW_HD uint32_t pw_wf_shade_camera(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm, uint32_t i,
                                  uint32_t first_pixel, uint32_t pixels, uint32_t first_sample, uint32_t kinds)
{
    return pw_wf_shade_path(w, s, prm, 0, i, i, pw_wf_camera_path(s, prm, i, first_pixel, pixels, first_sample), 0,
                            kinds);
}

/* Shade's first half (pw_wf_shade_hit) where the render splits no rays
 * (prm->split <= 1, which the caller makes sure of: a split render's
 * first hits spawn children, pw_wf_shade_path): pw_wf_shade_hit_at for
 * the path at position i of queue q, pw_wf_shade_hit_camera for item i
 * of a wave whose camera paths are not stored (as pw_wf_shade_camera).
 * What the GPU's sphere kernels and the CPU without splitting run. */
PW_HD pw_wf_shaded pw_wf_shade_hit_at(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm,
                                      uint32_t q, uint32_t i, uint32_t kinds)
{
    int held;
    pw_path p = pw_wf_load(w, q, i, &held);
    pw_hit h = pw_wf_hit_at(w, s, i);
    return pw_wf_shade_hit(w, s, prm, w->queue[q][i], held, p, &h, kinds);
}

PW_HD pw_wf_shaded pw_wf_shade_hit_camera(const pw_wave *w, const pw_scene_view *s, const pw_render_params *prm,
                                          uint32_t i, uint32_t first_pixel, uint32_t pixels, uint32_t first_sample,
                                          uint32_t kinds)
{
    pw_hit h = pw_wf_hit_at(w, s, i);
    return pw_wf_shade_hit(w, s, prm, i, 0, pw_wf_camera_path(s, prm, i, first_pixel, pixels, first_sample), &h,
                           kinds);
}

/* connect: the path of entry i of the connect list traces its shadow rays
 * and adds the contributions of the unoccluded ones in the order they were
 * made (the megakernel's order, so images match it), leaving its radiance
 * in its slot for gather. */
PW_HD void pw_wf_connect(const pw_wave *w, const pw_scene_view *s, uint32_t i)
{
    pw_f2 e = pw_f2_load(&w->to_connect[i]);
    uint32_t pi = pw_f4_bits(e.x), info = pw_f4_bits(e.y), count = info & PW_WF_LIST_COUNT;
    pw_vec3 L = v3s(0.0f);
    if (info & PW_WF_LIST_HELD) {
        pw_f4 l = pw_f4_load(&w->rad[pi]);
        L = v3(l.x, l.y, l.z);
    }
    uint32_t first = pw_wf_records(w, pi);
    for (uint32_t k = 0; k < count; k++) {
        float tmax, red;
        pw_ray r = pw_records_ray(&w->shadow, first + k, &tmax, &red);
        pw_hit h;
        if (!pw_trace(s, r, s->t_min, tmax, 1, &h))
            L = v3_add_rn(L, pw_records_contrib(&w->shadow, first + k, red));
    }
    pw_f4_store(&w->rad[pi], L.x, L.y, L.z, 0.0f);
}

/* The tail of a wave: when few paths are left, a bounce per stage leaves
 * the GPU nearly idle while each kernel waits on a few long traversals.
 * The paths of the queue are then run to their ends one bounce after
 * another (pw_path_step): pw_wf_tail_begin takes the path at position i of
 * queue q with what it gathered so far, pw_wf_tail_end puts its radiance
 * where connect would have put it. */
PW_HD pw_path pw_wf_tail_begin(const pw_wave *w, uint32_t q, uint32_t i)
{
    int held;
    pw_path p = pw_wf_load(w, q, i, &held);
    if (held) {
        pw_f4 l = pw_f4_load(&w->rad[w->queue[q][i]]);
        p.L = v3(l.x, l.y, l.z);
    }
    return p;
}

PW_HD void pw_wf_tail_end(const pw_wave *w, uint32_t q, uint32_t i, const pw_path *p)
{
    pw_f4_store(&w->rad[w->queue[q][i]], p->L.x, p->L.y, p->L.z, 0.0f);
}

/* gather, once a wave without splitting is done: pixel first_pixel + i adds
 * the radiance of its samples, slots j, j + pixels, ..., in sample order
 * (j its position in the wave). */
PW_HD void pw_wf_gather(const pw_wave *w, const pw_render_params *prm, uint32_t i, uint32_t first_pixel,
                        uint32_t pixels, uint32_t samples, float *sum)
{
    uint32_t j = pw_wf_tiled(prm, first_pixel, pixels) ? pw_wf_tile_position(prm, i) : i;
    float *dst = sum + 3 * ((size_t)first_pixel + i);
    pw_vec3 acc = v3(dst[0], dst[1], dst[2]);
    for (uint32_t k = 0; k < samples; k++) {
        pw_f4 l = pw_f4_load(&w->rad[k * pixels + j]);
        pw_path_accumulate(&acc, v3(l.x, l.y, l.z));
    }
    dst[0] = acc.x, dst[1] = acc.y, dst[2] = acc.z;
}

/* gather, once a split wave (one sample a pixel) is done: pixel
 * first_pixel + i sums its children's radiance, slots pw_wf_child_slot(j,
 * k) for k = 0 .. split - 1 (j its position in the wave), in child order
 * from zero and adds the sum to its pixel once: the megakernel's
 * operations (pw_path_trace_pool's L, then pw_path_accumulate), so the
 * image is its to the last bit. A finished child's slot is always
 * written: by shade where it ends there without shadow rays
 * (pw_wf_add_radiance), else by connect or the tail, and by
 * pw_wf_no_children for the children of a path that missed. */
PW_HD void pw_wf_gather_split(const pw_wave *w, const pw_render_params *prm, uint32_t i, uint32_t first_pixel,
                              uint32_t pixels, float *sum)
{
    uint32_t j = pw_wf_tiled(prm, first_pixel, pixels) ? pw_wf_tile_position(prm, i) : i;
    float *dst = sum + 3 * ((size_t)first_pixel + i);
    pw_vec3 acc = v3(dst[0], dst[1], dst[2]), L = v3s(0.0f);
    for (uint32_t k = 0; k < prm->split; k++) {
        pw_f4 l = pw_f4_load(&w->rad[pw_wf_child_slot(w, prm->split, j, k)]);
        L = v3_add(L, v3(l.x, l.y, l.z));
    }
    pw_path_accumulate(&acc, L);
    dst[0] = acc.x, dst[1] = acc.y, dst[2] = acc.z;
}

#endif
