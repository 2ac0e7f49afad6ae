/* Every broken scene in tests/corpus/pbrt/ (the folder is argv[1]) must
 * fail cleanly: a non-zero status and exactly the one-line message its
 * first line announces ("# error: name.pbrt:line:col: what"), which starts
 * with the file that is wrong (the scene, or a file it includes). Under the sanitizer build this also checks
 * that none of them reads out of bounds or leaks. */
#include "test_common.h"

#include <dirent.h>

#include "pathwave.h"

static const char *corpus_dir = "tests/corpus/pbrt";

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The text after "# error: " on the file's first line, with $DIR standing
 * for the corpus folder (in the names of files the scene refers to). */
static void expected_message(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char line[1024] = "";
    if (!fgets(line, sizeof line, f))
        line[0] = '\0';
    fclose(f);
    line[strcspn(line, "\r\n")] = '\0';
    const char *tag = "# error: ";
    if (strncmp(line, tag, strlen(tag)) != 0)
        fail_msg("%s: the first line must be '# error: <message>'", path);
    const char *src = line + strlen(tag);
    size_t k = 0;
    while (*src && k + 1 < n) {
        if (strncmp(src, "$DIR", 4) == 0) {
            k += (size_t)snprintf(buf + k, n - k, "%s", corpus_dir);
            src += 4;
        } else {
            buf[k++] = *src++;
        }
        if (k >= n)
            fail_msg("%s: expected message too long", path);
    }
    buf[k] = '\0';
}

static void corpus_fails_cleanly(void **state)
{
    (void)state;
    DIR *d = opendir(corpus_dir);
    if (!d)
        fail_msg("%s: cannot open the corpus folder", corpus_dir);
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 5 && strcmp(e->d_name + len - 5, ".pbrt") == 0)
            names[n++] = strdup(e->d_name);
    }
    closedir(d);
    assert_true(n >= 40);
    qsort(names, (size_t)n, sizeof *names, by_name);
    int failures = 0;
    for (int i = 0; i < n; i++) {
        char path[1024], expect_tail[1024], expect[2048];
        snprintf(path, sizeof path, "%s/%s", corpus_dir, names[i]);
        expected_message(path, expect_tail, sizeof expect_tail);
        snprintf(expect, sizeof expect, "%s/%s", corpus_dir, expect_tail);
        pw_scene *s = NULL;
        pw_status st = pw_scene_load(path, &s);
        const char *msg = st == PW_OK ? "(loaded)" : pw_last_error();
        int ok = st != PW_OK && s == NULL && strcmp(msg, expect) == 0;
        printf("%s %s\n    %s\n", ok ? "ok  " : "FAIL", names[i], msg);
        if (!ok) {
            printf("    expected %s\n", expect);
            failures++;
        }
        pw_scene_free(s);
        free(names[i]);
    }
    if (failures)
        fail_msg("%d corpus files did not fail as announced", failures);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        corpus_dir = argv[1];
    pw_set_warning_handler(NULL, NULL);
    const struct CMUnitTest tests[] = {cmocka_unit_test(corpus_fails_cleanly)};
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
