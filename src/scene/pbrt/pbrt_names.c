/* Name tables of the pbrt reader (named materials, textures, coordinate
 * systems, objects): entries in definition order, found through a hash
 * index so that a file naming many of them costs time in proportion to
 * its length. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"

/* FNV-1a. */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* The slot holding name, or the empty slot where it would go. */
static uint32_t probe(const pbrt_names *t, const char *name)
{
    uint32_t mask = t->n_slots - 1, i = name_hash(name) & mask;
    while (t->slots[i] && strcmp(t->v[t->slots[i] - 1].name, name) != 0)
        i = (i + 1) & mask;
    return i;
}

const pbrt_name_index *pbrt_names_entry(const pbrt_names *t, const char *name)
{
    if (t->n == 0)
        return NULL;
    uint32_t slot = t->slots[probe(t, name)];
    return slot ? &t->v[slot - 1] : NULL;
}

int pbrt_names_find(const pbrt_names *t, const char *name, uint32_t *index)
{
    const pbrt_name_index *e = pbrt_names_entry(t, name);
    if (e)
        *index = e->index;
    return e != NULL;
}

/* Keeps the index at most half full. */
static pw_status grow_index(pbrt_names *t)
{
    if ((uint64_t)(t->n + 1) * 2 <= t->n_slots)
        return PW_OK;
    uint32_t ns = t->n_slots ? 2 * t->n_slots : 32;
    uint32_t *slots = ns > t->n_slots ? calloc(ns, sizeof *slots) : NULL;
    if (!slots)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for names");
    free(t->slots);
    t->slots = slots;
    t->n_slots = ns;
    for (uint32_t e = 0; e < t->n; e++)
        t->slots[probe(t, t->v[e].name)] = e + 1;
    return PW_OK;
}

static pw_status append(pbrt_names *t, const char *name)
{
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? 2 * t->cap : 16;
        pbrt_name_index *nv = nc > t->cap ? realloc(t->v, (size_t)nc * sizeof *nv) : NULL;
        if (!nv)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for names");
        t->v = nv;
        t->cap = nc;
    }
    pw_status st = grow_index(t);
    if (st != PW_OK)
        return st;
    char *copy = strdup(name);
    if (!copy)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for names");
    t->slots[probe(t, name)] = t->n + 1;
    t->v[t->n++] = (pbrt_name_index){copy, 0, NULL, 0};
    return PW_OK;
}

pw_status pbrt_names_set_at(pbrt_names *t, const char *name, uint32_t index, const char *path, int line)
{
    pbrt_name_index *e = (pbrt_name_index *)pbrt_names_entry(t, name);
    if (!e) {
        pw_status st = append(t, name);
        if (st != PW_OK)
            return st;
        e = &t->v[t->n - 1];
    }
    e->index = index;
    e->path = path;
    e->line = line;
    return PW_OK;
}

pw_status pbrt_names_set(pbrt_names *t, const char *name, uint32_t index)
{
    return pbrt_names_set_at(t, name, index, NULL, 0);
}

void pbrt_names_free(pbrt_names *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->v[i].name);
    free(t->v);
    free(t->slots);
    memset(t, 0, sizeof *t);
}
