/* Checks of OBJ and MTL files before assimp reads them
 * (scene/obj_check.c, for the reasons given there). */
#ifndef PW_OBJ_CHECK_H
#define PW_OBJ_CHECK_H

#include <stddef.h>

#include "pathwave.h"

#ifdef __cplusplus
extern "C" {
#endif

/* PW_OK when the len bytes of the OBJ file `name` may go to assimp; else
 * PW_ERR_FORMAT with a message naming the file, the line and what is
 * wrong. */
pw_status pw_obj_check(const char *name, const unsigned char *data, size_t len);
/* The same for a material library (MTL) file. */
pw_status pw_mtl_check(const char *name, const unsigned char *data, size_t len);

#ifdef __cplusplus
}
#endif
#endif
