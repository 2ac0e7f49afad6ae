/* pbrt's tokens: words, "strings", numbers, [ and ]; # starts a comment to
 * the end of the line. Every token keeps its file, line and column so
 * errors can point at it. The stream of tokens runs through included files
 * as pbrt-v4's does: an included file's tokens take the place of its
 * Include, and the including file resumes after them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"

pw_status pbrt_error_at(const char *path, int line, int col, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pw_fail(PW_ERR_FORMAT, "%s:%d:%d: %s", path, line, col, msg);
}

pw_status pbrt_error_tok(const pbrt_token *t, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pbrt_error_at(t->path, t->line, t->col, "%s", msg);
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

static const char *text(const pbrt_lexer *lx) { return (const char *)lx->file.data; }

static void advance(pbrt_lexer *lx)
{
    if (text(lx)[lx->pos] == '\n') {
        lx->line++;
        lx->col = 1;
    } else {
        lx->col++;
    }
    lx->pos++;
}

static void skip_space_and_comments(pbrt_lexer *lx)
{
    while (lx->pos < lx->file.len) {
        char ch = text(lx)[lx->pos];
        if (ch == '#') {
            while (lx->pos < lx->file.len && text(lx)[lx->pos] != '\n')
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
    t->text = text(lx) + lx->pos;
    while (lx->pos < lx->file.len && text(lx)[lx->pos] != '"') {
        char ch = text(lx)[lx->pos];
        if (ch == '\n')
            return pbrt_error_tok(t, "unterminated string (a string ends on its line)");
        if (ch == '\0')
            return pbrt_error_at(lx->path, lx->line, lx->col, "NUL byte inside a string");
        if (ch == '\\' && lx->pos + 1 < lx->file.len && text(lx)[lx->pos + 1] != '\n')
            advance(lx); /* an escaped character; kept as written */
        advance(lx);
    }
    if (lx->pos >= lx->file.len)
        return pbrt_error_tok(t, "unterminated string (the file ends inside it)");
    t->len = (size_t)(text(lx) + lx->pos - t->text);
    t->kind = PBRT_STRING;
    advance(lx); /* the closing quote */
    return PW_OK;
}

/* A number must be the whole token and finite: "1.5x", "1e999" and "nan" are errors. */
static pw_status lex_number(pbrt_token *t)
{
    char tmp[64];
    t->kind = PBRT_WORD; /* shown as written in messages */
    if (t->len >= sizeof tmp)
        return pbrt_error_tok(t, "expected a number, got a %zu-character token", t->len);
    memcpy(tmp, t->text, t->len);
    tmp[t->len] = '\0';
    char *end;
    double v = strtod(tmp, &end);
    char shown[80];
    if (end != tmp + t->len || t->len == 0)
        return pbrt_error_tok(t, "expected a number, got %s", pbrt_tok_show(t, shown, sizeof shown));
    if (!isfinite(v))
        return pbrt_error_tok(t, "number %s is not finite", pbrt_tok_show(t, shown, sizeof shown));
    t->num = v;
    t->kind = PBRT_NUMBER;
    return PW_OK;
}

static pw_status lex_token(pbrt_lexer *lx, pbrt_token *t)
{
    skip_space_and_comments(lx);
    memset(t, 0, sizeof *t);
    t->path = lx->path;
    t->line = lx->line;
    t->col = lx->col;
    t->text = text(lx) + lx->pos;
    if (lx->pos >= lx->file.len) {
        t->kind = PBRT_EOF;
        return PW_OK;
    }
    char ch = text(lx)[lx->pos];
    if (ch == '[' || ch == ']') {
        t->kind = ch == '[' ? PBRT_LBRACK : PBRT_RBRACK;
        t->len = 1;
        advance(lx);
        return PW_OK;
    }
    if (ch == '"')
        return lex_string(lx, t);
    if (ch == '\0')
        return pbrt_error_tok(t, "NUL byte (is this a text file?)");
    while (lx->pos < lx->file.len && !is_delim(text(lx)[lx->pos]) && text(lx)[lx->pos] != '\0')
        advance(lx);
    t->len = (size_t)(text(lx) + lx->pos - t->text);
    if ((ch >= '0' && ch <= '9') || ch == '-' || ch == '+' || ch == '.')
        return lex_number(t);
    t->kind = PBRT_WORD;
    return PW_OK;
}

void pbrt_tokens_init(pbrt_tokens *ts) { memset(ts, 0, sizeof *ts); }

void pbrt_tokens_push(pbrt_tokens *ts, const char *path, pw_bytes file)
{
    pbrt_lexer *lx = &ts->files[ts->n++];
    memset(lx, 0, sizeof *lx);
    lx->path = path;
    lx->file = file;
    lx->line = 1;
    lx->col = 1;
}

/* The next token of the top file; at its end, the next of the file below,
 * so only the bottom file's end is the stream's end. */
static pw_status stream_token(pbrt_tokens *ts, pbrt_token *t)
{
    if (ts->n == 0) {
        memset(t, 0, sizeof *t);
        t->path = "";
        t->text = "";
        return PW_OK;
    }
    for (;;) {
        pw_status st = lex_token(&ts->files[ts->n - 1], t);
        if (st != PW_OK || t->kind != PBRT_EOF || ts->n == 1)
            return st;
        ts->ended[ts->n_ended++] = ts->files[--ts->n].file;
    }
}

pw_status pbrt_next(pbrt_tokens *ts, pbrt_token *t)
{
    if (ts->has_ahead) {
        *t = ts->ahead;
        ts->has_ahead = 0;
        return PW_OK;
    }
    return stream_token(ts, t);
}

pw_status pbrt_peek(pbrt_tokens *ts, pbrt_token *t)
{
    if (!ts->has_ahead) {
        pw_status st = stream_token(ts, &ts->ahead);
        if (st != PW_OK)
            return st;
        ts->has_ahead = 1;
    }
    *t = ts->ahead;
    return PW_OK;
}

void pbrt_tokens_release_ended(pbrt_tokens *ts)
{
    while (ts->n_ended > 0)
        pw_bytes_free(&ts->ended[--ts->n_ended]);
}

void pbrt_tokens_free(pbrt_tokens *ts)
{
    pbrt_tokens_release_ended(ts);
    while (ts->n > 0)
        pw_bytes_free(&ts->files[--ts->n].file);
    ts->has_ahead = 0;
}
