#include "scene/scene.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "geom/ray.h"
#include "shade/bsdf.h"

pw_scene *pw_scene_alloc(const char *name)
{
    pw_scene *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    snprintf(s->name, sizeof s->name, "%s", name);
    s->env.type = PW_ENV_CONSTANT;
    s->env.top = s->env.bottom = v3s(0.0f);
    s->env.scale = 1.0f;
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = 40.0f;
    s->film_scale = 1.0f;
    s->defaults.width = 640;
    s->defaults.height = 480;
    s->defaults.spp = 64;
    s->defaults.max_depth = 8;
    s->defaults.rr_depth = 3;
    s->defaults.seed = 1;
    s->defaults.threads = 0;
    s->defaults.backend = PW_BACKEND_AUTO;
    s->defaults.light_mode = PW_LIGHT_MODE_MIS;
    s->defaults.split = 1;
    return s;
}

/* Grows *arr to hold need elements of size sz; doubles capacity. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t sz)
{
    if (need <= *cap)
        return 1;
    uint64_t nc = *cap ? (uint64_t)*cap * 2 : 16;
    while (nc < need)
        nc *= 2;
    if (nc > 0xfffffff0u)
        nc = 0xfffffff0u;
    if (nc * sz > ((uint64_t)1 << 40))
        return 0;
    if (nc < need)
        return 0;
    void *p = realloc(*arr, (size_t)nc * sz);
    if (!p)
        return 0;
    *arr = p;
    *cap = (uint32_t)nc;
    return 1;
}

uint32_t pw_scene_push_material(pw_scene *s, pw_material m)
{
    if (!grow((void **)&s->mats, &s->cap_mats, s->n_mats + 1, sizeof *s->mats))
        return UINT32_MAX;
    s->mats[s->n_mats] = m;
    return s->n_mats++;
}

pw_status pw_scene_push_sphere(pw_scene *s, pw_vec3 c, float r, uint32_t mat)
{
    uint32_t cap = s->cap_spheres;
    if (!grow((void **)&s->spheres, &cap, s->n_spheres + 1, sizeof *s->spheres) ||
        !grow((void **)&s->sphere_mat, &s->cap_spheres, s->n_spheres + 1, sizeof *s->sphere_mat))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory adding a sphere", s->name);
    s->spheres[s->n_spheres].c = c;
    s->spheres[s->n_spheres].r = r;
    s->sphere_mat[s->n_spheres++] = mat;
    s->prepared = 0;
    return PW_OK;
}

uint32_t pw_scene_add_vertices(pw_scene *s, const pw_vec3 *p, const pw_vec3 *n, uint32_t count)
{
    uint32_t first = s->n_verts, cap = s->cap_verts;
    if ((uint64_t)first + count > PW_SCENE_MAX_ELEMENTS)
        return UINT32_MAX;
    if (!grow((void **)&s->pos, &cap, first + count, sizeof *s->pos))
        return UINT32_MAX;
    /* Normals exist for all vertices or none: fill missing ones with zero,
     * which the surface code treats as "use the geometric normal". */
    if (n || s->nrm) {
        pw_vec3 *nn = realloc(s->nrm, (size_t)cap * sizeof *nn);
        if (!nn)
            return UINT32_MAX;
        if (!s->nrm)
            memset(nn, 0, (size_t)first * sizeof *nn);
        s->nrm = nn;
        for (uint32_t i = 0; i < count; i++)
            s->nrm[first + i] = n ? n[i] : v3s(0.0f);
    }
    if (s->uv) {
        float *nu = realloc(s->uv, (size_t)cap * 2 * sizeof *nu);
        if (!nu)
            return UINT32_MAX;
        memset(nu + 2 * (size_t)first, 0, (size_t)count * 2 * sizeof *nu);
        s->uv = nu;
    }
    s->cap_verts = cap;
    memcpy(s->pos + first, p, (size_t)count * sizeof *p);
    s->n_verts += count;
    s->prepared = 0;
    return first;
}

pw_status pw_scene_set_uvs(pw_scene *s, uint32_t first, const float *uv, uint32_t count)
{
    if ((uint64_t)first + count > s->n_verts)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: texture coordinates for vertices %u..%u of %u", s->name, first,
                       first + count, s->n_verts);
    if (!s->uv && !(s->uv = calloc((size_t)s->cap_verts * 2, sizeof *s->uv)))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for texture coordinates", s->name);
    memcpy(s->uv + 2 * (size_t)first, uv, (size_t)count * 2 * sizeof *uv);
    return PW_OK;
}

