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

static char dir[64], glb[96], gltf[96];

static void remove_inputs(void)
{
    unlink(glb);
    unlink(gltf);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_scratch_dir(dir, sizeof dir, "gltf");
    snprintf(glb, sizeof glb, "%s/in.glb", dir);
    snprintf(gltf, sizeof gltf, "%s/in.gltf", dir);
    atexit(remove_inputs);
    pw_set_warning_handler(fuzz_quiet, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *path = data[0] & 1 ? glb : gltf;
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size > 1 && fwrite(data + 1, 1, size - 1, f) != size - 1)
        abort();
    fclose(f);
    pw_load_options o;
    pw_load_options_default(&o);
    o.ignore_required_extensions = (data[0] & 2) != 0;
    pw_scene *s = NULL;
    if (pw_scene_load_with(path, &o, &s) == PW_OK) {
        pw_scene_info info;
        pw_scene_get_info(s, &info);
        pw_scene_free(s);
    } else if (s) {
        abort(); /* a failed load leaves no scene behind */
    }
    return 0;
}
