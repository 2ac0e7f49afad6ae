/* glTF accessors read from their buffers (a .glb's BIN chunk, a .bin file
 * beside the model, a base64 data: URI), every offset, length and stride
 * checked against the buffer before a byte is read. Integer components are
 * decoded as the glTF specification says (normalized ones to [0, 1] or
 * [-1, 1], KHR_mesh_quantization), so callers always get floats. */
#ifndef PW_GLTF_ACCESSOR_H
#define PW_GLTF_ACCESSOR_H

#include "scene/gltf_json.h"

/* glTF's componentType codes. */
enum {
    PW_GLTF_BYTE = 5120,
    PW_GLTF_UNSIGNED_BYTE = 5121,
    PW_GLTF_SHORT = 5122,
    PW_GLTF_UNSIGNED_SHORT = 5123,
    PW_GLTF_UNSIGNED_INT = 5125,
    PW_GLTF_FLOAT = 5126
};

/* The most elements an accessor read here may have. */
#define PW_GLTF_MAX_ACCESSOR_COUNT (1u << 28)

/* Where an accessor's elements lie, from the JSON alone. */
typedef struct pw_gltf_layout {
    long buffer;      /* its buffer, -1 without a bufferView (all zeros) */
    size_t offset;    /* element 0's first byte in the buffer */
    size_t stride, elem; /* bytes from one element to the next, and of one */
    uint32_t count;
    int component_type, ncomp, normalized, sparse;
    long sparse_buffer; /* sparse: where its indices lie, how many and their componentType */
    size_t sparse_at;
    uint32_t sparse_count;
    int sparse_index_type;
} pw_gltf_layout;

/* The layout of accessor index, checked against its bufferView and the
 * buffer's byteLength (and a sparse part's against theirs), without
 * reading the buffer: PW_ERR_FORMAT naming the file, what (NULL for none)
 * and the accessor when anything is missing, malformed or out of bounds. */
pw_status pw_gltf_accessor_layout(const pw_gltf_doc *doc, long index, const char *what, pw_gltf_layout *out);
/* A sparse accessor's indices (read from its buffer) all name one of its
 * elements; PW_OK for one that is not sparse. */
pw_status pw_gltf_check_sparse_indices(pw_gltf_doc *doc, long index, const pw_gltf_layout *layout);
/* Accessor index as count x ncomp floats into *out (free it): its type
 * must have ncomp components. what names the use in messages ("node 3's
 * instance TRANSLATION"). Errors (PW_ERR_FORMAT, naming the file, what and
 * the accessor) for anything malformed, out of bounds or not readable
 * (sparse accessors, matrices). */
pw_status pw_gltf_read_accessor(pw_gltf_doc *doc, long index, int ncomp, const char *what, float **out,
                                uint32_t *count);
/* The accessor's componentType (0 when it has none or index is not an
 * accessor). */
int pw_gltf_component_type(const pw_gltf_doc *doc, long index);

#endif
