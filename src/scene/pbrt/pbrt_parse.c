/* pbrt-v4 directives: reads a stream of them (pbrt_include.c makes the
 * streams of files and what they include), keeps the graphics state
 * (transform, material, area light) and its AttributeBegin/End stack,
 * records object definitions, and hands each entity to the builders.
 * pw_pbrt_load is the entry point. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt.h"
#include "scene/pbrt/pbrt_internal.h"

static char *tok_dup(const pbrt_token *t)
{
    char *s = malloc(t->len + 1);
    if (s) {
        memcpy(s, t->text, t->len);
        s[t->len] = '\0';
    }
    return s;
}

void pbrt_warn_once(pbrt_ctx *c, const char *key, const char *path, int line, const char *fmt, ...)
{
    for (uint32_t i = 0; i < c->n_warned; i++)
        if (strcmp(c->warned[i], key) == 0)
            return;
    if (c->n_warned == PBRT_MAX_WARNINGS) {
        if (!c->warnings_capped)
            pw_scene_warn(c->scene, "%s: more than %d different warnings; the rest are not shown", c->main_path,
                          PBRT_MAX_WARNINGS);
        c->warnings_capped = 1;
        return;
    }
    if (c->n_warned == c->cap_warned) {
        uint32_t nc = c->cap_warned ? 2 * c->cap_warned : 16;
        char **nw = realloc(c->warned, nc * sizeof *nw);
        if (!nw)
            return;
        c->warned = nw;
        c->cap_warned = nc;
    }
    char *k = strdup(key);
    if (!k)
        return;
    c->warned[c->n_warned++] = k;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pw_scene_warn(c->scene, "%s:%d: %s", path, line, msg);
}

void pbrt_warn_unused(pbrt_ctx *c, pbrt_params *ps, const char *what)
{
    for (int i = 0; i < ps->n; i++) {
        if (ps->p[i].used)
            continue;
        char key[200];
        snprintf(key, sizeof key, "param %s %s", what, ps->p[i].name);
        pbrt_warn_once(c, key, ps->p[i].path, ps->p[i].line, "%s: parameter \"%s\" is not supported (ignored)", what,
                       ps->p[i].name);
    }
}

int pbrt_resolve_path(const pbrt_ctx *c, const char *name, char *buf, size_t n)
{
    int k =
        name[0] == '/' || !c->base_dir[0] ? snprintf(buf, n, "%s", name) : snprintf(buf, n, "%s/%s", c->base_dir, name);
    return k >= 0 && (size_t)k < n;
}

pw_status pbrt_expect(pbrt_tokens *ts, pbrt_tok kind, const char *what, const pbrt_token *dir, pbrt_token *t)
{
    pw_status st = pbrt_next(ts, t);
    if (st != PW_OK || t->kind == kind)
        return st;
    char shown[80], dname[40];
    snprintf(dname, sizeof dname, "%.*s", (int)(dir->len > 30 ? 30 : dir->len), dir->text);
    return pbrt_error_tok(t, "expected %s after %s, got %s", what, dname, pbrt_tok_show(t, shown, sizeof shown));
}

/* n numbers, bare or in brackets (Translate 1 2 3, Transform [ ... ]). */
static pw_status read_numbers(pbrt_tokens *ts, const pbrt_token *dir, int n, double *v)
{
    pbrt_token t;
    pw_status st = pbrt_peek(ts, &t);
    if (st != PW_OK)
        return st;
    int bracket = t.kind == PBRT_LBRACK;
    if (bracket)
        pbrt_next(ts, &t);
    char what[40];
    snprintf(what, sizeof what, "%d numbers", n);
    for (int i = 0; i < n; i++)
        if ((st = pbrt_expect(ts, PBRT_NUMBER, what, dir, &t)) != PW_OK)
            return st;
        else
            v[i] = t.num;
    return bracket ? pbrt_expect(ts, PBRT_RBRACK, "']'", dir, &t) : PW_OK;
}

