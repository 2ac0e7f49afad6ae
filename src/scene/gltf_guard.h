/* Checks of a glTF file's JSON for what assimp 5.2.5 takes on trust and
 * crashes on (it indexes rapidjson arrays without checking their size or
 * type, which aborts the process), run before assimp reads the file. Each
 * check is named after the input that showed the crash; the node tree's
 * limits are checked by the walk (gltf_nodes.h). */
#ifndef PW_GLTF_GUARD_H
#define PW_GLTF_GUARD_H

#include "scene/gltf_json.h"

/* PW_ERR_FORMAT naming the file and what is malformed, else PW_OK. */
pw_status pw_gltf_guard(const pw_gltf_doc *doc);

#endif
