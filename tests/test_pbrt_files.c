/* The files of a pbrt scene: Include splices the included file's tokens
 * into the stream, so a parameter list may go on after the included
 * file's end (pbrt-v4's smoke-plume) while errors still name the file and
 * line they are in; Import parses a file of its own under a copy of the
 * graphics state; .gz files are inflated and a damaged one is named;
 * devices, FIFOs and folders are refused without being read; and names and
 * paths holding terminal control bytes reach messages and the warning log
 * escaped. */
#include "test_pbrt_util.h"

#include <zlib.h>

#include "scene/pbrt/pbrt.h"
#include "scene/scene.h"

static const char *const lit = "LightSource \"infinite\" \"rgb L\" [1 1 1]\n";

static void assert_vec(pw_vec3 v, float x, float y, float z)
{
    if (v.x != x || v.y != y || v.z != z)
        fail_msg("(%g, %g, %g) is not (%g, %g, %g)", v.x, v.y, v.z, x, y, z);
}

/* tmpdir/name's path, the way the reader names it in messages. */
static const char *in_tmp(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
    return buf;
}

/* The message of a load of main text that must fail as malformed. */
static const char *main_fails(const char *text)
{
    char path[256];
    return load_fails(write_file("main.pbrt", text, path, sizeof path), PW_ERR_FORMAT);
}

/* The included file's last directive takes the parameters (and here the
 * rest of its bracketed values) that follow the Include, as in pbrt-v4's
 * smoke-plume scene; the file that included it then goes on. */
static void include_splices_tokens(void **state)
{
    (void)state;
    char inc[256], sph[256], main_path[256], text[1024];
    write_file("mesh.pbrt", "Shape \"trianglemesh\" \"point3 P\" [0 0 0  1 0 0\n", inc, sizeof inc);
    write_file("ball.pbrt", "Shape \"sphere\"\n", sph, sizeof sph);
    snprintf(text, sizeof text,
             "WorldBegin\n%sAttributeBegin\nTranslate 0 0 2\nInclude \"mesh.pbrt\"\n"
             "    1 1 0  0 1 0 ]\n  \"integer indices\" [0 1 2 2 3 0]\nAttributeEnd\n"
             "Include \"ball.pbrt\" \"float radius\" 0.5\n",
             lit);
    pw_scene *s = load_path_ok(write_file("main.pbrt", text, main_path, sizeof main_path));
    assert_int_equal(warned.count, 0);
    assert_int_equal(s->n_tris, 2);
    assert_int_equal(s->n_verts, 4);
    static const float want[4][3] = {{0, 0, 2}, {1, 0, 2}, {1, 1, 2}, {0, 1, 2}};
    for (int i = 0; i < 4; i++)
        assert_vec(s->pos[i], want[i][0], want[i][1], want[i][2]);
    static const uint32_t idx[6] = {0, 1, 2, 2, 3, 0};
    for (int i = 0; i < 6; i++)
        assert_int_equal(s->tri_idx[i], idx[i]);
    assert_int_equal(s->n_spheres, 1); /* after the AttributeEnd: the transform is the world's again */
    assert_vec(s->spheres[0].c, 0, 0, 0);
    assert_true(s->spheres[0].r == 0.5f);
    pw_scene_free(s);
}

/* Messages about spliced lists name the file and line of the token at
 * fault; and a list cannot run into an included file, as in pbrt-v4: the
 * word Include ends it, and the included file must start with a
 * directive. */
static void include_errors_name_their_file(void **state)
{
    (void)state;
    char inc[256], rad[256], main_path[256], expect[1200];
    write_file("ball.pbrt", "Shape \"sphere\"\n", inc, sizeof inc);
    write_file("radius.pbrt", "\"float radius\" 2\n", rad, sizeof rad);
    const char *msg = main_fails("WorldBegin\nInclude \"ball.pbrt\"\n  \"float radius\" x\n");
    snprintf(expect, sizeof expect, "%s:3:18: \"float radius\": expected a number, got 'x'",
             in_tmp("main.pbrt", main_path, sizeof main_path));
    assert_string_equal(msg, expect);

    write_file("open.pbrt", "Shape \"sphere\" \"float radius\" [ 2\n", inc, sizeof inc);
    msg = main_fails("WorldBegin\nAttributeBegin\nInclude \"open.pbrt\"\nAttributeEnd\n");
    snprintf(expect, sizeof expect,
             "%s:4:1: \"float radius\": expected ']' to close the values opened at %s:1:16, got 'AttributeEnd'",
             main_path, inc);
    assert_string_equal(msg, expect);

    msg = main_fails("WorldBegin\nShape \"sphere\"\nInclude \"radius.pbrt\"\n");
    snprintf(expect, sizeof expect, "%s:1:1: expected a directive, got \"float radius\"", rad);
    assert_string_equal(msg, expect);
}

