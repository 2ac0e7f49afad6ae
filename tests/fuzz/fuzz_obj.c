/* libFuzzer target for OBJ with MTL, through assimp and pathwave's mesh
 * loader (scene/mesh_load.c): the input is cut at its first line
 * "#--mtl--" into an OBJ file and an MTL file, written as m.obj and m.mtl
 * to a folder of this process's own, and m.obj is loaded (the seeds say
 * "mtllib m.mtl"). Any crash, sanitizer report, leak or hang is a bug; a
 * failed load is the expected outcome for most inputs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathwave.h"
#include "fuzz_common.h"

static const char marker[] = "#--mtl--\n";
static char obj_path[96], mtl_path[96];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *dir = fuzz_scratch_dir("obj");
    snprintf(obj_path, sizeof obj_path, "%s/m.obj", dir);
    snprintf(mtl_path, sizeof mtl_path, "%s/m.mtl", dir);
    pw_set_warning_handler(fuzz_quiet, NULL);
    return 0;
}

/* The first line that is the marker, or NULL. */
static const uint8_t *find_marker(const uint8_t *data, size_t size)
{
    size_t k = sizeof marker - 1;
    for (size_t i = 0; i + k <= size; i++)
        if ((i == 0 || data[i - 1] == '\n') && memcmp(data + i, marker, k) == 0)
            return data + i;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *cut = find_marker(data, size);
    size_t obj_len = cut ? (size_t)(cut - data) : size, mtl_start = cut ? obj_len + sizeof marker - 1 : size;
    fuzz_write_file(obj_path, data, obj_len);
    fuzz_write_file(mtl_path, data + mtl_start, size - mtl_start);
    pw_scene *s = NULL;
    pw_status st = pw_scene_load(obj_path, &s); /* before s is read */
    fuzz_check_load(st, s);
    return 0;
}