static pw_status push_state(pbrt_ctx *c, const pbrt_token *d, char kind)
{
    if (c->depth >= PBRT_MAX_ATTRIBUTE_DEPTH)
        return pbrt_error_tok(d, "more than %d nested AttributeBegin", PBRT_MAX_ATTRIBUTE_DEPTH);
    if (c->depth == c->cap_stack) {
        uint32_t nc = c->cap_stack ? 2 * c->cap_stack : 16;
        pbrt_gstate *ns = realloc(c->stack, nc * sizeof *ns);
        if (!ns)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for the attribute stack");
        c->stack = ns;
        c->cap_stack = nc;
    }
    c->stack[c->depth] = c->gs;
    c->stack[c->depth].push_kind = kind;
    c->depth++;
    return PW_OK;
}

static pw_status pop_state(pbrt_ctx *c, const pbrt_token *d, char kind)
{
    static const char *names[] = {"AttributeBegin", "TransformBegin", "ObjectBegin"};
    const char *closing = kind == 'a' ? "AttributeEnd" : kind == 't' ? "TransformEnd" : "ObjectEnd";
    if (c->depth <= c->attr_floor) /* below an Import's floor is the importing file's */
        return pbrt_error_tok(d, "%s without a matching %s", closing, names[kind == 'a' ? 0 : kind == 't' ? 1 : 2]);
    char open_kind = c->stack[c->depth - 1].push_kind;
    if (open_kind != kind)
        return pbrt_error_tok(d, "%s closes a %s", closing, names[open_kind == 'a' ? 0 : open_kind == 't' ? 1 : 2]);
    c->depth--;
    if (kind == 't')
        c->gs.ctm = c->stack[c->depth].ctm;
    else
        c->gs = c->stack[c->depth];
    return PW_OK;
}

static pw_status need_world(pbrt_ctx *c, const pbrt_token *d, int world)
{
    if (c->in_world == world)
        return PW_OK;
    return pbrt_error_tok(d, "%.*s must come %s WorldBegin", (int)d->len, d->text, world ? "after" : "before");
}

pw_status pbrt_set_coord(pbrt_ctx *c, const char *name, const pbrt_mat4 *m)
{
    uint32_t idx;
    if (pbrt_names_find(&c->coord_names, name, &idx)) {
        c->coords[idx] = *m;
        return PW_OK;
    }
    if (c->n_coords == c->cap_coords) {
        uint32_t nc = c->cap_coords ? 2 * c->cap_coords : 8;
        pbrt_mat4 *nm = realloc(c->coords, nc * sizeof *nm);
        if (!nm)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for coordinate systems");
        c->coords = nm;
        c->cap_coords = nc;
    }
    c->coords[c->n_coords] = *m;
    return pbrt_names_set(&c->coord_names, name, c->n_coords++);
}

static pw_status transform_directive(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, int *handled)
{
    double v[16];
    pbrt_mat4 m;
    pw_status st = PW_OK;
    *handled = 1;
    if (pbrt_tok_is(d, "Identity")) {
        c->gs.ctm = pbrt_mat_identity();
        return PW_OK;
    } else if (pbrt_tok_is(d, "Translate")) {
        if ((st = read_numbers(ts, d, 3, v)) == PW_OK)
            m = pbrt_mat_translate(v[0], v[1], v[2]);
    } else if (pbrt_tok_is(d, "Scale")) {
        if ((st = read_numbers(ts, d, 3, v)) == PW_OK)
            m = pbrt_mat_scale(v[0], v[1], v[2]);
    } else if (pbrt_tok_is(d, "Rotate")) {
        if ((st = read_numbers(ts, d, 4, v)) == PW_OK && !pbrt_mat_rotate(v[0], v[1], v[2], v[3], &m))
            return pbrt_error_tok(d, "Rotate about a zero axis");
    } else if (pbrt_tok_is(d, "LookAt")) {
        if ((st = read_numbers(ts, d, 9, v)) == PW_OK && !pbrt_mat_look_at(v, &m))
            return pbrt_error_tok(d, "LookAt: the up vector is zero or parallel to the viewing direction");
    } else if (pbrt_tok_is(d, "Transform") || pbrt_tok_is(d, "ConcatTransform")) {
        if ((st = read_numbers(ts, d, 16, v)) != PW_OK)
            return st;
        /* The 16 values are the matrix column by column. */
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                m.m[i][j] = v[4 * j + i];
        if (pbrt_tok_is(d, "Transform")) {
            c->gs.ctm = m;
            return PW_OK;
        }
    } else if (pbrt_tok_is(d, "CoordinateSystem") || pbrt_tok_is(d, "CoordSysTransform")) {
        pbrt_token t;
        if ((st = pbrt_expect(ts, PBRT_STRING, "a quoted name", d, &t)) != PW_OK)
            return st;
        char *name = tok_dup(&t);
        if (!name)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
        uint32_t idx;
        if (pbrt_tok_is(d, "CoordinateSystem"))
            st = pbrt_set_coord(c, name, &c->gs.ctm);
        else if (pbrt_names_find(&c->coord_names, name, &idx))
            c->gs.ctm = c->coords[idx];
        else
            st = pbrt_error_tok(&t, "unknown coordinate system \"%s\"", name);
        free(name);
        return st;
    } else {
        *handled = 0;
        return PW_OK;
    }
    if (st == PW_OK)
        c->gs.ctm = pbrt_mat_mul(&c->gs.ctm, &m);
    return st;
}