pw_status pw_scene_add_triangle(pw_scene *s, uint32_t a, uint32_t b, uint32_t c, uint32_t mat)
{
    /* cap_tris counts triangles: tri_idx holds 3 entries for each. */
    if (s->n_tris >= PW_SCENE_MAX_ELEMENTS)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: more than 2^30 triangles", s->name);
    if (s->n_tris == s->cap_tris) {
        uint32_t cap = s->cap_tris, idx_cap = 3 * s->cap_tris;
        if (!grow((void **)&s->tri_mat, &cap, s->n_tris + 1, sizeof *s->tri_mat) ||
            !grow((void **)&s->tri_idx, &idx_cap, 3 * cap, sizeof *s->tri_idx))
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory adding a triangle", s->name);
        s->cap_tris = cap;
    }
    uint32_t *ix = s->tri_idx + 3 * s->n_tris;
    ix[0] = a;
    ix[1] = b;
    ix[2] = c;
    s->tri_mat[s->n_tris++] = mat;
    s->prepared = 0;
    return PW_OK;
}

/* Appends a table entry t, remembering key (may be NULL) for the cache. */
static pw_status append_texture(pw_scene *s, pw_texture t, const char *key, uint32_t *out)
{
    if (s->n_textures >= PW_MAT_MAX_TEXTURES)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: more than %u textures", s->name, PW_MAT_MAX_TEXTURES);
    uint32_t cap = s->cap_textures;
    char *k = key ? strdup(key) : NULL;
    if ((key && !k) || !grow((void **)&s->textures, &cap, s->n_textures + 1, sizeof *s->textures) ||
        !grow((void **)&s->tex_keys, &s->cap_textures, s->n_textures + 1, sizeof *s->tex_keys)) {
        free(k);
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory adding a texture", s->name);
    }
    s->textures[s->n_textures] = t;
    s->tex_keys[s->n_textures] = k;
    *out = s->n_textures++;
    return PW_OK;
}

pw_status pw_scene_add_texture(pw_scene *s, const float *rgb, int w, int h, uint32_t wrap, const char *key,
                               uint32_t *out)
{
    const char *what = key ? key : s->name;
    if (w < 1 || h < 1 || w > 32768 || h > 32768)
        return pw_fail(PW_ERR_FORMAT, "%s: texture size %dx%d out of range (1..32768)", what, w, h);
    size_t n = (size_t)w * (size_t)h;
    for (size_t i = 0; i < 3 * n; i++)
        if (!isfinite(rgb[i]) || rgb[i] < 0.0f)
            return pw_fail(PW_ERR_FORMAT, "%s: texel (%zu, %zu) is negative or not finite", what, i / 3 % (size_t)w,
                           i / 3 / (size_t)w);
    if ((uint64_t)s->n_texels + n > 0x7fffffffu) /* keeps texel offsets and 3 * offset in range */
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: the scene's textures exceed 2^31 texels", what);
    if (!grow((void **)&s->texels, &s->cap_texels, s->n_texels + (uint32_t)n, 3 * sizeof *s->texels))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for a %dx%d texture", what, w, h);
    pw_texture t = {s->n_texels, (uint32_t)w, (uint32_t)h, wrap};
    pw_status st = append_texture(s, t, key, out);
    if (st != PW_OK)
        return st;
    memcpy(s->texels + 3 * (size_t)s->n_texels, rgb, 3 * n * sizeof *rgb);
    s->n_texels += (uint32_t)n;
    return PW_OK;
}

uint32_t pw_scene_find_texture(pw_scene *s, const char *key, uint32_t wrap)
{
    uint32_t same_pixels = UINT32_MAX;
    for (uint32_t i = 0; i < s->n_textures; i++) {
        if (!s->tex_keys[i] || strcmp(s->tex_keys[i], key) != 0)
            continue;
        if (s->textures[i].wrap == wrap)
            return i;
        same_pixels = i;
    }
    if (same_pixels == UINT32_MAX)
        return UINT32_MAX;
    pw_texture t = s->textures[same_pixels];
    t.wrap = wrap;
    uint32_t out;
    return append_texture(s, t, key, &out) == PW_OK ? out : UINT32_MAX;
}

/* Warnings shown for one scene: a damaged file can repeat one problem a
 * million times (a node visited again and again); past this many they are
 * counted, not shown. */
#define SCENE_MAX_SHOWN_WARNINGS 256u

void pw_scene_warn(pw_scene *s, const char *fmt, ...)
{
    if (s->n_warnings >= SCENE_MAX_SHOWN_WARNINGS) {
        if (s->n_warnings++ == SCENE_MAX_SHOWN_WARNINGS)
            pw_warn("%s: more than %u warnings; the rest are not shown", s->name, SCENE_MAX_SHOWN_WARNINGS);
        return;
    }
    char raw[512], line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    pw_escape_controls(raw, line, sizeof line); /* the log reaches library users as it is */
    s->n_warnings++;
    pw_warn("%s", line);
    size_t used = strlen(s->warning_log);
    if (used + strlen(line) + 2 <= sizeof s->warning_log)
        snprintf(s->warning_log + used, sizeof s->warning_log - used, "%s\n", line);
}

