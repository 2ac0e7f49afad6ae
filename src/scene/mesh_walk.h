/* assimp's node tree into the scene's triangles (scene/mesh_walk.c). */
#ifndef PW_MESH_WALK_H
#define PW_MESH_WALK_H

#include <assimp/scene.h>

#include "scene/gltf_model.h"
#include "scene/scene.h"

/* Adds the meshes of every node of as (post-processed) to s: positions and
 * normals by the node's transform to the world (a mirroring one winds the
 * triangles the other way round), texture coordinates as the material
 * reads them, materials from mat_base + the mesh's material index. gltf
 * (NULL for other formats) gives instances and materials' coordinates.
 * Errors: vertices not finite once transformed, a model expanding past
 * PW_GENERATED_MAX_TRIANGLES triangles, out of memory. */
pw_status pw_mesh_walk(pw_scene *s, const char *path, const struct aiScene *as, uint32_t mat_base,
                       const pw_gltf_model *gltf);

#endif
