/* Helpers of the pbrt reader's tests: scene files written to a temporary
 * folder, warnings captured (pw_set_warning_handler) so tests can assert
 * their text, and loads that must succeed or fail with a message. */
#ifndef PW_TEST_PBRT_UTIL_H
#define PW_TEST_PBRT_UTIL_H

#include "test_common.h"

#include <dirent.h>
#include <unistd.h>

#include "pathwave.h"

static char tmpdir[64];

/* Writes len bytes to tmpdir/name and returns the path in buf. */
static const char *write_bytes(const char *name, const void *bytes, size_t len, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
    FILE *f = fopen(buf, "wb");
    assert_non_null(f);
    assert_true(fwrite(bytes, 1, len, f) == len);
    fclose(f);
    return buf;
}

/* Writes text to tmpdir/name and returns the path in buf. */
static const char *write_file(const char *name, const char *text, char *buf, size_t n)
{
    return write_bytes(name, text, strlen(text), buf, n);
}

typedef struct warnings {
    int count;
    char msg[8][512];
} warnings;

static warnings warned;

static void count_warning(const char *msg, void *user)
{
    (void)user;
    if (warned.count < 8)
        snprintf(warned.msg[warned.count], sizeof warned.msg[0], "%s", msg);
    warned.count++;
}

/* Loads path, which must succeed; warnings are counted from zero. */
static pw_scene *load_path_ok(const char *path)
{
    pw_scene *s = NULL;
    memset(&warned, 0, sizeof warned);
    if (pw_scene_load(path, &s) != PW_OK)
        fail_msg("loading %s failed: %s", path, pw_last_error());
    return s;
}

static pw_scene *load_ok(const char *text)
{
    char path[256];
    write_file("scene.pbrt", text, path, sizeof path);
    return load_path_ok(path);
}

/* Loading path must fail with status expect and leave no scene; returns
 * the message. */
static const char *load_fails(const char *path, pw_status expect)
{
    pw_scene *s = (pw_scene *)&s;
    memset(&warned, 0, sizeof warned);
    pw_status st = pw_scene_load(path, &s);
    if (st != expect)
        fail_msg("%s: status %d, expected %d (%s)", path, (int)st, (int)expect, pw_last_error());
    assert_null(s);
    return pw_last_error();
}

/* The folder of the tests' files, made by setup and removed (with what the
 * test left in it) by teardown. */
static int pbrt_tmpdir_setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/pw_pbrt_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    pw_set_warning_handler(count_warning, NULL);
    return 0;
}

/* Removes the folder's files and its folders of files. */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%.500s/%.255s", dir, e->d_name);
        if (unlink(path) != 0 && depth > 0)
            remove_tree(path, depth - 1);
    }
    if (d)
        closedir(d);
    rmdir(dir);
}

static int pbrt_tmpdir_teardown(void **state)
{
    (void)state;
    remove_tree(tmpdir, 2);
    pw_set_warning_handler(NULL, NULL);
    return 0;
}

#endif
