/* The files assimp opens for a model (the model itself, glTF .bin buffers,
 * OBJ's .mtl libraries) are read through pw_read_file: only regular files
 * (a .bin that is /dev/zero would otherwise be read until memory runs
 * out), a size cap, gzip inflated; and names that do not exist are tried
 * percent-decoded, as glTF's URIs are written (pw_uri_resolve_joined). */
#ifndef PW_ASSIMP_IO_H
#define PW_ASSIMP_IO_H

#include <assimp/cfileio.h>

#include "core/file_read.h"

/* A check of a file other than the model (an OBJ's material library),
 * given its bytes before assimp sees them: PW_OK hands them over,
 * PW_ERR_NOT_FOUND tells assimp the file is absent, any other status
 * stops the import with the message pw_fail recorded. */
typedef pw_status (*pw_assimp_check_fn)(const char *path, const pw_bytes *bytes);

typedef struct pw_assimp_io {
    struct aiFileIO io; /* what aiImportFileEx takes */
    const char *model;
    const pw_bytes *model_bytes; /* the model's bytes when already read (NULL: read them) */
    pw_assimp_check_fn check;    /* NULL: other files are handed over as read */
    pw_status failed;            /* a check that stopped the import, else PW_OK */
    char error[512];             /* why the first file that could not be opened was refused ("" if none) */
} pw_assimp_io;

/* Sets up io for the model file model; model_bytes may be NULL. Both must
 * outlive the import. */
void pw_assimp_io_init(pw_assimp_io *io, const char *model, const pw_bytes *model_bytes);

#endif
