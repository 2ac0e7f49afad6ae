/* The files of a pbrt-v4 scene, read as pbrt-v4 reads them:
 * - Include splices the file's tokens into the stream in place of the
 *   Include: a directive's parameter list that starts in the included
 *   file may go on in the including file after it. (A list cannot run
 *   into an included file: the word Include ends the list before it.)
 * - Import (only after WorldBegin) parses the file as a stream of its own,
 *   under a copy of the graphics state: what it defines (shapes, named
 *   materials, textures, objects) stays, its transforms and attributes
 *   do not.
 * Both name files relative to the main file's folder. Every file goes
 * through pw_read_file: regular files only, .gz inflated. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/file_read.h"
#include "scene/pbrt/pbrt_internal.h"

/* A copy of path that lives as long as the load (tokens, parameters and
 * object definitions replayed later name the file they came from). */
static const char *keep_path(pbrt_ctx *c, const char *path)
{
    if (c->n_files == c->cap_files) {
        uint32_t nc = c->cap_files ? 2 * c->cap_files : 8;
        char **nf = nc > c->cap_files ? realloc(c->files, (size_t)nc * sizeof *nf) : NULL;
        if (!nf)
            return NULL;
        c->files = nf;
        c->cap_files = nc;
    }
    char *k = strdup(path);
    if (k)
        c->files[c->n_files++] = k;
    return k;
}

static pw_status read_kept(pbrt_ctx *c, const char *name, const char **path, pw_bytes *file)
{
    if (!(*path = keep_path(c, name)))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    return pw_read_file(*path, PW_FILE_MAX_BYTES, file);
}

/* The file an Include or Import (directive d) names, read whole. Errors
 * point at the file name in the directive. */
static pw_status read_named(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d, const char **path, pw_bytes *file)
{
    pbrt_token t;
    pw_status st = pbrt_expect(ts, PBRT_STRING, "a quoted file name", d, &t);
    if (st != PW_OK)
        return st;
    char name[2048], full[4096];
    if (t.len >= sizeof name)
        return pbrt_error_tok(&t, "file name too long");
    memcpy(name, t.text, t.len);
    name[t.len] = '\0';
    if (!pbrt_resolve_path(c, name, full, sizeof full))
        return pbrt_error_tok(&t, "file name too long");
    /* A file that includes itself stops here. */
    if (c->import_base + ts->n >= PBRT_MAX_INCLUDE_DEPTH)
        return pbrt_error_tok(d, "%.*s nested deeper than %d files (does a file include itself?)", (int)d->len,
                              d->text, PBRT_MAX_INCLUDE_DEPTH);
    if ((st = read_kept(c, full, path, file)) != PW_OK)
        return pbrt_error_tok(&t, "%s", pw_last_error());
    return PW_OK;
}

pw_status pbrt_include(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    const char *path;
    pw_bytes file;
    pw_status st = read_named(c, ts, d, &path, &file);
    if (st == PW_OK)
        pbrt_tokens_push(ts, path, file);
    return st;
}

static pw_status parse_file(pbrt_ctx *c, const char *path, pw_bytes file)
{
    pbrt_tokens ts;
    pbrt_tokens_init(&ts);
    pbrt_tokens_push(&ts, path, file);
    pw_status st = pbrt_parse_stream(c, &ts);
    pbrt_tokens_free(&ts);
    return st;
}

pw_status pbrt_import(pbrt_ctx *c, pbrt_tokens *ts, const pbrt_token *d)
{
    const char *path;
    pw_bytes file;
    pw_status st = read_named(c, ts, d, &path, &file);
    if (st != PW_OK)
        return st;
    pbrt_gstate saved = c->gs;
    uint32_t floor = c->attr_floor, depth = c->depth;
    int object = c->current_object;
    c->import_base += ts->n;
    c->attr_floor = depth;
    st = parse_file(c, path, file);
    c->import_base -= ts->n;
    if (st == PW_OK)
        st = pbrt_file_end(c, path, depth, object);
    c->gs = saved;
    c->attr_floor = floor;
    c->depth = depth;
    return st;
}

pw_status pbrt_parse_main(pbrt_ctx *c, const char *name)
{
    const char *path;
    pw_bytes file;
    pw_status st = read_kept(c, name, &path, &file);
    return st != PW_OK ? st : parse_file(c, path, file);
}
