/* The public scene-building API (include/pathwave.h, "building scenes in
 * code"). Every argument is checked here, with a message naming it, before
 * anything is handed to the internal builders of scene/scene.c, which
 * trust their callers (the loaders check their files' own way): so a call
 * either succeeds or leaves the scene as it was. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/scene.h"

_Static_assert(sizeof(pw_vec3) == 3 * sizeof(float), "float[3] arrays are read as pw_vec3 arrays");

/* What a float argument must be besides finite. */
typedef enum value_range { ANY_FINITE, NOT_NEGATIVE, POSITIVE, UNIT } value_range;

/* Why x is not in r, or NULL when it is. */
static const char *range_problem(float x, value_range r)
{
    if (isnan(x))
        return "NaN";
    if (isinf(x))
        return "infinite";
    if (r == NOT_NEGATIVE && x < 0.0f)
        return "negative";
    if (r == POSITIVE && !(x > 0.0f))
        return "not positive";
    if (r == UNIT && !(x >= 0.0f && x <= 1.0f))
        return "outside [0, 1]";
    return NULL;
}

/* Checks the n floats of argument arg against r. With per > 0 the array
 * holds per floats a vertex, and a bad value's message names its vertex. */
static pw_status check_floats(const char *fn, const char *arg, const float *v, size_t n, unsigned per, value_range r)
{
    for (size_t i = 0; i < n; i++) {
        const char *why = range_problem(v[i], r);
        if (!why)
            continue;
        char name[96];
        if (n == 1)
            snprintf(name, sizeof name, "%s", arg);
        else if (per)
            snprintf(name, sizeof name, "%s[%zu] (vertex %zu)", arg, i, i / per);
        else
            snprintf(name, sizeof name, "%s[%zu]", arg, i);
        if (isfinite(v[i]))
            return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %s is %g, %s", fn, name, (double)v[i], why);
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %s is %s", fn, name, why);
    }
    return PW_OK;
}

static pw_status null_argument(const char *fn, const char *arg)
{
    return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, arg);
}

static pw_status check_material_id(const char *fn, const pw_scene *s, uint32_t id)
{
    if (id < s->n_mats)
        return PW_OK;
    if (s->n_mats == 0)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: material %u does not exist (the scene has no materials yet)", fn,
                       id);
    return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: material %u does not exist (ids go up to %u)", fn, id,
                   s->n_mats - 1u);
}

static pw_vec3 vec_of(const float v[3]) { return v3(v[0], v[1], v[2]); }

pw_status pw_scene_new(const char *name, pw_scene **out)
{
    if (!out)
        return null_argument("pw_scene_new", "out");
    *out = NULL;
    if (!name)
        return null_argument("pw_scene_new", "name");
    pw_scene *s = pw_scene_alloc(name);
    if (!s)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "pw_scene_new: out of memory");
    /* pw_scene_alloc leaves look_from == look_at (every loader sets its
     * own camera); a scene built in code must render without one. */
    s->cam.look_from = v3(0, 0, 1);
    *out = s;
    return PW_OK;
}

/* ---- materials ---- */

/* A float array of a material description and what it must be. */
typedef struct material_field {
    const char *name;
    const float *v;
    size_t n;
    value_range range;
} material_field;

/* The fields of d's kind (up to 3) into f; returns their number, or 0 for
 * a kind that does not exist. */
