/* PLY triangle meshes (ascii, binary_little_endian, binary_big_endian),
 * read by pathwave's own strict reader: positions, optional normals and
 * texture coordinates, faces fan-triangulated. Used by pw_scene_load for
 * .ply and .ply.gz and by pbrt's Shape "plymesh". */
#ifndef PW_PLY_READ_H
#define PW_PLY_READ_H

#include <stddef.h>
#include <stdint.h>

#include "core/vec3.h"
#include "pathwave.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pw_ply_mesh {
    uint32_t n_verts, n_tris;
    pw_vec3 *pos;  /* n_verts positions, all finite */
    pw_vec3 *nrm;  /* n_verts normals (nx, ny, nz) as written, or NULL */
    float *uv;     /* 2 per vertex (u v, s t, texture_u texture_v or texture_s texture_t), or NULL */
    uint32_t *tri; /* 3 vertex indices per triangle, each below n_verts */
} pw_ply_mesh;

/* Parses the len bytes at data (a whole PLY file, already inflated) into
 * *out; name is the file for messages. A file without a face element gives
 * no triangles. Errors (PW_ERR_FORMAT, PW_ERR_OUT_OF_MEMORY) name the file
 * and what is wrong, with the line (ascii) or element and its index;
 * things the reader goes past (data after the last element, a property
 * given twice) go to warn (may be NULL), one line each. On failure *out
 * holds nothing. */
pw_status pw_ply_parse(const char *name, const unsigned char *data, size_t len, pw_warning_fn warn, void *user,
                       pw_ply_mesh *out);
/* pw_read_file (regular files only, gzip inflated) and pw_ply_parse. */
pw_status pw_ply_read(const char *path, pw_warning_fn warn, void *user, pw_ply_mesh *out);
void pw_ply_free(pw_ply_mesh *m);

#ifdef __cplusplus
}
#endif
#endif
