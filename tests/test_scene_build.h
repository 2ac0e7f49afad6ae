/* Building test scenes through the public API (pathwave.h, "building
 * scenes in code"); each helper fails the test with the library's message
 * when a call is refused. */
#ifndef PW_TEST_SCENE_BUILD_H
#define PW_TEST_SCENE_BUILD_H

#include "test_common.h"

#include "pathwave.h"

static inline pw_scene *test_new_scene(const char *name)
{
    pw_scene *s = NULL;
    if (pw_scene_new(name, &s) != PW_OK)
        fail_msg("pw_scene_new: %s", pw_last_error());
    return s;
}

static inline uint32_t test_add_material(pw_scene *s, pw_material_desc d)
{
    uint32_t id = UINT32_MAX;
    if (pw_scene_add_material(s, &d, &id) != PW_OK)
        fail_msg("pw_scene_add_material: %s", pw_last_error());
    return id;
}

static inline pw_material_desc test_lambert(float r, float g, float b)
{
    pw_material_desc d = {.kind = PW_MATERIAL_LAMBERT, .lambert = {{r, g, b}}};
    return d;
}

static inline void test_add_sphere(pw_scene *s, float x, float y, float z, float r, uint32_t mat)
{
    const float c[3] = {x, y, z};
    if (pw_scene_add_sphere(s, c, r, mat) != PW_OK)
        fail_msg("pw_scene_add_sphere: %s", pw_last_error());
}

static inline void test_add_mesh(pw_scene *s, const pw_mesh_desc *m, uint32_t mat)
{
    if (pw_scene_add_mesh(s, m, mat) != PW_OK)
        fail_msg("pw_scene_add_mesh: %s", pw_last_error());
}

/* A quad of corners q[0..3] (x, y, z each), as triangles (0, 1, 2) and
 * (0, 2, 3). */
static inline void test_add_quad(pw_scene *s, const float q[12], uint32_t mat)
{
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    const pw_mesh_desc m = {.vertex_count = 4, .positions = q, .triangle_count = 2, .indices = idx};
    test_add_mesh(s, &m, mat);
}

static inline void test_set_camera_params(pw_scene *s, const pw_camera_params *c)
{
    if (pw_scene_set_camera(s, c) != PW_OK)
        fail_msg("pw_scene_set_camera: %s", pw_last_error());
}

/* The camera's position, aim, up vector and vertical field of view; its
 * lens as it was. */
static inline void test_set_camera(pw_scene *s, const float from[3], const float at[3], const float up[3], float vfov)
{
    pw_camera_params c;
    pw_scene_get_camera(s, &c);
    memcpy(c.look_from, from, sizeof c.look_from);
    memcpy(c.look_at, at, sizeof c.look_at);
    memcpy(c.up, up, sizeof c.up);
    c.vfov_deg = vfov;
    test_set_camera_params(s, &c);
}

static inline void test_set_vfov(pw_scene *s, float vfov)
{
    pw_camera_params c;
    pw_scene_get_camera(s, &c);
    c.vfov_deg = vfov;
    test_set_camera_params(s, &c);
}

static inline void test_set_sky(pw_scene *s, const float top[3], const float bottom[3], float scale)
{
    if (pw_scene_set_sky(s, top, bottom, scale) != PW_OK)
        fail_msg("pw_scene_set_sky: %s", pw_last_error());
}

#endif
