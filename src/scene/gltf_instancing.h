/* EXT_mesh_gpu_instancing: a node whose mesh is drawn once per instance,
 * each with its own translation, rotation and scale (accessors of the
 * node's extension) applied before the node's transform. pathwave has no
 * instances in its BVH, so the loader flattens them: each instance is a
 * copy of the mesh. */
#ifndef PW_GLTF_INSTANCING_H
#define PW_GLTF_INSTANCING_H

#include "scene/gltf_nodes.h"
#include "scene/scene.h"

typedef struct pw_gltf_instances {
    uint32_t n;      /* 0: the visit's node is not instanced */
    float *t, *r, *s; /* per instance: translation (3), rotation quaternion (4), scale (3); NULL: the default */
} pw_gltf_instances;

/* The instances of every node tree visits into *out, indexed by node
 * (one entry per node of the file; free with pw_gltf_instances_free). Errors (PW_ERR_FORMAT, naming the file,
 * node and attribute) for accessors that are malformed, out of bounds, of
 * the wrong type, of differing counts or not finite. */
pw_status pw_gltf_read_instances(pw_gltf_doc *doc, const pw_gltf_tree *tree, pw_gltf_instances **out);
/* n: the number of entries (the file's nodes). */
void pw_gltf_instances_free(pw_gltf_instances *inst, uint32_t n);
/* Instance i's transform to the world: world times its T R S. */
void pw_gltf_instance_matrix(const pw_gltf_instances *inst, uint32_t i, const double world[16], double out[16]);

#endif
