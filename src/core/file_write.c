#include "core/file_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

/* Where writing path ends up: symbolic links followed (at most 40, as the
 * kernel allows), also a link whose target does not exist yet, which a
 * write creates. 0, or -1 with errno set. */
static int resolve_links(const char *path, char *out, size_t size)
{
    if (strlen(path) >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(out, path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(out, &st) != 0 || !S_ISLNK(st.st_mode))
            return 0;
        char target[PATH_MAX];
        ssize_t n = readlink(out, target, sizeof target - 1);
        if (n < 0)
            return -1;
        target[n] = '\0';
        const char *slash = strrchr(out, '/');
        size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - out) + 1; /* a relative target: beside the link */
        if (dir + (size_t)n >= size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(out + dir, target, (size_t)n + 1);
    }
    errno = ELOOP;
    return -1;
}

/* Every byte to fd, through partial writes and signals. */
static int write_all(int fd, const unsigned char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static pw_status fail_errno(const char *path, const char *what, const char *doing, int err)
{
    return pw_fail(PW_ERR_IO, "%s: cannot write %s (%s%s%s)", path, what, doing, *doing ? ": " : "", strerror(err));
}

/* A device, FIFO or terminal: written in place, the close checked too
 * (where a full disk may first show). */
static pw_status write_in_place(const char *path, const char *what, const char *target, const void *data, size_t len)
{
    int fd = open(target, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return fail_errno(path, what, "", errno);
    int err = write_all(fd, data, len) != 0 ? errno : 0;
    if (close(fd) != 0 && !err)
        err = errno;
    return err ? fail_errno(path, what, "", err) : PW_OK;
}

/* Creates a new file beside target, named ".NAME.PID-N.tmp" (hidden, and
 * plainly not an image), with the permissions a new file would get; its
 * name into tmp. The fd, or -1 with errno set. */
static int create_temp(const char *target, char *tmp, size_t size)
{
    static atomic_uint counter;
    const char *slash = strrchr(target, '/');
    int dir = slash ? (int)(slash - target) + 1 : 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        int n = snprintf(tmp, size, "%.*s.%s.%ld-%u.tmp", dir, target, target + dir, (long)getpid(),
                         atomic_fetch_add(&counter, 1));
        if (n < 0 || (size_t)n >= size) {
            errno = ENAMETOOLONG;
            return -1;
        }
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

/* The folder of target, for messages. */
static void folder_of(const char *target, char *out, size_t size)
{
    const char *slash = strrchr(target, '/');
    if (!slash)
        snprintf(out, size, ".");
    else
        snprintf(out, size, "%.*s", slash == target ? 1 : (int)(slash - target), target);
}

static pw_status fail_temp(const char *path, const char *what, const char *target, int err)
{
    char folder[PATH_MAX + 64], doing[PATH_MAX + 128];
    folder_of(target, folder, sizeof folder);
    snprintf(doing, sizeof doing, "cannot create a temporary file in %s", folder);
    return fail_errno(path, what, doing, err);
}

/* A regular file (or none yet): a temporary file, written, flushed to
 * disk and closed, then renamed over target; an existing file's
 * permissions are kept. */
static pw_status write_replacing(const char *path, const char *what, const char *target, const struct stat *old,
                                 const void *data, size_t len)
{
    char tmp[PATH_MAX + 64];
    int fd = create_temp(target, tmp, sizeof tmp);
    if (fd < 0)
        return fail_temp(path, what, target, errno);
    int err = 0;
    if (old && fchmod(fd, old->st_mode & 07777) != 0)
        err = errno;
    if (!err && write_all(fd, data, len) != 0)
        err = errno;
    if (!err && fsync(fd) != 0)
        err = errno;
    if (close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, target) != 0)
        err = errno;
    if (err) {
        unlink(tmp);
        return fail_errno(path, what, "", err);
    }
    return PW_OK;
}

/* Where a write to path goes (links followed) and what is there now. */
typedef struct write_target {
    char path[PATH_MAX];
    struct stat st;
    int exists;
} write_target;

static pw_status find_target(const char *path, const char *what, write_target *t)
{
    if (resolve_links(path, t->path, sizeof t->path) != 0)
        return fail_errno(path, what, "", errno);
    t->exists = stat(t->path, &t->st) == 0;
    if (t->exists && S_ISDIR(t->st.st_mode))
        return fail_errno(path, what, "", EISDIR);
    return PW_OK;
}

pw_status pw_write_file(const char *path, const char *what, const void *data, size_t len)
{
    write_target t;
    pw_status st = find_target(path, what, &t);
    if (st != PW_OK)
        return st;
    if (t.exists && !S_ISREG(t.st.st_mode))
        return write_in_place(path, what, t.path, data, len);
    return write_replacing(path, what, t.path, t.exists ? &t.st : NULL, data, len);
}

pw_status pw_check_writable(const char *path)
{
    write_target t;
    pw_status st = find_target(path, "output", &t);
    if (st != PW_OK || (t.exists && S_ISFIFO(t.st.st_mode)))
        return st; /* opening a FIFO would wait for a reader */
    if (t.exists && !S_ISREG(t.st.st_mode)) {
        int fd = open(t.path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
            return fail_errno(path, "output", "", errno);
        close(fd);
        return PW_OK;
    }
    char tmp[PATH_MAX + 64];
    int fd = create_temp(t.path, tmp, sizeof tmp);
    if (fd < 0)
        return fail_temp(path, "output", t.path, errno);
    close(fd);
    unlink(tmp);
    return PW_OK;
}
