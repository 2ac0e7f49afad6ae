/* Parameter lists: a run of "type name" [ values ] after a directive. The
 * values are checked against the declared type here, so the builders only
 * ever see well-typed arrays. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"

static const struct {
    const char *name;
    pbrt_ptype type;
} type_names[] = {
    {"integer", PBRT_P_INTEGER},   {"float", PBRT_P_FLOAT},
    {"point2", PBRT_P_POINT2},     {"vector2", PBRT_P_VECTOR2},
    {"point3", PBRT_P_POINT3},     {"point", PBRT_P_POINT3},
    {"vector3", PBRT_P_VECTOR3},   {"vector", PBRT_P_VECTOR3},
    {"normal3", PBRT_P_NORMAL},    {"normal", PBRT_P_NORMAL},
    {"rgb", PBRT_P_RGB},           {"color", PBRT_P_RGB},
    {"spectrum", PBRT_P_SPECTRUM}, {"blackbody", PBRT_P_BLACKBODY},
    {"string", PBRT_P_STRING},     {"bool", PBRT_P_BOOL},
    {"texture", PBRT_P_TEXTURE},
};

const char *pbrt_ptype_name(pbrt_ptype t)
{
    for (size_t i = 0; i < sizeof type_names / sizeof *type_names; i++)
        if (type_names[i].type == t)
            return type_names[i].name;
    return "?";
}

static int arity(pbrt_ptype t)
{
    switch (t) {
    case PBRT_P_POINT2:
    case PBRT_P_VECTOR2:
        return 2;
    case PBRT_P_POINT3:
    case PBRT_P_VECTOR3:
    case PBRT_P_NORMAL:
    case PBRT_P_RGB:
        return 3;
    default:
        return 1;
    }
}

static void param_free(pbrt_param *p);

void pbrt_params_free(pbrt_params *ps)
{
    for (int i = 0; i < ps->n; i++)
        param_free(&ps->p[i]);
    free(ps->p);
    ps->p = NULL;
    ps->n = ps->cap = 0;
}

pw_status pbrt_param_error(const pbrt_param *p, const pbrt_params *ps, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pbrt_error_at(p->path ? p->path : ps->path, p->line, p->col, "\"%s %s\": %s", pbrt_ptype_name(p->type),
                         p->name, msg);
}

/* "type name" into the parameter's type and name. */
static pw_status parse_decl(const pbrt_token *t, pbrt_param *p)
{
    char decl[160];
    if (t->len >= sizeof decl)
        return pbrt_error_tok(t, "parameter declaration is too long");
    memcpy(decl, t->text, t->len);
    decl[t->len] = '\0';
    char type[40], name[sizeof p->name], extra[8];
    int k = sscanf(decl, "%39s %63s %7s", type, name, extra);
    if (k != 2)
        return pbrt_error_tok(t, "expected a parameter declaration \"type name\", got \"%s\"", decl);
    for (size_t i = 0; i < sizeof type_names / sizeof *type_names; i++)
        if (strcmp(type, type_names[i].name) == 0) {
            p->type = type_names[i].type;
            snprintf(p->name, sizeof p->name, "%s", name);
            return PW_OK;
        }
    return pbrt_error_tok(t, "unknown parameter type '%s'", type);
}

static pw_status push_num(pbrt_param *p, uint32_t *cap, double v)
{
    if (p->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        double *nn = nc > *cap ? realloc(p->num, (size_t)nc * sizeof *nn) : NULL;
        if (!nn)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for %u parameter values", nc);
        p->num = nn;
        *cap = nc;
    }
    p->num[p->n++] = v;
    return PW_OK;
}

static pw_status push_str(pbrt_param *p, uint32_t *cap, const pbrt_token *t)
{
    if (p->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        char **nn = nc > *cap ? realloc(p->str, (size_t)nc * sizeof *nn) : NULL;
        if (!nn)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for %u parameter values", nc);
        p->str = nn;
        *cap = nc;
    }
    char *s = malloc(t->len + 1);
    if (!s)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for a string");
    memcpy(s, t->text, t->len);
    s[t->len] = '\0';
    p->str[p->n++] = s;
    return PW_OK;
}