static int finite3(pw_vec3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }

/* lights: appends a delta light with its cone (zero but for spots). */
static pw_status add_delta_light(pw_scene *s, uint32_t type, pw_vec3 v, pw_vec3 L, pw_spot_cone cone,
                                 const char *what)
{
    if (!finite3(v) || !finite3(L) || L.x < 0.0f || L.y < 0.0f || L.z < 0.0f)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %s light with a non-finite %s or a negative or non-finite power",
                       s->name, what, type == PW_LIGHT_DISTANT ? "direction" : "position");
    uint32_t cap = s->cap_delta_lights, cap_cones = s->cap_delta_lights;
    if (!grow((void **)&s->delta_lights, &cap, s->n_delta_lights + 1, sizeof *s->delta_lights) ||
        !grow((void **)&s->delta_cones, &cap_cones, s->n_delta_lights + 1, sizeof *s->delta_cones) ||
        !grow((void **)&s->delta_type, &s->cap_delta_lights, s->n_delta_lights + 1, sizeof *s->delta_type))
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory adding a %s light", s->name, what);
    s->delta_lights[s->n_delta_lights].v = v;
    s->delta_lights[s->n_delta_lights].L = L;
    s->delta_cones[s->n_delta_lights] = cone;
    s->delta_type[s->n_delta_lights++] = type;
    s->prepared = 0;
    return PW_OK;
}

static const pw_spot_cone no_cone = {{0.0f, 0.0f, 0.0f}, 0.0f, 0.0f};

pw_status pw_scene_add_point_light(pw_scene *s, pw_vec3 pos, pw_vec3 intensity)
{
    return add_delta_light(s, PW_LIGHT_POINT, pos, intensity, no_cone, "point");
}

/* lights: dir scaled to unit length in *unit, or 0 when it has none. */
static int unit_direction(pw_vec3 dir, pw_vec3 *unit)
{
    float len = v3_len(dir);
    if (!(len > 0.0f) || !isfinite(len))
        return 0;
    *unit = v3_scale(dir, 1.0f / len);
    return 1;
}

pw_status pw_scene_add_distant_light(pw_scene *s, pw_vec3 dir, pw_vec3 irradiance)
{
    pw_vec3 unit;
    if (!unit_direction(dir, &unit))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: distant light with a zero or non-finite direction", s->name);
    /* Stored as the unit direction toward the light, what sampling needs. */
    return add_delta_light(s, PW_LIGHT_DISTANT, v3_scale(unit, -1.0f), irradiance, no_cone, "distant");
}

int pw_spot_cone_cosines(float angle_deg, float delta_deg, float *cos_end, float *cos_start)
{
    if (!(angle_deg >= 0.0f && angle_deg <= 180.0f))
        return 1;
    if (!(delta_deg >= 0.0f && delta_deg <= 2.0f * angle_deg))
        return 2;
    *cos_end = (float)cos(angle_deg * (M_PI / 180.0));
    *cos_start = (float)cos((angle_deg - delta_deg) * (M_PI / 180.0));
    return 0;
}

pw_status pw_scene_add_spot_light(pw_scene *s, pw_vec3 pos, pw_vec3 dir, float cos_falloff_end, float cos_falloff_start,
                                  pw_vec3 intensity)
{
    pw_spot_cone cone = {{0.0f, 0.0f, 0.0f}, cos_falloff_end, cos_falloff_start};
    if (!unit_direction(dir, &cone.axis))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: spot light with a zero or non-finite direction", s->name);
    /* Written so that NaN fails too. */
    if (!(cos_falloff_end >= -1.0f && cos_falloff_end <= 1.0f && cos_falloff_start >= -1.0f &&
          cos_falloff_start <= 1.0f))
        return pw_fail(PW_ERR_INVALID_ARGUMENT,
                       "%s: spot light cone cosines (falloff end %g, start %g) must lie in [-1, 1]", s->name,
                       (double)cos_falloff_end, (double)cos_falloff_start);
    if (cos_falloff_start < cos_falloff_end)
        return pw_fail(PW_ERR_INVALID_ARGUMENT,
                       "%s: spot light falloff starts outside its cone (cosine of the start %g is below the "
                       "end's %g)",
                       s->name, (double)cos_falloff_start, (double)cos_falloff_end);
    return add_delta_light(s, PW_LIGHT_SPOT, pos, intensity, cone, "spot");
}

