/* pbrt materials and textures as pathwave materials: diffuse, conductor
 * and dielectric map directly; the others are approximated (and warned
 * about once). Textures are constant stand-ins until pathwave has textures:
 * pbrt_texture_lookup is the one place a texture index will be hooked in. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "scene/pbrt/pbrt_internal.h"

/* The texture's constant stand-in. When pathwave gains textures, this is
 * where the texture's index goes into the material (and the warning in
 * pbrt_texture_define goes away). */
static int pbrt_texture_lookup(pbrt_ctx *c, const char *name, pw_vec3 *value)
{
    uint32_t idx;
    if (!pbrt_names_find(&c->textures_idx, name, &idx))
        return 0;
    *value = c->textures[idx].value;
    return 1;
}

pw_status pbrt_get_color(pbrt_ctx *c, pbrt_params *ps, const char *name, pw_vec3 def, pbrt_color_use use, pw_vec3 *out,
                         int *found)
{
    pbrt_param *p = pbrt_param_find(ps, name);
    *out = def;
    if (found)
        *found = p != NULL;
    if (!p)
        return PW_OK;
    switch (p->type) {
    case PBRT_P_RGB:
        *out = v3((float)p->num[0], (float)p->num[1], (float)p->num[2]);
        break;
    case PBRT_P_FLOAT:
        if (p->n != 1)
            return pbrt_param_error(p, ps, "needs 1 value, got %u", p->n);
        *out = v3s((float)p->num[0]);
        break;
    case PBRT_P_BLACKBODY:
        *out = pbrt_blackbody_rgb(p->num[0]);
        break;
    case PBRT_P_SPECTRUM:
        if (p->str && !pbrt_named_spectrum(p->str[0], out)) {
            pbrt_warn_once(c, p->str[0], ps->path, p->line,
                           "spectrum \"%s\" is neither a known named spectrum nor supported as a file: %s used",
                           p->str[0], use == PBRT_ILLUMINANT ? "white" : "the default");
        } else if (!p->str) {
            if (p->n < 2)
                return pbrt_param_error(p, ps, "needs at least one (wavelength, value) pair");
            for (uint32_t i = 2; i < p->n; i += 2)
                if (!(p->num[i] > p->num[i - 2]))
                    return pbrt_param_error(p, ps, "wavelengths must increase");
            *out = pbrt_sampled_rgb(p->num, p->n / 2, use == PBRT_ILLUMINANT);
        }
        break;
    case PBRT_P_TEXTURE:
        if (!pbrt_texture_lookup(c, p->str[0], out))
            return pbrt_param_error(p, ps, "texture \"%s\" was not defined", p->str[0]);
        break;
    default:
        return pbrt_param_error(p, ps, "should be rgb, spectrum, blackbody or texture");
    }
    if (!isfinite(out->x) || !isfinite(out->y) || !isfinite(out->z) || out->x < 0 || out->y < 0 || out->z < 0)
        return pbrt_param_error(p, ps, "colour (%g, %g, %g) must be finite and not negative", out->x, out->y, out->z);
    return PW_OK;
}

pw_status pbrt_get_float_tex(pbrt_ctx *c, pbrt_params *ps, const char *name, float def, float *out)
{
    pbrt_param *p = pbrt_param_find(ps, name);
    if (!p || p->type != PBRT_P_TEXTURE)
        return pbrt_get_float(ps, name, def, out);
    pw_vec3 v;
    if (!pbrt_texture_lookup(c, p->str[0], &v))
        return pbrt_param_error(p, ps, "texture \"%s\" was not defined", p->str[0]);
    *out = v.x;
    return PW_OK;
}