/* What an Imported file defines stays (shapes, named materials); its
 * transform and attributes do not, and its tokens end with it. */
static void import_keeps_definitions_not_state(void **state)
{
    (void)state;
    char imp[256], main_path[256], text[512], expect[1200];
    write_file("imp.pbrt",
               "Translate 5 0 0\n"
               "MakeNamedMaterial \"red\" \"string type\" \"diffuse\" \"rgb reflectance\" [0.5 0.25 0]\n"
               "AttributeBegin\nShape \"sphere\" \"float radius\" 3\n",
               imp, sizeof imp);
    snprintf(text, sizeof text, "WorldBegin\n%sImport \"imp.pbrt\"\nNamedMaterial \"red\"\nShape \"sphere\"\n", lit);
    pw_scene *s = load_path_ok(write_file("main.pbrt", text, main_path, sizeof main_path));
    assert_int_equal(s->n_spheres, 2);
    assert_vec(s->spheres[0].c, 5, 0, 0);
    assert_true(s->spheres[0].r == 3.0f);
    assert_vec(s->spheres[1].c, 0, 0, 0);
    assert_vec(s->mats[s->sphere_mat[1]].albedo, 0.5f, 0.25f, 0);
    snprintf(expect, sizeof expect, "%s:0: the file ends with 1 AttributeBegin left open", imp);
    assert_int_equal(warned.count, 1);
    assert_string_equal(warned.msg[0], expect);
    pw_scene_free(s);

    snprintf(expect, sizeof expect, "%s:1:1: Import must come after WorldBegin", main_path);
    assert_string_equal(main_fails("Import \"imp.pbrt\"\n"), expect);
    write_file("ball.pbrt", "Shape \"sphere\"\n", imp, sizeof imp);
    snprintf(expect, sizeof expect, "%s:2:20: expected a directive, got \"float radius\"", main_path);
    assert_string_equal(main_fails("WorldBegin\nImport \"ball.pbrt\" \"float radius\" 2\n"), expect);
    write_file("end.pbrt", "AttributeEnd\n", imp, sizeof imp);
    snprintf(expect, sizeof expect, "%s:1:1: AttributeEnd without a matching AttributeBegin", imp);
    assert_string_equal(main_fails("WorldBegin\nAttributeBegin\nImport \"end.pbrt\"\nAttributeEnd\n"), expect);
}

/* text gzip-compressed into tmpdir/name; its compressed bytes in *gz. */
static const char *write_gz(const char *name, const char *text, unsigned char *gz, size_t *gz_len, char *buf, size_t n)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK); /* 16: gzip */
    z.next_in = (unsigned char *)text;
    z.avail_in = (uInt)strlen(text);
    z.next_out = gz;
    z.avail_out = (uInt)*gz_len;
    assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
    *gz_len = z.total_out;
    deflateEnd(&z);
    return write_bytes(name, gz, *gz_len, buf, n);
}

/* Only the file name and printable text in a message about a damaged file,
 * never its raw bytes. */
static void assert_printable(const char *msg)
{
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p >= 0x7f)
            fail_msg("byte 0x%02x in message: %s", *p, msg);
}

