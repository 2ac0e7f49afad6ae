/* Named materials used before they are made. pbrt-v4 reads the whole
 * scene before it looks a named material up (scenes such as
 * contemporary-bathroom say NamedMaterial "light" above the Include that
 * makes it), and it refuses a name made twice, so the definition a use
 * gets does not depend on where it is. A shape whose material is not
 * defined yet when it is read waits here, with its transform and area
 * light, and is built at the end of the file; the shapes of an object
 * definition wait inside the object, and each instance of them here. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"

static pw_status add_ref(pbrt_ctx *c, const char *name, const pbrt_token *t, uint32_t *ref)
{
    if (c->n_mat_refs == c->cap_mat_refs) {
        uint32_t nc = c->cap_mat_refs ? 2 * c->cap_mat_refs : 8;
        pbrt_material_ref *nr = nc > c->cap_mat_refs ? realloc(c->mat_refs, (size_t)nc * sizeof *nr) : NULL;
        if (!nr)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for material names", t->path);
        c->mat_refs = nr;
        c->cap_mat_refs = nc;
    }
    char *copy = strdup(name);
    if (!copy)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for material names", t->path);
    c->mat_refs[c->n_mat_refs] = (pbrt_material_ref){copy, t->path, t->line, t->col};
    *ref = c->n_mat_refs++;
    return PW_OK;
}

pw_status pbrt_named_material_use(pbrt_ctx *c, const char *name, const pbrt_token *t)
{
    c->gs.material_ref = UINT32_MAX;
    if (pbrt_names_find(&c->named_mats, name, &c->gs.material))
        return PW_OK;
    c->gs.material = UINT32_MAX;
    return add_ref(c, name, t, &c->gs.material_ref);
}

int pbrt_material_ref_resolve(pbrt_ctx *c, uint32_t *material, uint32_t *material_ref)
{
    if (*material_ref == UINT32_MAX)
        return 1;
    if (!pbrt_names_find(&c->named_mats, c->mat_refs[*material_ref].name, material))
        return 0;
    *material_ref = UINT32_MAX;
    return 1;
}

pw_status pbrt_defer_shape(pbrt_ctx *c, pbrt_shape_rec *rec, int object, uint32_t shape)
{
    if (c->n_deferred == c->cap_deferred) {
        uint32_t nc = c->cap_deferred ? 2 * c->cap_deferred : 16;
        pbrt_deferred_shape *nd = nc > c->cap_deferred ? realloc(c->deferred, (size_t)nc * sizeof *nd) : NULL;
        if (!nd)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for shapes");
        c->deferred = nd;
        c->cap_deferred = nc;
    }
    pbrt_deferred_shape *d = &c->deferred[c->n_deferred++];
    d->rec = *rec;
    d->object = object;
    d->shape = shape;
    d->area = object >= 0 ? (pbrt_area_light){0} : c->gs.area; /* instances do not emit (pbrt_parse.c) */
    if (object < 0) { /* the list owns them now */
        rec->type = NULL;
        memset(&rec->params, 0, sizeof rec->params);
    }
    return PW_OK;
}

static pw_status build_one(pbrt_ctx *c, pbrt_deferred_shape *d)
{
    const pbrt_material_ref *ref = &c->mat_refs[d->rec.material_ref];
    uint32_t base;
    if (!pbrt_names_find(&c->named_mats, ref->name, &base))
        return pbrt_error_at(ref->path, ref->line, ref->col, "NamedMaterial \"%s\" was not defined", ref->name);
    /* The material a shape gets depends on the graphics state it was read
     * in: its area light, kept with it. */
    pbrt_gstate saved = c->gs;
    c->gs.material = base;
    c->gs.material_ref = UINT32_MAX;
    c->gs.area = d->area;
    uint32_t mat;
    pw_status st = pbrt_shape_material(c, &mat);
    c->gs = saved;
    pbrt_shape_rec *r = d->object >= 0 ? &c->objects[d->object].shapes[d->shape] : &d->rec;
    return st != PW_OK ? st : pbrt_shape(c, r->type, &r->params, &d->rec.ctm, mat, d->rec.reverse);
}

pw_status pbrt_build_deferred(pbrt_ctx *c)
{
    for (uint32_t i = 0; i < c->n_deferred; i++) {
        pw_status st = build_one(c, &c->deferred[i]);
        if (st != PW_OK)
            return st;
    }
    return PW_OK;
}

void pbrt_forward_free(pbrt_ctx *c)
{
    for (uint32_t i = 0; i < c->n_deferred; i++)
        if (c->deferred[i].object < 0) {
            free(c->deferred[i].rec.type);
            pbrt_params_free(&c->deferred[i].rec.params);
        }
    free(c->deferred);
    for (uint32_t i = 0; i < c->n_mat_refs; i++)
        free(c->mat_refs[i].name);
    free(c->mat_refs);
}