static pw_status add_texture(pbrt_ctx *c, const char *name, pw_vec3 value, const char *filename)
{
    if (c->n_tex == c->cap_tex) {
        uint32_t nc = c->cap_tex ? 2 * c->cap_tex : 8;
        pbrt_texture *nt = realloc(c->textures, nc * sizeof *nt);
        if (!nt)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for textures");
        c->textures = nt;
        c->cap_tex = nc;
    }
    pbrt_texture *t = &c->textures[c->n_tex];
    t->value = value;
    t->filename = filename ? strdup(filename) : NULL;
    if (filename && !t->filename)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for textures");
    return pbrt_names_set(&c->textures_idx, name, c->n_tex++);
}

/* An image's mean colour: the stand-in for an image texture. */
static pw_status image_mean(pbrt_ctx *c, pbrt_params *ps, pw_vec3 *out, char *full, size_t n)
{
    const char *filename;
    pw_status st = pbrt_get_string(ps, "filename", NULL, &filename);
    if (st != PW_OK)
        return st;
    if (!filename)
        return pbrt_error_at(ps->path, ps->line, ps->col, "Texture \"imagemap\" has no \"string filename\"");
    if (!pbrt_resolve_path(c, filename, full, n))
        return pbrt_error_at(ps->path, ps->line, ps->col, "file name too long");
    float *rgb;
    int w, h;
    if (pw_image_read(full, &rgb, &w, &h) != PW_OK)
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s", pw_last_error());
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < (size_t)w * h; i++)
        for (int k = 0; k < 3; k++)
            sum[k] += isfinite(rgb[3 * i + k]) ? rgb[3 * i + k] : 0.0;
    pw_free(rgb);
    double np = (double)w * h;
    *out = np > 0 ? v3((float)(sum[0] / np), (float)(sum[1] / np), (float)(sum[2] / np)) : v3s(0.5f);
    return PW_OK;
}

pw_status pbrt_texture_define(pbrt_ctx *c, const char *name, const char *kind, const char *cls, pbrt_params *ps)
{
    if (strcmp(kind, "spectrum") != 0 && strcmp(kind, "float") != 0 && strcmp(kind, "color") != 0)
        return pbrt_error_at(ps->path, ps->line, ps->col,
                             "Texture \"%s\": type \"%s\" is not \"spectrum\" or \"float\"", name, kind);
    pw_vec3 value = v3s(0.5f);
    char full[4096];
    const char *file = NULL;
    pw_status st = PW_OK;
    if (strcmp(cls, "imagemap") == 0) {
        pbrt_warn_once(c, "texture imagemap", ps->path, ps->line,
                       "Texture \"imagemap\": pathwave has no textures yet; the image's mean colour is used");
        st = image_mean(c, ps, &value, full, sizeof full);
        file = full;
        float scale = 1.0f;
        int invert = 0;
        if (st == PW_OK && (st = pbrt_get_float(ps, "scale", 1.0f, &scale)) == PW_OK &&
            (st = pbrt_get_bool(ps, "invert", 0, &invert)) == PW_OK) {
            value = v3_scale(value, scale);
            if (invert)
                value = v3_sub(v3s(1.0f), value);
        }
        pbrt_param_find(ps, "encoding");
        pbrt_param_find(ps, "filter");
        pbrt_param_find(ps, "wrap");
    } else if (strcmp(cls, "constant") == 0) {
        st = pbrt_get_color(c, ps, "value", v3s(1.0f), PBRT_UNBOUNDED, &value, NULL);
    } else if (strcmp(cls, "scale") == 0) {
        pw_vec3 tex, scale;
        if ((st = pbrt_get_color(c, ps, "tex", v3s(1.0f), PBRT_UNBOUNDED, &tex, NULL)) == PW_OK &&
            (st = pbrt_get_color(c, ps, "scale", v3s(1.0f), PBRT_UNBOUNDED, &scale, NULL)) == PW_OK)
            value = v3_mul(tex, scale);
    } else {
        char key[80];
        snprintf(key, sizeof key, "texture %s", cls);
        pbrt_warn_once(c, key, ps->path, ps->line, "Texture \"%s\" is not supported: a constant 0.5 is used", cls);
        for (int i = 0; i < ps->n; i++)
            ps->p[i].used = 1;
    }
    if (st != PW_OK)
        return st;
    char what[80];
    snprintf(what, sizeof what, "Texture \"%s\"", cls);
    pbrt_warn_unused(c, ps, what);
    return add_texture(c, name, value, file);
}

