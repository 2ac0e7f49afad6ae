/* The camera of a glTF file (scene/gltf_camera.c). */
#ifndef PW_GLTF_CAMERA_H
#define PW_GLTF_CAMERA_H

#include <assimp/scene.h>

#include "scene/scene.h"

/* Sets s's camera (and, from the camera's aspect ratio, its default image
 * height) from the first usable perspective camera of the glTF file path,
 * which assimp read into as before any post-processing. Returns 1 when it
 * did, 0 for other formats, files without cameras and unusable cameras
 * (those with a counted warning). */
int pw_gltf_camera(pw_scene *s, const char *path, const struct aiScene *as);

#endif
