/* What pathwave reads of a glTF file itself, beside assimp: the JSON is
 * read first, so that extensions are reported (and required ones refused)
 * and what would crash assimp is refused (gltf_guard.c) before assimp
 * sees the file; then assimp's scene is matched to the file's nodes,
 * meshes and materials, and what assimp 5.2.5 gets wrong or leaves out is
 * mended from the JSON: quantized vertex attributes (KHR_mesh_quantization,
 * which it reads as floats), instancing (EXT_mesh_gpu_instancing), texture
 * transforms and emissive strength (gltf_materials.h); lights and cameras
 * are read from the JSON alone. */
#ifndef PW_GLTF_MODEL_H
#define PW_GLTF_MODEL_H

#include <assimp/scene.h>

#include "scene/gltf_instancing.h"
#include "scene/gltf_materials.h"
#include "scene/gltf_nodes.h"

typedef struct pw_gltf_model {
    pw_gltf_doc doc;
    pw_gltf_tree tree;
    pw_gltf_instances *instances; /* per node of the file */
    int matched;                  /* assimp's node tree is the file's (below) */
    uint32_t root_offset;         /* 1 when assimp put a node of its own above the scene's nodes */
    pw_gltf_material_info *materials; /* per assimp material */
    uint32_t n_materials;
    pw_bytes assimp_bytes;      /* what assimp reads instead of the file's bytes, when they needed mending */
    char ignored_required[256]; /* required extensions loaded without, as asked ("" if none), for messages */
} pw_gltf_model;

/* Reads path's JSON, reports its extensions (an unimplemented required
 * one fails unless ignore_required), checks it for what assimp cannot
 * take, walks its nodes and reads its instances. Warnings through s. On
 * failure g holds nothing. */
pw_status pw_gltf_model_open(pw_gltf_model *g, const char *path, pw_scene *s, int ignore_required);
/* Matches assimp's scene (as imported, before post-processing) to the
 * file and mends it: decodes quantized attributes in place and reads each
 * material's info. A tree that does not match is a warning when the file
 * needs the match (instances, texture transforms, emissive strength) and an
 * error when its attributes are quantized. */
pw_status pw_gltf_model_match(pw_gltf_model *g, pw_scene *s, struct aiScene *as);
void pw_gltf_model_close(pw_gltf_model *g);
/* The bytes assimp is to read for the file (pw_gltf_assimp_bytes). */
const pw_bytes *pw_gltf_model_bytes(const pw_gltf_model *g);

/* The instances of assimp's node number k in pre-order (its root is 0),
 * NULL when it has none or the trees did not match. */
const pw_gltf_instances *pw_gltf_model_instances(const pw_gltf_model *g, uint32_t k);
/* The info of assimp's material i (the identity for other formats: g NULL). */
const pw_gltf_material_info *pw_gltf_model_material(const pw_gltf_model *g, uint32_t i);

#endif
