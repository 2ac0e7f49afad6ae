/* KHR_lights_punctual: the point, spot and directional lights of a glTF
 * file, placed by the nodes that carry them. */
#ifndef PW_GLTF_LIGHTS_H
#define PW_GLTF_LIGHTS_H

#include "scene/gltf_nodes.h"
#include "scene/scene.h"

/* Adds a light for every visit of a node with a KHR_lights_punctual light;
 * *lit is set when one of them gives light. A light that cannot be used
 * (a bad index, type or value) is a warning naming it and is skipped.
 * Fails only when out of memory. */
pw_status pw_gltf_add_lights(const pw_gltf_doc *doc, const pw_gltf_tree *tree, pw_scene *s, int *lit);

#endif
