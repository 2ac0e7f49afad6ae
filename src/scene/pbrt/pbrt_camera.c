/* Camera, Film, Sampler and Integrator: the view and the scene's render
 * defaults (which the command line's options override). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "film/white_balance.h"
#include "scene/pbrt/pbrt_internal.h"

pw_status pbrt_camera(pbrt_ctx *c, const char *type, pbrt_params *ps)
{
    if (strcmp(type, "perspective") != 0)
        pbrt_warn_once(c, "camera type", ps->path, ps->line,
                       "Camera \"%s\" is not supported: a perspective camera is used", type);
    pbrt_camera_rec *r = &c->cam;
    pw_status st;
    if ((st = pbrt_get_float(ps, "fov", 90.0f, &r->fov)) != PW_OK ||
        (st = pbrt_get_float(ps, "lensradius", 0.0f, &r->lens_radius)) != PW_OK ||
        (st = pbrt_get_float(ps, "focaldistance", 1e6f, &r->focal_distance)) != PW_OK)
        return st;
    if (!(r->fov > 0.0f && r->fov < 180.0f))
        return pbrt_param_error(pbrt_param_find(ps, "fov"), ps, "%g is not in (0, 180) degrees", r->fov);
    if (!(r->lens_radius >= 0.0f))
        return pbrt_param_error(pbrt_param_find(ps, "lensradius"), ps, "must not be negative");
    if (!(r->focal_distance > 0.0f))
        return pbrt_param_error(pbrt_param_find(ps, "focaldistance"), ps, "must be positive");
    /* The shutter's interval is the film's exposure time (pbrt-v4 scales
     * the image by it); the camera itself does not move. */
    float open, close;
    if ((st = pbrt_get_float(ps, "shutteropen", 0.0f, &open)) != PW_OK ||
        (st = pbrt_get_float(ps, "shutterclose", 1.0f, &close)) != PW_OK)
        return st;
    if (!isfinite(open) || !isfinite(close) || !(close - open > 0.0f))
        return pbrt_error_at(ps->path, ps->line, ps->col,
                             "Camera: shutteropen %g and shutterclose %g leave the shutter closed (a black image)",
                             open, close);
    r->exposure = close - open;
    pbrt_mat4 inv;
    if (!pbrt_mat_inverse(&c->gs.ctm, &inv))
        return pbrt_error_at(ps->path, ps->line, ps->col, "Camera: the current transform is singular");
    r->camera_from_world = c->gs.ctm;
    r->seen = 1;
    r->path = ps->path;
    r->line = ps->line;
    pbrt_warn_unused(c, ps, "Camera");
    /* pbrt names the camera's space for CoordSysTransform "camera". */
    pbrt_mat4 world_from_camera;
    pbrt_mat_inverse(&c->gs.ctm, &world_from_camera);
    return pbrt_set_coord(c, "camera", &world_from_camera);
}

static pw_status get_range(pbrt_params *ps, const char *name, int def, int lo, int hi, int *out)
{
    pw_status st = pbrt_get_int(ps, name, def, out);
    if (st == PW_OK && (*out < lo || *out > hi))
        return pbrt_param_error(pbrt_param_find(ps, name), ps, "%d is out of range %d..%d", *out, lo, hi);
    return st;
}

/* The Film's sensor: pbrt-v4's default, "cie1931", with its optional
 * white balance (0: none, as pbrt's default for that sensor); measured
 * camera sensors are not available and fall back to it with a warning. */
static pw_status film_sensor(pbrt_ctx *c, pbrt_params *ps)
{
    const char *sensor;
    float kelvin;
    pw_status st;
    if ((st = pbrt_get_string(ps, "sensor", "cie1931", &sensor)) != PW_OK ||
        (st = pbrt_get_float(ps, "whitebalance", 0.0f, &kelvin)) != PW_OK)
        return st;
    if (strcmp(sensor, "cie1931") != 0)
        pbrt_warn_once(c, "film sensor", ps->path, ps->line,
                       "Film \"sensor\" \"%s\" is not supported: the cie1931 sensor is used", sensor);
    c->scene->film_balanced = 0;
    if (kelvin == 0.0f)
        return PW_OK;
    if (!pw_white_balance_srgb(kelvin, c->scene->film_balance))
        return pbrt_param_error(pbrt_param_find(ps, "whitebalance"), ps,
                                "%g K is outside the daylight locus pathwave balances from (4000 to 25000 K)",
                                kelvin);
    c->scene->film_balanced = 1;
    return PW_OK;
}

