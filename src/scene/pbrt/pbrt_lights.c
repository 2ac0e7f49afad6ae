/* Lights: diffuse area lights become emission on the shapes that follow;
 * an infinite light becomes the scene's environment; point and distant
 * lights become pathwave's delta lights. Spot, goniometric and projection
 * lights are reported and left out. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"

pw_status pbrt_area_light_source(pbrt_ctx *c, const char *type, pbrt_params *ps)
{
    if (strcmp(type, "diffuse") != 0)
        pbrt_warn_once(c, "area light type", ps->path, ps->line,
                       "AreaLightSource \"%s\" is not supported: a diffuse area light is used", type);
    pw_vec3 L;
    float scale;
    int two_sided;
    pw_status st;
    if ((st = pbrt_get_color(c, ps, "L", v3s(1.0f), PBRT_ILLUMINANT, &L, NULL)) != PW_OK ||
        (st = pbrt_get_float(ps, "scale", 1.0f, &scale)) != PW_OK ||
        (st = pbrt_get_bool(ps, "twosided", 0, &two_sided)) != PW_OK)
        return st;
    if (!(scale >= 0.0f))
        return pbrt_param_error(pbrt_param_find(ps, "scale"), ps, "must not be negative");
    pbrt_warn_unused(c, ps, "AreaLightSource");
    c->gs.area.on = 1;
    c->gs.area.L = v3_scale(L, scale);
    c->gs.area.two_sided = two_sided;
    if (!isfinite(c->gs.area.L.x) || !isfinite(c->gs.area.L.y) || !isfinite(c->gs.area.L.z))
        return pbrt_error_at(ps->path, ps->line, ps->col, "AreaLightSource: L times scale is not finite");
    return PW_OK;
}

/* pbrt's environment has +z up in light space; pathwave's maps are +y up.
 * A light transform that takes +z to +y (pbrt scenes often say Rotate -90
 * 1 0 0) matches up to a turn about the vertical; anything else is warned about. */
static void check_orientation(pbrt_ctx *c, pbrt_params *ps)
{
    pw_vec3 up = pbrt_xform_vector(&c->gs.ctm, v3(0, 0, 1));
    float len = v3_len(up);
    if (!(len > 0.0f) || up.y / len < 0.999f)
        pbrt_warn_once(c, "infinite orientation", ps->path, ps->line,
                       "LightSource \"infinite\": its transform puts the map's up (+z) at (%.3g, %.3g, %.3g); "
                       "pathwave renders environment maps with +y up",
                       up.x, up.y, up.z);
}

static pw_status infinite(pbrt_ctx *c, pbrt_params *ps)
{
    const char *filename;
    pw_vec3 L;
    int has_L;
    float scale;
    pw_status st;
    if ((st = pbrt_get_string(ps, "filename", NULL, &filename)) != PW_OK ||
        (st = pbrt_get_color(c, ps, "L", v3s(1.0f), PBRT_ILLUMINANT, &L, &has_L)) != PW_OK ||
        (st = pbrt_get_float(ps, "scale", 1.0f, &scale)) != PW_OK)
        return st;
    if (filename && has_L)
        return pbrt_error_at(ps->path, ps->line, ps->col, "LightSource \"infinite\" has both \"filename\" and \"L\"");
    if (!(scale >= 0.0f))
        return pbrt_param_error(pbrt_param_find(ps, "scale"), ps, "must not be negative");
    if (c->emissive_lights && c->scene->env.type == PW_ENV_MAP)
        pbrt_warn_once(c, "two infinite", ps->path, ps->line,
                       "only one infinite light is supported: the last one is used");
    pbrt_warn_unused(c, ps, "LightSource \"infinite\"");
    if (!filename) {
        c->scene->env.type = PW_ENV_CONSTANT;
        c->scene->env.top = c->scene->env.bottom = L;
        c->scene->env.scale = scale;
        c->emissive_lights++;
        return PW_OK;
    }
    char full[4096];
    if (!pbrt_resolve_path(c, filename, full, sizeof full))
        return pbrt_error_at(ps->path, ps->line, ps->col, "file name too long");
    if (pw_scene_set_environment(c->scene, full, scale > 0.0f ? scale : 1e-30f) != PW_OK)
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s", pw_last_error());
    if (c->scene->env.w == c->scene->env.h)
        pbrt_warn_once(c, "equal-area", ps->path, ps->line,
                       "LightSource \"infinite\": a square map is pbrt-v4's equal-area octahedral layout, which "
                       "pathwave does not read: it is used as an equirectangular map");
    check_orientation(c, ps);
    c->emissive_lights++;
    return PW_OK;
}

