/* Generated scenes (scene/generated_scenes.c), reached through
 * pw_scene_builtin as "terrain:N", "bunnies:K[:FILE]" and
 * "bunnies-mixed:K[:FILE]". Each fills the
 * empty scene s from the text after the name's first colon. */
#ifndef PW_GENERATED_SCENES_H
#define PW_GENERATED_SCENES_H

#include "scene/scene.h"

pw_status pw_generate_terrain(pw_scene *s, const char *param);
pw_status pw_generate_bunnies(pw_scene *s, const char *param);
pw_status pw_generate_bunnies_mixed(pw_scene *s, const char *param);

#endif
