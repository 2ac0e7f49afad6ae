/* The camera of a glTF file (scene/gltf_camera.c). */
#ifndef PW_GLTF_CAMERA_H
#define PW_GLTF_CAMERA_H

#include "scene/gltf_nodes.h"
#include "scene/scene.h"

/* Sets s's camera (and, from the camera's aspect ratio, its default image
 * height) from the first usable perspective camera of the file (in the
 * order of its cameras array) that a node of its scene carries. Returns 1
 * when it did, 0 for files without cameras and unusable cameras (those
 * with a counted warning). */
int pw_gltf_camera(pw_scene *s, const pw_gltf_doc *doc, const pw_gltf_tree *tree);

#endif