/* A colour times "scale", checked finite; what is the light's name for messages. */
static pw_status light_power(pbrt_ctx *c, pbrt_params *ps, const char *name, const char *what, pw_vec3 *out)
{
    pw_vec3 col;
    float scale;
    pw_status st;
    if ((st = pbrt_get_color(c, ps, name, v3s(1.0f), PBRT_ILLUMINANT, &col, NULL)) != PW_OK ||
        (st = pbrt_get_float(ps, "scale", 1.0f, &scale)) != PW_OK)
        return st;
    if (!(scale >= 0.0f))
        return pbrt_param_error(pbrt_param_find(ps, "scale"), ps, "must not be negative");
    *out = v3_scale(col, scale);
    if (!isfinite(out->x) || !isfinite(out->y) || !isfinite(out->z))
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s: %s times scale is not finite", what, name);
    return PW_OK;
}

/* An optional photometric override ("power" of a point light, "illuminance"
 * of a distant one): pbrt-v4 multiplies the already normalised spectrum by
 * value / k, so an rgb colour keeps its given ratio to it. */
static pw_status photometric(pbrt_params *ps, const char *name, float k, pw_vec3 *v)
{
    float x;
    pw_status st = pbrt_get_float(ps, name, -1.0f, &x);
    if (st != PW_OK)
        return st;
    if (x > 0.0f)
        *v = v3_scale(*v, x / k);
    return PW_OK;
}

/* point: intensity I (W/sr) at "from" under the current transform. */
static pw_status point_light(pbrt_ctx *c, pbrt_params *ps)
{
    pw_vec3 I;
    const double *from;
    uint32_t n;
    pw_status st;
    if ((st = light_power(c, ps, "I", "LightSource \"point\"", &I)) != PW_OK ||
        (st = photometric(ps, "power", 4.0f * PW_PI, &I)) != PW_OK ||
        (st = pbrt_get_array(ps, "from", PBRT_P_POINT3, &from, &n)) != PW_OK)
        return st;
    if (n != 0 && n != 3)
        return pbrt_param_error(pbrt_param_find(ps, "from"), ps, "needs 3 values, got %u", n);
    pw_vec3 p = n ? v3((float)from[0], (float)from[1], (float)from[2]) : v3s(0.0f);
    p = pbrt_xform_point(&c->gs.ctm, p);
    pbrt_warn_unused(c, ps, "LightSource \"point\"");
    if (pw_scene_add_point_light(c->scene, p, I) != PW_OK)
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s", pw_last_error());
    c->emissive_lights++;
    return PW_OK;
}

/* distant: irradiance L along from - to (light travels from "from" toward
 * "to"), the direction under the current transform. */
static pw_status distant_light(pbrt_ctx *c, pbrt_params *ps)
{
    pw_vec3 E;
    const double *from, *to;
    uint32_t nf, nt;
    pw_status st;
    if ((st = light_power(c, ps, "L", "LightSource \"distant\"", &E)) != PW_OK ||
        (st = photometric(ps, "illuminance", 1.0f, &E)) != PW_OK ||
        (st = pbrt_get_array(ps, "from", PBRT_P_POINT3, &from, &nf)) != PW_OK ||
        (st = pbrt_get_array(ps, "to", PBRT_P_POINT3, &to, &nt)) != PW_OK)
        return st;
    if (nf != 0 && nf != 3)
        return pbrt_param_error(pbrt_param_find(ps, "from"), ps, "needs 3 values, got %u", nf);
    if (nt != 0 && nt != 3)
        return pbrt_param_error(pbrt_param_find(ps, "to"), ps, "needs 3 values, got %u", nt);
    pw_vec3 f = nf ? v3((float)from[0], (float)from[1], (float)from[2]) : v3s(0.0f);
    pw_vec3 t = nt ? v3((float)to[0], (float)to[1], (float)to[2]) : v3(0, 0, 1);
    pw_vec3 dir = pbrt_xform_vector(&c->gs.ctm, v3_sub(t, f));
    if (!(v3_len2(dir) > 0.0f) || !isfinite(v3_len2(dir)))
        return pbrt_error_at(ps->path, ps->line, ps->col,
                             "LightSource \"distant\": \"from\" and \"to\" give no direction under the current "
                             "transform");
    pbrt_warn_unused(c, ps, "LightSource \"distant\"");
    if (pw_scene_add_distant_light(c->scene, dir, E) != PW_OK)
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s", pw_last_error());
    c->emissive_lights++;
    return PW_OK;
}

pw_status pbrt_light_source(pbrt_ctx *c, const char *type, pbrt_params *ps)
{
    if (strcmp(type, "infinite") == 0)
        return infinite(c, ps);
    if (strcmp(type, "point") == 0)
        return point_light(c, ps);
    if (strcmp(type, "distant") == 0)
        return distant_light(c, ps);
    char key[80];
    snprintf(key, sizeof key, "light %s", type);
    pbrt_warn_once(c, key, ps->path, ps->line,
                   "LightSource \"%s\" is not supported (pathwave has point, distant and infinite lights): left out",
                   type);
    return PW_OK;
}
