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

void pbrt_params_free(pbrt_params *ps)
{
    for (int i = 0; i < ps->n; i++) {
        free(ps->p[i].num);
        for (uint32_t k = 0; ps->p[i].str && k < ps->p[i].n; k++)
            free(ps->p[i].str[k]);
        free(ps->p[i].str);
    }
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
    return pbrt_error_at(ps->path, p->line, p->col, "\"%s %s\": %s", pbrt_ptype_name(p->type), p->name, msg);
}

/* "type name" into the parameter's type and name. */
static pw_status parse_decl(pbrt_lexer *lx, const pbrt_token *t, pbrt_param *p)
{
    char decl[160];
    if (t->len >= sizeof decl)
        return pbrt_error_at(lx->path, t->line, t->col, "parameter declaration is too long");
    memcpy(decl, t->text, t->len);
    decl[t->len] = '\0';
    char type[40], name[sizeof p->name], extra[8];
    int k = sscanf(decl, "%39s %63s %7s", type, name, extra);
    if (k != 2)
        return pbrt_error_at(lx->path, t->line, t->col, "expected a parameter declaration \"type name\", got \"%s\"",
                             decl);
    for (size_t i = 0; i < sizeof type_names / sizeof *type_names; i++)
        if (strcmp(type, type_names[i].name) == 0) {
            p->type = type_names[i].type;
            snprintf(p->name, sizeof p->name, "%s", name);
            return PW_OK;
        }
    return pbrt_error_at(lx->path, t->line, t->col, "unknown parameter type '%s'", type);
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
static pw_status add_value(pbrt_lexer *lx, pbrt_param *p, uint32_t *cap, const pbrt_token *t)
{
    char shown[80];
    pbrt_tok_show(t, shown, sizeof shown);
    if (p->type == PBRT_P_BOOL) {
        int is_true = pbrt_tok_is(t, "true"), is_false = pbrt_tok_is(t, "false");
        if ((t->kind == PBRT_WORD || t->kind == PBRT_STRING) && (is_true || is_false))
            return push_num(p, cap, is_true ? 1.0 : 0.0);
        return pbrt_error_at(lx->path, t->line, t->col, "\"bool %s\": expected true or false, got %s", p->name, shown);
    }
    if (p->type == PBRT_P_STRING || p->type == PBRT_P_TEXTURE ||
        (p->type == PBRT_P_SPECTRUM && t->kind == PBRT_STRING)) {
        if (t->kind != PBRT_STRING)
            return pbrt_error_at(lx->path, t->line, t->col, "\"%s %s\": expected a quoted string, got %s",
                                 pbrt_ptype_name(p->type), p->name, shown);
        if (p->num)
            return pbrt_error_at(lx->path, t->line, t->col, "\"spectrum %s\": mixes numbers and a name", p->name);
        return push_str(p, cap, t);
    }
    if (t->kind != PBRT_NUMBER)
        return pbrt_error_at(lx->path, t->line, t->col, "\"%s %s\": expected a number, got %s",
                             pbrt_ptype_name(p->type), p->name, shown);
    if (p->str)
        return pbrt_error_at(lx->path, t->line, t->col, "\"spectrum %s\": mixes numbers and a name", p->name);
    if (p->type == PBRT_P_INTEGER && (t->num != floor(t->num) || fabs(t->num) > 2147483647.0))
        return pbrt_error_at(lx->path, t->line, t->col, "\"integer %s\": %s is not a 32-bit integer", p->name, shown);
    return push_num(p, cap, t->num);
}

static pw_status check_count(pbrt_lexer *lx, const pbrt_param *p)
{
    int a = arity(p->type);
    if (p->type == PBRT_P_RGB && p->n != 3)
        return pbrt_error_at(lx->path, p->line, p->col, "\"rgb %s\": needs 3 values, got %u", p->name, p->n);
    if (p->n % (uint32_t)a != 0)
        return pbrt_error_at(lx->path, p->line, p->col, "\"%s %s\": %u values are not a multiple of %d",
                             pbrt_ptype_name(p->type), p->name, p->n, a);
    if (p->type == PBRT_P_SPECTRUM && p->num && p->n % 2 != 0)
        return pbrt_error_at(lx->path, p->line, p->col,
                             "\"spectrum %s\": needs (wavelength, value) pairs, got %u values", p->name, p->n);
    if (p->type == PBRT_P_TEXTURE && p->n != 1)
        return pbrt_error_at(lx->path, p->line, p->col, "\"texture %s\": needs one texture name, got %u", p->name,
                             p->n);
    if (p->type == PBRT_P_BLACKBODY && p->n != 1 && p->n != 2)
        return pbrt_error_at(lx->path, p->line, p->col, "\"blackbody %s\": needs a temperature, got %u values", p->name,
                             p->n);
    return PW_OK;
}

static pw_status parse_values(pbrt_lexer *lx, pbrt_param *p)
{
    uint32_t cap = 0;
    pbrt_token t;
    pw_status st = pbrt_lex_next(lx, &t);
    if (st != PW_OK)
        return st;
    if (t.kind != PBRT_LBRACK) {
        if (t.kind == PBRT_EOF || t.kind == PBRT_RBRACK) {
            char shown[80];
            return pbrt_error_at(lx->path, t.line, t.col, "\"%s %s\": expected a value or '[', got %s",
                                 pbrt_ptype_name(p->type), p->name, pbrt_tok_show(&t, shown, sizeof shown));
        }
        st = add_value(lx, p, &cap, &t);
        return st != PW_OK ? st : check_count(lx, p);
    }
    for (;;) {
        if ((st = pbrt_lex_next(lx, &t)) != PW_OK)
            return st;
        if (t.kind == PBRT_RBRACK)
            break;
        if (t.kind == PBRT_EOF || t.kind == PBRT_LBRACK)
            return pbrt_error_at(lx->path, t.line, t.col, "\"%s %s\": expected ']' to close the values opened at %d:%d",
                                 pbrt_ptype_name(p->type), p->name, p->line, p->col);
        /* Directives start with a capital: one inside the values means a ']' is missing. */
        if (t.kind == PBRT_WORD && t.text[0] >= 'A' && t.text[0] <= 'Z' && !pbrt_tok_is(&t, "NaN") &&
            !pbrt_tok_is(&t, "Inf") && !pbrt_tok_is(&t, "Infinity")) {
            char shown[80];
            return pbrt_error_at(
                lx->path, t.line, t.col, "\"%s %s\": expected ']' to close the values opened at %d:%d, got %s",
                pbrt_ptype_name(p->type), p->name, p->line, p->col, pbrt_tok_show(&t, shown, sizeof shown));
        }
        if ((st = add_value(lx, p, &cap, &t)) != PW_OK)
            return st;
    }
    return check_count(lx, p);
}

pw_status pbrt_params_parse(pbrt_lexer *lx, pbrt_params *ps)
{
    pbrt_token t;
    for (;;) {
        pw_status st = pbrt_lex_peek(lx, &t);
        if (st != PW_OK)
            return st;
        if (t.kind != PBRT_STRING)
            return PW_OK;
        pbrt_lex_next(lx, &t);
        if (ps->n == ps->cap) {
            int nc = ps->cap ? 2 * ps->cap : 8;
            pbrt_param *np = realloc(ps->p, (size_t)nc * sizeof *np);
            if (!np)
                return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for parameters", lx->path);
            ps->p = np;
            ps->cap = nc;
        }
        pbrt_param *p = &ps->p[ps->n];
        memset(p, 0, sizeof *p);
        p->line = t.line;
        p->col = t.col;
        ps->n++;
        if ((st = parse_decl(lx, &t, p)) != PW_OK || (st = parse_values(lx, p)) != PW_OK)
            return st;
    }
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