static int material_fields(const pw_material_desc *d, material_field f[3])
{
    switch (d->kind) {
    case PW_MATERIAL_LAMBERT:
        f[0] = (material_field){"lambert.albedo", d->lambert.albedo, 3, UNIT};
        return 1;
    case PW_MATERIAL_METAL:
        f[0] = (material_field){"metal.albedo", d->metal.albedo, 3, UNIT};
        f[1] = (material_field){"metal.fuzz", &d->metal.fuzz, 1, UNIT};
        return 2;
    case PW_MATERIAL_DIELECTRIC:
        f[0] = (material_field){"dielectric.ior", &d->dielectric.ior, 1, POSITIVE};
        return 1;
    case PW_MATERIAL_CONDUCTOR:
        f[0] = (material_field){"conductor.eta", d->conductor.eta, 3, POSITIVE};
        f[1] = (material_field){"conductor.k", d->conductor.k, 3, NOT_NEGATIVE};
        f[2] = (material_field){"conductor.alpha", &d->conductor.alpha, 1, NOT_NEGATIVE};
        return 3;
    case PW_MATERIAL_ROUGH_DIELECTRIC:
        f[0] = (material_field){"rough_dielectric.ior", &d->rough_dielectric.ior, 1, POSITIVE};
        f[1] = (material_field){"rough_dielectric.alpha", &d->rough_dielectric.alpha, 1, NOT_NEGATIVE};
        return 2;
    case PW_MATERIAL_METALLIC_ROUGHNESS:
        f[0] = (material_field){"metallic_roughness.base_color", d->metallic_roughness.base_color, 3, UNIT};
        f[1] = (material_field){"metallic_roughness.metallic", &d->metallic_roughness.metallic, 1, UNIT};
        f[2] = (material_field){"metallic_roughness.roughness", &d->metallic_roughness.roughness, 1, UNIT};
        return 3;
    default:
        return 0;
    }
}

static pw_status check_material(const pw_material_desc *d)
{
    static const char fn[] = "pw_scene_add_material";
    material_field f[3];
    int n = material_fields(d, f);
    if (n == 0)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: kind %d is not a pw_material_kind", fn, (int)d->kind);
    pw_status st = check_floats(fn, "emission", d->emission, 3, 0, NOT_NEGATIVE);
    for (int i = 0; i < n && st == PW_OK; i++)
        st = check_floats(fn, f[i].name, f[i].v, f[i].n, 0, f[i].range);
    return st;
}

/* The internal material of a checked description, through the same
 * constructors the loaders use, so that equal parameters give equal bits. */
static pw_material material_of(const pw_material_desc *d)
{
    pw_material m;
    switch (d->kind) {
    case PW_MATERIAL_METAL:
        m = pw_metal(d->metal.albedo[0], d->metal.albedo[1], d->metal.albedo[2], d->metal.fuzz);
        break;
    case PW_MATERIAL_DIELECTRIC:
        m = pw_dielectric(d->dielectric.ior);
        break;
    case PW_MATERIAL_CONDUCTOR:
        m = pw_conductor(vec_of(d->conductor.eta), vec_of(d->conductor.k), d->conductor.alpha);
        break;
    case PW_MATERIAL_ROUGH_DIELECTRIC:
        m = pw_rough_dielectric(d->rough_dielectric.ior, d->rough_dielectric.alpha);
        break;
    case PW_MATERIAL_METALLIC_ROUGHNESS:
        m = pw_metallic_roughness(vec_of(d->metallic_roughness.base_color), d->metallic_roughness.metallic,
                                  d->metallic_roughness.roughness);
        break;
    default:
        m = pw_lambert(d->lambert.albedo[0], d->lambert.albedo[1], d->lambert.albedo[2]);
        break;
    }
    m = pw_emissive(m, d->emission[0], d->emission[1], d->emission[2]);
    if (d->two_sided)
        m.flags |= PW_MATF_TWO_SIDED;
    return m;
}

pw_status pw_scene_add_material(pw_scene *s, const pw_material_desc *material, uint32_t *out_id)
{
    static const char fn[] = "pw_scene_add_material";
    if (!s)
        return null_argument(fn, "scene");
    if (!material)
        return null_argument(fn, "material");
    if (!out_id)
        return null_argument(fn, "out_id");
    pw_status st = check_material(material);
    if (st != PW_OK)
        return st;
    uint32_t id = pw_scene_push_material(s, material_of(material));
    if (id == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", fn);
    *out_id = id;
    return PW_OK;
}

/* ---- geometry ---- */

/* Each normal's squared length must be finite: the surface code
 * normalises the interpolated normal by it. */
static pw_status check_normal_lengths(const char *fn, const float *n, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++) {
        const float *v = n + 3 * (size_t)i;
        if (!isfinite(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]))
            return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: normals of vertex %u (%g, %g, %g) are too long: the squared "
                           "length overflows float", fn, i, (double)v[0], (double)v[1], (double)v[2]);
    }
    return PW_OK;
}