/* An empty parameter list owned by directive d (messages name its place). */
static void params_init(pbrt_params *ps, const pbrt_token *d)
{
    memset(ps, 0, sizeof *ps);
    ps->path = d->path;
    ps->line = d->line;
    ps->col = d->col;
}

/* Reads "name" then the parameter list of a directive. */
static pw_status name_and_params(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, char **name, pbrt_params *ps)
{
    pbrt_token t;
    params_init(ps, d);
    *name = NULL;
    pw_status st = pbrt_expect(ts, PBRT_STRING, "a quoted name", d, &t);
    if (st != PW_OK)
        return st;
    if (!(*name = tok_dup(&t)))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
    return pbrt_params_parse(c, ts, ps);
}

static pw_status record_shape(pbrt_ctx *c, const pbrt_shape_rec *rec)
{
    pbrt_object *o = &c->objects[c->current_object];
    if (o->n == o->cap) {
        uint32_t nc = o->cap ? 2 * o->cap : 4;
        pbrt_shape_rec *ns = nc > o->cap ? realloc(o->shapes, (size_t)nc * sizeof *ns) : NULL;
        if (!ns)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for an object");
        o->shapes = ns;
        o->cap = nc;
    }
    o->shapes[o->n++] = *rec;
    return PW_OK;
}

/* The material of a shape read now: inside an object definition without
 * the area light (instances do not emit). Not known yet when it is a
 * NamedMaterial defined further on (pbrt_forward.c). */
static pw_status shape_rec_material(pbrt_ctx *c, pbrt_shape_rec *rec)
{
    rec->material = c->gs.material;
    rec->material_ref = c->gs.material_ref;
    if (!pbrt_material_ref_resolve(c, &rec->material, &rec->material_ref))
        return PW_OK;
    pbrt_gstate saved = c->gs;
    c->gs.material = rec->material;
    if (c->current_object >= 0)
        c->gs.area.on = 0;
    pw_status st = pbrt_shape_material(c, &rec->material);
    c->gs = saved;
    return st;
}

static pw_status shape_directive(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    pbrt_shape_rec rec = {.ctm = c->gs.ctm, .reverse = c->gs.reverse};
    pw_status st = name_and_params(c, ts, d, &rec.type, &rec.params);
    if (st == PW_OK && c->current_object >= 0 && c->gs.area.on)
        pbrt_warn_once(c, "instanced area light", d->path, d->line,
                       "area lights inside ObjectBegin are not supported: the shapes do not emit");
    if (st == PW_OK)
        st = shape_rec_material(c, &rec);
    if (st == PW_OK && c->current_object >= 0) {
        if ((st = record_shape(c, &rec)) == PW_OK)
            return PW_OK;
    } else if (st == PW_OK && rec.material_ref != UINT32_MAX) {
        st = pbrt_defer_shape(c, &rec, -1, 0);
    } else if (st == PW_OK) {
        st = pbrt_shape(c, rec.type, &rec.params, &rec.ctm, rec.material, rec.reverse);
    }
    free(rec.type);
    pbrt_params_free(&rec.params);
    return st;
}

