/* PLY files through pathwave's own reader (scene/ply_read.c): every
 * encoding and type a file may use gives the same mesh, the shared bunnies
 * give the triangles assimp gave, and damaged files (truncated, zeroed,
 * NUL bytes, a face longer than its line, absurd counts, NaN) fail with a
 * message that names the file and what is wrong, directly and through
 * pbrt's plymesh. */
#include "test_common.h"

#include <assimp/cimport.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <unistd.h>
#include <zlib.h>

#include "scene/ply_read.h"
#include "scene/scene.h"

static char tmpdir[] = "/tmp/pw_test_ply_XXXXXX";

/* ---- writing test files ---- */

typedef struct wbuf {
    unsigned char *b;
    size_t n, cap;
} wbuf;

static void w_bytes(wbuf *w, const void *p, size_t n)
{
    if (w->n + n + 1 > w->cap) {
        w->cap = 2 * (w->n + n + 1);
        w->b = realloc(w->b, w->cap);
        assert_non_null(w->b);
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
    w->b[w->n] = '\0';
}

static void w_text(wbuf *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void w_text(wbuf *w, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    w_bytes(w, line, (size_t)n);
}

enum { ASCII, LE, BE };
static const char *const format_names[] = {"ascii", "binary_little_endian", "binary_big_endian"};

/* One value of a PLY type: text in ASCII, else its bytes in the file's order. */
static void w_value(wbuf *w, int format, const char *type, double v)
{
    int is_float = strstr(type, "float") != NULL, is_double = strcmp(type, "double") == 0 || strstr(type, "64");
    if (format == ASCII) {
        if (is_double)
            w_text(w, "%.17g ", v);
        else if (is_float)
            w_text(w, "%.9g ", (double)(float)v);
        else
            w_text(w, "%.0f ", v);
        return;
    }
    unsigned char b[8];
    size_t size;
    if (is_double) {
        memcpy(b, &v, size = 8);
    } else if (is_float) {
        float f = (float)v;
        memcpy(b, &f, size = 4);
    } else if (strstr(type, "char") || strstr(type, "8")) {
        b[0] = (unsigned char)(long long)v;
        size = 1;
    } else if (strstr(type, "short") || strstr(type, "16")) {
        uint16_t x = (uint16_t)(long long)v;
        memcpy(b, &x, size = 2);
    } else {
        uint32_t x = (uint32_t)(long long)v;
        memcpy(b, &x, size = 4);
    }
    const uint16_t one = 1;
    int host_be = *(const unsigned char *)&one == 0;
    if ((format == BE) != host_be)
        for (size_t i = 0; i < size / 2; i++) {
            unsigned char t = b[i];
            b[i] = b[size - 1 - i];
            b[size - 1 - i] = t;
        }
    w_bytes(w, b, size);
}

static void w_end_record(wbuf *w, int format)
{
    if (format == ASCII)
        w_bytes(w, "\n", 1);
}

/* The fixture: 5 vertices with normals, uvs and a colour, a quad and a
 * triangle with pbrt-v4's face_indices, and an element pathwave does not
 * know (with a list) that must be read past. */
static const double fix_p[5][3] = {{0.1, 0.2, 0.3}, {1.0 / 3.0, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 2, 1e-7}};
static const double fix_n[5][3] = {{0, 0, 1}, {0, 0.6, 0.8}, {1, 0, 0}, {0, -1, 0}, {0.25, 0.5, 0.75}};
static const double fix_uv[5][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.5, 2}};
static const uint32_t fix_tris[3][3] = {{0, 1, 2}, {0, 2, 3}, {3, 2, 4}};

typedef struct fixture_types {
    const char *coord, *count, *index, *uv_names[2];
} fixture_types;

static void write_fixture(wbuf *w, int format, const fixture_types *t)
{
    w_text(w, "ply\nformat %s 1.0\ncomment written by test_ply\nobj_info fixture\n", format_names[format]);
    w_text(w, "element vertex 5\nproperty %s x\nproperty %s y\nproperty %s z\nproperty uchar red\n", t->coord, t->coord,
           t->coord);
    w_text(w, "property float nx\nproperty float ny\nproperty float nz\nproperty float %s\nproperty float %s\n",
           t->uv_names[0], t->uv_names[1]);
    w_text(w, "element face 2\nproperty list %s %s vertex_indices\nproperty int face_indices\n", t->count, t->index);
    w_text(w, "element edge 1\nproperty int vertex1\nproperty list uchar float weights\nproperty int vertex2\n");
    w_text(w, "end_header\n");
    for (int i = 0; i < 5; i++) {
        for (int k = 0; k < 3; k++)
            w_value(w, format, t->coord, fix_p[i][k]);
        w_value(w, format, "uchar", 200);
        for (int k = 0; k < 3; k++)
            w_value(w, format, "float", fix_n[i][k]);
        w_value(w, format, "float", fix_uv[i][0]);
        w_value(w, format, "float", fix_uv[i][1]);
        w_end_record(w, format);
    }
    static const int quad[] = {0, 1, 2, 3}, tri[] = {3, 2, 4};
    w_value(w, format, t->count, 4);
    for (int k = 0; k < 4; k++)
        w_value(w, format, t->index, quad[k]);
    w_value(w, format, "int", 0);
    w_end_record(w, format);
    w_value(w, format, t->count, 3);
    for (int k = 0; k < 3; k++)
        w_value(w, format, t->index, tri[k]);
    w_value(w, format, "int", 1);
    w_end_record(w, format);
    w_value(w, format, "int", 0);
    w_value(w, format, "uchar", 2);
    w_value(w, format, "float", 0.5);
    w_value(w, format, "float", 0.25);
    w_value(w, format, "int", 4);
    w_end_record(w, format);
}

static void check_fixture(const pw_ply_mesh *m)
{
    assert_int_equal(m->n_verts, 5);
    assert_int_equal(m->n_tris, 3);
    assert_non_null(m->nrm);
    assert_non_null(m->uv);
    for (int i = 0; i < 5; i++) {
        pw_vec3 p = v3((float)fix_p[i][0], (float)fix_p[i][1], (float)fix_p[i][2]);
        pw_vec3 n = v3((float)fix_n[i][0], (float)fix_n[i][1], (float)fix_n[i][2]);
        if (memcmp(&m->pos[i], &p, sizeof p) != 0 || memcmp(&m->nrm[i], &n, sizeof n) != 0)
            fail_msg("vertex %d: (%.9g %.9g %.9g) normal (%g %g %g)", i, m->pos[i].x, m->pos[i].y, m->pos[i].z,
                     m->nrm[i].x, m->nrm[i].y, m->nrm[i].z);
        assert_true(m->uv[2 * i] == (float)fix_uv[i][0] && m->uv[2 * i + 1] == (float)fix_uv[i][1]);
    }
    assert_memory_equal(m->tri, fix_tris, sizeof fix_tris);
}

/* Counts the warnings a parse reports, keeping the last. */
typedef struct warnings {
    int count;
    char last[512];
} warnings;

static void collect_warning(const char *msg, void *user)
{
    warnings *w = user;
    w->count++;
    snprintf(w->last, sizeof w->last, "%s", msg);
}

/* Every encoding, coordinate type, list length and index type, and every
 * name of the texture coordinates, gives the same mesh: the quad as the
 * fan (0 1 2) (0 2 3), the values of the normals and uvs, the unknown
 * element and per-face property read past without a warning. */
static void encodings_and_types_agree(void **state)
{
    (void)state;
    static const fixture_types types[] = {
        {"float", "uchar", "int", {"u", "v"}},
        {"double", "uchar", "uint", {"s", "t"}},
        {"float32", "uint8", "int32", {"texture_u", "texture_v"}},
        {"float64", "ushort", "ushort", {"texture_s", "texture_t"}},
        {"double", "int", "short", {"u", "v"}},
        {"float", "char", "uchar", {"s", "t"}},
    };
    for (size_t t = 0; t < sizeof types / sizeof *types; t++)
        for (int f = ASCII; f <= BE; f++) {
            wbuf w = {0};
            write_fixture(&w, f, &types[t]);
            pw_ply_mesh m;
            warnings warned = {0};
            if (pw_ply_parse("fixture.ply", w.b, w.n, collect_warning, &warned, &m) != PW_OK)
                fail_msg("%s, %s coordinates, list %s %s: %s", format_names[f], types[t].coord, types[t].count,
                         types[t].index, pw_last_error());
            check_fixture(&m);
            assert_int_equal(warned.count, 0);
            pw_ply_free(&m);
            free(w.b);
        }
}

/* Double coordinates keep their value up to the float the renderer holds:
 * the nearest float, not one rounded twice through a shorter decimal. */
static void double_coordinates_round_once(void **state)
{
    (void)state;
    const double x = 0.1234567890123456789, big = 3.0e38, tiny = 1.0e-40;
    for (int f = ASCII; f <= BE; f++) {
        wbuf w = {0};
        w_text(&w, "ply\nformat %s 1.0\nelement vertex 3\nproperty double x\nproperty double y\nproperty double z\n",
               format_names[f]);
        w_text(&w, "element face 1\nproperty list uchar int vertex_indices\nend_header\n");
        const double v[3][3] = {{x, -x, big}, {tiny, 0, 1}, {1, 1, 1}};
        for (int i = 0; i < 3; i++) {
            for (int k = 0; k < 3; k++)
                w_value(&w, f, "double", v[i][k]);
            w_end_record(&w, f);
        }
        w_value(&w, f, "uchar", 3);
        for (int k = 0; k < 3; k++)
            w_value(&w, f, "int", k);
        w_end_record(&w, f);
        pw_ply_mesh m;
        assert_int_equal(pw_ply_parse("double.ply", w.b, w.n, NULL, NULL, &m), PW_OK);
        for (int i = 0; i < 3; i++) {
            pw_vec3 p = v3((float)v[i][0], (float)v[i][1], (float)v[i][2]);
            assert_memory_equal(&m.pos[i], &p, sizeof p);
        }
        assert_null(m.nrm);
        assert_null(m.uv);
        pw_ply_free(&m);
        free(w.b);
    }
}

/* A polygon of n corners is the fan (0 1 2) (0 2 3) ... (0 n-2 n-1). */
static void polygons_are_fans(void **state)
{
    (void)state;
    const char text[] =
        "ply\nformat ascii 1.0\nelement vertex 6\nproperty float x\nproperty float y\nproperty float z\n"
        "element face 3\nproperty list uchar uint vertex_index\nend_header\n"
        "0 0 0\n1 0 0\n2 1 0\n1 2 0\n0 2 0\n-1 1 0\n"
        "6 0 1 2 3 4 5\n4 5 4 3 2\n3 1 2 3\n";
    pw_ply_mesh m;
    assert_int_equal(pw_ply_parse("poly.ply", (const unsigned char *)text, sizeof text - 1, NULL, NULL, &m), PW_OK);
    static const uint32_t want[][3] = {{0, 1, 2}, {0, 2, 3}, {0, 3, 4}, {0, 4, 5}, {5, 4, 3}, {5, 3, 2}, {1, 2, 3}};
    assert_int_equal(m.n_tris, 7);
    assert_memory_equal(m.tri, want, sizeof want);
    pw_ply_free(&m);
}

/* ---- files on disk ---- */

static void write_path(const char *name, const void *data, size_t n, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static unsigned char *read_whole(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*n + 1);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

/* pw_scene_load must fail on path with a message naming it and saying
 * `reason`; so must a pbrt scene whose plymesh is that file. */
static void expect_load_fails(const char *path, const char *reason)
{
    pw_scene *s = NULL;
    pw_status st = pw_scene_load(path, &s);
    const char *msg = pw_last_error();
    printf("%s\n", st == PW_OK ? "(loaded)" : msg);
    if (st == PW_OK || s || !strstr(msg, path) || !strstr(msg, reason))
        fail_msg("%s: status %d, message '%s', expected one with '%s'", path, st, st == PW_OK ? "" : msg, reason);
    char scene[1024], pbrt[1200];
    snprintf(pbrt, sizeof pbrt, "WorldBegin\nShape \"plymesh\" \"string filename\" \"%s\"\n", path);
    write_path("plymesh.pbrt", pbrt, strlen(pbrt), scene, sizeof scene);
    st = pw_scene_load(scene, &s);
    msg = pw_last_error();
    char want[1200];
    snprintf(want, sizeof want, "%s:2:1: plymesh: %s: ", scene, path);
    if (st == PW_OK || s || strncmp(msg, want, strlen(want)) != 0 || !strstr(msg, reason))
        fail_msg("plymesh %s: status %d, message '%s', expected '%s...%s'", path, st, st == PW_OK ? "" : msg, want,
                 reason);
    unlink(scene);
}

static int shared_bunny(const char *name, char *path, size_t n)
{
    char rel[256];
    snprintf(rel, sizeof rel, "scenes/stanford-bunny/%s", name);
    return pw_test_shared_file(rel, path, n);
}

/* Defect: assimp 5.2.5 aborted the process (an assertion in its
 * triangulation) on a truncated ASCII PLY. Each cut must be an error. */
static void truncated_ascii_fails(void **state)
{
    (void)state;
    char src[1024], path[1024];
    if (!shared_bunny("bun_zipper_res4.ply", src, sizeof src))
        PW_SKIP("%s is absent", src);
    size_t n;
    unsigned char *b = read_whole(src, &n);
    const size_t cuts[] = {500, n / 2, n - 12};
    const char *const reasons[] = {"truncated", "found end of data", "face 947: expected 3 vertex indices, found"};
    for (int i = 0; i < 3; i++) {
        write_path("truncated.ply", b, cuts[i], path, sizeof path);
        expect_load_fails(path, reasons[i]);
    }
    free(b);
}

/* Defect: a binary PLY whose last block is zeroed aborted assimp the same
 * way; zeroed faces have no vertex indices. A zeroed block amid the faces
 * and a truncated binary file fail too. */
static void zeroed_binary_fails(void **state)
{
    (void)state;
    char src[1024], path[1024];
    if (!shared_bunny("bunny.ply", src, sizeof src))
        PW_SKIP("%s is absent", src);
    size_t n;
    unsigned char *b = read_whole(src, &n);
    unsigned char *z = malloc(n);
    const size_t starts[] = {n - 4096, n - 400000};
    for (int i = 0; i < 2; i++) {
        memcpy(z, b, n);
        memset(z + starts[i], 0, 4096);
        write_path("zeroed.ply", z, n, path, sizeof path);
        expect_load_fails(path, "0 vertex indices; a face needs at least 3");
    }
    write_path("truncated-binary.ply", b, n - 100, path, sizeof path);
    expect_load_fails(path, "found end of data");
    free(z);
    free(b);
}

/* Defect: an ASCII PLY whose middle third is NUL bytes loaded (948 faces of
 * a sliver). */
static void nul_bytes_fail(void **state)
{
    (void)state;
    char src[1024], path[1024];
    if (!shared_bunny("bun_zipper_res4.ply", src, sizeof src))
        PW_SKIP("%s is absent", src);
    size_t n;
    unsigned char *b = read_whole(src, &n);
    memset(b + n / 3, 0, n / 3);
    write_path("nul.ply", b, n, path, sizeof path);
    expect_load_fails(path, "NUL byte in ASCII data");
    free(b);
}

/* Defect: a face that claims 255 indices and has 3 loaded as 254
 * triangles, eating the next lines' numbers. */
static void face_longer_than_its_line_fails(void **state)
{
    (void)state;
    char src[1024], path[1024];
    if (!shared_bunny("bun_zipper_res4.ply", src, sizeof src))
        PW_SKIP("%s is absent", src);
    size_t n;
    unsigned char *b = read_whole(src, &n);
    /* The 101st line from the end is a face of bun_zipper_res4.ply. */
    size_t at = n, lines = 0;
    while (at > 0 && lines < 101)
        lines += b[--at] == '\n';
    assert_true(b[at + 1] == '3' && b[at + 2] == ' ');
    wbuf w = {0};
    w_bytes(&w, b, at + 1);
    w_text(&w, "255");
    w_bytes(&w, b + at + 2, n - at - 2);
    write_path("long-face.ply", w.b, w.n, path, sizeof path);
    expect_load_fails(path, "expected 255 vertex indices, found 3");
    free(w.b);
    free(b);
}

/* A .ply.gz (pbrt-v4 scenes ship them) loads as the file it holds, through
 * pw_scene_load and through plymesh. */
static void gzip_loads(void **state)
{
    (void)state;
    wbuf w = {0};
    const fixture_types t = {"float", "uchar", "int", {"u", "v"}};
    write_fixture(&w, LE, &t);
    char path[1024];
    snprintf(path, sizeof path, "%s/fixture.ply.gz", tmpdir);
    gzFile gz = gzopen(path, "wb");
    assert_non_null(gz);
    assert_int_equal(gzwrite(gz, w.b, (unsigned)w.n), (int)w.n);
    assert_int_equal(gzclose(gz), Z_OK);
    pw_scene *s;
    if (pw_scene_load(path, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    assert_int_equal(s->n_tris, 3);
    assert_int_equal(s->n_verts, 5);
    assert_non_null(s->nrm);
    assert_non_null(s->uv);
    for (uint32_t i = 0; i < 9; i++)
        assert_int_equal(s->tri_idx[i], fix_tris[i / 3][i % 3]);
    assert_true(s->pos[1].x == (float)(1.0 / 3.0) && s->nrm[4].z == 0.75f && s->uv[2 * 4 + 1] == 2.0f);
    assert_int_equal(s->n_mats, 1);
    assert_int_equal(s->mats[0].type, PW_MAT_LAMBERT);
    assert_int_equal(s->env.type, PW_ENV_GRADIENT);
    pw_scene_free(s);
    char scene[1024], pbrt[1200];
    snprintf(pbrt, sizeof pbrt, "WorldBegin\nShape \"plymesh\" \"string filename\" \"fixture.ply.gz\"\n");
    write_path("gz.pbrt", pbrt, strlen(pbrt), scene, sizeof scene);
    if (pw_scene_load(scene, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    assert_int_equal(s->n_tris, 3);
    pw_scene_free(s);
    unlink(scene);
    unlink(path);
    free(w.b);
}

/* ---- damaged and absurd input ---- */

static const char head3[] = "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                            "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n";

typedef struct bad_case {
    const char *text, *reason;
} bad_case;

/* Parsing the bytes as "bad.ply" fails with a message that starts with
 * the name and holds reason, and leaves no mesh behind. */
static void expect_parse_fails(size_t case_no, const unsigned char *data, size_t len, const char *reason)
{
    pw_ply_mesh m;
    pw_status st = pw_ply_parse("bad.ply", data, len, NULL, NULL, &m);
    const char *msg = pw_last_error();
    printf("%s\n", st == PW_OK ? "(loaded)" : msg);
    if (st != PW_ERR_FORMAT || strncmp(msg, "bad.ply: ", 9) != 0 || !strstr(msg, reason))
        fail_msg("case %zu: status %d, '%s', expected '%s'", case_no, st, st == PW_OK ? "" : msg, reason);
    assert_null(m.pos);
    assert_null(m.tri);
}

/* Each file fails with a message that says what is wrong (after the name
 * "bad.ply" and, for ASCII data, the line). */
static void bad_files_fail(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"", "empty file"},
        {"plyx\nformat ascii 1.0\nend_header\n", "not a PLY file"},
        {"ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\n", "no end_header"},
        {"ply\nformat ascii 2.0\nend_header\n", "header line 2: format version 2.0"},
        {"ply\nformat text 1.0\nend_header\n", "unknown format 'text'"},
        {"ply\nelement vertex 1\n", "header line 2: expected the format line"},
        {"ply\nformat ascii 1.0\nproperty float x\n", "header line 3: a property before any element"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty half x\n", "header line 4: unknown type 'half'"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty list float int x\n", "a length of type float"},
        {"ply\nformat ascii 1.0\nelement vertex -1\n", "element count '-1' is not a whole number"},
        {"ply\nformat ascii 1.0\nelement vertex 99999999999999999999999\n", "is not a whole number"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nprop float x\n", "unknown keyword 'prop'"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nend_header\n1 2\n",
         "the vertex element has no property z"},
        {"ply\nformat ascii 1.0\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n3 0 1 2\n",
         "no vertex element"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty list uchar float x\n", "'x' is a list"},
        {"ply\nformat ascii 1.0\nelement face 1\nproperty list uchar float vertex_indices\n",
         "must be a list of integers"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nelement vertex 1\n", "a second 'vertex'"},
        {"ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nproperty float y\nproperty float z\n"
         "element face 1\nproperty int flags\nend_header\n0 0 0\n7\n",
         "the face element has no vertex_indices list"},
        {"ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\nproperty float y\nproperty float z\n"
         "element junk 5\nend_header\n",
         "element 'junk' has 5 instances but no properties"},
        {"ply\nformat ascii 1.0\nelement vertex 2147483648\nproperty float x\nproperty float y\nproperty float z\n"
         "end_header\n0 0 0\n",
         "2147483648 'vertex' elements (at least 6 bytes each) do not fit in the 6 bytes after the header"},
        {"ply\nformat binary_little_endian 1.0\nelement vertex 99999999\nproperty float x\nproperty float y\n"
         "property float z\nend_header\n\x01\x02",
         "do not fit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        expect_parse_fails(i, (const unsigned char *)cases[i].text, strlen(cases[i].text), cases[i].reason);
}

/* Damaged ASCII data under head3 (lines 11 on): each names its line. */
static void bad_ascii_data_fails(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"0 0 0\n1 0 0\n0 1 0\n3 0 1 3\n", "line 13: face 0: vertex index 3 is out of range (3 vertices)"},
        {"0 0 0\n1 0 0\n0 1 0\n3 0 -1 2\n", "line 13: face 0: vertex index -1 is out of range"},
        {"0 0 0\n1 0 0\n0 1 0\n2 0 1\n", "line 13: face 0: 2 vertex indices; a face needs at least 3"},
        {"0 0 0\n1 0 0\n0 1 0\n300 0 1 2\n", "line 13: face 0: the length of list 'vertex_indices' (uchar) '300' is "
                                             "out of range"},
        {"0 0 0\n1 0 0\nnan 1 0\n3 0 1 2\n", "line 12: vertex 2: position (nan, 1, 0) is not finite"},
        {"0 0 0\n1 0 0\n0 1e39 0\n3 0 1 2\n", "line 12: vertex 2: position (0, inf, 0) is not finite"},
        {"0 0 0\n1 0 0 5\n0 1 0\n3 0 1 2\n", "line 11: vertex 1: more values than its 3 properties ('5' after them)"},
        {"0 0 0\n1 0\n0 1 0\n3 0 1 2\n", "line 11: vertex 1: expected property 'z' (float), found end of line"},
        {"0 0 0\n1 0 zero\n0 1 0\n3 0 1 2\n", "line 11: vertex 1: expected property 'z' (float), found 'zero'"},
        {"0 0 0\n1 0 0\n0 1 0\n3 0 1.5 2\n", "line 13: face 0: expected a vertex index, found '1.5'"},
        {"0 0 0\n1 0 \x01\n0 1 0\n3 0 1 2\n", "line 11: vertex 1: expected property 'z' (float), found '\\x01'"},
        {"0 0 0\n1 0 0\n0 1 0\n", "1 'face' elements (at least 2 bytes each) do not fit in the 18 bytes"},
        {"0.00000 0 0\n1.00000 0 0\n0.00000 1 0\n", "line 13: face 0: found end of data (the header declares 1)"},
        {"0 0 0\n1 0 0\n0 1 0\n4000000000 0 1 2\n", "out of range"},
        {"0 0 0\n1 0 0\n0 1 0\n3 0 1\n", "line 13: face 0: expected 3 vertex indices, found 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        wbuf w = {0};
        w_text(&w, "%s%s", head3, cases[i].text);
        expect_parse_fails(i, w.b, w.n, cases[i].reason);
        free(w.b);
    }
}

/* Binary data: lengths, indices and NaN checked against the bytes there. */
static void bad_binary_data_fails(void **state)
{
    (void)state;
    for (int f = LE; f <= BE; f++) {
        for (int c = 0; c < 3; c++) {
            wbuf w = {0};
            w_text(&w,
                   "ply\nformat %s 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                   "element face 1\nproperty list uint int vertex_indices\nend_header\n",
                   format_names[f]);
            for (int i = 0; i < 9; i++)
                w_value(&w, f, "float", c == 0 && i == 4 ? NAN : i % 4);
            w_value(&w, f, "uint", c == 1 ? 4294967295.0 : 3);
            for (int k = 0; k < 3; k++)
                w_value(&w, f, "int", c == 2 && k == 1 ? 7 : k);
            static const char *const reasons[] = {
                "bad.ply: vertex 1: position (3, nan, 1) is not finite (NaN or infinity)",
                "bad.ply: face 0: expected 4294967295 vertex indices, found end of data",
                "bad.ply: face 0: vertex index 7 is out of range (3 vertices)"};
            pw_ply_mesh m;
            pw_status st = pw_ply_parse("bad.ply", w.b, w.n, NULL, NULL, &m);
            const char *msg = pw_last_error();
            printf("%s\n", st == PW_OK ? "(loaded)" : msg);
            if (st != PW_ERR_FORMAT || strcmp(msg, reasons[c]) != 0)
                fail_msg("%s case %d: '%s', expected '%s'", format_names[f], c, st == PW_OK ? "" : msg, reasons[c]);
            free(w.b);
        }
    }
}

/* What a load can go past is one warning each: bytes after the last
 * element, a second property for the same thing, half a normal. */
static void warnings_for_what_is_read_past(void **state)
{
    (void)state;
    static const bad_case cases[] = {
        {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
         "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n\n9 9\n",
         "w.ply: line 15: data after the last element ignored"},
        {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
         "property float u\nproperty float s\nproperty float v\n"
         "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0 1 2 3\n1 0 0 1 2 3\n0 1 0 1 2 3\n"
         "3 0 1 2\n",
         "w.ply: header line 8: vertex property 's' ignored: 'u' came first"},
        {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
         "property float nx\nproperty float ny\n"
         "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0 1 2\n1 0 0 1 2\n0 1 0 1 2\n"
         "3 0 1 2\n",
         "w.ply: the vertex element has only some of nx, ny, nz: normals ignored"},
        {"ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
         "element face 1\nproperty list uchar int vertex_indices\nproperty list uchar float texcoord\nend_header\n"
         "0 0 0\n1 0 0\n0 1 0\n3 0 1 2 6 0 0 1 0 0 1\n",
         "w.ply: list 'texcoord' of element 'face' is not read"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        pw_ply_mesh m;
        warnings warned = {0};
        if (pw_ply_parse("w.ply", (const unsigned char *)cases[i].text, strlen(cases[i].text), collect_warning, &warned,
                         &m) != PW_OK)
            fail_msg("case %zu: %s", i, pw_last_error());
        printf("%s\n", warned.last);
        assert_int_equal(warned.count, 1);
        assert_string_equal(warned.last, cases[i].reason);
        assert_int_equal(m.n_tris, 1);
        assert_null(m.nrm);
        pw_ply_free(&m);
    }
}

/* Non-regular files are refused (/dev/zero would never end). */
static void device_is_refused(void **state)
{
    (void)state;
    pw_ply_mesh m;
    assert_int_equal(pw_ply_read("/dev/zero", NULL, NULL, &m), PW_ERR_IO);
    assert_non_null(strstr(pw_last_error(), "/dev/zero: not a regular file"));
    pw_scene *s = NULL;
    assert_int_equal(pw_scene_load("/nonexistent/model.ply", &s), PW_ERR_NOT_FOUND);
    assert_non_null(strstr(pw_last_error(), "/nonexistent/model.ply: cannot open"));
}

/* ---- the shared bunnies against assimp ---- */

/* assimp's ASCII number parser is not correctly rounded: a few of its
 * floats are one unit in the last place from the nearest float, which
 * this reader gives. Binary files must agree to the bit. */
static int same_float(float a, float b, int ascii)
{
    if (a == b)
        return 1;
    return ascii && nextafterf(a, b) == b;
}

static int same_point(pw_vec3 p, struct aiVector3D q, int ascii)
{
    return same_float(p.x, q.x, ascii) && same_float(p.y, q.y, ascii) && same_float(p.z, q.z, ascii);
}

/* The reader gives assimp's vertices and triangles, index for index. */
static void compare_reader_with_assimp(const char *path, int ascii)
{
    const struct aiScene *as = aiImportFile(path, aiProcess_ValidateDataStructure | aiProcess_Triangulate);
    assert_non_null(as);
    assert_int_equal(as->mNumMeshes, 1);
    const struct aiMesh *am = as->mMeshes[0];
    pw_ply_mesh m;
    assert_int_equal(pw_ply_read(path, NULL, NULL, &m), PW_OK);
    assert_int_equal(m.n_verts, am->mNumVertices);
    assert_int_equal(m.n_tris, am->mNumFaces);
    uint32_t ulp = 0;
    for (uint32_t i = 0; i < m.n_verts; i++) {
        if (!same_point(m.pos[i], am->mVertices[i], ascii))
            fail_msg("%s: vertex %u: (%.9g %.9g %.9g), assimp (%.9g %.9g %.9g)", path, i, m.pos[i].x, m.pos[i].y,
                     m.pos[i].z, am->mVertices[i].x, am->mVertices[i].y, am->mVertices[i].z);
        ulp += m.pos[i].x != am->mVertices[i].x || m.pos[i].y != am->mVertices[i].y || m.pos[i].z != am->mVertices[i].z;
    }
    for (uint32_t f = 0; f < m.n_tris; f++) {
        assert_int_equal(am->mFaces[f].mNumIndices, 3);
        for (int k = 0; k < 3; k++)
            if (m.tri[3 * f + k] != am->mFaces[f].mIndices[k])
                fail_msg("%s: triangle %u differs from assimp's", path, f);
    }
    printf("%s: %u vertices, %u triangles as assimp's (%u vertices 1 ulp off)\n", path, m.n_verts, m.n_tris, ulp);
    pw_ply_free(&m);
    aiReleaseImport(as);
}

/* pw_scene_load gives the triangles, corner for corner, and the camera
 * that it gave through assimp (vertices joined, scene flattened). */
static void compare_scene_with_assimp(const char *path, int ascii)
{
    const struct aiScene *as = aiImportFile(path, aiProcess_ValidateDataStructure | aiProcess_Triangulate);
    assert_non_null(as);
    as = aiApplyPostProcessing(as, aiProcess_JoinIdenticalVertices | aiProcess_PreTransformVertices |
                                       aiProcess_SortByPType);
    assert_non_null(as);
    const struct aiMesh *am = as->mMeshes[0];
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    assert_int_equal(s->n_tris, am->mNumFaces);
    pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
    for (uint32_t f = 0; f < s->n_tris; f++)
        for (int k = 0; k < 3; k++) {
            struct aiVector3D q = am->mVertices[am->mFaces[f].mIndices[k]];
            if (!same_point(s->pos[s->tri_idx[3 * f + k]], q, ascii))
                fail_msg("%s: triangle %u corner %d differs from assimp's", path, f, k);
            lo = v3_min(lo, v3(q.x, q.y, q.z));
            hi = v3_max(hi, v3(q.x, q.y, q.z));
        }
    /* Every vertex of these files is used, so the automatic camera frames
     * the same box (to float rounding where assimp's ASCII floats differ). */
    pw_vec3 c = v3_scale(v3_add(lo, hi), 0.5f);
    assert_true(v3_len(v3_sub(s->cam.look_at, c)) <= 1e-6f * v3_len(v3_sub(hi, lo)));
    assert_int_equal(s->n_mats, 1);
    assert_int_equal(s->mats[0].type, PW_MAT_LAMBERT);
    assert_true(s->mats[0].albedo.x == 0.8f && s->mats[0].albedo.y == 0.8f && s->mats[0].albedo.z == 0.8f);
    assert_int_equal(s->env.type, PW_ENV_GRADIENT);
    pw_scene_free(s);
    aiReleaseImport(as);
}

static void bunnies_match_assimp(void **state)
{
    (void)state;
    static const char *const names[] = {"bunny.ply", "bun_zipper_res2.ply", "bun_zipper_res3.ply",
                                        "bun_zipper_res4.ply"};
    char path[1024];
    for (int i = 0; i < 4; i++) {
        if (!shared_bunny(names[i], path, sizeof path))
            PW_SKIP("%s is absent", path);
        compare_reader_with_assimp(path, i > 0);
        compare_scene_with_assimp(path, i > 0);
    }
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static void remove_files(void)
{
    static const char *const names[] = {"truncated.ply", "zeroed.ply", "truncated-binary.ply", "nul.ply",
                                        "long-face.ply"};
    char path[1024];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", tmpdir, names[i]);
        unlink(path);
    }
}

static int teardown(void **state)
{
    (void)state;
    remove_files();
    return rmdir(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(encodings_and_types_agree),
        cmocka_unit_test(double_coordinates_round_once),
        cmocka_unit_test(polygons_are_fans),
        cmocka_unit_test(truncated_ascii_fails),
        cmocka_unit_test(zeroed_binary_fails),
        cmocka_unit_test(nul_bytes_fail),
        cmocka_unit_test(face_longer_than_its_line_fails),
        cmocka_unit_test(gzip_loads),
        cmocka_unit_test(bad_files_fail),
        cmocka_unit_test(bad_ascii_data_fails),
        cmocka_unit_test(bad_binary_data_fails),
        cmocka_unit_test(warnings_for_what_is_read_past),
        cmocka_unit_test(device_is_refused),
        cmocka_unit_test(bunnies_match_assimp),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, setup, teardown));
}
