/* A glTF file's JSON (a .gltf's text, or a .glb's JSON chunk) and a .glb's
 * binary chunk, read through pw_read_file, with the lookups the glTF
 * readers share. The top-level arrays are indexed once (cJSON's arrays are
 * lists), and buffers are read when an accessor first needs them
 * (gltf_accessor.c). */
#ifndef PW_GLTF_JSON_H
#define PW_GLTF_JSON_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "core/file_read.h"
#include "pathwave.h"

/* The top-level arrays the readers look into by index. */
enum pw_gltf_array {
    PW_GLTF_NODES,
    PW_GLTF_MESHES,
    PW_GLTF_MATERIALS,
    PW_GLTF_TEXTURES,
    PW_GLTF_IMAGES,
    PW_GLTF_CAMERAS,
    PW_GLTF_ACCESSORS,
    PW_GLTF_BUFFER_VIEWS,
    PW_GLTF_BUFFERS,
    PW_GLTF_SCENES,
    PW_GLTF_ARRAY_COUNT
};

typedef struct pw_gltf_list {
    const cJSON **items;
    int n;
} pw_gltf_list;

typedef struct pw_gltf_doc {
    const char *path; /* the file: messages name it; relative URIs are beside it */
    pw_bytes file;    /* its bytes (a .glb's whole container) */
    cJSON *root;
    const unsigned char *bin; /* a .glb's BIN chunk, else NULL */
    size_t bin_len;
    size_t glb_rest, glb_len; /* a .glb's chunks after the JSON start at glb_rest, and end at glb_len */
    pw_gltf_list lists[PW_GLTF_ARRAY_COUNT];
    /* buffers: read on demand, by gltf_accessor.c */
    pw_bytes *buffers;
    unsigned char *buffer_state; /* 0 not read yet, 1 read, 2 unreadable */
} pw_gltf_doc;

/* Reads and parses path (GLB when it starts with the "glTF" magic, else
 * JSON text). Errors name the file: PW_ERR_FORMAT for a damaged container
 * or JSON that does not parse, and pw_read_file's. */
pw_status pw_gltf_doc_open(const char *path, pw_gltf_doc *doc);
/* The same on bytes in memory (taken over by doc: freed by close). */
pw_status pw_gltf_doc_parse(const char *path, pw_bytes bytes, pw_gltf_doc *doc);
void pw_gltf_doc_close(pw_gltf_doc *doc);

/* Whether path names a glTF file (.gltf or .glb, any case). */
int pw_gltf_is_gltf_path(const char *path);

/* Item i of a top-level array, NULL when out of range. */
const cJSON *pw_gltf_at(const pw_gltf_doc *doc, enum pw_gltf_array a, long i);
/* Member key of obj (NULL when obj is NULL or has none). */
const cJSON *pw_gltf_get(const cJSON *obj, const char *key);
/* The extension object name of obj's "extensions", NULL when absent. */
const cJSON *pw_gltf_extension(const cJSON *obj, const char *name);
/* A JSON value as an index: a whole number in [0, limit). Returns 1 and
 * sets *out, or 0 (absent, not a whole number, out of range). */
int pw_gltf_as_index(const cJSON *v, long limit, long *out);
/* Member key as a finite number, def when absent; *bad (when given) is set
 * when present but not a finite number. */
double pw_gltf_number(const cJSON *obj, const char *key, double def, int *bad);
/* Member key as an array of exactly n (at most 16) finite numbers into
 * out. Returns 1, or 0 when absent and -1 when malformed (out untouched). */
int pw_gltf_numbers(const cJSON *obj, const char *key, int n, double *out);
/* The string member key, or def. */
const char *pw_gltf_string(const cJSON *obj, const char *key, const char *def);

#endif