/* One value token, checked against the parameter's type. */
static pw_status add_value(pbrt_param *p, uint32_t *cap, const pbrt_token *t)
{
    char shown[80];
    pbrt_tok_show(t, shown, sizeof shown);
    if (p->type == PBRT_P_BOOL) {
        int is_true = pbrt_tok_is(t, "true"), is_false = pbrt_tok_is(t, "false");
        if ((t->kind == PBRT_WORD || t->kind == PBRT_STRING) && (is_true || is_false))
            return push_num(p, cap, is_true ? 1.0 : 0.0);
        return pbrt_error_tok(t, "\"bool %s\": expected true or false, got %s", p->name, shown);
    }
    if (p->type == PBRT_P_STRING || p->type == PBRT_P_TEXTURE ||
        (p->type == PBRT_P_SPECTRUM && t->kind == PBRT_STRING)) {
        if (t->kind != PBRT_STRING)
            return pbrt_error_tok(t, "\"%s %s\": expected a quoted string, got %s",
                                  pbrt_ptype_name(p->type), p->name, shown);
        if (p->num)
            return pbrt_error_tok(t, "\"spectrum %s\": mixes numbers and a name", p->name);
        return push_str(p, cap, t);
    }
    if (t->kind != PBRT_NUMBER)
        return pbrt_error_tok(t, "\"%s %s\": expected a number, got %s", pbrt_ptype_name(p->type), p->name, shown);
    if (p->str)
        return pbrt_error_tok(t, "\"spectrum %s\": mixes numbers and a name", p->name);
    if (p->type == PBRT_P_INTEGER && (t->num != floor(t->num) || fabs(t->num) > 2147483647.0))
        return pbrt_error_tok(t, "\"integer %s\": %s is not a 32-bit integer", p->name, shown);
    return push_num(p, cap, t->num);
}

static pw_status check_count(const pbrt_param *p)
{
    int a = arity(p->type);
    if (p->type == PBRT_P_RGB && p->n != 3)
        return pbrt_error_at(p->path, p->line, p->col, "\"rgb %s\": needs 3 values, got %u", p->name, p->n);
    if (p->n % (uint32_t)a != 0)
        return pbrt_error_at(p->path, p->line, p->col, "\"%s %s\": %u values are not a multiple of %d",
                             pbrt_ptype_name(p->type), p->name, p->n, a);
    if (p->type == PBRT_P_SPECTRUM && p->num && p->n % 2 != 0)
        return pbrt_error_at(p->path, p->line, p->col,
                             "\"spectrum %s\": needs (wavelength, value) pairs, got %u values", p->name, p->n);
    if (p->type == PBRT_P_TEXTURE && p->n != 1)
        return pbrt_error_at(p->path, p->line, p->col, "\"texture %s\": needs one texture name, got %u", p->name,
                             p->n);
    if (p->type == PBRT_P_BLACKBODY && p->n != 1 && p->n != 2)
        return pbrt_error_at(p->path, p->line, p->col, "\"blackbody %s\": needs a temperature, got %u values", p->name,
                             p->n);
    return PW_OK;
}

/* Where p's values were opened, for a message at token t: "line:col", with
 * the file too when t is in another one (values may run on past an
 * included file's end). */
static const char *opened_at(const pbrt_param *p, const pbrt_token *t, char *buf, size_t n)
{
    if (strcmp(p->path, t->path) == 0)
        snprintf(buf, n, "%d:%d", p->line, p->col);
    else
        snprintf(buf, n, "%s:%d:%d", p->path, p->line, p->col);
    return buf;
}

/* Directives start with a capital: one inside bracketed values means a
 * ']' is missing. */