static pw_status check_indices(const char *fn, const pw_mesh_desc *m)
{
    for (size_t i = 0; i < 3 * (size_t)m->triangle_count; i++)
        if (m->indices[i] >= m->vertex_count)
            return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: indices[%zu] (triangle %zu) is %u, out of range for %u "
                           "vertices", fn, i, i / 3, m->indices[i], m->vertex_count);
    return PW_OK;
}

static pw_status check_mesh(const pw_scene *s, const pw_mesh_desc *m, uint32_t material)
{
    static const char fn[] = "pw_scene_add_mesh";
    if (!s)
        return null_argument(fn, "scene");
    if (!m)
        return null_argument(fn, "mesh");
    if (m->vertex_count == 0 || m->triangle_count == 0)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %s is 0", fn, m->vertex_count ? "triangle_count" : "vertex_count");
    if (!m->positions || !m->indices)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, m->positions ? "indices" : "positions");
    if ((uint64_t)s->n_verts + m->vertex_count > PW_SCENE_MAX_ELEMENTS ||
        (uint64_t)s->n_tris + m->triangle_count > PW_SCENE_MAX_ELEMENTS)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: %u vertices and %u triangles take the scene past 2^30 of either",
                       fn, m->vertex_count, m->triangle_count);
    pw_status st = check_material_id(fn, s, material);
    if (st == PW_OK)
        st = check_floats(fn, "positions", m->positions, 3 * (size_t)m->vertex_count, 3, ANY_FINITE);
    if (st == PW_OK && m->normals)
        st = check_floats(fn, "normals", m->normals, 3 * (size_t)m->vertex_count, 3, ANY_FINITE);
    if (st == PW_OK && m->normals)
        st = check_normal_lengths(fn, m->normals, m->vertex_count);
    if (st == PW_OK && m->uvs)
        st = check_floats(fn, "uvs", m->uvs, 2 * (size_t)m->vertex_count, 2, ANY_FINITE);
    if (st == PW_OK)
        st = check_indices(fn, m);
    return st;
}

pw_status pw_scene_add_mesh(pw_scene *s, const pw_mesh_desc *m, uint32_t material)
{
    pw_status st = check_mesh(s, m, material);
    if (st != PW_OK)
        return st;
    /* After the checks only memory can run out; the counts are then put
     * back. Arrays of normals or uvs created on the way stay, zero for the
     * scene's earlier vertices, which is what those have without them. */
    uint32_t n_verts = s->n_verts, n_tris = s->n_tris;
    uint32_t base = pw_scene_add_vertices(s, (const pw_vec3 *)m->positions, (const pw_vec3 *)m->normals,
                                          m->vertex_count);
    if (base == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "pw_scene_add_mesh: out of memory for %u vertices", m->vertex_count);
    if (m->uvs)
        st = pw_scene_set_uvs(s, base, m->uvs, m->vertex_count);
    for (uint32_t t = 0; t < m->triangle_count && st == PW_OK; t++) {
        const uint32_t *ix = m->indices + 3 * (size_t)t;
        st = pw_scene_add_triangle(s, base + ix[0], base + ix[1], base + ix[2], material);
    }
    if (st != PW_OK) {
        s->n_verts = n_verts;
        s->n_tris = n_tris;
    }
    return st;
}

pw_status pw_scene_add_sphere(pw_scene *s, const float centre[3], float radius, uint32_t material)
{
    static const char fn[] = "pw_scene_add_sphere";
    if (!s)
        return null_argument(fn, "scene");
    if (!centre)
        return null_argument(fn, "centre");
    pw_status st = check_floats(fn, "centre", centre, 3, 0, ANY_FINITE);
    if (st == PW_OK)
        st = check_floats(fn, "radius", &radius, 1, 0, POSITIVE);
    if (st == PW_OK)
        st = check_material_id(fn, s, material);
    return st == PW_OK ? pw_scene_push_sphere(s, vec_of(centre), radius, material) : st;
}

/* ---- lights and sky ---- */

/* A direction must have a length that float can normalise. */
static pw_status check_direction(const char *fn, const float d[3])
{
    pw_status st = check_floats(fn, "direction", d, 3, 0, ANY_FINITE);
    if (st != PW_OK)
        return st;
    float len = v3_len(vec_of(d));
    if (!(len > 0.0f) || !isfinite(len))
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: direction (%g, %g, %g) %s", fn, (double)d[0], (double)d[1],
                       (double)d[2], len > 0.0f ? "is too long to normalise in float" : "has zero length");
    return PW_OK;
}