pw_material pw_lambert(float r, float g, float b)
{
    pw_material m;
    memset(&m, 0, sizeof m);
    m.type = PW_MAT_LAMBERT;
    m.albedo = v3(r, g, b);
    m.ior = 1.0f;
    return m;
}

pw_material pw_metal(float r, float g, float b, float roughness)
{
    pw_material m = pw_lambert(r, g, b);
    m.type = PW_MAT_METAL;
    m.roughness = roughness;
    return m;
}

pw_material pw_conductor(pw_vec3 eta, pw_vec3 k, float alpha)
{
    pw_material m = pw_lambert(1, 1, 1);
    m.type = PW_MAT_CONDUCTOR;
    m.eta = eta;
    m.k = k;
    m.roughness = alpha;
    return m;
}

pw_material pw_dielectric(float ior)
{
    pw_material m = pw_lambert(1, 1, 1);
    m.type = PW_MAT_DIELECTRIC;
    m.ior = ior;
    return m;
}

pw_material pw_rough_dielectric(float ior, float alpha)
{
    pw_material m = pw_dielectric(ior);
    if (alpha >= PW_GGX_MIN_ALPHA) {
        m.type = PW_MAT_ROUGH_DIELECTRIC;
        m.roughness = alpha;
    }
    return m;
}

pw_material pw_metallic_roughness(pw_vec3 base_color, float metallic, float roughness)
{
    pw_material m = pw_lambert(base_color.x, base_color.y, base_color.z);
    m.type = PW_MAT_METALLIC_ROUGHNESS;
    metallic = metallic < 0.0f ? 0.0f : (metallic > 1.0f ? 1.0f : metallic);
    roughness = roughness < 0.0f ? 0.0f : (roughness > 1.0f ? 1.0f : roughness);
    m.roughness = roughness * roughness;
    m.eta.x = metallic; /* read through pw_material_metallic */
    pw_material_set_dielectric_f0(&m, 0.04f);
    return m;
}

pw_material pw_emissive(pw_material m, float r, float g, float b)
{
    m.emission = v3(r, g, b);
    return m;
}

int pw_material_set_map(pw_material *m, enum pw_map map, uint32_t tex)
{
    if (m->type == PW_MAT_CONDUCTOR || tex >= PW_MAT_MAX_TEXTURES || (unsigned)map > PW_MAP_EMISSION)
        return 0;
    if (!PW_MAT_HAS_MAPS(m)) {
        m->k = v3s(0.0f);
        m->eta.y = 1.0f;
        m->flags |= PW_MATF_MAPS;
    }
    float v = (float)(tex + 1u);
    if (map == PW_MAP_NORMAL)
        m->k.x = v;
    else if (map == PW_MAP_METALLIC_ROUGHNESS)
        m->k.y = v;
    else
        m->k.z = v;
    return 1;
}

void pw_scene_free(pw_scene *s)
{
    if (!s)
        return;
    free(s->spheres);
    free(s->sphere_mat);
    free(s->pos);
    free(s->nrm);
    free(s->uv);
    free(s->env_map);
    free(s->env_marginal);
    free(s->env_cond);
    free(s->tri_idx);
    free(s->tri_mat);
    free(s->mats);
    for (uint32_t i = 0; i < s->n_textures; i++)
        free(s->tex_keys[i]);
    free(s->tex_keys);
    free(s->textures);
    free(s->texels);
    free(s->delta_lights);
    free(s->delta_cones);
    free(s->delta_type);
    pw_bvh_free(&s->bvh);
    pw_light_table_free(&s->lights);
    free(s);
}

pw_prims pw_scene_prims(const pw_scene *s)
{
    pw_prims p = {.spheres = s->spheres, .n_spheres = s->n_spheres, .pos = s->pos, .tri_idx = s->tri_idx,
                  .n_tris = s->n_tris};
    return p;
}

/* Writes what is wrong with a material's numbers into why (field and
 * value) and returns 1, or returns 0. A NaN or infinite value makes every
 * path that meets the material a NaN ray. */