static int looks_like_directive(const pbrt_token *t)
{
    return t->kind == PBRT_WORD && t->text[0] >= 'A' && t->text[0] <= 'Z' && !pbrt_tok_is(t, "NaN") &&
           !pbrt_tok_is(t, "Inf") && !pbrt_tok_is(t, "Infinity");
}

static pw_status parse_values(pbrt_tokens *ts, pbrt_param *p)
{
    uint32_t cap = 0;
    pbrt_token t;
    pw_status st = pbrt_next(ts, &t);
    if (st != PW_OK)
        return st;
    char shown[80], where[300];
    if (t.kind != PBRT_LBRACK) {
        if (t.kind == PBRT_EOF || t.kind == PBRT_RBRACK)
            return pbrt_error_tok(&t, "\"%s %s\": expected a value or '[', got %s", pbrt_ptype_name(p->type), p->name,
                                  pbrt_tok_show(&t, shown, sizeof shown));
        st = add_value(p, &cap, &t);
        return st != PW_OK ? st : check_count(p);
    }
    for (;;) {
        if ((st = pbrt_next(ts, &t)) != PW_OK)
            return st;
        if (t.kind == PBRT_RBRACK)
            break;
        if (t.kind == PBRT_EOF || t.kind == PBRT_LBRACK)
            return pbrt_error_tok(&t, "\"%s %s\": expected ']' to close the values opened at %s",
                                  pbrt_ptype_name(p->type), p->name, opened_at(p, &t, where, sizeof where));
        if (looks_like_directive(&t))
            return pbrt_error_tok(&t, "\"%s %s\": expected ']' to close the values opened at %s, got %s",
                                  pbrt_ptype_name(p->type), p->name, opened_at(p, &t, where, sizeof where),
                                  pbrt_tok_show(&t, shown, sizeof shown));
        if ((st = add_value(p, &cap, &t)) != PW_OK)
            return st;
    }
    return check_count(p);
}

static void param_free(pbrt_param *p)
{
    free(p->num);
    for (uint32_t k = 0; p->str && k < p->n; k++)
        free(p->str[k]);
    free(p->str);
}

typedef struct named_slot {
    const char *name;
    int index;
} named_slot;

static int by_name_then_index(const void *a, const void *b)
{
    const named_slot *x = a, *y = b;
    int d = strcmp(x->name, y->name);
    return d ? d : (x->index > y->index) - (x->index < y->index);
}

/* A parameter given twice: pbrt-v4 keeps both and its lookups find the
 * later one, so the earlier is dropped here, with a warning naming both
 * places. Sorting keeps this n log n for lists of any length. */
static pw_status drop_repeated(pbrt_ctx *c, pbrt_params *ps)
{
    if (ps->n < 2)
        return PW_OK;
    named_slot *order = malloc((size_t)ps->n * sizeof *order);
    if (!order)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for parameters", ps->path);
    for (int i = 0; i < ps->n; i++)
        order[i] = (named_slot){ps->p[i].name, i};
    qsort(order, (size_t)ps->n, sizeof *order, by_name_then_index);
    for (int k = 0; k + 1 < ps->n; k++) {
        if (strcmp(order[k].name, order[k + 1].name) != 0)
            continue;
        pbrt_param *early = &ps->p[order[k].index], *late = &ps->p[order[k + 1].index];
        char key[120];
        snprintf(key, sizeof key, "param twice %s", early->name);
        pbrt_warn_once(c, key, early->path, early->line,
                       "parameter \"%s\" is given twice in one list (again at %s:%d): the later one is used, as in "
                       "pbrt-v4",
                       early->name, late->path, late->line);
        early->used = -1; /* dropped below */
    }
    free(order);
    int kept = 0;
    for (int i = 0; i < ps->n; i++) {
        if (ps->p[i].used < 0)
            param_free(&ps->p[i]);
        else
            ps->p[kept++] = ps->p[i];
    }
    ps->n = kept;
    return PW_OK;
}