static void gzip_files_are_inflated(void **state)
{
    (void)state;
    unsigned char gz[512];
    size_t gz_len = sizeof gz;
    char path[256], main_path[256], text[512], expect[1200];
    snprintf(text, sizeof text, "WorldBegin\n%sShape \"sphere\" \"float radius\" 3\nInclude \"part.pbrt.gz\"\n", lit);
    write_gz("main.pbrt.gz", text, gz, &gz_len, main_path, sizeof main_path);
    gz_len = sizeof gz;
    write_gz("part.pbrt.gz", "Shape \"sphere\" \"float radius\" 4\n", gz, &gz_len, path, sizeof path);
    /* pw_pbrt_load: pw_scene_load picks readers by the last extension. */
    pw_scene *s = NULL;
    if (pw_pbrt_load(main_path, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    assert_int_equal(s->n_spheres, 2);
    assert_true(s->spheres[0].r == 3.0f && s->spheres[1].r == 4.0f);
    pw_scene_free(s);

    write_bytes("cut.pbrt.gz", gz, gz_len / 2, path, sizeof path);
    snprintf(expect, sizeof expect, "%s:2:9: %s: gzip data is truncated", in_tmp("main.pbrt", main_path, 256), path);
    const char *msg = main_fails("WorldBegin\nInclude \"cut.pbrt.gz\"\n");
    assert_string_equal(msg, expect);
    gz[gz_len - 8] ^= 0xff; /* the trailer's CRC-32 */
    write_bytes("crc.pbrt.gz", gz, gz_len, path, sizeof path);
    snprintf(expect, sizeof expect, "%s:2:9: %s: damaged gzip data (incorrect data check)", main_path, path);
    msg = main_fails("WorldBegin\nInclude \"crc.pbrt.gz\"\n");
    assert_string_equal(msg, expect);
    assert_printable(msg);
}

/* Devices, FIFOs and folders are refused before anything is read from
 * them: /dev/zero would otherwise be read up to the size cap, and opening
 * a FIFO waits for a writer that never comes. */
static void non_regular_files_are_refused(void **state)
{
    (void)state;
    char main_path[256], fifo[256], dir[256], expect[1200];
    in_tmp("main.pbrt", main_path, sizeof main_path);
    snprintf(expect, sizeof expect, "%s:2:9: /dev/zero: not a regular file", main_path);
    assert_string_equal(main_fails("WorldBegin\nInclude \"/dev/zero\"\n"), expect);
    snprintf(expect, sizeof expect, "%s:2:8: /dev/zero: not a regular file", main_path);
    assert_string_equal(main_fails("WorldBegin\nImport \"/dev/zero\"\n"), expect);
    assert_int_equal(mkdir(in_tmp("folder", dir, sizeof dir), 0700), 0);
    snprintf(expect, sizeof expect, "%s:2:9: %s: is a folder, not a file", main_path, dir);
    assert_string_equal(main_fails("WorldBegin\nInclude \"folder\"\n"), expect);
    assert_int_equal(mkfifo(in_tmp("fifo.pbrt", fifo, sizeof fifo), 0600), 0);
    snprintf(expect, sizeof expect, "%s:2:9: %s: not a regular file", main_path, fifo);
    assert_string_equal(main_fails("WorldBegin\nInclude \"fifo.pbrt\"\n"), expect);
    snprintf(expect, sizeof expect, "%s: not a regular file", fifo);
    assert_string_equal(load_fails(fifo, PW_ERR_IO), expect);
}

/* No byte below 0x20 (but the newlines between the lines of a log), no
 * DEL, no byte from 0x80 up outside the UTF-8 of "é" (which must stay as
 * it is). */
static void assert_escaped(const char *msg, int lines)
{
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
        if (p[0] == 0xc3 && p[1] == 0xa9)
            p++;
        else if ((*p < 0x20 && !(lines && *p == '\n')) || *p >= 0x7f)
            fail_msg("raw byte 0x%02x in: %s", *p, msg);
    }
}

/* A downloaded scene's names go into messages: escape sequences, BEL, the
 * C1 control CSI (0x9b) and bytes that are not UTF-8 must reach the
 * terminal (and a library user's warning log) as \xNN. */
static void control_bytes_are_escaped(void **state)
{
    (void)state;
    char main_path[256], expect[1200];
    in_tmp("main.pbrt", main_path, sizeof main_path);
    const char *msg = main_fails("Caf\xc3\xa9\x1b\x07\x9b\xff 1\n");
    snprintf(expect, sizeof expect, "%s:1:1: unknown directive 'Caf\xc3\xa9\\x1b\\x07\\x9b\\xff'", main_path);
    assert_string_equal(msg, expect);
    assert_escaped(msg, 0);
    msg = main_fails("WorldBegin\nInclude \"caf\xc3\xa9\x9b\xff\x1b[2J.pbrt\"\n");
    snprintf(expect, sizeof expect,
             "%s:2:9: %s/caf\xc3\xa9\\x9b\\xff\\x1b[2J.pbrt: cannot open (No such file or directory)", main_path,
             tmpdir);
    assert_string_equal(msg, expect);
    msg = main_fails("WorldBegin\nNamedMaterial \"bell\x07\x1b[31m\"\nShape \"sphere\"\n");
    snprintf(expect, sizeof expect, "%s:2:15: NamedMaterial \"bell\\x07\\x1b[31m\" was not defined", main_path);
    assert_string_equal(msg, expect);

    char text[256];
    snprintf(text, sizeof text, "WorldBegin\n%sMaterial \"m\x1b]0;owned\x07\x9b\"\nShape \"sphere\"\n", lit);
    pw_scene *s = load_ok(text);
    pw_scene_info info;
    pw_scene_get_info(s, &info);
    snprintf(expect, sizeof expect,
             "%s/scene.pbrt:3: material \"m\\x1b]0;owned\\x07\\x9b\" is not supported: diffuse 0.5 is used", tmpdir);
    assert_int_equal(warned.count, 1);
    assert_string_equal(warned.msg[0], expect);
    assert_escaped(info.warning_log, 1);
    assert_non_null(strstr(info.warning_log, expect));
    pw_scene_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(include_splices_tokens),
        cmocka_unit_test(include_errors_name_their_file),
        cmocka_unit_test(import_keeps_definitions_not_state),
        cmocka_unit_test(gzip_files_are_inflated),
        cmocka_unit_test(non_regular_files_are_refused),
        cmocka_unit_test(control_bytes_are_escaped),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, pbrt_tmpdir_setup, pbrt_tmpdir_teardown));
}