static pw_status object_begin(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    pbrt_token t;
    pw_status st = pbrt_expect(ts, PBRT_STRING, "a quoted object name", d, &t);
    if (st != PW_OK)
        return st;
    if (c->current_object >= 0)
        return pbrt_error_tok(d, "ObjectBegin inside the definition of \"%s\"", c->objects[c->current_object].name);
    if ((st = push_state(c, d, 'o')) != PW_OK)
        return st;
    if (c->n_objects == c->cap_objects) {
        uint32_t nc = c->cap_objects ? 2 * c->cap_objects : 8;
        pbrt_object *no = nc > c->cap_objects ? realloc(c->objects, (size_t)nc * sizeof *no) : NULL;
        if (!no)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for objects");
        c->objects = no;
        c->cap_objects = nc;
    }
    pbrt_object *o = &c->objects[c->n_objects];
    memset(o, 0, sizeof *o);
    if (!(o->name = tok_dup(&t)))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
    c->current_object = (int)c->n_objects++;
    return pbrt_names_set(&c->object_names, o->name, (uint32_t)c->current_object); /* the latest of a name is used */
}

/* Every shape of the object again, under the instance's transform; those
 * waiting for a named material wait on, each under its own transform. */
static pw_status object_instance(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    pbrt_token t;
    pw_status st = pbrt_expect(ts, PBRT_STRING, "a quoted object name", d, &t);
    if (st != PW_OK)
        return st;
    if (c->current_object >= 0)
        return pbrt_error_tok(d, "ObjectInstance inside an object definition");
    char *name = tok_dup(&t);
    if (!name)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
    uint32_t obj;
    if (!pbrt_names_find(&c->object_names, name, &obj))
        st = pbrt_error_tok(&t, "ObjectInstance of unknown object \"%s\"", name);
    free(name);
    for (uint32_t i = 0; st == PW_OK && i < c->objects[obj].n; i++) {
        pbrt_shape_rec r = c->objects[obj].shapes[i];
        r.ctm = pbrt_mat_mul(&c->gs.ctm, &r.ctm);
        if (pbrt_material_ref_resolve(c, &r.material, &r.material_ref))
            st = pbrt_shape(c, r.type, &r.params, &r.ctm, r.material, r.reverse);
        else
            st = pbrt_defer_shape(c, &r, (int)obj, i);
    }
    return st;
}

/* pbrt-v4 refuses a named material made twice: with names looked up once
 * the whole file is read, a use could not tell which one it meant. */
static pw_status define_named_material(pbrt_ctx *c, const char *name, uint32_t idx, const pbrt_token *d)
{
    const pbrt_name_index *e = pbrt_names_entry(&c->named_mats, name);
    if (e)
        return pbrt_error_tok(d, "MakeNamedMaterial \"%s\": the name is already defined at %s:%d", name, e->path,
                              e->line);
    return pbrt_names_set_at(&c->named_mats, name, idx, d->path, d->line);
}

static pw_status material_directive(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, int named)
{
    char *name;
    pbrt_params ps;
    pw_status st = name_and_params(c, ts, d, &name, &ps);
    const char *type = name;
    if (st == PW_OK && named) {
        st = pbrt_get_string(&ps, "type", NULL, &type);
        if (st == PW_OK && !type)
            st = pbrt_error_tok(d, "MakeNamedMaterial \"%s\" has no \"string type\"", name);
    }
    pw_material m;
    if (st == PW_OK)
        st = pbrt_material(c, type, &ps, &m);
    uint32_t idx = 0;
    if (st == PW_OK && (idx = pw_scene_push_material(c->scene, m)) == UINT32_MAX)
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for materials", d->path);
    if (st == PW_OK && named) {
        st = define_named_material(c, name, idx, d);
    } else if (st == PW_OK) {
        c->gs.material = idx;
        c->gs.material_ref = UINT32_MAX;
    }
    free(name);
    pbrt_params_free(&ps);
    return st;
}

static pw_status named_material(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    pbrt_token t;
    pw_status st = pbrt_expect(ts, PBRT_STRING, "a quoted material name", d, &t);
    if (st != PW_OK)
        return st;
    char *name = tok_dup(&t);
    if (!name)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
    st = pbrt_named_material_use(c, name, &t);
    free(name);
    return st;
}