/* pbrt-v4 maps roughness to GGX alpha as sqrt(roughness) when remaproughness
 * is true (TrowbridgeReitzDistribution::RoughnessToAlpha); anisotropic
 * roughness becomes the geometric mean of the two alphas. */
static pw_status get_alpha(pbrt_ctx *c, pbrt_params *ps, const char *what, float *alpha)
{
    float r, u, v;
    int remap;
    pw_status st;
    if ((st = pbrt_get_float_tex(c, ps, "roughness", 0.0f, &r)) != PW_OK ||
        (st = pbrt_get_float_tex(c, ps, "uroughness", r, &u)) != PW_OK ||
        (st = pbrt_get_float_tex(c, ps, "vroughness", r, &v)) != PW_OK ||
        (st = pbrt_get_bool(ps, "remaproughness", 1, &remap)) != PW_OK)
        return st;
    if (!(u >= 0.0f) || !(v >= 0.0f))
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s: roughness must not be negative", what);
    if (fabsf(u - v) > 1e-6f * fmaxf(u, v)) {
        char key[80];
        snprintf(key, sizeof key, "anisotropic %s", what);
        pbrt_warn_once(c, key, ps->path, ps->line, "%s: anisotropic roughness approximated as isotropic", what);
    }
    float au = remap ? sqrtf(u) : u, av = remap ? sqrtf(v) : v;
    *alpha = sqrtf(au * av);
    return PW_OK;
}

static pw_status conductor(pbrt_ctx *c, pbrt_params *ps, pw_material *out)
{
    pw_vec3 eta, k, refl;
    int has_refl;
    float alpha;
    pw_status st;
    if ((st = pbrt_get_color(c, ps, "reflectance", v3s(0.0f), PBRT_ALBEDO, &refl, &has_refl)) != PW_OK ||
        (st = pbrt_get_color(c, ps, "eta", v3(0.200438f, 0.924033f, 1.102212f), PBRT_UNBOUNDED, &eta, NULL)) != PW_OK ||
        (st = pbrt_get_color(c, ps, "k", v3(3.912949f, 2.452848f, 2.142188f), PBRT_UNBOUNDED, &k, NULL)) != PW_OK ||
        (st = get_alpha(c, ps, "conductor", &alpha)) != PW_OK)
        return st;
    if (has_refl) {
        /* pbrt-v4's reading of a reflectance: eta 1 and the k that gives it at normal incidence. */
        refl = v3_min(refl, v3s(0.9999f));
        eta = v3s(1.0f);
        k = v3(2.0f * sqrtf(refl.x) / sqrtf(1.0f - refl.x), 2.0f * sqrtf(refl.y) / sqrtf(1.0f - refl.y),
               2.0f * sqrtf(refl.z) / sqrtf(1.0f - refl.z));
    }
    *out = pw_conductor(eta, k, alpha);
    return PW_OK;
}

static pw_status dielectric(pbrt_ctx *c, pbrt_params *ps, const char *what, pw_material *out)
{
    pw_vec3 eta;
    float alpha;
    pw_status st;
    if ((st = pbrt_get_color(c, ps, "eta", v3s(1.5f), PBRT_UNBOUNDED, &eta, NULL)) != PW_OK ||
        (st = get_alpha(c, ps, what, &alpha)) != PW_OK)
        return st;
    if (!(eta.y > 0.0f))
        return pbrt_error_at(ps->path, ps->line, ps->col, "%s: eta must be positive", what);
    /* ROUGH DIELECTRIC: switch to pw_rough_dielectric(eta.y, alpha) here once it exists. */
    if (alpha > 0.0f)
        pbrt_warn_once(c, "rough dielectric", ps->path, ps->line, "rough dielectric approximated as smooth");
    *out = pw_dielectric(eta.y);
    return PW_OK;
}