static int material_problem(const pw_material *m, char *why, size_t n)
{
    static const char *const axis[3] = {"red", "green", "blue"};
    const struct {
        const char *name;
        pw_vec3 v;
        int signed_ok;
    } colours[] = {{"albedo", m->albedo, 0}, {"emission", m->emission, 0}, {"eta", m->eta, 1}, {"k", m->k, 1}};
    for (size_t i = 0; i < sizeof colours / sizeof colours[0]; i++)
        for (int a = 0; a < 3; a++) {
            float v = v3_get(colours[i].v, a);
            if (!isfinite(v) || (!colours[i].signed_ok && v < 0.0f)) {
                snprintf(why, n, "%s %s %g, which is %s", colours[i].name, axis[a], (double)v,
                         isfinite(v) ? "negative" : "not finite");
                return 1;
            }
        }
    if (!isfinite(m->roughness) || m->roughness < 0.0f) {
        snprintf(why, n, "roughness %g, which is %s", (double)m->roughness,
                 isfinite(m->roughness) ? "negative" : "not finite");
        return 1;
    }
    int refracts = m->type == PW_MAT_DIELECTRIC || m->type == PW_MAT_ROUGH_DIELECTRIC;
    if (!isfinite(m->ior) || (refracts && !(m->ior > 0.0f))) {
        snprintf(why, n, "index of refraction %g, which is %s", (double)m->ior,
                 isfinite(m->ior) ? "not positive" : "not finite");
        return 1;
    }
    return 0;
}

/* Rejects geometry and materials that would poison the BVH or the integrator. */
static pw_status validate(const pw_scene *s)
{
    for (uint32_t i = 0; i < s->n_spheres; i++) {
        pw_sphere sp = s->spheres[i];
        if (!isfinite(sp.c.x) || !isfinite(sp.c.y) || !isfinite(sp.c.z) || !isfinite(sp.r) || !(sp.r > 0.0f))
            return pw_fail(PW_ERR_FORMAT, "%s: sphere %u has a non-finite centre or a radius that is not positive",
                           s->name, i);
        if (s->sphere_mat[i] >= s->n_mats)
            return pw_fail(PW_ERR_FORMAT, "%s: sphere %u names material %u of %u", s->name, i, s->sphere_mat[i],
                           s->n_mats);
    }
    for (uint32_t i = 0; i < s->n_verts; i++) {
        pw_vec3 p = s->pos[i];
        if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z))
            return pw_fail(PW_ERR_FORMAT, "%s: vertex %u is not finite (NaN or infinity)", s->name, i);
    }
    for (uint32_t i = 0; i < 3 * s->n_tris; i++)
        if (s->tri_idx[i] >= s->n_verts)
            return pw_fail(PW_ERR_FORMAT, "%s: triangle %u uses vertex %u of %u", s->name, i / 3, s->tri_idx[i],
                           s->n_verts);
    for (uint32_t i = 0; i < s->n_tris; i++)
        if (s->tri_mat[i] >= s->n_mats)
            return pw_fail(PW_ERR_FORMAT, "%s: triangle %u names material %u of %u", s->name, i, s->tri_mat[i],
                           s->n_mats);
    for (uint32_t i = 0; i < s->n_mats; i++) {
        const pw_material *m = &s->mats[i];
        char why[96];
        if (material_problem(m, why, sizeof why))
            return pw_fail(PW_ERR_FORMAT, "%s: material %u has %s", s->name, i, why);
        if (PW_MAT_HAS_ALBEDO_TEX(m) && PW_MAT_ALBEDO_TEX(m) >= s->n_textures)
            return pw_fail(PW_ERR_FORMAT, "%s: material %u names texture %u of %u", s->name, i, PW_MAT_ALBEDO_TEX(m),
                           s->n_textures);
        if (!PW_MAT_HAS_MAPS(m))
            continue;
        if (m->type == PW_MAT_CONDUCTOR)
            return pw_fail(PW_ERR_FORMAT, "%s: material %u is a conductor with maps", s->name, i);
        uint32_t maps[3] = {PW_MAT_NORMAL_MAP(m), PW_MAT_MR_MAP(m), PW_MAT_EMISSION_MAP(m)};
        for (int k = 0; k < 3; k++)
            if (maps[k] > s->n_textures)
                return pw_fail(PW_ERR_FORMAT, "%s: material %u names texture %u of %u", s->name, i, maps[k] - 1u,
                               s->n_textures);
    }
    if (s->n_spheres + (uint64_t)s->n_tris == 0)
        return pw_fail(PW_ERR_FORMAT, "%s: the scene has no geometry", s->name);
    if (s->n_spheres + (uint64_t)s->n_tris >= PW_NO_HIT)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: too many primitives", s->name);
    return PW_OK;
}

pw_status pw_scene_prepare(pw_scene *s, int threads)
{
    if (s->prepared)
        return PW_OK;
    pw_status st = validate(s);
    if (st != PW_OK)
        return st;
    pw_bvh_free(&s->bvh);
    pw_light_table_free(&s->lights);
    pw_prims prims = pw_scene_prims(s);
    if ((st = pw_bvh_build(&prims, s->name, threads, &s->bvh)) != PW_OK)
        return st;
    pw_light_sources src = {.prims = prims, .mats = s->mats, .sphere_mat = s->sphere_mat, .tri_mat = s->tri_mat,
                            .delta_lights = s->delta_lights, .delta_cones = s->delta_cones,
                            .delta_type = s->delta_type, .n_delta_lights = s->n_delta_lights};
    if ((st = pw_light_table_build(&src, s->name, &s->lights)) != PW_OK)
        return st;
    s->prepared = 1;
    return PW_OK;
}

