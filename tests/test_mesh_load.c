/* Mesh files (through assimp; PLY through pathwave's reader): what
 * arrives in the scene, and what a user sees for a file that is missing
 * or not a mesh. */
#include "test_common.h"

#include <unistd.h>

#include "scene/scene.h"

static void box_textured_has_uvs(void **state)
{
    (void)state;
    char path[1024];
    if (!pw_test_shared_file("scenes/gltf-samples/BoxTextured.glb", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    assert_int_equal(s->n_tris, 12);
    assert_non_null(s->uv);
    assert_non_null(s->nrm);
    /* The file lays its six faces side by side: u spans 0..6, v 0..1. */
    float umax = 0.0f;
    for (uint32_t i = 0; i < s->n_verts; i++) {
        float u = s->uv[2 * i], v = s->uv[2 * i + 1];
        assert_true(isfinite(u) && isfinite(v));
        assert_true(u >= -1e-6f && u <= 6.0f + 1e-6f && v >= -1e-6f && v <= 1.0f + 1e-6f);
        umax = fmaxf(umax, u);
    }
    assert_true(fabsf(umax - 6.0f) < 1e-5f);
    pw_scene_free(s);
}

/* A glTF camera: the sample file's perspective camera sits at its node's
 * translation (0.5, 0.5, 3) looking down -z with +y up, yfov 0.7 rad,
 * aspect ratio 1; the file's own camera replaces the automatic framing. */
static void gltf_camera_is_used(void **state)
{
    (void)state;
    char path[1024];
    if (!pw_test_shared_file("scenes/gltf-samples/Cameras/Cameras.gltf", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    pw_vec3 dir = v3_norm(v3_sub(s->cam.look_at, s->cam.look_from));
    printf("camera at %g %g %g, direction %g %g %g, up %g %g %g, vfov %g deg\n", s->cam.look_from.x,
           s->cam.look_from.y, s->cam.look_from.z, dir.x, dir.y, dir.z, s->cam.up.x, s->cam.up.y, s->cam.up.z,
           s->cam.vfov_deg);
    assert_true(v3_len(v3_sub(s->cam.look_from, v3(0.5f, 0.5f, 3.0f))) < 1e-6f);
    assert_true(v3_len(v3_sub(dir, v3(0.0f, 0.0f, -1.0f))) < 1e-6f);
    assert_true(v3_len(v3_sub(s->cam.up, v3(0.0f, 1.0f, 0.0f))) < 1e-6f);
    assert_true(fabsf(s->cam.vfov_deg - 0.7f * 180.0f / (float)PW_PI) < 1e-4f);
    assert_int_equal(s->defaults.width, s->defaults.height);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    assert_int_equal(info.warnings, 0);
    pw_scene_free(s);
}

/* A PLY file has no materials: it gets one diffuse material (through
 * assimp it got a made-up one with a white specular colour, which must
 * not turn the model glossy). */
static void ply_without_materials_is_diffuse(void **state)
{
    (void)state;
    char path[1024];
    if (!pw_test_shared_file("scenes/stanford-bunny/bunny.ply", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    assert_int_equal(s->n_mats, 1);
    assert_int_equal(s->mats[0].type, PW_MAT_LAMBERT);
    pw_scene_free(s);
}

static void box_without_texture_has_no_uvs(void **state)
{
    (void)state;
    char path[1024];
    if (!pw_test_shared_file("scenes/gltf-samples/Box.glb", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    assert_int_equal(s->n_tris, 12);
    assert_null(s->uv);
    pw_scene_free(s);
}

static void cornell_obj_materials(void **state)
{
    (void)state;
    char path[1024];
    if (!pw_test_shared_file("scenes/cornell-box-mcguire/CornellBox-Original.obj", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    assert_int_equal(s->n_tris, 36);
    /* The light's Ke 17 12 4 arrives as emission on the triangles that use it. */
    int emitting = 0;
    for (uint32_t t = 0; t < s->n_tris; t++) {
        pw_vec3 e = s->mats[s->tri_mat[t]].emission;
        if (e.x == 17.0f && e.y == 12.0f && e.z == 4.0f)
            emitting++;
    }
    assert_int_equal(emitting, 2);
    pw_scene_free(s);
}

static void missing_and_garbage_files(void **state)
{
    (void)state;
    pw_scene *s = NULL;
    assert_int_equal(pw_scene_load("/nonexistent/dir/model.obj", &s), PW_ERR_NOT_FOUND);
    assert_null(s);
    assert_non_null(strstr(pw_last_error(), "/nonexistent/dir/model.obj"));
    char tmpl[] = "/tmp/pw_garbage_XXXXXX.ply";
    int fd = mkstemps(tmpl, 4);
    assert_true(fd >= 0);
    const char junk[] = "ply\nformat binary_little_endian 1.0\nelement vertex 99999999\nend_header\n\x01\x02";
    assert_true(write(fd, junk, sizeof junk - 1) == (ssize_t)(sizeof junk - 1));
    close(fd);
    assert_int_equal(pw_scene_load(tmpl, &s), PW_ERR_FORMAT);
    assert_non_null(strstr(pw_last_error(), tmpl));
    unlink(tmpl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(box_textured_has_uvs),
        cmocka_unit_test(box_without_texture_has_no_uvs),
        cmocka_unit_test(ply_without_materials_is_diffuse),
        cmocka_unit_test(gltf_camera_is_used),
        cmocka_unit_test(cornell_obj_materials),
        cmocka_unit_test(missing_and_garbage_files),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
