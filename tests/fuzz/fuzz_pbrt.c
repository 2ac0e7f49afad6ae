/* libFuzzer target for the pbrt-v4 reader: each input is written to a
 * temporary folder as main.pbrt and loaded. An input may carry more files:
 * a line "#file K" (K a digit 0..3) ends the text before it and starts
 * that of K.pbrt in the same folder, which the scene can Include or
 * Import, so token streams spliced across files are fuzzed too. Any
 * crash, sanitizer report or leak is a bug; a failed load is the expected
 * outcome for most inputs. Build with clang (docs/PBRT.md, "Fuzzing"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathwave.h"
#include "scene/pbrt/pbrt.h"
#include "fuzz_common.h"

#define EXTRA_FILES 4

static const char *dir;
static char main_path[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    dir = fuzz_scratch_dir("pbrt");
    snprintf(main_path, sizeof main_path, "%s/main.pbrt", dir);
    pw_set_warning_handler(fuzz_quiet, NULL);
    return 0;
}

/* The start of the next "\n#file K\n" line at or after from, or size. */
static size_t next_part(const uint8_t *data, size_t size, size_t from, int *k)
{
    static const char tag[] = "\n#file ";
    const size_t n = sizeof tag - 1;
    for (size_t i = from; i + n + 2 <= size; i++)
        if (memcmp(data + i, tag, n) == 0 && data[i + n] >= '0' && data[i + n] < '0' + EXTRA_FILES &&
            data[i + n + 1] == '\n') {
            *k = data[i + n] - '0';
            return i;
        }
    return size;
}

/* Splits the input into main.pbrt and K.pbrt; files of earlier inputs are
 * removed first, so each input is read alone. */
static void write_files(const uint8_t *data, size_t size)
{
    char path[128];
    for (int k = 0; k < EXTRA_FILES; k++) {
        snprintf(path, sizeof path, "%s/%d.pbrt", dir, k);
        unlink(path);
    }
    int k = -1, next_k = -1;
    size_t at = 0;
    for (;;) {
        size_t end = next_part(data, size, at, &next_k);
        if (k < 0)
            snprintf(path, sizeof path, "%s", main_path);
        else
            snprintf(path, sizeof path, "%s/%d.pbrt", dir, k);
        fuzz_write_file(path, data + at, end - at);
        if (end == size)
            return;
        k = next_k;
        at = end + 9; /* past "\n#file K\n" */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_files(data, size);
    pw_scene *s = NULL;
    pw_status st = pw_pbrt_load(main_path, &s); /* before s is read */
    fuzz_check_load(st, s);
    return 0;
}
