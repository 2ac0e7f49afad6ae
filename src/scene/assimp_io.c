#include "scene/assimp_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "pathwave.h"
#include "scene/uri_path.h"

/* An open file: the aiFile assimp calls through, then its bytes, read on
 * first use (assimp opens files only to ask whether they exist, too). */
typedef struct io_file {
    struct aiFile f;
    pw_assimp_io *owner;
    char path[4096];
    pw_bytes bytes;
    const pw_bytes *view; /* the bytes read from: &bytes or the model's */
    size_t pos;
    int failed;
} io_file;

static const pw_bytes *file_bytes(io_file *h)
{
    if (!h->view && !h->failed) {
        if (pw_read_file(h->path, PW_FILE_MAX_BYTES, &h->bytes) == PW_OK) {
            h->view = &h->bytes;
        } else {
            h->failed = 1;
            if (!h->owner->error[0])
                snprintf(h->owner->error, sizeof h->owner->error, "%s", pw_last_error());
        }
    }
    return h->view;
}

static size_t io_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    io_file *h = (io_file *)f;
    const pw_bytes *b = file_bytes(h);
    if (!b || size == 0)
        return 0;
    size_t n = (b->len - h->pos) / size;
    if (n > count)
        n = count;
    memcpy(buf, b->data + h->pos, n * size);
    h->pos += n * size;
    return n;
}

static size_t io_write(struct aiFile *f, const char *buf, size_t size, size_t count)
{
    (void)f, (void)buf, (void)size, (void)count;
    return 0;
}

static size_t io_tell(struct aiFile *f) { return ((io_file *)f)->pos; }

static size_t io_size(struct aiFile *f)
{
    const pw_bytes *b = file_bytes((io_file *)f);
    return b ? b->len : 0;
}

static enum aiReturn io_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    io_file *h = (io_file *)f;
    const pw_bytes *b = file_bytes(h);
    if (!b)
        return aiReturn_FAILURE;
    /* Offsets from the end come as negative numbers in a size_t. */
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? h->pos : b->len;
    size_t to = base + offset;
    if (to > b->len)
        return aiReturn_FAILURE;
    h->pos = to;
    return aiReturn_SUCCESS;
}

static void io_flush(struct aiFile *f) { (void)f; }

/* A file beside the model, read and given to io->check at its opening:
 * 0 when assimp is to find it absent. */
static int read_checked(pw_assimp_io *io, io_file *h)
{
    if (!file_bytes(h))
        return 0;
    pw_status st = io->check(h->path, h->view);
    if (st == PW_OK)
        return 1;
    if (st != PW_ERR_NOT_FOUND && io->failed == PW_OK) {
        io->failed = st;
        snprintf(io->error, sizeof io->error, "%s", pw_last_error());
    }
    return 0;
}

static struct aiFile *io_open(struct aiFileIO *fio, const char *path, const char *mode)
{
    pw_assimp_io *io = (pw_assimp_io *)fio;
    if (strchr(mode, 'w') || strchr(mode, 'a') || strchr(mode, '+'))
        return NULL;
    io_file *h = calloc(1, sizeof *h);
    if (!h)
        return NULL;
    h->owner = io;
    if (!pw_uri_resolve_joined(io->model, path, h->path, sizeof h->path)) {
        free(h);
        return NULL;
    }
    if (io->model_bytes && strcmp(path, io->model) == 0) {
        h->view = io->model_bytes;
    } else {
        /* Only whether it exists and is a file now; its bytes on first use. */
        struct stat sb;
        if (stat(h->path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            if (stat(h->path, &sb) == 0 && !io->error[0])
                snprintf(io->error, sizeof io->error, "%.400s: not a regular file", h->path);
            free(h);
            return NULL;
        }
        if (io->check && !read_checked(io, h)) {
            pw_bytes_free(&h->bytes);
            free(h);
            return NULL;
        }
    }
    h->f.ReadProc = io_read;
    h->f.WriteProc = io_write;
    h->f.TellProc = io_tell;
    h->f.FileSizeProc = io_size;
    h->f.SeekProc = io_seek;
    h->f.FlushProc = io_flush;
    return &h->f;
}

static void io_close(struct aiFileIO *fio, struct aiFile *f)
{
    (void)fio;
    io_file *h = (io_file *)f;
    if (!h)
        return;
    pw_bytes_free(&h->bytes);
    free(h);
}

void pw_assimp_io_init(pw_assimp_io *io, const char *model, const pw_bytes *model_bytes)
{
    memset(io, 0, sizeof *io);
    io->io.OpenProc = io_open;
    io->io.CloseProc = io_close;
    io->model = model;
    io->model_bytes = model_bytes;
}