/* Diffuse base under a smooth clear coat of index eta, its gloss dropped:
 * light enters through (1 - F0), and of what the base reflects a part
 * (1 - Fdr) leaves while Fdr goes back down, giving the series
 * rho (1 - F0) (1 - Fdr) / (1 - rho Fdr). Fdr is the coat's internal
 * diffuse reflectance (Egan and Hilgeman's fit). */
static pw_vec3 coated_albedo(pw_vec3 rho, float eta)
{
    float f0 = (eta - 1.0f) / (eta + 1.0f);
    f0 *= f0;
    float fdr = eta > 1.0f ? -1.440f / (eta * eta) + 0.710f / eta + 0.668f + 0.0636f * eta : 0.0f;
    fdr = fminf(fmaxf(fdr, 0.0f), 0.99f);
    pw_vec3 r;
    r.x = rho.x * (1 - f0) * (1 - fdr) / (1 - rho.x * fdr);
    r.y = rho.y * (1 - f0) * (1 - fdr) / (1 - rho.y * fdr);
    r.z = rho.z * (1 - f0) * (1 - fdr) / (1 - rho.z * fdr);
    return r;
}

static pw_status coated_diffuse(pbrt_ctx *c, pbrt_params *ps, pw_material *out)
{
    pw_vec3 rho;
    float eta;
    pw_status st;
    if ((st = pbrt_get_color(c, ps, "reflectance", v3s(0.5f), PBRT_ALBEDO, &rho, NULL)) != PW_OK ||
        (st = pbrt_get_float(ps, "eta", 1.5f, &eta)) != PW_OK)
        return st;
    pbrt_warn_once(c, "coateddiffuse", ps->path, ps->line,
                   "coateddiffuse approximated as diffuse under a clear coat without its gloss");
    static const char *const ignored[] = {"roughness", "uroughness", "vroughness", "remaproughness", "thickness",
                                          "albedo",    "g",          "maxdepth",   "nsamples"};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
        pbrt_param_find(ps, ignored[i]);
    rho = v3_min(rho, v3s(1.0f));
    *out = pw_lambert(0, 0, 0);
    out->albedo = coated_albedo(rho, eta > 0.0f ? eta : 1.5f);
    return PW_OK;
}

/* mix: the material with the larger weight (pbrt blends them stochastically). */
static pw_status mix(pbrt_ctx *c, pbrt_params *ps, pw_material *out)
{
    pbrt_param *p = pbrt_param_find(ps, "materials");
    float amount;
    pw_status st = pbrt_get_float_tex(c, ps, "amount", 0.5f, &amount);
    if (st != PW_OK)
        return st;
    if (!p || p->type != PBRT_P_STRING || p->n != 2)
        return pbrt_error_at(ps->path, ps->line, ps->col, "mix needs \"string materials\" with two names");
    const char *name = p->str[amount > 0.5f ? 1 : 0];
    uint32_t idx;
    if (!pbrt_names_find(&c->named_mats, name, &idx))
        return pbrt_param_error(p, ps, "material \"%s\" was not defined", name);
    pbrt_warn_once(c, "mix", ps->path, ps->line, "mix approximated by the material of larger weight");
    *out = c->scene->mats[idx];
    return PW_OK;
}

