#include "scene/gltf_model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/gltf_accessor.h"
#include "scene/gltf_extensions.h"
#include "scene/gltf_guard.h"

pw_status pw_gltf_model_open(pw_gltf_model *g, const char *path, pw_scene *s, int ignore_required)
{
    memset(g, 0, sizeof *g);
    pw_status st = pw_gltf_doc_open(path, &g->doc);
    if (st != PW_OK)
        return st;
    if ((st = pw_gltf_check_extensions(&g->doc, s, ignore_required, g->ignored_required,
                                         sizeof g->ignored_required)) == PW_OK &&
        (st = pw_gltf_guard(&g->doc)) == PW_OK && (st = pw_gltf_walk_nodes(&g->doc, &g->tree)) == PW_OK &&
        (st = pw_gltf_read_instances(&g->doc, &g->tree, &g->instances)) == PW_OK)
        st = pw_gltf_assimp_bytes(&g->doc, &g->assimp_bytes);
    if (st != PW_OK)
        pw_gltf_model_close(g);
    return st;
}

void pw_gltf_model_close(pw_gltf_model *g)
{
    pw_gltf_instances_free(g->instances, (uint32_t)g->doc.lists[PW_GLTF_NODES].n);
    pw_gltf_tree_free(&g->tree);
    free(g->materials);
    pw_bytes_free(&g->assimp_bytes);
    pw_gltf_doc_close(&g->doc);
    memset(g, 0, sizeof *g);
}

static const cJSON *primitives_of(const pw_gltf_doc *d, const cJSON *node, long *mesh)
{
    *mesh = -1;
    if (!pw_gltf_as_index(pw_gltf_get(node, "mesh"), d->lists[PW_GLTF_MESHES].n, mesh))
        return NULL;
    const cJSON *p = pw_gltf_get(pw_gltf_at(d, PW_GLTF_MESHES, *mesh), "primitives");
    return cJSON_IsArray(p) ? p : NULL;
}

/* assimp names a node by its name, else "nodes[i]". */
static int same_node(const pw_gltf_doc *d, const struct aiNode *n, long node)
{
    const cJSON *j = pw_gltf_at(d, PW_GLTF_NODES, node);
    const char *name = pw_gltf_string(j, "name", "");
    char id[40];
    if (!name[0]) {
        snprintf(id, sizeof id, "nodes[%ld]", node);
        name = id;
    }
    long mesh;
    const cJSON *prims = primitives_of(d, j, &mesh), *children = pw_gltf_get(j, "children");
    return strcmp(n->mName.data, name) == 0 && n->mNumMeshes == (unsigned)cJSON_GetArraySize(prims) &&
           n->mNumChildren == (unsigned)cJSON_GetArraySize(children);
}

/* Compares assimp's tree below n, in pre-order from *k, with the visits. */
static int match_tree(const pw_gltf_model *g, const struct aiNode *n, uint32_t *k)
{
    uint32_t me = (*k)++;
    if (me >= g->root_offset) {
        uint32_t v = me - g->root_offset;
        if (v >= g->tree.n || !same_node(&g->doc, n, g->tree.visits[v].node))
            return 0;
    } else if (n->mNumChildren != g->tree.roots || n->mNumMeshes != 0) {
        return 0;
    }
    for (unsigned i = 0; i < n->mNumChildren; i++)
        if (!match_tree(g, n->mChildren[i], k))
            return 0;
    return 1;
}

/* The aiNode of each visit, in pre-order. */
static void collect_nodes(const struct aiNode *n, const struct aiNode **out, uint32_t *k, uint32_t cap)
{
    if (*k < cap)
        out[*k] = n;
    (*k)++;
    for (unsigned i = 0; i < n->mNumChildren; i++)
        collect_nodes(n->mChildren[i], out, k, cap);
}

/* Overwrites one vertex attribute of assimp's mesh with the accessor's
 * decoded values when the accessor is not float (assimp 5.2.5 copies
 * integer components' bytes into floats). */
