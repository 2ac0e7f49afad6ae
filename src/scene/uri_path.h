/* Files named by a model's URIs (glTF buffers and images): relative to the
 * model's folder, and percent-encoded as URIs are ("Box%20With%20Spaces.bin"
 * names "Box With Spaces.bin"). */
#ifndef PW_URI_PATH_H
#define PW_URI_PATH_H

#include <stddef.h>

/* Decodes %XX escapes of uri into out (cap bytes); returns 0 when uri has
 * none, an escape is malformed or decodes to '\0', or out is too small. */
int pw_uri_decode(const char *uri, char *out, size_t cap);

/* The path of uri beside the model file model (or uri itself when it is
 * absolute) into out: the literal name when such a file exists, else its
 * percent-decoded form when that one does (a file may be named with a
 * literal '%'), else the literal name. Backslashes (paths written on
 * Windows) become slashes. Returns 0 when out is too small. */
int pw_uri_path(const char *model, const char *uri, char *out, size_t cap);

/* A path (already joined by assimp) whose last part after the folder of
 * model may be percent-encoded: the same choice as pw_uri_path. */
int pw_uri_resolve_joined(const char *model, const char *path, char *out, size_t cap);

#endif