pw_status pbrt_film(pbrt_ctx *c, const char *type, pbrt_params *ps)
{
    (void)type;
    const char *filename;
    pw_status st;
    if ((st = get_range(ps, "xresolution", 1280, 1, 32768, &c->xres)) != PW_OK ||
        (st = get_range(ps, "yresolution", 720, 1, 32768, &c->yres)) != PW_OK ||
        (st = pbrt_get_string(ps, "filename", "", &filename)) != PW_OK ||
        (st = pbrt_get_float(ps, "iso", 100.0f, &c->iso)) != PW_OK)
        return st;
    if (!(c->iso > 0.0f) || !isfinite(c->iso))
        return pbrt_param_error(pbrt_param_find(ps, "iso"), ps, "%g is not a positive ISO", c->iso);
    if ((st = film_sensor(c, ps)) != PW_OK)
        return st;
    c->scene->defaults.width = c->xres;
    c->scene->defaults.height = c->yres;
    pbrt_warn_unused(c, ps, "Film");
    return PW_OK;
}

pw_status pbrt_sampler(pbrt_ctx *c, const char *type, pbrt_params *ps)
{
    (void)type; /* the sample pattern changes noise, not the expected image */
    pw_status st = get_range(ps, "pixelsamples", 16, 1, 1 << 24, &c->scene->defaults.spp);
    int seed;
    if (st == PW_OK && (st = pbrt_get_int(ps, "seed", 1, &seed)) == PW_OK)
        c->scene->defaults.seed = (uint32_t)seed;
    if (st == PW_OK)
        pbrt_warn_unused(c, ps, "Sampler");
    return st;
}

pw_status pbrt_integrator(pbrt_ctx *c, const char *type, pbrt_params *ps)
{
    if (strcmp(type, "path") != 0 && strcmp(type, "volpath") != 0)
        pbrt_warn_once(c, "integrator type", ps->path, ps->line,
                       "Integrator \"%s\" is not supported: pathwave's path tracer renders the scene", type);
    pw_status st = get_range(ps, "maxdepth", 5, 0, 1024, &c->scene->defaults.max_depth);
    if (st == PW_OK)
        pbrt_warn_unused(c, ps, "Integrator");
    return st;
}

/* pbrt's camera space has +x to the right of the image, +y up and +z
 * forward; pathwave's camera looks down -w with u to the right and
 * u = up x w. When pbrt's camera-to-world keeps handedness (a LookAt
 * without a mirroring Scale), pbrt's right is -(up x w) and the image is
 * mirrored accordingly. */
pw_status pbrt_camera_finish(pbrt_ctx *c)
{
    pbrt_mat4 world_from_camera = pbrt_mat_identity();
    float fov = 90.0f, lens = 0.0f, focal = 1e6f;
    if (c->cam.seen) {
        pbrt_mat_inverse(&c->cam.camera_from_world, &world_from_camera);
        fov = c->cam.fov;
        lens = c->cam.lens_radius;
        focal = c->cam.focal_distance;
    }
    pw_vec3 pos = pbrt_xform_point(&world_from_camera, v3(0, 0, 0));
    pw_vec3 fwd = pbrt_xform_vector(&world_from_camera, v3(0, 0, 1));
    pw_vec3 up = pbrt_xform_vector(&world_from_camera, v3(0, 1, 0));
    pw_vec3 right = pbrt_xform_vector(&world_from_camera, v3(1, 0, 0));
    if (!(v3_len(fwd) > 0.0f) || !(v3_len(up) > 0.0f) || !isfinite(v3_len(pos)))
        return pw_fail(PW_ERR_FORMAT, "%s: the camera transform is degenerate", c->main_path);
    fwd = v3_norm(fwd);
    pw_camera_desc *d = &c->scene->cam;
    d->look_from = pos;
    d->look_at = v3_add(pos, fwd);
    d->up = v3_norm(up);
    d->vfov_deg = fov;
    d->fov_short_axis = 1;
    d->aperture = 2.0f * lens;
    d->focus_dist = lens > 0.0f ? focal : 1.0f;
    d->mirror_x = v3_dot(v3_cross(fwd, d->up), right) < 0.0f;
    /* pbrt-v4's default sensor (cie1931) scales the image by its imaging
     * ratio, exposure time x ISO / 100: 1 with the defaults. */
    c->scene->film_scale = (c->cam.seen ? c->cam.exposure : 1.0f) * c->iso / 100.0f;
    return PW_OK;
}
