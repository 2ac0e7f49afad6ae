/* libFuzzer target for the PLY reader (scene/ply_read.c): each input is a
 * whole PLY file, parsed from memory, inflated first when it is gzip as
 * pw_read_file would. Any crash, sanitizer report, leak or hang is a bug;
 * so is a mesh that parses but breaks the reader's promises (an index out
 * of range, a non-finite position) or a failure that leaves data behind. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/file_read.h"
#include "scene/ply_read.h"

/* Warnings must be single lines. */
static void check_warning(const char *msg, void *user)
{
    (void)user;
    if (!msg[0] || strchr(msg, '\n'))
        abort();
}

static void check_mesh(const pw_ply_mesh *m)
{
    for (uint32_t i = 0; i < m->n_verts; i++)
        if (!isfinite(m->pos[i].x) || !isfinite(m->pos[i].y) || !isfinite(m->pos[i].z))
            abort();
    for (size_t i = 0; i < 3 * (size_t)m->n_tris; i++)
        if (m->tri[i] >= m->n_verts)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pw_bytes inflated = {0};
    if (pw_is_gzip(data, size)) {
        if (pw_gunzip("fuzz.ply.gz", data, size, (size_t)64 << 20, &inflated) != PW_OK)
            return 0;
        data = inflated.data;
        size = inflated.len;
    }
    pw_ply_mesh m;
    if (pw_ply_parse("fuzz.ply", data, size, check_warning, NULL, &m) == PW_OK) {
        check_mesh(&m);
        pw_ply_free(&m);
    } else if (m.pos || m.nrm || m.uv || m.tri || m.n_verts || m.n_tris) {
        abort();
    }
    pw_bytes_free(&inflated);
    return 0;
}