/* pbrt's coneangle and conedeltaangle as the cosines of the falloff's end
 * and start, through the pbrt reader's conversion. */
static pw_status spot_cosines(const char *fn, const pw_light_desc *l, float *cos_end, float *cos_start)
{
    float angle = l->cone_angle_deg, delta = l->cone_delta_deg;
    pw_status st = check_floats(fn, "cone_angle_deg", &angle, 1, 0, ANY_FINITE);
    if (st == PW_OK)
        st = check_floats(fn, "cone_delta_deg", &delta, 1, 0, ANY_FINITE);
    if (st != PW_OK)
        return st;
    switch (pw_spot_cone_cosines(angle, delta, cos_end, cos_start)) {
    case 1:
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: cone_angle_deg is %g, outside [0, 180]", fn, (double)angle);
    case 2:
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: cone_delta_deg is %g, outside [0, 2 cone_angle_deg = %g]", fn,
                       (double)delta, 2.0 * angle);
    default:
        return PW_OK;
    }
}

pw_status pw_scene_add_light(pw_scene *s, const pw_light_desc *l)
{
    static const char fn[] = "pw_scene_add_light";
    if (!s)
        return null_argument(fn, "scene");
    if (!l)
        return null_argument(fn, "light");
    if ((unsigned)l->kind >= PW_LIGHT_KIND_COUNT) /* the enum may be unsigned: one test for both ends */
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "%s: kind %d is not a pw_light_kind", fn, (int)l->kind);
    pw_status st = check_floats(fn, "intensity", l->intensity, 3, 0, NOT_NEGATIVE);
    if (st == PW_OK && l->kind != PW_LIGHT_KIND_DISTANT)
        st = check_floats(fn, "position", l->position, 3, 0, ANY_FINITE);
    if (st == PW_OK && l->kind != PW_LIGHT_KIND_POINT)
        st = check_direction(fn, l->direction);
    float cos_end = 0.0f, cos_start = 0.0f;
    if (st == PW_OK && l->kind == PW_LIGHT_KIND_SPOT)
        st = spot_cosines(fn, l, &cos_end, &cos_start);
    if (st != PW_OK)
        return st;
    pw_vec3 pos = vec_of(l->position), dir = vec_of(l->direction), intensity = vec_of(l->intensity);
    if (l->kind == PW_LIGHT_KIND_POINT)
        return pw_scene_add_point_light(s, pos, intensity);
    if (l->kind == PW_LIGHT_KIND_DISTANT)
        return pw_scene_add_distant_light(s, dir, intensity);
    return pw_scene_add_spot_light(s, pos, dir, cos_end, cos_start, intensity);
}

pw_status pw_scene_set_sky(pw_scene *s, const float top[3], const float bottom[3], float scale)
{
    static const char fn[] = "pw_scene_set_sky";
    if (!s)
        return null_argument(fn, "scene");
    if (!top || !bottom)
        return null_argument(fn, top ? "bottom" : "top");
    pw_status st = check_floats(fn, "top", top, 3, 0, NOT_NEGATIVE);
    if (st == PW_OK)
        st = check_floats(fn, "bottom", bottom, 3, 0, NOT_NEGATIVE);
    if (st == PW_OK)
        st = check_floats(fn, "scale", &scale, 1, 0, NOT_NEGATIVE);
    if (st != PW_OK)
        return st;
    free(s->env_map);
    free(s->env_marginal);
    free(s->env_cond);
    s->env_map = s->env_marginal = s->env_cond = NULL;
    memset(&s->env, 0, sizeof s->env);
    /* A uniform sky stays PW_ENV_CONSTANT, what the loaders give one. */
    int uniform = top[0] == bottom[0] && top[1] == bottom[1] && top[2] == bottom[2];
    s->env.type = uniform ? PW_ENV_CONSTANT : PW_ENV_GRADIENT;
    s->env.top = vec_of(top);
    s->env.bottom = vec_of(bottom);
    s->env.scale = scale;
    return PW_OK;
}
