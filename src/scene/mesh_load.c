/* Triangle mesh files: PLY through pathwave's own reader (ply_read.c),
 * the others (OBJ, glTF, ...) through assimp's C API, its files read
 * through pw_read_file (assimp_io.h), OBJ and MTL files checked first
 * (obj_check.h); for glTF, with what pathwave reads of the file's JSON
 * itself (gltf_model.h: extensions, camera, lights, instances). glTF
 * materials become metallic-roughness ones with their textures and normal
 * maps; Phong-style ones (MTL) Lambert, metallic-roughness or a dielectric
 * (docs/MATERIALS.md); the nodes' meshes are placed by mesh_walk.c; a
 * camera frames the model's bounds and a white sky lights it when nothing
 * in it emits or lights it. */
#include <assimp/cimport.h>
#include <assimp/material.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>

#include "core/error.h"
#include "scene/assimp_io.h"
#include "scene/gltf_camera.h"
#include "scene/gltf_lights.h"
#include "scene/gltf_model.h"
#include "scene/mesh_walk.h"
#include "scene/obj_check.h"
#include "scene/pbrt/pbrt.h"
#include "scene/ply_read.h"
#include "scene/scene.h"
#include "scene/uri_path.h"

static uint32_t wrap_of(enum aiTextureMapMode m)
{
    return m == aiTextureMapMode_Clamp || m == aiTextureMapMode_Decal ? PW_WRAP_CLAMP
           : m == aiTextureMapMode_Mirror                           ? PW_WRAP_MIRROR
                                                                    : PW_WRAP_REPEAT;
}

/* A material's texture as written in the model: "*N" (or the name of an
 * entry of as->mTextures) is embedded in the file, anything else a file
 * path relative to the model's folder. Colour textures (linear == 0) are
 * sRGB-decoded, data textures (normal and metallic-roughness maps) not. */
static pw_status load_model_texture(pw_scene *s, const char *model, const struct aiScene *as, const char *name,
                                    uint32_t wrap, int linear, uint32_t *out)
{
    const struct aiTexture *emb = NULL;
    if (name[0] == '*') {
        char *end;
        unsigned long i = strtoul(name + 1, &end, 10);
        if (*end || end == name + 1 || i >= as->mNumTextures)
            return pw_fail(PW_ERR_FORMAT, "embedded texture %s of %u", name, as->mNumTextures);
        emb = as->mTextures[i];
    }
    for (unsigned i = 0; !emb && i < as->mNumTextures; i++)
        if (strcmp(as->mTextures[i]->mFilename.data, name) == 0)
            emb = as->mTextures[i];
    char key[2048];
    if (emb) {
        /* The cache key: the model and the embedded name. */
        snprintf(key, sizeof key, "%s%s:%s", linear ? "linear:" : "", model, name);
        if (emb->mHeight == 0)
            return linear ? pw_scene_decode_texture_linear(s, emb->pcData, emb->mWidth, wrap, key + 7, out)
                          : pw_scene_decode_texture(s, emb->pcData, emb->mWidth, wrap, key, out);
        if ((*out = pw_scene_find_texture(s, key, wrap)) != UINT32_MAX)
            return PW_OK;
        /* Uncompressed: BGRA texels. */
        if (emb->mWidth > 32768 || emb->mHeight > 32768)
            return pw_fail(PW_ERR_FORMAT, "%s: embedded image of %ux%u texels", key, emb->mWidth, emb->mHeight);
        size_t n = (size_t)emb->mWidth * emb->mHeight;
        unsigned char *rgb8 = malloc(3 * n);
        if (!rgb8)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", key);
        for (size_t i = 0; i < n; i++) {
            rgb8[3 * i] = emb->pcData[i].r;
            rgb8[3 * i + 1] = emb->pcData[i].g;
            rgb8[3 * i + 2] = emb->pcData[i].b;
        }
        pw_status st = linear ? pw_scene_add_texture_unorm8(s, rgb8, (int)emb->mWidth, (int)emb->mHeight, wrap, key, out)
                              : pw_scene_add_texture_srgb8(s, rgb8, (int)emb->mWidth, (int)emb->mHeight, wrap, key, out);
        free(rgb8);
        return st;
    }
    /* Beside the model, percent-decoded when only that name exists (glTF's
     * URIs are percent-encoded: "Box%20With%20Spaces.png"). */
    if (!pw_uri_path(model, name, key, sizeof key))
        return pw_fail(PW_ERR_FORMAT, "%s: texture path '%s' is too long", model, name);
    return linear ? pw_scene_load_texture_linear(s, key, wrap, out) : pw_scene_load_texture(s, key, wrap, out);
}

