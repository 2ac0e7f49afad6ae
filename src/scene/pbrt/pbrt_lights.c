/* Lights: diffuse area lights become emission on the shapes that follow;
 * an infinite light becomes the scene's environment. pathwave has no delta
 * lights yet, so point, spot, distant and the others are reported and left out. */
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

pw_status pbrt_light_source(pbrt_ctx *c, const char *type, pbrt_params *ps)
{
    if (strcmp(type, "infinite") == 0)
        return infinite(c, ps);
    char key[80];
    snprintf(key, sizeof key, "light %s", type);
    pbrt_warn_once(c, key, ps->path, ps->line,
                   "LightSource \"%s\" is not supported (pathwave has no point, spot or distant lights yet): left out",
                   type);
    return PW_OK;
}
