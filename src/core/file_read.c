#include "core/file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "core/error.h"

void pw_bytes_free(pw_bytes *b)
{
    free(b->data);
    b->data = NULL;
    b->len = 0;
}

int pw_is_gzip(const unsigned char *data, size_t len) { return len >= 2 && data[0] == 0x1f && data[1] == 0x8b; }

/* zlib's counters are 32-bit (uInt), so the input and output are fed in
 * pieces of at most 1 GiB. Concatenated gzip members (what `cat a.gz b.gz`
 * makes, and what gzip itself reads as one file) are inflated in turn. */
pw_status pw_gunzip(const char *name, const unsigned char *data, size_t len, size_t max_bytes, pw_bytes *out)
{
    out->data = NULL;
    out->len = 0;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) /* 15 + 16: a gzip header, not zlib's */
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for gzip", name);
    size_t cap = len < ((size_t)1 << 20) ? (size_t)1 << 20 : len * 4, n = 0, in = 0;
    if (cap > max_bytes + 1)
        cap = max_bytes + 1;
    unsigned char *buf = malloc(cap + 1);
    const size_t piece = (size_t)1 << 30;
    pw_status st = PW_OK;
    int rc = Z_OK;
    while (buf && st == PW_OK) {
        if (n == cap) {
            if (cap > max_bytes) {
                st = pw_fail(PW_ERR_FORMAT, "%s: inflates to more than %zu bytes", name, max_bytes);
                break;
            }
            size_t nc = cap * 2 > max_bytes + 1 ? max_bytes + 1 : cap * 2;
            unsigned char *nb = realloc(buf, nc + 1);
            if (!nb)
                break;
            buf = nb;
            cap = nc;
        }
        if (z.avail_in == 0 && in < len) {
            z.next_in = (unsigned char *)data + in;
            z.avail_in = (uInt)(len - in < piece ? len - in : piece);
            in += z.avail_in;
        }
        z.next_out = buf + n;
        z.avail_out = (uInt)(cap - n < piece ? cap - n : piece);
        uInt before = z.avail_out;
        rc = inflate(&z, Z_NO_FLUSH);
        n += before - z.avail_out;
        if (rc == Z_STREAM_END) {
            size_t left = z.avail_in + (len - in);
            if (left == 0 || !pw_is_gzip(z.next_in, z.avail_in))
                break; /* done; bytes after the last member that are not gzip are ignored, as gzip does */
            if (inflateReset(&z) != Z_OK)
                st = pw_fail(PW_ERR_FORMAT, "%s: damaged gzip data", name);
        } else if (rc == Z_BUF_ERROR && z.avail_in == 0 && in == len) {
            st = pw_fail(PW_ERR_FORMAT, "%s: gzip data is truncated", name);
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            st = pw_fail(PW_ERR_FORMAT, "%s: damaged gzip data (%s)", name, z.msg ? z.msg : "inflate failed");
        }
    }
    inflateEnd(&z);
    if (!buf)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory inflating gzip data", name);
    if (st == PW_OK && n > max_bytes)
        st = pw_fail(PW_ERR_FORMAT, "%s: inflates to more than %zu bytes", name, max_bytes);
    if (st != PW_OK) {
        free(buf);
        return st;
    }
    if (rc != Z_STREAM_END) { /* realloc failed above */
        free(buf);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory inflating gzip data", name);
    }
    buf[n] = '\0';
    out->data = buf;
    out->len = n;
    return PW_OK;
}

/* path opened for reading when it is a regular file, its status in *sb;
 * else -1 with the message recorded. O_NONBLOCK: opening a FIFO would
 * otherwise wait for a writer before the check could refuse it; reads of a
 * regular file ignore it. The opened file is checked, not the name, so
 * nothing can swap it in between. */
static int open_regular(const char *path, struct stat *sb, pw_status *st)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *st = pw_fail(PW_ERR_NOT_FOUND, "%s: cannot open (%s)", path, strerror(errno));
        return -1;
    }
    int statted = fstat(fd, sb) == 0;
    if (!statted || !S_ISREG(sb->st_mode)) {
        int dir = statted && S_ISDIR(sb->st_mode);
        close(fd);
        *st = pw_fail(PW_ERR_IO, "%s: %s", path, dir ? "is a folder, not a file" : "not a regular file");
        return -1;
    }
    return fd;
}

pw_status pw_read_file(const char *path, size_t max_bytes, pw_bytes *out)
{
    out->data = NULL;
    out->len = 0;
    struct stat sb;
    pw_status st = PW_OK;
    int fd = open_regular(path, &sb, &st);
    if (fd < 0)
        return st;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return pw_fail(PW_ERR_IO, "%s: cannot open (%s)", path, strerror(errno));
    }
    if ((unsigned long long)sb.st_size > max_bytes) {
        fclose(f);
        return pw_fail(PW_ERR_FORMAT, "%s: %lld bytes, larger than the %zu this reader takes", path,
                       (long long)sb.st_size, max_bytes);
    }
    size_t n = (size_t)sb.st_size;
    unsigned char *buf = malloc(n + 1);
    if (!buf) {
        fclose(f);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, n);
    }
    size_t got = fread(buf, 1, n, f);
    int err = ferror(f);
    fclose(f);
    if (err || got != n) {
        free(buf);
        return pw_fail(PW_ERR_IO, "%s: read error (%s)", path, err ? strerror(errno) : "the file shrank while read");
    }
    buf[n] = '\0';
    if (!pw_is_gzip(buf, n)) {
        out->data = buf;
        out->len = n;
        return PW_OK;
    }
    st = pw_gunzip(path, buf, n, max_bytes, out);
    free(buf);
    return st;
}