pw_status pw_scene_set_environment(pw_scene *s, const char *path, float scale)
{
    return pw_scene_load_environment(s, path, scale, PW_ENV_EQUIRECT);
}

/* The map's sampling tables for its layout: cell weights are luminance
 * times the cell's solid angle, up to a constant: sin(theta) in an
 * equirectangular map, so rows near the poles are chosen less; 1 in an
 * equal-area one. marg: h + 1 entries, cond: h rows of w + 1. Fails on a
 * negative or non-finite pixel and on a black map. */
static pw_status env_tables(const char *path, const float *rgb, int w, int h, uint32_t layout, float *marg,
                            float *cond, double *total_out)
{
    double total = 0.0;
    marg[0] = 0.0f;
    for (int j = 0; j < h; j++) {
        float st_row = layout == PW_ENV_EQUAL_AREA ? 1.0f : sinf(PW_PI * ((float)j + 0.5f) / (float)h);
        float *c = cond + (size_t)j * (w + 1);
        double row = 0.0;
        c[0] = 0.0f;
        for (int i = 0; i < w; i++) {
            const float *p = rgb + 3 * ((size_t)j * w + i);
            if (!isfinite(p[0]) || !isfinite(p[1]) || !isfinite(p[2]) || p[0] < 0 || p[1] < 0 || p[2] < 0)
                return pw_fail(PW_ERR_FORMAT, "%s: pixel (%d, %d) is negative or not finite", path, i, j);
            row += (double)v3_luminance(v3(p[0], p[1], p[2])) * st_row;
            c[i + 1] = (float)row;
        }
        for (int i = 1; i <= w; i++)
            c[i] = row > 0.0 ? (float)(c[i] / row) : (float)i / (float)w;
        total += row;
        marg[j + 1] = (float)total;
    }
    for (int j = 1; j <= h; j++)
        marg[j] = total > 0.0 ? (float)(marg[j] / total) : (float)j / (float)h;
    if (!(total > 0.0))
        return pw_fail(PW_ERR_FORMAT, "%s: the environment map is black", path);
    *total_out = total;
    return PW_OK;
}

pw_status pw_scene_load_environment(pw_scene *s, const char *path, float scale, uint32_t layout)
{
    if (!(scale > 0.0f) || !isfinite(scale))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: environment scale %g must be positive", path, scale);
    float *rgb;
    int w, h;
    pw_status st = pw_image_read(path, &rgb, &w, &h);
    if (st != PW_OK)
        return st;
    float *marg = malloc(((size_t)h + 1) * sizeof *marg);
    float *cond = malloc((size_t)h * ((size_t)w + 1) * sizeof *cond);
    double total = 0.0;
    if (!marg || !cond)
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for the environment's distribution", path);
    else
        st = env_tables(path, rgb, w, h, layout, marg, cond, &total);
    if (st != PW_OK) {
        free(rgb);
        free(marg);
        free(cond);
        return st;
    }
    free(s->env_map);
    free(s->env_marginal);
    free(s->env_cond);
    s->env_map = rgb;
    s->env_marginal = marg;
    s->env_cond = cond;
    memset(&s->env, 0, sizeof s->env);
    s->env.type = PW_ENV_MAP;
    s->env.scale = scale;
    s->env.map = rgb;
    s->env.marginal = marg;
    s->env.cond = cond;
    s->env.w = (uint32_t)w;
    s->env.h = (uint32_t)h;
    s->env.total = (float)total;
    s->env.layout = layout;
    return PW_OK;
}

pw_status pw_scene_set_environment_layout(pw_scene *s, uint32_t layout)
{
    if (s->env.type != PW_ENV_MAP || s->env.layout == layout)
        return PW_OK;
    double total = 0.0;
    pw_status st = env_tables(s->name, s->env_map, (int)s->env.w, (int)s->env.h, layout, s->env_marginal,
                              s->env_cond, &total);
    if (st == PW_OK) {
        s->env.total = (float)total;
        s->env.layout = layout;
    }
    return st;
}

void pw_scene_rotate_environment(pw_scene *s, const pw_vec3 to_map[3])
{
    s->env.rotated = 1;
    for (int k = 0; k < 3; k++)
        s->env.to_map[k] = to_map[k];
}