static pw_status texture_directive(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    pbrt_token t[3];
    static const char *const what[] = {"a quoted texture name", "\"spectrum\" or \"float\"", "a quoted texture class"};
    char *s[3] = {NULL, NULL, NULL};
    pw_status st = PW_OK;
    for (int i = 0; i < 3 && st == PW_OK; i++)
        if ((st = pbrt_expect(ts, PBRT_STRING, what[i], d, &t[i])) == PW_OK && !(s[i] = tok_dup(&t[i])))
            st = pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory");
    pbrt_params ps;
    params_init(&ps, d);
    if (st == PW_OK)
        st = pbrt_params_parse(c, ts, &ps);
    if (st == PW_OK)
        st = pbrt_texture_define(c, s[0], s[1], s[2], &ps);
    for (int i = 0; i < 3; i++)
        free(s[i]);
    pbrt_params_free(&ps);
    return st;
}

static pw_status simple_params(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d,
                               pw_status (*fn)(pbrt_ctx *, const char *, pbrt_params *))
{
    char *name;
    pbrt_params ps;
    pw_status st = name_and_params(c, ts, d, &name, &ps);
    if (st == PW_OK)
        st = fn(c, name, &ps);
    free(name);
    pbrt_params_free(&ps);
    return st;
}

static pw_status ignored_with_params(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, int has_name, int warn)
{
    char *name = NULL;
    pbrt_params ps;
    params_init(&ps, d);
    pw_status st = has_name ? name_and_params(c, ts, d, &name, &ps) : pbrt_params_parse(c, ts, &ps);
    if (st == PW_OK && warn) {
        char key[64];
        snprintf(key, sizeof key, "%.*s", (int)(d->len > 40 ? 40 : d->len), d->text);
        pbrt_warn_once(c, key, d->path, d->line, "%s is not supported (ignored)", key);
    }
    free(name);
    pbrt_params_free(&ps);
    return st;
}

static pw_status world_begin(pbrt_ctx *c, const pbrt_token *d)
{
    pw_status st = need_world(c, d, 0);
    if (st != PW_OK)
        return st;
    c->in_world = 1;
    c->gs.ctm = pbrt_mat_identity();
    return pbrt_set_coord(c, "world", &c->gs.ctm);
}

static pw_status scene_wide(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, int *handled)
{
    *handled = 1;
    pw_status st = need_world(c, d, 0);
    if (st != PW_OK)
        return st;
    if (pbrt_tok_is(d, "Camera"))
        return simple_params(c, ts, d, pbrt_camera);
    if (pbrt_tok_is(d, "Film"))
        return simple_params(c, ts, d, pbrt_film);
    if (pbrt_tok_is(d, "Sampler"))
        return simple_params(c, ts, d, pbrt_sampler);
    if (pbrt_tok_is(d, "Integrator"))
        return simple_params(c, ts, d, pbrt_integrator);
    /* The reconstruction filter changes sharpness, not brightness:
     * pathwave's own pixel sampling stands in for it without a warning. */
    if (pbrt_tok_is(d, "PixelFilter"))
        return ignored_with_params(c, ts, d, 1, 0);
    if (pbrt_tok_is(d, "Accelerator"))
        return ignored_with_params(c, ts, d, 1, 0);
    *handled = 0;
    return PW_OK;
}

static pw_status world_directive(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, int *handled)
{
    *handled = 1;
    pw_status st = need_world(c, d, 1);
    if (st != PW_OK)
        return st;
    if (pbrt_tok_is(d, "Shape"))
        return shape_directive(c, ts, d);
    if (pbrt_tok_is(d, "Material") || pbrt_tok_is(d, "MakeNamedMaterial"))
        return material_directive(c, ts, d, pbrt_tok_is(d, "MakeNamedMaterial"));
    if (pbrt_tok_is(d, "NamedMaterial"))
        return named_material(c, ts, d);
    if (pbrt_tok_is(d, "Texture"))
        return texture_directive(c, ts, d);
    if (pbrt_tok_is(d, "AreaLightSource"))
        return simple_params(c, ts, d, pbrt_area_light_source);
    if (pbrt_tok_is(d, "LightSource"))
        return simple_params(c, ts, d, pbrt_light_source);
    if (pbrt_tok_is(d, "AttributeBegin"))
        return push_state(c, d, 'a');
    if (pbrt_tok_is(d, "AttributeEnd"))
        return pop_state(c, d, 'a');
    if (pbrt_tok_is(d, "ObjectBegin"))
        return object_begin(c, ts, d);
    if (pbrt_tok_is(d, "ObjectEnd")) {
        if (c->current_object < 0)
            return pbrt_error_tok(d, "ObjectEnd without a matching ObjectBegin");
        c->current_object = -1;
        return pop_state(c, d, 'o');
    }
    if (pbrt_tok_is(d, "ObjectInstance"))
        return object_instance(c, ts, d);
    if (pbrt_tok_is(d, "ReverseOrientation")) {
        c->gs.reverse = !c->gs.reverse;
        return PW_OK;
    }
    *handled = 0;
    return PW_OK;
}