static pw_status decode_attribute(pw_gltf_model *g, struct aiMesh *m, const cJSON *attrs, const char *name,
                                  int ncomp, struct aiVector3D *dst)
{
    long acc;
    if (!dst || !pw_gltf_as_index(pw_gltf_get(attrs, name), g->doc.lists[PW_GLTF_ACCESSORS].n, &acc))
        return PW_OK;
    int type = pw_gltf_component_type(&g->doc, acc);
    if (type == PW_GLTF_FLOAT || type == 0)
        return PW_OK;
    char what[96];
    snprintf(what, sizeof what, "mesh '%.48s' %s (KHR_mesh_quantization)", m->mName.data, name);
    float *v;
    uint32_t n;
    pw_status st = pw_gltf_read_accessor(&g->doc, acc, ncomp, what, &v, &n);
    if (st != PW_OK)
        return st;
    if (n != m->mNumVertices) {
        free(v);
        return pw_fail(PW_ERR_FORMAT, "%s: %s: %u values for %u vertices", g->doc.path, what, n, m->mNumVertices);
    }
    int normal = strcmp(name, "NORMAL") == 0, uv = ncomp == 2;
    for (uint32_t i = 0; i < n; i++) {
        const float *x = v + (size_t)i * (size_t)ncomp;
        struct aiVector3D p = {x[0], uv ? 1.0f - x[1] : x[1], uv ? 0.0f : x[2]}; /* assimp's v runs up */
        if (normal) {
            float len = sqrtf(p.x * p.x + p.y * p.y + p.z * p.z);
            if (len > 0.0f)
                p.x /= len, p.y /= len, p.z /= len;
        }
        dst[i] = p;
    }
    free(v);
    return PW_OK;
}

static pw_status decode_mesh(pw_gltf_model *g, struct aiMesh *m, const cJSON *prim)
{
    const cJSON *attrs = pw_gltf_get(prim, "attributes");
    pw_status st = decode_attribute(g, m, attrs, "POSITION", 3, m->mVertices);
    if (st == PW_OK)
        st = decode_attribute(g, m, attrs, "NORMAL", 3, m->mNormals);
    for (int c = 0; st == PW_OK && c < AI_MAX_NUMBER_OF_TEXTURECOORDS && c < 8; c++) {
        char name[16];
        snprintf(name, sizeof name, "TEXCOORD_%d", c);
        st = decode_attribute(g, m, attrs, name, 2, m->mTextureCoords[c]);
    }
    return st;
}

/* Per assimp mesh reached from a visit: decodes it (once) and notes the
 * file's material of its material. */
static pw_status mend_meshes(pw_gltf_model *g, struct aiScene *as, const struct aiNode **nodes, long *mat_of)
{
    unsigned char *done = calloc(as->mNumMeshes + 1, 1);
    if (!done)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", g->doc.path);
    pw_status st = PW_OK;
    for (uint32_t v = 0; v < g->tree.n && st == PW_OK; v++) {
        const struct aiNode *n = nodes[v + g->root_offset];
        long mesh;
        const cJSON *prims = primitives_of(&g->doc, pw_gltf_at(&g->doc, PW_GLTF_NODES, g->tree.visits[v].node), &mesh);
        const cJSON *prim = prims ? prims->child : NULL;
        for (unsigned p = 0; p < n->mNumMeshes && prim && st == PW_OK; p++, prim = prim->next) {
            unsigned mi = n->mMeshes[p];
            if (mi >= as->mNumMeshes || done[mi])
                continue;
            done[mi] = 1;
            struct aiMesh *m = as->mMeshes[mi];
            long mat;
            if (m->mMaterialIndex < as->mNumMaterials && mat_of[m->mMaterialIndex] < 0 &&
                pw_gltf_as_index(pw_gltf_get(prim, "material"), g->doc.lists[PW_GLTF_MATERIALS].n, &mat))
                mat_of[m->mMaterialIndex] = mat;
            st = decode_mesh(g, m, prim);
        }
    }
    free(done);
    return st;
}

static pw_status note_used(const pw_gltf_doc *d, const char *name, const cJSON *value, void *user)
{
    (void)d, (void)value;
    int *used = user;
    *used |= strcmp(name, "EXT_mesh_gpu_instancing") == 0 || strcmp(name, "KHR_texture_transform") == 0 ||
             strcmp(name, "KHR_materials_emissive_strength") == 0;
    return PW_OK;
}