pw_status pbrt_material(pbrt_ctx *c, const char *type, pbrt_params *ps, pw_material *out)
{
    pw_status st = PW_OK;
    pbrt_param_find(ps, "type");
    if (strcmp(type, "diffuse") == 0) {
        pw_vec3 r;
        st = pbrt_get_color(c, ps, "reflectance", v3s(0.5f), PBRT_ALBEDO, &r, NULL);
        *out = pw_lambert(fminf(r.x, 1.0f), fminf(r.y, 1.0f), fminf(r.z, 1.0f));
    } else if (strcmp(type, "conductor") == 0) {
        st = conductor(c, ps, out);
    } else if (strcmp(type, "dielectric") == 0) {
        st = dielectric(c, ps, "dielectric", out);
    } else if (strcmp(type, "thindielectric") == 0) {
        pbrt_warn_once(c, "thindielectric", ps->path, ps->line, "thindielectric approximated as a dielectric");
        st = dielectric(c, ps, "thindielectric", out);
    } else if (strcmp(type, "coateddiffuse") == 0) {
        st = coated_diffuse(c, ps, out);
    } else if (strcmp(type, "coatedconductor") == 0) {
        pbrt_warn_once(c, "coatedconductor", ps->path, ps->line, "coatedconductor approximated as its conductor");
        pw_vec3 eta, k;
        float r;
        if ((st = pbrt_get_color(c, ps, "conductor.eta", v3(0.200438f, 0.924033f, 1.102212f), PBRT_UNBOUNDED, &eta,
                                 NULL)) == PW_OK &&
            (st = pbrt_get_color(c, ps, "conductor.k", v3(3.912949f, 2.452848f, 2.142188f), PBRT_UNBOUNDED, &k,
                                 NULL)) == PW_OK &&
            (st = pbrt_get_float_tex(c, ps, "conductor.roughness", 0.0f, &r)) == PW_OK)
            *out = pw_conductor(eta, k, sqrtf(r));
        for (int i = 0; i < ps->n; i++)
            ps->p[i].used = 1;
    } else if (strcmp(type, "mix") == 0) {
        st = mix(c, ps, out);
    } else if (strcmp(type, "interface") == 0 || strcmp(type, "") == 0 || strcmp(type, "none") == 0) {
        *out = pw_dielectric(1.0f); /* no surface: light passes straight through */
    } else {
        char key[80];
        snprintf(key, sizeof key, "material %s", type);
        pbrt_warn_once(c, key, ps->path, ps->line, "material \"%s\" is not supported: diffuse 0.5 is used", type);
        for (int i = 0; i < ps->n; i++)
            ps->p[i].used = 1;
        *out = pw_lambert(0.5f, 0.5f, 0.5f);
    }
    if (st == PW_OK) {
        char what[80];
        snprintf(what, sizeof what, "material \"%s\"", type);
        pbrt_warn_unused(c, ps, what);
    }
    return st;
}

pw_status pbrt_shape_material(pbrt_ctx *c, uint32_t *out)
{
    uint32_t base = c->gs.material;
    if (base == UINT32_MAX) {
        if (c->default_mat == UINT32_MAX &&
            (c->default_mat = pw_scene_add_material(c->scene, pw_lambert(0.5f, 0.5f, 0.5f))) == UINT32_MAX)
            return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for materials");
        base = c->default_mat;
    }
    const pbrt_area_light *a = &c->gs.area;
    if (!a->on) {
        *out = base;
        return PW_OK;
    }
    if (c->em_valid && c->em_base == base && c->em_light.two_sided == a->two_sided && c->em_light.L.x == a->L.x &&
        c->em_light.L.y == a->L.y && c->em_light.L.z == a->L.z) {
        *out = c->em_index;
        return PW_OK;
    }
    pw_material m = pw_emissive(c->scene->mats[base], a->L.x, a->L.y, a->L.z);
    if (a->two_sided)
        m.flags |= PW_MATF_TWO_SIDED;
    uint32_t idx = pw_scene_add_material(c->scene, m);
    if (idx == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for materials");
    c->em_valid = 1;
    c->em_base = base;
    c->em_light = *a;
    c->em_index = idx;
    *out = idx;
    return PW_OK;
}