/* Directives pathwave reads but has no use for: parsed, then warned about once. */
static pw_status unsupported_directive(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, int *handled)
{
    pbrt_token t;
    pw_status st = PW_OK;
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(d->len > 40 ? 40 : d->len), d->text);
    *handled = 1;
    if (pbrt_tok_is(d, "MakeNamedMedium") || pbrt_tok_is(d, "Attribute"))
        return ignored_with_params(c, ts, d, 1, 1);
    if (pbrt_tok_is(d, "Option"))
        return ignored_with_params(c, ts, d, 0, 1);
    if (pbrt_tok_is(d, "ColorSpace")) {
        if ((st = pbrt_expect(ts, PBRT_STRING, "a quoted name", d, &t)) == PW_OK && !pbrt_tok_is(&t, "srgb"))
            pbrt_warn_once(c, key, d->path, d->line, "ColorSpace other than \"srgb\" is not supported (ignored)");
        return st;
    }
    if (pbrt_tok_is(d, "MediumInterface")) {
        if ((st = pbrt_expect(ts, PBRT_STRING, "a quoted medium name", d, &t)) != PW_OK ||
            (st = pbrt_peek(ts, &t)) != PW_OK)
            return st;
        if (t.kind == PBRT_STRING)
            pbrt_next(ts, &t);
    } else if (pbrt_tok_is(d, "TransformTimes")) {
        double v[2];
        st = read_numbers(ts, d, 2, v);
    } else if (pbrt_tok_is(d, "ActiveTransform")) {
        st = pbrt_expect(ts, PBRT_WORD, "StartTime, EndTime or All", d, &t);
    } else if (pbrt_tok_is(d, "WorldEnd")) {
        return PW_OK; /* pbrt-v3's end marker: nothing to do */
    } else {
        *handled = 0;
        return PW_OK;
    }
    if (st == PW_OK)
        pbrt_warn_once(c, key, d->path, d->line, "%s is not supported (ignored)", key);
    return st;
}

static pw_status directive(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    int handled = 0;
    pw_status st = transform_directive(c, ts, d, &handled);
    if (st != PW_OK || handled)
        return st;
    if (pbrt_tok_is(d, "Include"))
        return pbrt_include(c, ts, d);
    if (pbrt_tok_is(d, "Import")) { /* pbrt-v4 allows it only after WorldBegin */
        pw_status st = need_world(c, d, 1);
        return st != PW_OK ? st : pbrt_import(c, ts, d);
    }
    if (pbrt_tok_is(d, "WorldBegin"))
        return world_begin(c, d);
    if (pbrt_tok_is(d, "TransformBegin"))
        return push_state(c, d, 't');
    if (pbrt_tok_is(d, "TransformEnd"))
        return pop_state(c, d, 't');
    static const char *const before_world[] = {"Camera", "Film", "Sampler", "Integrator", "PixelFilter", "Accelerator"};
    for (size_t i = 0; i < sizeof before_world / sizeof *before_world; i++)
        if (pbrt_tok_is(d, before_world[i]))
            return scene_wide(c, ts, d, &handled);
    static const char *const in_world[] = {
        "Shape",           "Material",       "MakeNamedMaterial", "NamedMaterial", "Texture",
        "AreaLightSource", "LightSource",    "AttributeBegin",    "AttributeEnd",  "ObjectBegin",
        "ObjectEnd",       "ObjectInstance", "ReverseOrientation"};
    for (size_t i = 0; i < sizeof in_world / sizeof *in_world; i++)
        if (pbrt_tok_is(d, in_world[i]))
            return world_directive(c, ts, d, &handled);
    if ((st = unsupported_directive(c, ts, d, &handled)) != PW_OK || handled)
        return st;
    char shown[80];
    return pbrt_error_tok(d, "unknown directive %s", pbrt_tok_show(d, shown, sizeof shown));
}

