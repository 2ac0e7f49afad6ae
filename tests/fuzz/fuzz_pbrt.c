/* libFuzzer target for the pbrt-v4 reader: each input is written to a
 * temporary .pbrt file and loaded. Any crash, sanitizer report or leak is a
 * bug; a failed load is the expected outcome for most inputs. Build with
 * clang (docs/PBRT.md, "Fuzzing"). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pathwave.h"
#include "scene/pbrt/pbrt.h"

static char path[64];

static void quiet(const char *msg, void *user)
{
    (void)msg;
    (void)user;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(path, sizeof path, "/tmp/pw_fuzz_pbrt_%d.pbrt", (int)getpid());
    pw_set_warning_handler(quiet, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    pw_scene *s = NULL;
    if (pw_pbrt_load(path, &s) == PW_OK) {
        /* A scene that loads must also pass the checks a render starts with. */
        pw_scene_info info;
        pw_scene_get_info(s, &info);
        pw_scene_free(s);
    } else if (s) {
        abort(); /* a failed load leaves no scene behind */
    }
    return 0;
}
