/* assimp's node tree into the scene's arrays: each node's meshes at its
 * transform to the world (what aiProcess_PreTransformVertices would do,
 * done here so that glTF's instanced nodes can be copied, once per
 * instance), with the texture coordinates a material reads (glTF's
 * texCoord and texture transform, gltf_materials.h). */
#include "scene/mesh_walk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* A node's transform as vertices get it: positions by m (column-major),
 * normals by the inverse transpose of its 3x3 part, taken as its cofactor
 * matrix (the inverse transpose times the determinant, whose sign keeps
 * the normals' side). A mirroring transform (negative determinant) turns
 * the winding around, so that triangles keep facing their normals'
 * side. */
typedef struct mesh_xform {
    double m[16];
    double n[9];
    int identity, mirror;
} mesh_xform;

static void cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void xform_of(const double m[16], mesh_xform *x)
{
    static const double id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    memcpy(x->m, m, sizeof x->m);
    x->identity = memcmp(m, id, sizeof id) == 0;
    cross3(m + 4, m + 8, x->n);
    cross3(m + 8, m, x->n + 3);
    cross3(m, m + 4, x->n + 6);
    double det = m[0] * x->n[0] + m[1] * x->n[1] + m[2] * x->n[2];
    x->mirror = det < 0.0;
}

static pw_vec3 xform_point(const mesh_xform *x, struct aiVector3D p)
{
    const double *m = x->m;
    return v3((float)(m[0] * p.x + m[4] * p.y + m[8] * p.z + m[12]),
              (float)(m[1] * p.x + m[5] * p.y + m[9] * p.z + m[13]),
              (float)(m[2] * p.x + m[6] * p.y + m[10] * p.z + m[14]));
}

static pw_vec3 xform_normal(const mesh_xform *x, struct aiVector3D n)
{
    const double *c = x->n, k = x->mirror ? -1.0 : 1.0;
    double v[3];
    for (int i = 0; i < 3; i++)
        v[i] = k * (c[i] * n.x + c[3 + i] * n.y + c[6 + i] * n.z);
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    return len > 0.0 ? v3((float)(v[0] / len), (float)(v[1] / len), (float)(v[2] / len)) : v3(n.x, n.y, n.z);
}

/* What the walk over assimp's node tree adds meshes with. */
typedef struct mesh_walk {
    pw_scene *s;
    const char *path;
    const struct aiScene *as;
    uint32_t mat_base;
    const pw_gltf_model *gltf; /* NULL for other formats */
    uint32_t visit;            /* pre-order number of the next node */
    int count_only;            /* only sum the triangles into tris */
    uint64_t tris;
} mesh_walk;

/* The texture coordinates a mesh's material reads: its channel (glTF's
 * texCoord) when the mesh has it, else the first. */
static const struct aiVector3D *mesh_uvs(const mesh_walk *w, const struct aiMesh *m)
{
    const pw_gltf_material_info *gi = pw_gltf_model_material(w->gltf, m->mMaterialIndex);
    int c = gi ? gi->uv_channel : 0;
    return c < AI_MAX_NUMBER_OF_TEXTURECOORDS && m->mTextureCoords[c] ? m->mTextureCoords[c] : m->mTextureCoords[0];
}

static pw_status add_uvs(mesh_walk *w, const struct aiMesh *m, uint32_t base)
{
    const struct aiVector3D *t = mesh_uvs(w, m);
    if (!t)
        return PW_OK;
    const pw_gltf_material_info *gi = pw_gltf_model_material(w->gltf, m->mMaterialIndex);
    float *uv = malloc((size_t)m->mNumVertices * 2 * sizeof *uv);
    if (!uv)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", w->path);
    for (unsigned i = 0; i < m->mNumVertices; i++) {
        float u = t[i].x, v = t[i].y;
        if (gi && !gi->uv_identity) { /* KHR_texture_transform */
            const float *a = gi->uv;
            float tu = a[0] * u + a[1] * v + a[2];
            v = a[3] * u + a[4] * v + a[5];
            u = tu;
        }
        uv[2 * i] = u;
        uv[2 * i + 1] = v;
    }
    pw_status st = pw_scene_set_uvs(w->s, base, uv, m->mNumVertices);
    free(uv);
    return st;
}

/* One copy of mesh m, its vertices moved by x. */
static pw_status add_ai_mesh(mesh_walk *w, const struct aiMesh *m, const mesh_xform *x)
{
    pw_vec3 *p = malloc((size_t)m->mNumVertices * sizeof *p);
    pw_vec3 *n = m->mNormals ? malloc((size_t)m->mNumVertices * sizeof *n) : NULL;
    if (!p || (m->mNormals && !n)) {
        free(p);
        free(n);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", w->path);
    }
    for (unsigned i = 0; i < m->mNumVertices; i++) {
        struct aiVector3D q = m->mVertices[i];
        p[i] = x->identity ? v3(q.x, q.y, q.z) : xform_point(x, q);
        if (n)
            n[i] = x->identity ? v3(m->mNormals[i].x, m->mNormals[i].y, m->mNormals[i].z)
                               : xform_normal(x, m->mNormals[i]);
        if (!isfinite(p[i].x) || !isfinite(p[i].y) || !isfinite(p[i].z)) { /* a transform's huge values */
            free(p);
            free(n);
            return pw_fail(PW_ERR_FORMAT, "%s: vertex %u of mesh '%s' is not finite once its node's transform is "
                           "applied", w->path, i, m->mName.data);
        }
    }
    uint32_t base = pw_scene_add_vertices(w->s, p, n, m->mNumVertices);
    free(p);
    free(n);
    if (base == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", w->path);
    pw_status st = add_uvs(w, m, base);
    for (unsigned f = 0; st == PW_OK && f < m->mNumFaces; f++) {
        const struct aiFace *face = &m->mFaces[f];
        if (face->mNumIndices != 3)
            continue; /* points and lines left over after triangulation */
        for (int k = 0; k < 3; k++)
            if (face->mIndices[k] >= m->mNumVertices)
                return pw_fail(PW_ERR_FORMAT, "%s: face %u uses vertex %u of %u", w->path, f, face->mIndices[k],
                               m->mNumVertices);
        unsigned b = face->mIndices[x->mirror ? 2 : 1], c = face->mIndices[x->mirror ? 1 : 2];
        st = pw_scene_add_triangle(w->s, base + face->mIndices[0], base + b, base + c, w->mat_base + m->mMaterialIndex);
    }
    return st;
}

/* The meshes of node n (and its children) at transform world: once, or
 * once per instance (EXT_mesh_gpu_instancing). */
static pw_status add_node_meshes(mesh_walk *w, const struct aiNode *n, const double world[16])
{
    const pw_gltf_instances *inst = pw_gltf_model_instances(w->gltf, w->visit);
    uint32_t copies = inst ? inst->n : 1;
    pw_status st = PW_OK;
    for (unsigned k = 0; st == PW_OK && k < n->mNumMeshes; k++) {
        if (n->mMeshes[k] >= w->as->mNumMeshes)
            return pw_fail(PW_ERR_FORMAT, "%s: node '%s' names mesh %u of %u", w->path, n->mName.data, n->mMeshes[k],
                           w->as->mNumMeshes);
        const struct aiMesh *m = w->as->mMeshes[n->mMeshes[k]];
        if (w->count_only) {
            w->tris += (uint64_t)m->mNumFaces * copies;
            continue;
        }
        for (uint32_t i = 0; st == PW_OK && i < copies; i++) {
            mesh_xform x;
            double mi[16];
            if (inst)
                pw_gltf_instance_matrix(inst, i, world, mi);
            xform_of(inst ? mi : world, &x);
            st = add_ai_mesh(w, m, &x);
        }
    }
    return st;
}

/* Pre-order over assimp's node tree, each node's transform times its
 * parent's (what aiProcess_PreTransformVertices would do, done here so
 * that instanced nodes can be copied). glTF trees were limited in depth
 * before assimp read them (gltf_nodes.h). */
static pw_status add_node(mesh_walk *w, const struct aiNode *n, const double parent[16])
{
    const struct aiMatrix4x4 *t = &n->mTransformation;
    const double local[16] = {t->a1, t->b1, t->c1, t->d1, t->a2, t->b2, t->c2, t->d2,
                              t->a3, t->b3, t->c3, t->d3, t->a4, t->b4, t->c4, t->d4};
    double world[16];
    pw_mat4_mul(parent, local, world);
    pw_status st = add_node_meshes(w, n, world);
    w->visit++;
    for (unsigned i = 0; st == PW_OK && i < n->mNumChildren; i++)
        st = add_node(w, n->mChildren[i], world);
    return st;
}

/* The most triangles a mesh file may expand to (its instances copied). */
#define MESH_MAX_TRIANGLES PW_GENERATED_MAX_TRIANGLES

static pw_status add_meshes(mesh_walk *w)
{
    static const double id[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    w->count_only = 1;
    w->visit = 0;
    pw_status st = add_node(w, w->as->mRootNode, id);
    if (st == PW_OK && w->tris > MESH_MAX_TRIANGLES)
        st = pw_fail(PW_ERR_FORMAT, "%s: the model expands to %llu triangles (instances copied), more than the %u "
                     "pathwave loads", w->path, (unsigned long long)w->tris, MESH_MAX_TRIANGLES);
    w->count_only = 0;
    w->visit = 0;
    return st == PW_OK ? add_node(w, w->as->mRootNode, id) : st;
}

/* A material whose textures read texture coordinates (glTF's texCoord) that
 * a mesh of it lacks: the first set is used instead. */
static void check_uv_channels(const mesh_walk *w)
{
    for (unsigned i = 0; i < w->as->mNumMeshes; i++) {
        const struct aiMesh *m = w->as->mMeshes[i];
        const pw_gltf_material_info *gi = pw_gltf_model_material(w->gltf, m->mMaterialIndex);
        int c = gi ? gi->uv_channel : 0;
        if (c > 0 && (c >= AI_MAX_NUMBER_OF_TEXTURECOORDS || !m->mTextureCoords[c]))
            pw_scene_warn(w->s, "%s: mesh '%s': its material's textures read TEXCOORD_%d, which it lacks; TEXCOORD_0 "
                          "is used", w->path, m->mName.data, gi->uv_channel);
    }
}

pw_status pw_mesh_walk(pw_scene *s, const char *path, const struct aiScene *as, uint32_t mat_base,
                       const pw_gltf_model *gltf)
{
    mesh_walk w = {s, path, as, mat_base, gltf, 0, 0, 0};
    check_uv_channels(&w);
    return add_meshes(&w);
}