pw_camera pw_camera_make(const pw_camera_desc *d, float aspect)
{
    pw_camera c;
    float theta = d->vfov_deg * PW_PI / 180.0f;
    float half_h = tanf(theta / 2.0f), half_w = aspect * half_h;
    if (d->fov_short_axis && aspect < 1.0f) { /* portrait: the angle spans the width */
        half_w = tanf(theta / 2.0f);
        half_h = half_w / aspect;
    }
    float focus = d->focus_dist > 0.0f ? d->focus_dist : v3_len(v3_sub(d->look_from, d->look_at));
    c.origin = d->look_from;
    c.w = v3_norm(v3_sub(d->look_from, d->look_at));
    c.u = v3_norm(v3_cross(d->up, c.w));
    c.v = v3_cross(c.w, c.u);
    if (d->mirror_x)
        c.u = v3_neg(c.u);
    c.lower_left = v3_sub(v3_sub(v3_sub(c.origin, v3_scale(c.u, half_w * focus)), v3_scale(c.v, half_h * focus)),
                          v3_scale(c.w, focus));
    c.horizontal = v3_scale(c.u, 2.0f * half_w * focus);
    c.vertical = v3_scale(c.v, 2.0f * half_h * focus);
    c.lens_radius = d->aperture / 2.0f;
    pw_camera_set_raster(&c, 1, 1);
    return c;
}

void pw_camera_set_raster(pw_camera *c, uint32_t width, uint32_t height)
{
    c->corner = v3_add(c->lower_left, c->vertical);
    c->pixel_dx = v3_scale(c->horizontal, (float)(1.0 / width));
    c->pixel_dy = v3_scale(c->vertical, (float)(-1.0 / height));
    c->lens_u = v3_scale(c->u, c->lens_radius);
    c->lens_v = v3_scale(c->v, c->lens_radius);
}

/* A constant or gradient sky folded into sky_mid + sky_slope d.y
 * (pw_env_radiance): the gradient runs from bottom at d.y = -1 to top at 1. */
static void env_prepare(pw_env *e)
{
    if (e->type == PW_ENV_GRADIENT) {
        e->sky_mid = v3_scale(v3_add(e->bottom, e->top), 0.5f * e->scale);
        e->sky_slope = v3_scale(v3_sub(e->top, e->bottom), 0.5f * e->scale);
    } else {
        e->sky_mid = v3_scale(e->top, e->scale);
        e->sky_slope = v3s(0.0f);
    }
}

pw_scene_view pw_scene_host_view(const pw_scene *s, uint32_t width, uint32_t height)
{
    pw_scene_view v;
    memset(&v, 0, sizeof v);
    v.spheres = s->spheres;
    v.sphere_mat = s->sphere_mat;
    v.n_spheres = s->n_spheres;
    v.pos = s->pos;
    v.nrm = s->nrm;
    v.uv = s->uv;
    v.tri_idx = s->tri_idx;
    v.tri_mat = s->tri_mat;
    v.n_tris = s->n_tris;
    v.mats = s->mats;
    v.n_mats = s->n_mats;
    v.textures = s->textures;
    v.texels = s->texels;
    v.n_textures = s->n_textures;
    v.nodes = s->bvh.nodes;
    v.prim_ref = s->bvh.prim_ref;
    v.leaf_prims = s->bvh.leaf_prims;
    v.nodes4 = s->bvh.nodes4;
    v.lights = s->lights.lights;
    v.light_pmf = s->lights.pmf;
    v.alias_prob = s->lights.alias_prob;
    v.alias_idx = s->lights.alias_idx;
    v.prim_light = s->lights.prim_light;
    v.n_lights = s->lights.count;
    v.delta_lights = s->delta_lights;
    v.delta_cones = s->delta_cones;
    v.env = s->env;
    env_prepare(&v.env);
    /* Half the light samples go to the map when there are other lights. */
    v.env_prob = s->env.type == PW_ENV_MAP ? (s->lights.count ? 0.5f : 1.0f) : 0.0f;
    v.cam = pw_camera_make(&s->cam, (float)width / (float)height);
    pw_camera_set_raster(&v.cam, width, height);
    v.t_min = s->t_min;
    return v;
}

/* Bytes allocated for the scene's own arrays (capacities, not counts) and
 * for the light tables of a prepared scene. */
