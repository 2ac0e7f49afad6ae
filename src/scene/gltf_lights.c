/* Units: glTF gives a point or spot light's intensity in candela and a
 * directional light's in lux, photometric units. pathwave's light values
 * are radiometric-like numbers that sit beside emission and the sky with
 * no conversion (the pbrt reader takes a point light's I as W/sr, glTF's
 * emissive factor is taken as radiance), so intensity times colour is
 * taken as it is: W/sr for point and spot lights, W/m^2 of irradiance for
 * directional ones. That is what most renderers do with glTF lights; a
 * photometric conversion (1/683 W per lumen) would make every glTF light
 * hundreds of times dimmer than the file's emissive surfaces.
 * A spot's falloff between its inner and outer cone is pathwave's (pbrt's
 * smoothstep of the cosine); the glTF specification's is a suggestion
 * (non-normative), the square of the cosine's linear ramp. */
#include "scene/gltf_lights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

typedef struct light_def {
    const char *type;
    pw_vec3 power; /* intensity times colour */
    double inner, outer; /* spot cone angles */
} light_def;

/* Light l (index i of the file's list) as a light_def; 0 with a warning
 * when it is unusable. */
static int read_light(const pw_gltf_doc *d, pw_scene *s, const cJSON *l, long i, light_def *out)
{
    const char *type = pw_gltf_string(l, "type", "");
    int bad = 0;
    double color[3] = {1, 1, 1};
    double k = pw_gltf_number(l, "intensity", 1.0, &bad);
    bad |= pw_gltf_numbers(l, "color", 3, color) < 0;
    out->type = type;
    out->inner = pw_gltf_number(pw_gltf_get(l, "spot"), "innerConeAngle", 0.0, &bad);
    out->outer = pw_gltf_number(pw_gltf_get(l, "spot"), "outerConeAngle", PW_PI / 4.0, &bad);
    out->power = v3((float)(k * color[0]), (float)(k * color[1]), (float)(k * color[2]));
    const char *why = !l ? "does not exist"
                      : strcmp(type, "point") && strcmp(type, "spot") && strcmp(type, "directional")
                          ? "has no type point, spot or directional"
                      : bad || !(k >= 0.0) || color[0] < 0.0 || color[1] < 0.0 || color[2] < 0.0 ||
                              !isfinite(out->power.x + out->power.y + out->power.z)
                          ? "has an intensity or colour that is not a finite number of at least 0"
                      : strcmp(type, "spot") == 0 && !(out->inner >= 0.0 && out->inner < out->outer &&
                                                       out->outer <= PW_PI / 2.0)
                          ? "has cone angles outside 0 <= inner < outer <= pi/2"
                          : NULL;
    if (why) {
        pw_scene_warn(s, "%s: KHR_lights_punctual light %ld %s (skipped)", d->path, i, why);
        return 0;
    }
    if (pw_gltf_get(l, "range"))
        pw_scene_warn(s, "%s: KHR_lights_punctual light %ld: range is ignored (pathwave's lights fall off as 1/d^2 "
                      "without end)", d->path, i);
    return 1;
}

static pw_vec3 vec_of(const double v[3]) { return v3((float)v[0], (float)v[1], (float)v[2]); }

/* The light at one visit: at the node's origin, pointing down its -z. */
static pw_status place_light(const pw_gltf_doc *d, pw_scene *s, const pw_gltf_visit *v, long i, const light_def *l,
                             int *lit)
{
    static const double origin[3] = {0, 0, 0}, down_z[3] = {0, 0, -1};
    double p[3], dir[3];
    pw_mat4_point(v->world, origin, p);
    pw_mat4_direction(v->world, down_z, dir);
    pw_vec3 pos = vec_of(p), axis = vec_of(dir);
    int point = strcmp(l->type, "point") == 0;
    if (!isfinite(pos.x + pos.y + pos.z) || (!point && !(v3_len(axis) > 0.0f && isfinite(v3_len(axis))))) {
        pw_scene_warn(s, "%s: KHR_lights_punctual light %ld at node %ld: its node's transform is degenerate (skipped)",
                      d->path, i, v->node);
        return PW_OK;
    }
    pw_status st = PW_OK;
    if (point)
        st = pw_scene_add_point_light(s, pos, l->power);
    else if (strcmp(l->type, "directional") == 0)
        st = pw_scene_add_distant_light(s, axis, l->power);
    else /* full intensity inside the inner cone, none outside the outer one */
        st = pw_scene_add_spot_light(s, pos, axis, (float)cos(l->outer), (float)cos(l->inner), l->power);
    if (st == PW_OK)
        *lit |= !v3_is_zero(l->power);
    return st;
}

/* The file's lights, each read (and warned about) once, when a node first
 * names it. */
typedef struct light_cache {
    const cJSON **items;
    light_def *defs;
    unsigned char *state; /* 0 not read, 1 usable, 2 not */
    long n;
} light_cache;

static const light_def *cached_light(const pw_gltf_doc *d, pw_scene *s, light_cache *c, long i)
{
    if (i >= c->n) {
        pw_scene_warn(s, "%s: KHR_lights_punctual light %ld does not exist (skipped)", d->path, i);
        return NULL;
    }
    if (!c->state[i])
        c->state[i] = read_light(d, s, c->items[i], i, &c->defs[i]) ? 1 : 2;
    return c->state[i] == 1 ? &c->defs[i] : NULL;
}

pw_status pw_gltf_add_lights(const pw_gltf_doc *d, const pw_gltf_tree *t, pw_scene *s, int *lit)
{
    *lit = 0;
    const cJSON *lights = pw_gltf_get(pw_gltf_extension(d->root, "KHR_lights_punctual"), "lights");
    light_cache c = {0};
    c.n = cJSON_IsArray(lights) ? cJSON_GetArraySize(lights) : 0;
    if (c.n) {
        c.items = malloc((size_t)c.n * sizeof *c.items);
        c.defs = malloc((size_t)c.n * sizeof *c.defs);
        c.state = calloc((size_t)c.n, 1);
        long i = 0;
        for (const cJSON *l = lights->child; l && c.items && i < c.n; l = l->next)
            c.items[i++] = l;
    }
    pw_status st = PW_OK;
    if (c.n && (!c.items || !c.defs || !c.state))
        st = pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory for its lights", d->path);
    for (uint32_t k = 0; k < t->n && st != PW_ERR_OUT_OF_MEMORY; k++) {
        const pw_gltf_visit *v = &t->visits[k];
        const cJSON *ref = pw_gltf_extension(pw_gltf_at(d, PW_GLTF_NODES, v->node), "KHR_lights_punctual");
        long i;
        if (!ref)
            continue;
        if (!pw_gltf_as_index(pw_gltf_get(ref, "light"), 1L << 30, &i)) {
            pw_scene_warn(s, "%s: node %ld: KHR_lights_punctual without a light index (skipped)", d->path, v->node);
            continue;
        }
        const light_def *l = cached_light(d, s, &c, i);
        if (!l || (st = place_light(d, s, v, i, l, lit)) == PW_OK || st == PW_ERR_OUT_OF_MEMORY)
            continue;
        pw_scene_warn(s, "%s: KHR_lights_punctual light %ld at node %ld: %s (skipped)", d->path, i, v->node,
                      pw_last_error());
        st = PW_OK;
    }
    free(c.items);
    free(c.defs);
    free(c.state);
    return st;
}