static pw_status parse_list(pbrt_tokens *ts, pbrt_params *ps)
{
    pbrt_token t;
    for (;;) {
        pw_status st = pbrt_peek(ts, &t);
        if (st != PW_OK)
            return st;
        if (t.kind != PBRT_STRING)
            return PW_OK;
        pbrt_next(ts, &t);
        if (ps->n == ps->cap) {
            int nc = ps->cap ? 2 * ps->cap : 8;
            pbrt_param *np = nc > ps->cap ? realloc(ps->p, (size_t)nc * sizeof *np) : NULL;
            if (!np)
                return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for parameters", t.path);
            ps->p = np;
            ps->cap = nc;
        }
        pbrt_param *p = &ps->p[ps->n];
        memset(p, 0, sizeof *p);
        p->path = t.path;
        p->line = t.line;
        p->col = t.col;
        ps->n++;
        if ((st = parse_decl(&t, p)) != PW_OK || (st = parse_values(ts, p)) != PW_OK)
            return st;
    }
}

pw_status pbrt_params_parse(pbrt_ctx *c, pbrt_tokens *ts, pbrt_params *ps)
{
    pw_status st = parse_list(ts, ps);
    return st != PW_OK ? st : drop_repeated(c, ps);
}

pbrt_param *pbrt_param_find(pbrt_params *ps, const char *name)
{
    for (int i = 0; i < ps->n; i++)
        if (strcmp(ps->p[i].name, name) == 0) {
            ps->p[i].used = 1;
            return &ps->p[i];
        }
    return NULL;
}

/* The parameter when it has the wanted type and exactly count values. */
static pw_status find_typed(pbrt_params *ps, const char *name, pbrt_ptype type, uint32_t count, pbrt_param **out)
{
    *out = pbrt_param_find(ps, name);
    if (!*out)
        return PW_OK;
    if ((*out)->type != type)
        return pbrt_param_error(*out, ps, "should be of type %s", pbrt_ptype_name(type));
    if (count && (*out)->n != count)
        return pbrt_param_error(*out, ps, "needs %u value%s, got %u", count, count > 1 ? "s" : "", (*out)->n);
    return PW_OK;
}

pw_status pbrt_get_float(pbrt_params *ps, const char *name, float def, float *out)
{
    pbrt_param *p;
    pw_status st = find_typed(ps, name, PBRT_P_FLOAT, 1, &p);
    if (st == PW_OK) {
        *out = p ? (float)p->num[0] : def;
        if (!isfinite(*out))
            return pbrt_param_error(p, ps, "value out of float range");
    }
    return st;
}

pw_status pbrt_get_int(pbrt_params *ps, const char *name, int def, int *out)
{
    pbrt_param *p;
    pw_status st = find_typed(ps, name, PBRT_P_INTEGER, 1, &p);
    if (st == PW_OK)
        *out = p ? (int)p->num[0] : def;
    return st;
}

pw_status pbrt_get_bool(pbrt_params *ps, const char *name, int def, int *out)
{
    pbrt_param *p;
    pw_status st = find_typed(ps, name, PBRT_P_BOOL, 1, &p);
    if (st == PW_OK)
        *out = p ? p->num[0] != 0.0 : def;
    return st;
}

pw_status pbrt_get_string(pbrt_params *ps, const char *name, const char *def, const char **out)
{
    pbrt_param *p;
    pw_status st = find_typed(ps, name, PBRT_P_STRING, 1, &p);
    if (st == PW_OK)
        *out = p ? p->str[0] : def;
    return st;
}

pw_status pbrt_get_array(pbrt_params *ps, const char *name, pbrt_ptype type, const double **v, uint32_t *n)
{
    pbrt_param *p;
    pw_status st = find_typed(ps, name, type, 0, &p);
    *v = p ? p->num : NULL;
    *n = p ? p->n : 0;
    return st;
}
