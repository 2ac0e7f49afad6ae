/* pbrt's tokens: words, "strings", numbers, [ and ]; # starts a comment to
 * the end of the line. Every token keeps its line and column so errors can
 * point at it. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"

void pbrt_lex_init(pbrt_lexer *lx, const char *path, const char *buf, size_t len)
{
    memset(lx, 0, sizeof *lx);
    lx->path = path;
    lx->buf = buf;
    lx->len = len;
    lx->line = 1;
    lx->col = 1;
}

pw_status pbrt_error_at(const char *path, int line, int col, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pw_fail(PW_ERR_FORMAT, "%s:%d:%d: %s", path, line, col, msg);
}

const char *pbrt_tok_show(const pbrt_token *t, char *buf, size_t n)
{
    switch (t->kind) {
    case PBRT_EOF:
        snprintf(buf, n, "the end of the file");
        break;
    case PBRT_LBRACK:
        snprintf(buf, n, "'['");
        break;
    case PBRT_RBRACK:
        snprintf(buf, n, "']'");
        break;
    default: {
        int len = t->len > 40 ? 40 : (int)t->len;
        const char *q = t->kind == PBRT_STRING ? "\"" : "'";
        snprintf(buf, n, "%s%.*s%s%s", q, len, t->text, t->len > 40 ? "..." : "", q);
    }
    }
    return buf;
}

int pbrt_tok_is(const pbrt_token *t, const char *word)
{
    size_t n = strlen(word);
    return t->len == n && memcmp(t->text, word, n) == 0;
}

static void advance(pbrt_lexer *lx)
{
    if (lx->buf[lx->pos] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->pos++;
}

static void skip_space_and_comments(pbrt_lexer *lx)
{
    while (lx->pos < lx->len) {
        char ch = lx->buf[lx->pos];
        if (ch == '#') {
            while (lx->pos < lx->len && lx->buf[lx->pos] != '\n')
                advance(lx);
        } else if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v') {
            advance(lx);
        } else {
            return;
        }
    }
}

static int is_delim(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v' || ch == '[' || ch == ']' ||
           ch == '"' || ch == '#';
}

static pw_status lex_string(pbrt_lexer *lx, pbrt_token *t)
{
    advance(lx); /* the opening quote */
    t->text = lx->buf + lx->pos;
    while (lx->pos < lx->len && lx->buf[lx->pos] != '"') {
        char ch = lx->buf[lx->pos];
        if (ch == '\n')
            return pbrt_error_at(lx->path, t->line, t->col, "unterminated string (a string ends on its line)");
        if (ch == '\0')
            return pbrt_error_at(lx->path, lx->line, lx->col, "NUL byte inside a string");
        if (ch == '\\' && lx->pos + 1 < lx->len && lx->buf[lx->pos + 1] != '\n')
            advance(lx); /* an escaped character; kept as written */
        advance(lx);
    }
    if (lx->pos >= lx->len)
        return pbrt_error_at(lx->path, t->line, t->col, "unterminated string (the file ends inside it)");
    t->len = (size_t)(lx->buf + lx->pos - t->text);
    t->kind = PBRT_STRING;
    advance(lx); /* the closing quote */
    return PW_OK;
}

/* A number must be the whole token and finite: "1.5x", "1e999" and "nan" are errors. */
static pw_status lex_number(pbrt_lexer *lx, pbrt_token *t)
{
    char tmp[64];
    t->kind = PBRT_WORD; /* shown as written in messages */
    if (t->len >= sizeof tmp)
        return pbrt_error_at(lx->path, t->line, t->col, "expected a number, got a %zu-character token", t->len);
    memcpy(tmp, t->text, t->len);
    tmp[t->len] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    char shown[80];
    if (end != tmp + t->len || t->len == 0)
        return pbrt_error_at(lx->path, t->line, t->col, "expected a number, got %s",
                             pbrt_tok_show(t, shown, sizeof shown));
    if (!isfinite(v))
        return pbrt_error_at(lx->path, t->line, t->col, "number %s is not finite",
                             pbrt_tok_show(t, shown, sizeof shown));
    t->num = v;
    t->kind = PBRT_NUMBER;
    return PW_OK;
}

static pw_status lex_token(pbrt_lexer *lx, pbrt_token *t)
{
    skip_space_and_comments(lx);
    memset(t, 0, sizeof *t);
    t->line = lx->line;
    t->col = lx->col;
    t->text = lx->buf + lx->pos;
    if (lx->pos >= lx->len) {
        t->kind = PBRT_EOF;
        return PW_OK;
    }
    char ch = lx->buf[lx->pos];
    if (ch == '[' || ch == ']') {
        t->kind = ch == '[' ? PBRT_LBRACK : PBRT_RBRACK;
        t->len = 1;
        advance(lx);
        return PW_OK;
    }
    if (ch == '"')
        return lex_string(lx, t);
    if (ch == '\0')
        return pbrt_error_at(lx->path, t->line, t->col, "NUL byte (is this a text file?)");
    while (lx->pos < lx->len && !is_delim(lx->buf[lx->pos]) && lx->buf[lx->pos] != '\0')
        advance(lx);
    t->len = (size_t)(lx->buf + lx->pos - t->text);
    if ((ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.')
        return lex_number(lx, t);
    t->kind = PBRT_WORD;
    return PW_OK;
}

pw_status pbrt_lex_next(pbrt_lexer *lx, pbrt_token *t)
{
    if (lx->has_ahead) {
        *t = lx->ahead;
        lx->has_ahead = 0;
        return PW_OK;
    }
    return lex_token(lx, t);
}

pw_status pbrt_lex_peek(pbrt_lexer *lx, pbrt_token *t)
{
    if (!lx->has_ahead) {
        pw_status st = lex_token(lx, &lx->ahead);
        if (st != PW_OK)
            return st;
        lx->has_ahead = 1;
    }
    *t = lx->ahead;
    return PW_OK;
}