/* The first texture of the given type of a material into *tex, UINT32_MAX
 * when there is none or it cannot be read; the latter is a warning saying
 * what the material does without it. Fails only when out of memory. */
static pw_status material_texture(pw_scene *s, const char *model, const struct aiScene *as,
                                  const struct aiMaterial *am, enum aiTextureType type, int linear,
                                  const char *without, uint32_t *tex)
{
    struct aiString name;
    enum aiTextureMapMode mode[2] = {aiTextureMapMode_Wrap, aiTextureMapMode_Wrap};
    *tex = UINT32_MAX;
    if (aiGetMaterialTexture(am, type, 0, &name, NULL, NULL, NULL, NULL, mode, NULL) != aiReturn_SUCCESS)
        return PW_OK;
    pw_status st =
        load_model_texture(s, model, as, name.data, PW_WRAP_UV(wrap_of(mode[0]), wrap_of(mode[1])), linear, tex);
    if (st == PW_ERR_OUT_OF_MEMORY)
        return st;
    if (st != PW_OK) {
        *tex = UINT32_MAX;
        struct aiString mname = {0};
        aiGetMaterialString(am, AI_MATKEY_NAME, &mname);
        pw_scene_warn(s, "%s: material '%s': texture '%s' not used (%s); %s", model, mname.data, name.data,
                      pw_last_error(), without);
    }
    return PW_OK;
}

/* The base colour texture of a material, if any. glTF defines the base
 * colour as factor times texture; for the diffuse map of other formats (an
 * MTL's map_Kd) the texture replaces the colour, as exporters write a
 * default Kd beside map_Kd. A texture that cannot be read is a warning: the
 * material keeps its colour. */
static pw_status attach_albedo_texture(pw_scene *s, const char *model, const struct aiScene *as,
                                       const struct aiMaterial *am, pw_material *m)
{
    struct aiString name;
    int base = aiGetMaterialTexture(am, aiTextureType_BASE_COLOR, 0, &name, NULL, NULL, NULL, NULL, NULL, NULL) ==
               aiReturn_SUCCESS;
    uint32_t tex;
    pw_status st = material_texture(s, model, as, am, base ? aiTextureType_BASE_COLOR : aiTextureType_DIFFUSE, 0,
                                    "the material keeps its colour", &tex);
    if (st != PW_OK || tex == UINT32_MAX)
        return st;
    if (!base)
        m->albedo = v3s(1.0f);
    PW_MAT_SET_ALBEDO_TEX(m, tex);
    return PW_OK;
}

static float clamp01(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }

/* GGX alpha of a Phong exponent: the usual match of the two lobes' widths
 * (Walter et al. 2007), alpha = sqrt(2 / (Ns + 2)). */
static float alpha_of_ns(float ns) { return sqrtf(2.0f / (pw_maxf(ns, 0.0f) + 2.0f)); }

/* An MTL material (or any other format's Phong-style one) as pathwave's:
 * transparent (d < 1) or refracting (illum 4, 6, 7) ones become a (rough)
 * dielectric of index Ni, ones with a specular colour Ks the
 * metallic-roughness material, the others Lambert; docs/MATERIALS.md gives
 * the mapping. *glass tells the caller that Kd does not apply. */
