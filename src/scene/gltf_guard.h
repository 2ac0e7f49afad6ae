/* Checks of a glTF file's JSON for what assimp 5.2.5 takes on trust and
 * crashes on (it indexes rapidjson arrays without checking their size or
 * type, which aborts the process), run before assimp reads the file. Each
 * check is named after the input that showed the crash; the node tree's
 * limits are checked by the walk (gltf_nodes.h). */
#ifndef PW_GLTF_GUARD_H
#define PW_GLTF_GUARD_H

#include "scene/gltf_json.h"

/* PW_ERR_FORMAT naming the file and what is malformed, else PW_OK. Reads
 * the buffers behind sparse accessors. */
pw_status pw_gltf_guard(pw_gltf_doc *doc);

/* The bytes assimp is to read for doc's file: its own (out->data NULL)
 * when nothing in them needs taking out, else a copy without what pathwave
 * does not read (it renders meshes at rest) and assimp 5.2.5 trusts:
 * skins (it dereferences a skin's optional inverseBindMatrices unchecked,
 * crashing on valid files), animations and morph targets (it reads their
 * accessors by counts it does not check against each other). Free with
 * pw_bytes_free. */
pw_status pw_gltf_assimp_bytes(const pw_gltf_doc *doc, pw_bytes *out);

#endif
