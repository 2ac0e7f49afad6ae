/* The pbrt-v4 scene reader (docs/PBRT.md). */
#ifndef PW_PBRT_H
#define PW_PBRT_H

#include "pathwave.h"

/* Reads a .pbrt file (and what it includes) into a new scene. Errors name
 * file:line:column; unsupported features are warned about once each
 * through pw_warn. */
pw_status pw_pbrt_load(const char *path, pw_scene **out);

#endif
