/* The file access assimp gets for OBJ files: every file it opens is read
 * through pw_read_file and checked (scene/obj_check.c) before assimp sees
 * a byte of it. */
#ifndef PW_OBJ_IO_H
#define PW_OBJ_IO_H

#include <assimp/cfileio.h>

#include "core/file_read.h"
#include "pathwave.h"

typedef struct pw_obj_io {
    struct aiFileIO io; /* give &io to aiImportFileEx */
    const char *obj;    /* the OBJ file; any other file assimp opens is a material library */
    pw_bytes obj_bytes; /* read once, at its first opening */
    int obj_read;
    pw_status failed;  /* the first check that failed, PW_OK for none */
    char message[512]; /* its message */
} pw_obj_io;

void pw_obj_io_init(pw_obj_io *io, const char *obj_path);
void pw_obj_io_free(pw_obj_io *io);

#endif