static pw_material phong_material(const struct aiMaterial *am, pw_vec3 kd, pw_vec3 ks, int *glass)
{
    float ns = 0.0f, ni = 1.0f, d = 1.0f;
    int illum = 2;
    aiGetMaterialFloat(am, AI_MATKEY_SHININESS, &ns);
    aiGetMaterialFloat(am, AI_MATKEY_REFRACTI, &ni);
    aiGetMaterialFloat(am, AI_MATKEY_OPACITY, &d);
    aiGetMaterialInteger(am, "$mat.illum", 0, 0, &illum);
    *glass = d < 1.0f || illum == 4 || illum == 6 || illum == 7;
    if (*glass)
        return pw_rough_dielectric(ni >= 1.0f ? ni : 1.5f, ns > 0.0f ? alpha_of_ns(ns) : 0.0f);
    float lks = v3_luminance(ks), lkd = v3_luminance(kd);
    if (!(lks > 0.0f))
        return pw_lambert(kd.x, kd.y, kd.z);
    pw_vec3 base = v3(clamp01(kd.x + ks.x), clamp01(kd.y + ks.y), clamp01(kd.z + ks.z));
    return pw_metallic_roughness(base, lks / (lks + pw_maxf(lkd, 0.0f)), sqrtf(alpha_of_ns(ns)));
}

/* glTF metallic-roughness (assimp gives it the metallic factor), else the
 * Phong-style mapping; then emission and the textures. gi (NULL for other
 * formats) has what the glTF file's JSON adds: emissive strength
 * (KHR_materials_emissive_strength, which assimp 5.2.5 does not read). */
static pw_status convert_material(pw_scene *s, const char *model, const struct aiScene *as,
                                  const struct aiMaterial *am, const pw_gltf_material_info *gi, pw_material *out)
{
    struct aiColor4D kd = {0.8f, 0.8f, 0.8f, 1.0f}, ks = {0, 0, 0, 1}, ke = {0, 0, 0, 1};
    aiGetMaterialColor(am, AI_MATKEY_COLOR_DIFFUSE, &kd);
    /* Files without materials (PLY, STL) get a material made up by assimp,
     * with no name and a white specular colour that is not the file's: such
     * surfaces stay diffuse, as the file gives nothing else. */
    struct aiString name;
    int made_up = aiGetMaterialString(am, AI_MATKEY_NAME, &name) != aiReturn_SUCCESS ||
                  strcmp(name.data, AI_DEFAULT_MATERIAL_NAME) == 0;
    if (!made_up)
        aiGetMaterialColor(am, AI_MATKEY_COLOR_SPECULAR, &ks);
    aiGetMaterialColor(am, AI_MATKEY_COLOR_EMISSIVE, &ke);
    float metallic = 1.0f, roughness = 1.0f, strength = gi ? gi->emissive_strength : 1.0f;
    int gltf = aiGetMaterialFloat(am, AI_MATKEY_METALLIC_FACTOR, &metallic) == aiReturn_SUCCESS, glass = 0;
    if (gltf) {
        struct aiColor4D base = kd;
        aiGetMaterialColor(am, AI_MATKEY_BASE_COLOR, &base);
        aiGetMaterialFloat(am, AI_MATKEY_ROUGHNESS_FACTOR, &roughness);
        *out = pw_metallic_roughness(v3(base.r, base.g, base.b), metallic, roughness);
        if (gi)
            pw_material_set_dielectric_f0(out, gi->dielectric_f0); /* KHR_materials_ior */
    } else {
        *out = phong_material(am, v3(kd.r, kd.g, kd.b), v3(ks.r, ks.g, ks.b), &glass);
    }
    *out = pw_emissive(*out, ke.r * strength, ke.g * strength, ke.b * strength);
    uint32_t tex;
    pw_status st;
    /* Emission is the factor times the emissive texture (glTF; MTL's Ke
     * times map_Ke). Without its texture the factor alone would make the
     * whole surface a lamp, so such a material does not emit. */
    if (!v3_is_zero(out->emission)) {
        if ((st = material_texture(s, model, as, am, aiTextureType_EMISSIVE, 0, "the material does not emit",
                                   &tex)) != PW_OK)
            return st;
        struct aiString name;
        if (tex != UINT32_MAX)
            pw_material_set_map(out, PW_MAP_EMISSION, tex);
        else if (aiGetMaterialTexture(am, aiTextureType_EMISSIVE, 0, &name, NULL, NULL, NULL, NULL, NULL, NULL) ==
                 aiReturn_SUCCESS)
            out->emission = v3s(0.0f);
    }
    if (gltf) {
        /* assimp hands glTF's metallicRoughnessTexture over as the unknown type. */
        if ((st = material_texture(s, model, as, am, aiTextureType_UNKNOWN, 1,
                                   "the material keeps its metallic and roughness factors", &tex)) != PW_OK)
            return st;
        if (tex != UINT32_MAX)
            pw_material_set_map(out, PW_MAP_METALLIC_ROUGHNESS, tex);
    }
    if ((st = material_texture(s, model, as, am, aiTextureType_NORMALS, 1, "the material keeps its normals", &tex)) !=
        PW_OK)
        return st;
    if (tex != UINT32_MAX && pw_material_set_map(out, PW_MAP_NORMAL, tex)) {
        float scale = 1.0f;
        if (aiGetMaterialFloat(am, "$tex.scale", aiTextureType_NORMALS, 0, &scale) == aiReturn_SUCCESS &&
            isfinite(scale))
            out->eta.y = scale; /* PW_MAT_NORMAL_SCALE */
    }
    return glass ? PW_OK : attach_albedo_texture(s, model, as, am, out);
}

