/* Lights: diffuse area lights become emission on the shapes that follow;
 * an infinite light becomes the scene's environment; point, spot and
 * distant lights become pathwave's delta lights. Goniometric and
 * projection lights are reported and left out. */
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

/* A square map is pbrt-v4's own layout: equal-area, in the light's
 * frame, which the current transform places in the world. Its axes
 * become the map's frame (orthonormalised, with a warning where the
 * transform scales unevenly or shears: pbrt renormalises each direction,
 * which a rotation cannot copy). */
static void orient_equal_area(pbrt_ctx *c, pbrt_params *ps)
{
    pw_vec3 ax = pbrt_xform_vector(&c->gs.ctm, v3(1, 0, 0)), ay = pbrt_xform_vector(&c->gs.ctm, v3(0, 1, 0));
    pw_vec3 az = pbrt_xform_vector(&c->gs.ctm, v3(0, 0, 1));
    float lx = v3_len(ax), ly = v3_len(ay), lz = v3_len(az);
    if (!(lx > 0.0f) || !(ly > 0.0f) || !(lz > 0.0f))
        return;
    ax = v3_scale(ax, 1.0f / lx), ay = v3_scale(ay, 1.0f / ly), az = v3_scale(az, 1.0f / lz);
    if (fabsf(v3_dot(ax, ay)) > 1e-4f || fabsf(v3_dot(ax, az)) > 1e-4f || fabsf(v3_dot(ay, az)) > 1e-4f ||
        fabsf(lx - lz) > 1e-4f * lz || fabsf(ly - lz) > 1e-4f * lz)
        pbrt_warn_once(c, "infinite shear", ps->path, ps->line,
                       "LightSource \"infinite\": its transform is not a rotation: the nearest rotation is used");
    /* Gram-Schmidt from +z (the map's centre) and +x. */
    ax = v3_norm(v3_sub(ax, v3_scale(az, v3_dot(ax, az))));
    ay = v3_cross(az, ax);
    if (fabsf(ax.x - 1.0f) < 1e-7f && fabsf(ay.y - 1.0f) < 1e-7f && fabsf(az.z - 1.0f) < 1e-7f)
        return; /* the identity: the map's frame is the world's */
    const pw_vec3 rows[3] = {ax, ay, az};
    pw_scene_rotate_environment(c->scene, rows);
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
    if (c->scene->env.w == c->scene->env.h) {
        /* pbrt-v4's own layout. */
        if (pw_scene_set_environment_layout(c->scene, PW_ENV_EQUAL_AREA) != PW_OK)
            return pbrt_error_at(ps->path, ps->line, ps->col, "%s", pw_last_error());
        orient_equal_area(c, ps);
    } else
        check_orientation(c, ps); /* pathwave's own equirectangular maps, +y up */
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

/* A "point3" parameter, or def when it is absent. */
static pw_status point_param(pbrt_params *ps, const char *name, pw_vec3 def, pw_vec3 *out)
{
    const double *v;
    uint32_t n;
    *out = def;
    pw_status st = pbrt_get_array(ps, name, PBRT_P_POINT3, &v, &n);
    if (st != PW_OK)
        return st;
    if (n != 0 && n != 3)
        return pbrt_param_error(pbrt_param_find(ps, name), ps, "needs 3 values, got %u", n);
    if (n)
        *out = v3((float)v[0], (float)v[1], (float)v[2]);
    return PW_OK;
}

/* The direction from "from" to "to" (defaults 0 0 0 and 0 0 1) under the
 * current transform; an error naming the light when they give none. */
static pw_status from_to_direction(pbrt_ctx *c, pbrt_params *ps, const char *what, pw_vec3 *from, pw_vec3 *dir)
{
    pw_vec3 to;
    pw_status st;
    if ((st = point_param(ps, "from", v3s(0.0f), from)) != PW_OK ||
        (st = point_param(ps, "to", v3(0, 0, 1), &to)) != PW_OK)
        return st;
    *dir = pbrt_xform_vector(&c->gs.ctm, v3_sub(to, *from));
    if (!(v3_len2(*dir) > 0.0f) || !isfinite(v3_len2(*dir)))
        return pbrt_error_at(ps->path, ps->line, ps->col,
                             "%s: \"from\" and \"to\" give no direction under the current transform", what);
    return PW_OK;
}

/* point: intensity I (W/sr) at "from" under the current transform. */
static pw_status point_light(pbrt_ctx *c, pbrt_params *ps)
{
    pw_vec3 I, p;
    pw_status st;
    if ((st = light_power(c, ps, "I", "LightSource \"point\"", &I)) != PW_OK ||
        (st = photometric(ps, "power", 4.0f * PW_PI, &I)) != PW_OK ||
        (st = point_param(ps, "from", v3s(0.0f), &p)) != PW_OK)
        return st;
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
    pw_vec3 E, from, dir;
    pw_status st;
    if ((st = light_power(c, ps, "L", "LightSource \"distant\"", &E)) != PW_OK ||
        (st = photometric(ps, "illuminance", 1.0f, &E)) != PW_OK ||
        (st = from_to_direction(c, ps, "LightSource \"distant\"", &from, &dir)) != PW_OK)
        return st;
    pbrt_warn_unused(c, ps, "LightSource \"distant\"");
    if (pw_scene_add_distant_light(c->scene, dir, E) != PW_OK)
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s", pw_last_error());
    c->emissive_lights++;
    return PW_OK;
}

/* Whether the current transform keeps angles (a rotation and a uniform
 * scale, mirrored or not): pbrt-v4 makes a spot's cone round in light
 * space, so any other transform makes it elliptical in the world. */
static int ctm_keeps_angles(const pbrt_mat4 *m)
{
    pw_vec3 x = pbrt_xform_vector(m, v3(1, 0, 0)), y = pbrt_xform_vector(m, v3(0, 1, 0));
    pw_vec3 z = pbrt_xform_vector(m, v3(0, 0, 1));
    float lx = v3_len2(x), tol = 1e-4f * lx;
    return fabsf(v3_len2(y) - lx) <= tol && fabsf(v3_len2(z) - lx) <= tol && fabsf(v3_dot(x, y)) <= tol &&
           fabsf(v3_dot(y, z)) <= tol && fabsf(v3_dot(z, x)) <= tol;
}

/* spot: pbrt-v4's spot at "from" shining toward "to" under the current
 * transform, intensity I on its axis, "coneangle" the cone's half-angle and
 * "conedeltaangle" the falloff band inside it (degrees): full intensity
 * within coneangle - conedeltaangle, smoothstep in cos theta down to none
 * at coneangle. "power" sets I so that the spot sends that power
 * (2 pi I (1 - (cos start + cos end) / 2)). */
static pw_status spot_light(pbrt_ctx *c, pbrt_params *ps)
{
    const char *what = "LightSource \"spot\"";
    pw_vec3 I, from, dir;
    float angle, delta;
    pw_status st;
    /* The default band, pbrt-v4's 5 degrees, is narrowed to a cone
     * narrower than that, which it would otherwise invert. */
    if ((st = light_power(c, ps, "I", what, &I)) != PW_OK ||
        (st = pbrt_get_float(ps, "coneangle", 30.0f, &angle)) != PW_OK ||
        (st = pbrt_get_float(ps, "conedeltaangle", angle < 5.0f && angle >= 0.0f ? angle : 5.0f, &delta)) !=
            PW_OK ||
        (st = from_to_direction(c, ps, what, &from, &dir)) != PW_OK)
        return st;
    float cos_end, cos_start;
    int bad = pw_spot_cone_cosines(angle, delta, &cos_end, &cos_start);
    if (bad == 1)
        return pbrt_param_error(pbrt_param_find(ps, "coneangle"), ps, "must lie in [0, 180] degrees, got %g",
                                (double)angle);
    if (bad == 2)
        return pbrt_error_at(ps->path, ps->line, ps->col,
                             "%s: conedeltaangle %g with coneangle %g starts the falloff outside the cone (it must "
                             "lie in [0, 2 coneangle])",
                             what, (double)delta, (double)angle);
    float solid = 2.0f * PW_PI * (1.0f - 0.5f * (cos_start + cos_end)); /* power over intensity */
    if (!(solid > 0.0f) && pbrt_param_find(ps, "power"))
        return pbrt_param_error(pbrt_param_find(ps, "power"), ps,
                                "a spot of coneangle %g sends no light, so no intensity gives it a power",
                                (double)angle);
    if ((st = photometric(ps, "power", solid, &I)) != PW_OK)
        return st;
    if (!ctm_keeps_angles(&c->gs.ctm))
        pbrt_warn_once(c, "spot transform", ps->path, ps->line,
                       "%s: the current transform does not keep angles (an uneven scale or a shear), which makes "
                       "pbrt-v4's cone elliptical: pathwave keeps it round about the transformed axis",
                       what);
    pbrt_warn_unused(c, ps, what);
    if (pw_scene_add_spot_light(c->scene, pbrt_xform_point(&c->gs.ctm, from), dir, cos_end, cos_start, I) != PW_OK)
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
    if (strcmp(type, "spot") == 0)
        return spot_light(c, ps);
    char key[80];
    snprintf(key, sizeof key, "light %s", type);
    pbrt_warn_once(c, key, ps->path, ps->line,
                   "LightSource \"%s\" is not supported (pathwave has point, spot, distant and infinite lights): "
                   "left out",
                   type);
    return PW_OK;
}
