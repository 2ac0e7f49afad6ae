/* Mesh files (through assimp; PLY through pathwave's reader): what
 * arrives in the scene, and what a user sees for a file that is missing
 * or not a mesh. */
#include "test_common.h"

#include <sys/stat.h>
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

/* Writes an OBJ file and its m.mtl (when mtl is not NULL) to a new
 * folder; the OBJ's path goes to obj. */
static void write_obj(const char *text, const char *mtl, char *dir, size_t dn, char *obj, size_t on)
{
    snprintf(dir, dn, "/tmp/pw_obj_XXXXXX");
    assert_non_null(mkdtemp(dir));
    snprintf(obj, on, "%s/m.obj", dir);
    FILE *f = fopen(obj, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    if (mtl) {
        char path[1100];
        snprintf(path, sizeof path, "%s/m.mtl", dir);
        assert_non_null(f = fopen(path, "wb"));
        fputs(mtl, f);
        fclose(f);
    }
}

static void remove_obj(const char *dir)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/m.obj", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/m.mtl", dir);
    unlink(path);
    rmdir(dir);
}

static const char two_objects[] = "mtllib m.mtl\no first\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nusemtl red\nf 1 2 3\n"
                                  "o second\nusemtl blue\nf 2 4 %s\n";
static const char red_blue[] = "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n";

/* Damaged OBJ and MTL files that crashed assimp (an MTL texture before
 * any newmtl: SIGSEGV) or made it leak (a later object's face past the
 * vertex list, a line of one vertex: the meshes built so far) fail with
 * the file, the line and what is wrong. */
static void damaged_obj_and_mtl_fail(void **state)
{
    (void)state;
    static const struct {
        const char *last_corner, *mtl, *file, *reason;
    } cases[] = {
        {"99", red_blue, "m.obj", "line 11: vertex 99 of 4"},
        {"-9", red_blue, "m.obj", "line 11: vertex -9 reaches before the first vertex (4 so far)"},
        {"3\nl 2", red_blue, "m.obj", "line 12: a line of one vertex"},
        {"3\nv 1 2", red_blue, "m.obj", "line 12: a vertex of 2 numbers (3, 4 or 6 expected)"},
        {"03", red_blue, "m.obj", "line 11: '03' is not a vertex reference"},
        {"3", "map_Kd red.png\nnewmtl red\n", "m.mtl", "line 1: 'map_Kd red.png' before any newmtl"},
        {"3", "# bump first\n  bump b.png\nnewmtl red\n", "m.mtl", "line 2: 'bump b.png' before any newmtl"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char text[512], dir[64], obj[1100], want[1200];
        snprintf(text, sizeof text, two_objects, cases[i].last_corner);
        write_obj(text, cases[i].mtl, dir, sizeof dir, obj, sizeof obj);
        pw_scene *s = NULL;
        pw_status st = pw_scene_load(obj, &s);
        snprintf(want, sizeof want, "%s/%s: %s", dir, cases[i].file, cases[i].reason);
        printf("%s\n", st == PW_OK ? "(loaded)" : pw_last_error());
        if (st != PW_ERR_FORMAT || s || strncmp(pw_last_error(), want, strlen(want)) != 0)
            fail_msg("case %zu: status %d, '%s', expected '%s'", i, st, st == PW_OK ? "" : pw_last_error(), want);
        remove_obj(dir);
    }
}

/* A material library that assimp cannot take (too short, a folder) is
 * left out as a missing one is: the mesh loads, with assimp's default. */
static void unreadable_mtl_is_left_out(void **state)
{
    (void)state;
    char text[512], dir[64], obj[1100];
    snprintf(text, sizeof text, two_objects, "3");
    for (int k = 0; k < 2; k++) {
        write_obj(text, k == 0 ? "Kd 1\n" : NULL, dir, sizeof dir, obj, sizeof obj);
        char mtl[1100];
        snprintf(mtl, sizeof mtl, "%s/m.mtl", dir);
        if (k == 1)
            assert_int_equal(mkdir(mtl, 0700), 0);
        pw_scene *s = NULL;
        if (pw_scene_load(obj, &s) != PW_OK)
            fail_msg("%s", pw_last_error());
        assert_int_equal(s->n_tris, 2);
        pw_scene_free(s);
        if (k == 1)
            rmdir(mtl);
        remove_obj(dir);
    }
    /* And with the library read, the two objects keep their colours. */
    write_obj(text, red_blue, dir, sizeof dir, obj, sizeof obj);
    pw_scene *s = NULL;
    assert_int_equal(pw_scene_load(obj, &s), PW_OK);
    assert_int_equal(s->n_tris, 2);
    pw_vec3 a = s->mats[s->tri_mat[0]].albedo, b = s->mats[s->tri_mat[1]].albedo;
    assert_true(a.x == 1.0f && a.z == 0.0f && b.x == 0.0f && b.z == 1.0f);
    pw_scene_free(s);
    remove_obj(dir);
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
        cmocka_unit_test(damaged_obj_and_mtl_fail),
        cmocka_unit_test(unreadable_mtl_is_left_out),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
