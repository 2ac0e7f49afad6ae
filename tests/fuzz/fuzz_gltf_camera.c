/* libFuzzer target for pathwave's own glTF readers, without assimp: the
 * input is a .gltf (first byte even) or .glb (odd) in memory, read as the
 * loader reads it: container and JSON, the extension report, the guard
 * for assimp, the node walk, the camera, the lights, the instances'
 * accessors (GLB BIN chunk or data: URIs; the file's folder does not
 * exist, so no file beside it is read), every material's info and the
 * mended bytes assimp would get. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pathwave.h"
#include "scene/gltf_camera.h"
#include "scene/gltf_extensions.h"
#include "scene/gltf_guard.h"
#include "scene/gltf_instancing.h"
#include "scene/gltf_lights.h"
#include "scene/gltf_materials.h"
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pw_set_warning_handler(fuzz_quiet, NULL);
    return 0;
}

/* What the loader does with a parsed file, in its order. */
static void read_doc(pw_gltf_doc *d, pw_scene *s)
{
    char ignored[256];
    pw_gltf_tree tree;
    if (pw_gltf_check_extensions(d, s, 1, ignored, sizeof ignored) != PW_OK || pw_gltf_guard(d) != PW_OK ||
        pw_gltf_walk_nodes(d, &tree) != PW_OK)
        return;
    pw_gltf_camera(s, d, &tree);
    int lit;
    pw_gltf_add_lights(d, &tree, s, &lit);
    pw_gltf_instances *inst;
    if (pw_gltf_read_instances(d, &tree, &inst) == PW_OK) {
        for (uint32_t k = 0; k < tree.n; k++) {
            const pw_gltf_instances *in = &inst[tree.visits[k].node];
            double m[16];
            for (uint32_t i = 0; i < in->n && i < 64; i++)
                pw_gltf_instance_matrix(in, i, tree.visits[k].world, m);
        }
        pw_gltf_instances_free(inst, (uint32_t)d->lists[PW_GLTF_NODES].n);
    }
    for (long m = 0; m < d->lists[PW_GLTF_MATERIALS].n; m++) {
        pw_gltf_material_info info;
        pw_gltf_material_info_read(d, s, m, &info);
    }
    pw_gltf_tree_free(&tree);
    pw_bytes mended;
    if (pw_gltf_assimp_bytes(d, &mended) == PW_OK)
        pw_bytes_free(&mended);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    pw_bytes b = {malloc(size), size - 1};
    if (!b.data)
        return 0;
    memcpy(b.data, data + 1, size - 1);
    b.data[size - 1] = '\0';
    pw_gltf_doc d;
    pw_scene *s = pw_scene_alloc("fuzz");
    if (pw_gltf_doc_parse(data[0] & 1 ? "/nonexistent/in.glb" : "/nonexistent/in.gltf", b, &d) == PW_OK) {
        read_doc(&d, s);
        pw_gltf_doc_close(&d);
    }
    pw_scene_free(s);
    return 0;
}