pw_status pbrt_parse_stream(pbrt_ctx *c, pbrt_tokens *ts)
{
    for (;;) {
        pbrt_tokens_release_ended(ts); /* the last directive is done with their tokens */
        pbrt_token d;
        pw_status st = pbrt_next(ts, &d);
        if (st != PW_OK || d.kind == PBRT_EOF)
            return st;
        if (d.kind != PBRT_WORD) {
            char shown[80];
            return pbrt_error_tok(&d, "expected a directive, got %s", pbrt_tok_show(&d, shown, sizeof shown));
        }
        if ((st = directive(c, ts, &d)) != PW_OK)
            return st;
    }
}

static void ctx_free(pbrt_ctx *c)
{
    free(c->stack);
    pbrt_names_free(&c->named_mats);
    pbrt_names_free(&c->textures_idx);
    pbrt_names_free(&c->coord_names);
    pbrt_names_free(&c->object_names);
    pbrt_forward_free(c);
    for (uint32_t i = 0; i < c->n_tex; i++)
        free(c->textures[i].filename);
    free(c->textures);
    free(c->coords);
    for (uint32_t i = 0; i < c->n_objects; i++) {
        for (uint32_t k = 0; k < c->objects[i].n; k++) {
            free(c->objects[i].shapes[k].type);
            pbrt_params_free(&c->objects[i].shapes[k].params);
        }
        free(c->objects[i].shapes);
        free(c->objects[i].name);
    }
    free(c->objects);
    for (uint32_t i = 0; i < c->n_warned; i++)
        free(c->warned[i]);
    for (uint32_t i = 0; i < c->n_files; i++)
        free(c->files[i]);
    free(c->files);
    free(c->warned);
}

pw_status pbrt_file_end(pbrt_ctx *c, const char *path, uint32_t depth, int object)
{
    if (c->current_object >= 0 && c->current_object != object)
        return pw_fail(PW_ERR_FORMAT, "%s: the file ends inside ObjectBegin \"%s\"", path,
                       c->objects[c->current_object].name);
    if (c->depth > depth) {
        char key[300];
        snprintf(key, sizeof key, "open attributes %s", path);
        pbrt_warn_once(c, key, path, 0, "the file ends with %u AttributeBegin left open", c->depth - depth);
    }
    return PW_OK;
}

/* Checks left once the whole scene is read: a scene that has nothing to
 * render, the camera now that the film is known. */
static pw_status finish(pbrt_ctx *c, const char *path)
{
    if (!c->in_world)
        return pw_fail(PW_ERR_FORMAT, "%s: no WorldBegin: the file describes no scene", path);
    if (c->scene->n_tris == 0 && c->scene->n_spheres == 0)
        return pw_fail(PW_ERR_FORMAT, "%s: the scene has no shapes pathwave can render", path);
    if (!c->emissive_lights)
        pbrt_warn_once(c, "no lights", path, 0,
                       "nothing in the scene emits light that pathwave supports: the image will be black");
    return pbrt_camera_finish(c);
}

pw_status pw_pbrt_load(const char *path, pw_scene **out)
{
    *out = NULL;
    pbrt_ctx c;
    memset(&c, 0, sizeof c);
    c.main_path = path;
    c.current_object = -1;
    c.default_mat = UINT32_MAX;
    c.gs.ctm = pbrt_mat_identity();
    c.gs.material = UINT32_MAX;
    c.gs.material_ref = UINT32_MAX;
    c.iso = 100.0f;
    c.xres = 1280;
    c.yres = 720;
    const char *slash = strrchr(path, '/');
    if (slash && (size_t)(slash - path) < sizeof c.base_dir)
        snprintf(c.base_dir, sizeof c.base_dir, "%.*s", (int)(slash - path), path);
    if (slash == path)
        snprintf(c.base_dir, sizeof c.base_dir, "/");
    c.scene = pw_scene_alloc(path);
    if (!c.scene)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    pw_status st = pbrt_parse_main(&c, path);
    if (st == PW_OK)
        st = pbrt_file_end(&c, path, 0, -1);
    if (st == PW_OK)
        st = pbrt_build_deferred(&c);
    if (st == PW_OK)
        st = finish(&c, path);
    ctx_free(&c);
    if (st != PW_OK) {
        pw_scene_free(c.scene);
        return st;
    }
    *out = c.scene;
    return PW_OK;
}