static uint64_t scene_bytes(const pw_scene *s)
{
    uint64_t b = (uint64_t)s->cap_spheres * (sizeof *s->spheres + sizeof *s->sphere_mat);
    b += (uint64_t)s->cap_verts * (sizeof *s->pos + (s->nrm ? sizeof *s->nrm : 0) + (s->uv ? 2 * sizeof *s->uv : 0));
    b += (uint64_t)s->cap_tris * (3 * sizeof *s->tri_idx + sizeof *s->tri_mat);
    b += (uint64_t)s->cap_mats * sizeof *s->mats;
    if (s->env_map)
        b += (uint64_t)s->env.w * s->env.h * 3 * sizeof(float) + ((uint64_t)s->env.h + 1) * sizeof(float) +
             (uint64_t)s->env.h * (s->env.w + 1) * sizeof(float);
    if (s->prepared) {
        uint64_t n = s->lights.count;
        b += (uint64_t)(s->n_spheres + s->n_tris) * sizeof *s->lights.prim_light;
        b += n * (sizeof *s->lights.lights + sizeof *s->lights.pmf + sizeof *s->lights.alias_prob +
                  sizeof *s->lights.alias_idx);
    }
    return b;
}

void pw_scene_get_info(const pw_scene *s, pw_scene_info *info)
{
    memset(info, 0, sizeof *info);
    info->name = s->name;
    info->spheres = s->n_spheres;
    info->triangles = s->n_tris;
    info->materials = s->n_mats;
    info->textures = s->n_textures;
    info->warnings = s->n_warnings;
    info->warning_log = s->warning_log;
    info->lights = s->prepared ? s->lights.count : 0;
    info->bvh_nodes = s->prepared ? s->bvh.n_nodes : 0;
    info->bvh4_nodes = s->prepared ? s->bvh.n_nodes4 : 0;
    info->bvh_build_ms = s->prepared ? s->bvh.build_ms : 0.0;
    info->scene_bytes = scene_bytes(s);
    info->bvh_bytes = s->prepared ? (uint64_t)s->bvh.n_nodes * sizeof *s->bvh.nodes +
                                        (uint64_t)s->bvh.n_refs * (sizeof *s->bvh.prim_ref + sizeof *s->bvh.leaf_prims) +
                                        (uint64_t)s->bvh.n_nodes4 * sizeof *s->bvh.nodes4
                                  : 0;
}

static pw_vec3 vec_of(const float v[3]) { return v3(v[0], v[1], v[2]); }

static void put_vec(float out[3], pw_vec3 v)
{
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
}

void pw_scene_get_camera(const pw_scene *s, pw_camera_params *cam)
{
    put_vec(cam->look_from, s->cam.look_from);
    put_vec(cam->look_at, s->cam.look_at);
    put_vec(cam->up, s->cam.up);
    cam->vfov_deg = s->cam.vfov_deg;
    cam->aperture = s->cam.aperture;
    cam->focus_dist = s->cam.focus_dist;
}

static int finite3f(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

pw_status pw_scene_set_camera(pw_scene *s, const pw_camera_params *c)
{
    static const char *const vec_names[3] = {"look_from", "look_at", "up"};
    const float *vecs[3] = {c->look_from, c->look_at, c->up};
    for (int i = 0; i < 3; i++)
        if (!finite3f(vecs[i]))
            return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: %s (%g, %g, %g) is not finite", vec_names[i], vecs[i][0],
                           vecs[i][1], vecs[i][2]);
    if (!(c->vfov_deg > 0.0f && c->vfov_deg < 180.0f))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: field of view %g degrees is outside (0, 180)", c->vfov_deg);
    if (!(c->aperture >= 0.0f) || !isfinite(c->aperture))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: aperture %g must be finite and at least 0", c->aperture);
    if (!(c->focus_dist >= 0.0f) || !isfinite(c->focus_dist))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: focus distance %g must be finite and at least 0",
                       c->focus_dist);
    pw_vec3 from = vec_of(c->look_from), at = vec_of(c->look_at), up = vec_of(c->up);
    /* The basis pw_camera_make builds must be finite: a view direction
     * and an up vector with a usable cross product. */
    float dist = v3_len(v3_sub(from, at));
    pw_vec3 w = v3_norm(v3_sub(from, at));
    if (!(dist > 0.0f) || !isfinite(w.x) || !isfinite(w.y) || !isfinite(w.z))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: look_from and look_at are the same point (%g, %g, %g)",
                       from.x, from.y, from.z);
    if (!isfinite(dist))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: look_from and look_at are too far apart for float");
    if (!(v3_len(up) > 0.0f))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: up is the zero vector");
    if (!(v3_len(v3_cross(v3_norm(up), w)) > 1e-4f))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "camera: up (%g, %g, %g) is parallel to the view direction (%g, %g, %g)",
                       up.x, up.y, up.z, 0.0f - w.x, 0.0f - w.y, 0.0f - w.z);
    s->cam.look_from = from;
    s->cam.look_at = at;
    s->cam.up = up;
    s->cam.vfov_deg = c->vfov_deg;
    s->cam.aperture = c->aperture;
    s->cam.focus_dist = c->focus_dist;
    return PW_OK;
}

void pw_settings_default(const pw_scene *s, pw_settings *out) { *out = s->defaults; }