/* Camera in front of the bounding box (+z side), looking at its centre.
 * Fails for a model with no extent, which no camera can frame. */
static pw_status frame_model(pw_scene *s, const char *path)
{
    pw_vec3 lo = v3s(PW_INF), hi = v3s(-PW_INF);
    for (uint32_t i = 0; i < s->n_verts; i++) {
        lo = v3_min(lo, s->pos[i]);
        hi = v3_max(hi, s->pos[i]);
    }
    pw_vec3 c = v3_scale(v3_add(lo, hi), 0.5f);
    float radius = 0.5f * v3_len(v3_sub(hi, lo));
    if (!(radius > 0.0f) || !isfinite(radius) || !isfinite(v3_len(c)))
        return pw_fail(PW_ERR_FORMAT, "%s: the model has zero or non-finite extent", path);
    s->cam.vfov_deg = 40.0f;
    float dist = radius / sinf(0.5f * s->cam.vfov_deg * PW_PI / 180.0f);
    s->cam.look_at = c;
    s->cam.look_from = v3_add(c, v3_scale(v3_norm(v3(0.3f, 0.3f, 1.0f)), dist));
    s->cam.up = v3(0, 1, 0);
    return PW_OK;
}

/* Non-finite positions are an error in the file. They are checked before
 * identical vertices are joined, which would otherwise merge a NaN vertex
 * into another and hide it. */
static pw_status check_finite(const struct aiScene *as, const char *path)
{
    for (unsigned m = 0; m < as->mNumMeshes; m++)
        for (unsigned i = 0; i < as->mMeshes[m]->mNumVertices; i++) {
            struct aiVector3D p = as->mMeshes[m]->mVertices[i];
            if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z))
                return pw_fail(PW_ERR_FORMAT, "%s: vertex %u of mesh %u is not finite (NaN or infinity)", path, i, m);
        }
    return PW_OK;
}

/* How every mesh file's load ends: a file without triangles is an error,
 * else the automatic camera frames it; s is freed on failure. */
static pw_status frame_loaded(pw_scene *s, const char *path, pw_status st)
{
    if (st == PW_OK && s->n_tris == 0)
        st = pw_fail(PW_ERR_FORMAT, "%s: the file has no triangles", path);
    if (st == PW_OK)
        st = frame_model(s, path);
    if (st != PW_OK)
        pw_scene_free(s);
    return st;
}

/* A sky white at the horizon and blue overhead (the toy scene's) gives
 * shape to a model that nothing in the file lights. */
