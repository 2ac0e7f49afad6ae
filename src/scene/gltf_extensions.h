/* glTF extensions: which a file uses (its extensionsUsed and
 * extensionsRequired, and every "extensions" object in it, declared or
 * not), a warning for each that pathwave does not implement, saying what
 * the render lacks without it, and an error for one the file requires. */
#ifndef PW_GLTF_EXTENSIONS_H
#define PW_GLTF_EXTENSIONS_H

#include "scene/gltf_json.h"
#include "scene/scene.h"

/* Calls fn for every extension object in the file (any member of an
 * "extensions" object, at any depth, outside "extras"), with its name and
 * value; stops at the first status fn returns that is not PW_OK. */
typedef pw_status (*pw_gltf_extension_fn)(const pw_gltf_doc *doc, const char *name, const cJSON *value, void *user);
pw_status pw_gltf_each_extension(const pw_gltf_doc *doc, pw_gltf_extension_fn fn, void *user);

/* Whether pathwave implements the extension (some approximately, saying
 * so where a file's values need it: docs/MATERIALS.md). */
int pw_gltf_extension_implemented(const char *name);

/* The report: one warning per unimplemented extension the file uses.
 * One it requires is PW_ERR_FORMAT naming the file and the extensions,
 * unless ignore_required, which makes it a warning and lists it in
 * ignored (cap bytes, comma-separated) for later messages. */
pw_status pw_gltf_check_extensions(const pw_gltf_doc *doc, pw_scene *s, int ignore_required, char *ignored,
                                   size_t cap);

#endif
