/* assimp's file access for OBJ files, over bytes in memory: the OBJ file
 * passes pw_obj_check and each material library pw_mtl_check before
 * assimp reads it, so the input that crashes its OBJ importer or makes it
 * leak never reaches it (obj_check.c). A file assimp asks for that is not
 * a regular file, or one it would refuse as too short (1 to 7 bytes,
 * after which it leaks the stream it opened), is reported as absent: the
 * importer then goes on without that material library, as it does when
 * the library is missing. A failed check is kept in the pw_obj_io, for
 * the caller to report once assimp returns. */
#include "scene/obj_io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/obj_check.h"

/* The text reader of assimp refuses files shorter than this unless empty. */
#define OBJ_IO_MIN_TEXT 8

typedef struct mem_file {
    struct aiFile file;
    const unsigned char *data;
    size_t len, pos;
    pw_bytes owned; /* a material library's bytes; the OBJ's stay in the pw_obj_io */
} mem_file;

static size_t mem_read(struct aiFile *f, char *buf, size_t size, size_t count)
{
    mem_file *m = (mem_file *)f->UserData;
    if (size == 0)
        return 0;
    size_t n = (m->len - m->pos) / size;
    if (n > count)
        n = count;
    memcpy(buf, m->data + m->pos, n * size);
    m->pos += n * size;
    return n;
}

static size_t mem_write(struct aiFile *f, const char *buf, size_t size, size_t count)
{
    (void)f, (void)buf, (void)size, (void)count;
    return 0;
}

static size_t mem_tell(struct aiFile *f) { return ((mem_file *)f->UserData)->pos; }
static size_t mem_size(struct aiFile *f) { return ((mem_file *)f->UserData)->len; }
static void mem_flush(struct aiFile *f) { (void)f; }

static enum aiReturn mem_seek(struct aiFile *f, size_t offset, enum aiOrigin origin)
{
    mem_file *m = (mem_file *)f->UserData;
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? m->pos : m->len;
    if (origin > aiOrigin_END || offset > m->len - base)
        return aiReturn_FAILURE;
    m->pos = base + offset;
    return aiReturn_SUCCESS;
}

static void record_failure(pw_obj_io *io, pw_status st)
{
    if (io->failed != PW_OK)
        return;
    io->failed = st;
    snprintf(io->message, sizeof io->message, "%s", pw_last_error());
}

/* The bytes of the OBJ file, read and checked at its first opening. */
static int open_obj(pw_obj_io *io, const unsigned char **data, size_t *len)
{
    if (!io->obj_read) {
        io->obj_read = 1;
        pw_status st = pw_read_file(io->obj, PW_FILE_MAX_BYTES, &io->obj_bytes);
        if (st == PW_OK)
            st = pw_obj_check(io->obj, io->obj_bytes.data, io->obj_bytes.len);
        if (st != PW_OK)
            record_failure(io, st);
    }
    *data = io->obj_bytes.data;
    *len = io->obj_bytes.len;
    return io->failed == PW_OK && io->obj_bytes.data;
}

/* A material library's bytes: absent when unreadable or too short for
 * assimp, a failed check when damaged. */
static int open_mtl(pw_obj_io *io, const char *path, pw_bytes *b)
{
    if (pw_read_file(path, PW_FILE_MAX_BYTES, b) != PW_OK || (b->len > 0 && b->len < OBJ_IO_MIN_TEXT)) {
        pw_bytes_free(b);
        return 0;
    }
    pw_status st = pw_mtl_check(path, b->data, b->len);
    if (st != PW_OK) {
        record_failure(io, st);
        pw_bytes_free(b);
        return 0;
    }
    return 1;
}

static struct aiFile *io_open(struct aiFileIO *fio, const char *path, const char *mode)
{
    pw_obj_io *io = (pw_obj_io *)fio->UserData;
    if (!mode || mode[0] != 'r' || io->failed != PW_OK)
        return NULL;
    mem_file *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    int ok = strcmp(path, io->obj) == 0 ? open_obj(io, &m->data, &m->len) : open_mtl(io, path, &m->owned);
    if (!ok) {
        free(m);
        return NULL;
    }
    if (m->owned.data) {
        m->data = m->owned.data;
        m->len = m->owned.len;
    }
    m->file = (struct aiFile){mem_read, mem_write, mem_tell, mem_size, mem_seek, mem_flush, (aiUserData)m};
    return &m->file;
}

static void io_close(struct aiFileIO *fio, struct aiFile *f)
{
    (void)fio;
    if (!f)
        return;
    mem_file *m = (mem_file *)f->UserData;
    pw_bytes_free(&m->owned);
    free(m);
}

void pw_obj_io_init(pw_obj_io *io, const char *obj_path)
{
    memset(io, 0, sizeof *io);
    io->obj = obj_path;
    io->io.OpenProc = io_open;
    io->io.CloseProc = io_close;
    io->io.UserData = (aiUserData)io;
}

void pw_obj_io_free(pw_obj_io *io) { pw_bytes_free(&io->obj_bytes); }
