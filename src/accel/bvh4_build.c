/* Collapses the binary BVH into the 4-wide one of accel/bvh4.h: each 4-wide
 * node takes the grandchildren of a binary node (or a child itself where it
 * is a leaf), so every level of the wide tree spans two binary levels and
 * its depth, hence the traversal stack, stays bounded. The boxes are the
 * binary nodes' own, padding included. */
#include <stdlib.h>
#include <string.h>

#include "accel/bvh4.h"
#include "accel/bvh_build.h"
#include "core/error.h"

typedef struct collapse_ctx {
    const pw_bvh_node *bin;
    pw_bvh4_node *out;
    uint32_t n;
} collapse_ctx;

static uint32_t leaf_ref(const pw_bvh_node *b)
{
    return PW_BVH4_LEAF | ((b->count - 1u) << PW_BVH4_COUNT_SHIFT) | b->first;
}

static void set_child(pw_bvh4_node *n, int k, const pw_bvh_node *b, uint32_t ref)
{
    n->lo_x[k] = b->bmin[0], n->lo_y[k] = b->bmin[1], n->lo_z[k] = b->bmin[2];
    n->hi_x[k] = b->bmax[0], n->hi_y[k] = b->bmax[1], n->hi_z[k] = b->bmax[2];
    n->child[k] = ref;
}

/* A node whose four children are all empty until set_child fills them. */
static pw_bvh4_node empty_node(void)
{
    pw_bvh4_node n;
    memset(&n, 0, sizeof n);
    for (int k = 0; k < 4; k++)
        n.child[k] = PW_BVH4_EMPTY;
    return n;
}

/* The 4-wide node for binary interior node b; returns its index. */
static uint32_t collapse(collapse_ctx *c, uint32_t b)
{
    uint32_t me = c->n++;
    uint32_t picked[4], np = 0;
    for (uint32_t side = 0; side < 2; side++) {
        uint32_t ch = c->bin[b].first + side;
        if (c->bin[ch].count > 0) {
            picked[np++] = ch;
        } else {
            picked[np++] = c->bin[ch].first;
            picked[np++] = c->bin[ch].first + 1;
        }
    }
    pw_bvh4_node n = empty_node();
    for (uint32_t k = 0; k < np; k++) {
        const pw_bvh_node *x = &c->bin[picked[k]];
        set_child(&n, (int)k, x, x->count > 0 ? leaf_ref(x) : collapse(c, picked[k]));
    }
    c->out[me] = n;
    return me;
}

pw_status pw_bvh4_build(const char *name, const pw_bvh_node *nodes, uint32_t n_nodes, uint32_t n_refs,
                        pw_bvh4_node **out, uint32_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (n_nodes == 0)
        return PW_OK;
    if (n_refs > PW_BVH4_FIRST_MASK)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %u primitives are more than the 4-wide BVH addresses", name,
                       n_refs);
    /* Every 4-wide node but a leaf root's consumes at least one binary
     * interior node, of which there are (n_nodes - 1) / 2. */
    collapse_ctx c = {nodes, malloc(((size_t)n_nodes / 2 + 1) * sizeof(pw_bvh4_node)), 0};
    if (!c.out)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory building the 4-wide BVH", name);
    if (nodes[0].count > 0) {
        c.out[c.n] = empty_node();
        set_child(&c.out[c.n++], 0, &nodes[0], leaf_ref(&nodes[0]));
    } else {
        collapse(&c, 0);
    }
    *out = c.out;
    *n_out = c.n;
    return PW_OK;
}
