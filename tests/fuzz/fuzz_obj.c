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
static char dir[64], obj_path[96], mtl_path[96];

static void remove_files(void)
{
    unlink(obj_path);
    unlink(mtl_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_scratch_dir(dir, sizeof dir, "obj");
    snprintf(obj_path, sizeof obj_path, "%s/m.obj", dir);
    snprintf(mtl_path, sizeof mtl_path, "%s/m.mtl", dir);
    pw_set_warning_handler(fuzz_quiet, NULL);
    atexit(remove_files);
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(data, 1, n, f) != n))
        abort();
    fclose(f);
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
    write_file(obj_path, data, obj_len);
    write_file(mtl_path, data + mtl_start, size - mtl_start);
    pw_scene *s = NULL;
    if (pw_scene_load(obj_path, &s) == PW_OK) {
        pw_scene_info info;
        pw_scene_get_info(s, &info);
        pw_scene_free(s);
    } else if (s) {
        abort(); /* a failed load leaves no scene behind */
    }
    return 0;
}