/* The vertex attributes pathwave reads. */
static int read_attribute(const char *name)
{
    return strcmp(name, "POSITION") == 0 || strcmp(name, "NORMAL") == 0 || strncmp(name, "TEXCOORD_", 9) == 0;
}

/* Whether any mesh of the file has a vertex attribute that is not float. */
static int quantized(const pw_gltf_doc *d)
{
    for (long m = 0; m < d->lists[PW_GLTF_MESHES].n; m++) {
        const cJSON *prims = pw_gltf_get(pw_gltf_at(d, PW_GLTF_MESHES, m), "primitives");
        for (const cJSON *p = cJSON_IsArray(prims) ? prims->child : NULL; p; p = p->next) {
            const cJSON *attrs = pw_gltf_get(p, "attributes");
            for (const cJSON *a = cJSON_IsObject(attrs) ? attrs->child : NULL; a; a = a->next) {
                long acc;
                int t = pw_gltf_as_index(a, d->lists[PW_GLTF_ACCESSORS].n, &acc) ? pw_gltf_component_type(d, acc) : 0;
                if (t && t != PW_GLTF_FLOAT && read_attribute(a->string))
                    return 1;
            }
        }
    }
    return 0;
}

static pw_status unmatched(pw_gltf_model *g, pw_scene *s)
{
    if (quantized(&g->doc))
        return pw_fail(PW_ERR_FORMAT, "%s: its quantized vertex attributes (KHR_mesh_quantization) cannot be "
                       "decoded: assimp's node tree does not match the file's", g->doc.path);
    int used = 0;
    pw_gltf_each_extension(&g->doc, note_used, &used);
    if (used)
        pw_scene_warn(s, "%s: assimp's node tree does not match the file's: instancing, texture transforms and "
                      "emissive strength are not applied", g->doc.path);
    return PW_OK;
}

pw_status pw_gltf_model_match(pw_gltf_model *g, pw_scene *s, struct aiScene *as)
{
    g->n_materials = as->mNumMaterials;
    g->materials = malloc(((size_t)as->mNumMaterials + 1) * sizeof *g->materials);
    long *mat_of = malloc(((size_t)as->mNumMaterials + 1) * sizeof *mat_of);
    uint32_t total = g->tree.n + 1;
    const struct aiNode **nodes = malloc((size_t)total * sizeof *nodes);
    pw_status st = PW_OK;
    if (!g->materials || !mat_of || !nodes)
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", g->doc.path);
    for (uint32_t i = 0; st == PW_OK && i < as->mNumMaterials; i++) {
        pw_gltf_material_info_default(&g->materials[i]);
        mat_of[i] = -1;
    }
    if (st == PW_OK) {
        g->root_offset = g->tree.roots == 1 ? 0 : 1;
        uint32_t k = 0;
        g->matched = as->mRootNode && match_tree(g, as->mRootNode, &k) && k == g->tree.n + g->root_offset;
        if (!g->matched) {
            st = unmatched(g, s);
        } else {
            k = 0;
            collect_nodes(as->mRootNode, nodes, &k, total);
            st = mend_meshes(g, as, nodes, mat_of);
        }
    }
    for (uint32_t i = 0; st == PW_OK && i < as->mNumMaterials; i++)
        if (mat_of[i] >= 0)
            pw_gltf_material_info_read(&g->doc, s, mat_of[i], &g->materials[i]);
    free(mat_of);
    free(nodes);
    return st;
}

const pw_bytes *pw_gltf_model_bytes(const pw_gltf_model *g)
{
    return g->assimp_bytes.data ? &g->assimp_bytes : &g->doc.file;
}

const pw_gltf_instances *pw_gltf_model_instances(const pw_gltf_model *g, uint32_t k)
{
    if (!g || !g->matched || k < g->root_offset || k - g->root_offset >= g->tree.n || !g->instances)
        return NULL;
    const pw_gltf_instances *in = &g->instances[g->tree.visits[k - g->root_offset].node];
    return in->n ? in : NULL;
}

const pw_gltf_material_info *pw_gltf_model_material(const pw_gltf_model *g, uint32_t i)
{
    return g && g->materials && i < g->n_materials ? &g->materials[i] : NULL;
}
