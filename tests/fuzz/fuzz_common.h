/* What the libFuzzer targets share: warnings silenced (a fuzzer's inputs
 * make millions), a scratch folder of the process's own for the targets
 * whose loaders read files by name, and the check every load ends with. */
#ifndef PW_FUZZ_COMMON_H
#define PW_FUZZ_COMMON_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathwave.h"

static void fuzz_quiet(const char *msg, void *user)
{
    (void)msg;
    (void)user;
}

static char fuzz_dir[64];

/* The scratch folder and every file in it, at exit. */
static void fuzz_remove_scratch(void)
{
    DIR *d = opendir(fuzz_dir);
    if (!d)
        return;
    char path[sizeof fuzz_dir + 260];
    for (struct dirent *e; (e = readdir(d));)
        if (snprintf(path, sizeof path, "%s/%s", fuzz_dir, e->d_name) < (int)sizeof path)
            unlink(path); /* "." and ".." are folders: refused */
    closedir(d);
    rmdir(fuzz_dir);
}

/* /tmp/pw_fuzz_NAME_PID, made if it is not there and removed at exit;
 * aborts when it cannot be written (the target could test nothing then). */
static inline const char *fuzz_scratch_dir(const char *name)
{
    snprintf(fuzz_dir, sizeof fuzz_dir, "/tmp/pw_fuzz_%s_%d", name, (int)getpid());
    if (mkdir(fuzz_dir, 0700) != 0 && access(fuzz_dir, W_OK) != 0)
        abort();
    atexit(fuzz_remove_scratch);
    return fuzz_dir;
}

static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n))
        abort();
    fclose(f);
}

/* A load that succeeded gives a scene whose arrays pw_scene_get_info reads
 * and that frees cleanly; a failed one leaves no scene behind. */
static inline void fuzz_check_load(pw_status st, pw_scene *s)
{
    if (st == PW_OK) {
        pw_scene_info info;
        pw_scene_get_info(s, &info);
        pw_scene_free(s);
    } else if (s) {
        abort();
    }
}

#endif
