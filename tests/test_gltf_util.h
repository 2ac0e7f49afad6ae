/* Small glTF files written by the tests: a binary buffer built up of
 * accessors (each with a bufferView of its own), embedded as base64, and
 * the rest of the JSON given by the test. */
#ifndef PW_TEST_GLTF_UTIL_H
#define PW_TEST_GLTF_UTIL_H

#include "test_common.h"

#include <dirent.h>
#include <unistd.h>

static inline void write_file(const char *dir, const char *name, const void *data, size_t n)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

static inline void remove_file(const char *dir, const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

/* Removes the files of a test's temporary folder, then the folder. */
static inline void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            remove_file(dir, e->d_name);
    if (d)
        closedir(d);
    rmdir(dir);
}

static inline void base64(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = digits[v >> 18 & 63];
        out[o++] = digits[v >> 12 & 63];
        out[o++] = i + 1 < n ? digits[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? digits[v & 63] : '=';
    }
    out[o] = 0;
}

typedef struct test_gltf {
    unsigned char bin[8192];
    size_t bin_len;
    char views[8192], accessors[8192];
    int n;
} test_gltf;

/* Appends n bytes of data as a bufferView and an accessor of count
 * elements of the given componentType and type, extra (NULL or
 * "\"normalized\":true", ...) added to it; returns the accessor's index. */
static inline int tg_accessor(test_gltf *g, const void *data, size_t n, int component_type, int count,
                              const char *type, const char *extra)
{
    assert_true(g->bin_len + n + 3 <= sizeof g->bin);
    memcpy(g->bin + g->bin_len, data, n);
    size_t lv = strlen(g->views), la = strlen(g->accessors);
    snprintf(g->views + lv, sizeof g->views - lv, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu}",
             g->n ? "," : "", g->bin_len, n);
    snprintf(g->accessors + la, sizeof g->accessors - la,
             "%s{\"bufferView\":%d,\"componentType\":%d,\"count\":%d,\"type\":\"%s\"%s%s}", g->n ? "," : "", g->n,
             component_type, count, type, extra ? "," : "", extra ? extra : "");
    g->bin_len = (g->bin_len + n + 3) & ~(size_t)3;
    return g->n++;
}

static inline int tg_floats(test_gltf *g, const float *v, int count, int ncomp)
{
    static const char *const types[5] = {"", "SCALAR", "VEC2", "VEC3", "VEC4"};
    return tg_accessor(g, v, (size_t)count * (size_t)ncomp * sizeof *v, 5126, count, types[ncomp], NULL);
}

/* The unit quad of z = 0 facing +z, (u, v) of glTF (v down) from its top
 * left corner: accessors POSITION, NORMAL, TEXCOORD_0 and indices into
 * acc[0..3]. */
static inline void tg_quad(test_gltf *g, int acc[4])
{
    const float pos[12] = {-1, -1, 0, 1, -1, 0, 1, 1, 0, -1, 1, 0};
    const float nrm[12] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    const float uv[8] = {0, 1, 1, 1, 1, 0, 0, 0};
    const uint16_t idx[6] = {0, 1, 2, 0, 2, 3};
    char minmax[64] = "\"min\":[-1,-1,0],\"max\":[1,1,0]";
    acc[0] = tg_accessor(g, pos, sizeof pos, 5126, 4, "VEC3", minmax);
    acc[1] = tg_floats(g, nrm, 4, 3);
    acc[2] = tg_floats(g, uv, 4, 2);
    acc[3] = tg_accessor(g, idx, sizeof idx, 5123, 6, "SCALAR", NULL);
}

/* Writes dir/name: body (the JSON members besides asset, buffers,
 * bufferViews and accessors, without a trailing comma) and the buffer. */
static inline void tg_write(const test_gltf *g, const char *dir, const char *name, const char *body)
{
    static char b64[12000], json[40000];
    base64(g->bin, g->bin_len, b64);
    int n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},%s,\"buffers\":[{\"byteLength\":%zu,"
                     "\"uri\":\"data:application/octet-stream;base64,%s\"}],\"bufferViews\":[%s],\"accessors\":[%s]}",
                     body, g->bin_len, b64, g->views, g->accessors);
    assert_true(n > 0 && (size_t)n < sizeof json);
    write_file(dir, name, json, (size_t)n);
}

static inline void put_le32(unsigned char *p, uint32_t v)
{
    for (int b = 0; b < 4; b++)
        p[b] = (unsigned char)(v >> (8 * b));
}

/* The same as a .glb: the buffer in the BIN chunk. */
static inline void tg_write_glb(const test_gltf *g, const char *dir, const char *name, const char *body)
{
    static char json[40000];
    static unsigned char glb[60000];
    int n = snprintf(json, sizeof json,
                     "{\"asset\":{\"version\":\"2.0\"},%s,\"buffers\":[{\"byteLength\":%zu}],\"bufferViews\":[%s],"
                     "\"accessors\":[%s]}",
                     body, g->bin_len, g->views, g->accessors);
    assert_true(n > 0 && (size_t)n < sizeof json);
    size_t jn = ((size_t)n + 3) & ~(size_t)3, total = 28 + jn + g->bin_len;
    assert_true(total <= sizeof glb);
    put_le32(glb, 0x46546C67u);
    put_le32(glb + 4, 2);
    put_le32(glb + 8, (uint32_t)total);
    put_le32(glb + 12, (uint32_t)jn);
    put_le32(glb + 16, 0x4E4F534Au);
    memcpy(glb + 20, json, (size_t)n);
    memset(glb + 20 + n, ' ', jn - (size_t)n);
    put_le32(glb + 20 + jn, (uint32_t)g->bin_len);
    put_le32(glb + 24 + jn, 0x004E4942u);
    memcpy(glb + 28 + jn, g->bin, g->bin_len);
    write_file(dir, name, glb, total);
}

#endif
