/* libFuzzer target for glTF files through the whole mesh loader (our
 * JSON reader and guard, then assimp, then the mending and the walk): the
 * first byte of an input picks the file's name (odd: .glb, even: .gltf),
 * the rest is written to a temporary file in a folder of its own and
 * loaded. A crash, sanitizer report or leak is a bug; a failed load is
 * the expected outcome for most inputs. assimp itself is not built with
 * coverage, so the fuzzer is guided by our code only. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathwave.h"
#include "fuzz_common.h"

static char glb[96], gltf[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_scratch_dir("gltf");
    snprintf(glb, sizeof glb, "%s/in.glb", dir);
    snprintf(gltf, sizeof gltf, "%s/in.gltf", dir);
    pw_set_warning_handler(fuzz_quiet, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *path = data[0] & 1 ? glb : gltf;
    fuzz_write_file(path, data + 1, size - 1);
    pw_load_options o;
    pw_load_options_default(&o);
    o.ignore_required_extensions = (data[0] & 2) != 0;
    pw_scene *s = NULL;
    pw_status st = pw_scene_load_with(path, &o, &s); /* before s is read */
    fuzz_check_load(st, s);
    return 0;
}