static void add_sky(pw_scene *s)
{
    s->env.type = PW_ENV_GRADIENT;
    s->env.bottom = v3(1.0f, 1.0f, 1.0f);
    s->env.top = v3(0.5f, 0.7f, 1.0f);
    s->env.scale = 1.0f;
}

static void scene_warning(const char *msg, void *scene) { pw_scene_warn(scene, "%s", msg); }

/* A PLY file's vertices and triangles as written, in the one material
 * such a file gets: Lambert 0.8. */
static pw_status add_ply_mesh(pw_scene *s, const char *path, const pw_ply_mesh *m)
{
    uint32_t mat = pw_scene_push_material(s, pw_lambert(0.8f, 0.8f, 0.8f));
    uint32_t base = mat == UINT32_MAX ? UINT32_MAX : pw_scene_add_vertices(s, m->pos, m->nrm, m->n_verts);
    if (base == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    pw_status st = m->uv ? pw_scene_set_uvs(s, base, m->uv, m->n_verts) : PW_OK;
    for (uint32_t t = 0; st == PW_OK && t < m->n_tris; t++) {
        const uint32_t *ix = m->tri + 3 * (size_t)t;
        st = pw_scene_add_triangle(s, base + ix[0], base + ix[1], base + ix[2], mat);
    }
    return st;
}

/* PLY (and .ply.gz) through pathwave's reader, which fails cleanly on the
 * damaged files assimp aborts on; an automatic camera and the sky. */
static pw_status load_ply(const char *path, const pw_bytes *file, pw_scene **out)
{
    pw_scene *s = pw_scene_alloc(path);
    if (!s)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    pw_ply_mesh m;
    pw_status st = pw_ply_parse(path, file->data, file->len, scene_warning, s, &m);
    if (st == PW_OK)
        st = add_ply_mesh(s, path, &m);
    pw_ply_free(&m);
    if ((st = frame_loaded(s, path, st)) != PW_OK)
        return st;
    add_sky(s);
    *out = s;
    return PW_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* A material library an OBJ file names, read already: absent to assimp
 * when it is too short for assimp's text reader (1 to 7 bytes, after which
 * it leaks the stream), refused when damaged (obj_check.c). */
static pw_status check_mtl(const char *path, const pw_bytes *b)
{
    if (b->len > 0 && b->len < 8)
        return PW_ERR_NOT_FOUND;
    return pw_mtl_check(path, b->data, b->len);
}

/* A mesh file through assimp; for glTF with what pathwave reads of the
 * file itself (gltf_model.h). */
static pw_status load_mesh_file(const char *path, const pw_load_options *opts, const pw_bytes *file,
                                 pw_scene **out)
{
    pw_scene *s = pw_scene_alloc(path);
    if (!s)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    pw_gltf_model model, *gltf = NULL;
    pw_status st = PW_OK;
    if (pw_gltf_is_gltf_path(path)) {
        if ((st = pw_gltf_model_open(&model, path, s, opts->ignore_required_extensions)) != PW_OK) {
            pw_scene_free(s);
            return st;
        }
        gltf = &model;
    }
    /* OBJ and MTL files reach assimp through checks of their bytes: damaged
     * ones crash its OBJ importer or make it leak. */
    int is_obj = ends_with(path, ".obj") || ends_with(path, ".obj.gz");
    if (is_obj && (st = pw_obj_check(path, file->data, file->len)) != PW_OK) {
        pw_scene_free(s);
        return st;
    }
    pw_assimp_io io;
    pw_assimp_io_init(&io, path, gltf ? pw_gltf_model_bytes(gltf) : file);
    io.check = is_obj ? check_mtl : NULL;
    /* Validation first: out-of-range indices in a broken file would crash
     * the later post-processing steps. */
    const struct aiScene *as = aiImportFileEx(path, aiProcess_ValidateDataStructure | aiProcess_Triangulate, &io.io);
    if (io.failed != PW_OK) {
        st = pw_fail(io.failed, "%s", io.error);
        aiReleaseImport(as);
        as = NULL;
    } else if (!as || !as->mRootNode || (as->mFlags & AI_SCENE_FLAGS_INCOMPLETE)) {
        int ignored = gltf && gltf->ignored_required[0];
        st = pw_fail(PW_ERR_FORMAT, "%s: cannot load mesh (%s%s%s)%s%s%s", path, aiGetErrorString(),
                     io.error[0] ? "; " : "", io.error, ignored ? "; it requires glTF extensions " : "",
                     ignored ? gltf->ignored_required : "", ignored ? ", which pathwave does not implement" : "");
        aiReleaseImport(as);
        as = NULL;
    }
    /* Mended in place before anything reads it: the scene is this
     * import's own until it is released. */
    if (st == PW_OK && gltf)
        st = pw_gltf_model_match(gltf, s, (struct aiScene *)as);
    if (st == PW_OK)
        st = check_finite(as, path);
    int file_camera = st == PW_OK && gltf && pw_gltf_camera(s, &gltf->doc, &gltf->tree);
    pw_camera_desc cam = s->cam;
    if (st == PW_OK && !(as = aiApplyPostProcessing(as, aiProcess_JoinIdenticalVertices))) /* released then */
        st = pw_fail(PW_ERR_FORMAT, "%s: cannot process mesh (%s)", path, aiGetErrorString());
    int emits = 0, lit = 0;
    uint32_t mat_base = s->n_mats;
    for (unsigned i = 0; st == PW_OK && i < as->mNumMaterials; i++) {
        pw_material m;
        if ((st = convert_material(s, path, as, as->mMaterials[i], pw_gltf_model_material(gltf, i), &m)) != PW_OK)
            break;
        emits |= pw_material_is_light(&m);
        if (pw_scene_push_material(s, m) == UINT32_MAX)
            st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    }
    if (st == PW_OK && as->mNumMaterials == 0 && pw_scene_push_material(s, pw_lambert(0.8f, 0.8f, 0.8f)) == UINT32_MAX)
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    if (st == PW_OK)
        st = pw_mesh_walk(s, path, as, mat_base, gltf);
    aiReleaseImport(as); /* NULL when it failed, released then */
    if (st == PW_OK && gltf)
        st = pw_gltf_add_lights(&gltf->doc, &gltf->tree, s, &lit);
    if (gltf)
        pw_gltf_model_close(gltf);
    if ((st = frame_loaded(s, path, st)) != PW_OK)
        return st;
    if (file_camera)
        s->cam = cam;
    if (!emits && !lit)
        add_sky(s);
    *out = s;
    return PW_OK;
}

void pw_load_options_default(pw_load_options *opts) { memset(opts, 0, sizeof *opts); }

pw_status pw_scene_load(const char *path, pw_scene **out) { return pw_scene_load_with(path, NULL, out); }

pw_status pw_scene_load_with(const char *path, const pw_load_options *opts, pw_scene **out)
{
    *out = NULL;
    pw_load_options defaults;
    if (!opts) {
        pw_load_options_default(&defaults);
        opts = &defaults;
    }
    if (ends_with(path, ".pbrt") || ends_with(path, ".pbrt.gz"))
        return pw_pbrt_load(path, out);
    if (pw_gltf_is_gltf_path(path)) /* its reader reads the file itself */
        return load_mesh_file(path, opts, NULL, out);
    /* The file is read once, here: assimp is handed these bytes. A PLY file
     * goes to pathwave's reader by its first line, whatever its name, as
     * assimp would otherwise pick its own PLY importer (which aborts on
     * damaged files) by the same line. */
    pw_bytes file;
    pw_status st = pw_read_file(path, PW_FILE_MAX_BYTES, &file);
    if (st != PW_OK)
        return st;
    int ply = file.len >= 4 && memcmp(file.data, "ply", 3) == 0 && (file.data[3] == '\n' || file.data[3] == '\r');
    st = ply ? load_ply(path, &file, out) : load_mesh_file(path, opts, &file, out);
    pw_bytes_free(&file);
    return st;
}
