/* pbrt materials and textures as pathwave materials: diffuse, conductor
 * and (rough) dielectric map directly; the others are approximated (and
 * warned about once). A spectrum image map becomes a scene texture where a
 * diffuse or coateddiffuse reflectance names it; other uses read a
 * constant (pbrt_texture_lookup). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <strings.h>
#include <unistd.h>

#include "core/error.h"
#include "film/tonemap.h"
#include "scene/pbrt/pbrt_internal.h"

/* The constant a texture stands for where pathwave cannot use an image:
 * an image map read as a constant is warned about once per texture. */
static int pbrt_texture_lookup(pbrt_ctx *c, const pbrt_params *ps, const pbrt_param *p, pw_vec3 *value)
{
    uint32_t idx;
    if (!pbrt_names_find(&c->textures_idx, p->str[0], &idx))
        return 0;
    const pbrt_texture *t = &c->textures[idx];
    *value = t->value;
    if (t->image != UINT32_MAX) {
        char key[200];
        snprintf(key, sizeof key, "texture as constant %s", p->str[0]);
        pbrt_warn_once(c, key, ps->path, p->line,
                       "\"texture %s\": image texture \"%s\" is used as its mean colour here (pathwave textures "
                       "only diffuse reflectance)",
                       p->name, p->str[0]);
    }
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
        if (!pbrt_texture_lookup(c, ps, p, out))
            return pbrt_param_error(p, ps, "texture \"%s\" was not defined", p->str[0]);
        break;
    default:
        return pbrt_param_error(p, ps, "should be rgb, spectrum, blackbody or texture");
    }
    if (!isfinite(out->x) || !isfinite(out->y) || !isfinite(out->z) || out->x < 0 || out->y < 0 || out->z < 0)
        return pbrt_param_error(p, ps, "colour (%g, %g, %g) must be finite and not negative", out->x, out->y, out->z);
    return PW_OK;
}

pw_status pbrt_get_albedo(pbrt_ctx *c, pbrt_params *ps, const char *name, pw_vec3 def, pw_vec3 *out, uint32_t *tex,
                         pw_vec3 *mean)
{
    pbrt_param *p = pbrt_param_find(ps, name);
    uint32_t idx;
    *tex = UINT32_MAX;
    if (p && p->type == PBRT_P_TEXTURE && pbrt_names_find(&c->textures_idx, p->str[0], &idx) &&
        c->textures[idx].image != UINT32_MAX) {
        *tex = c->textures[idx].image;
        *out = c->textures[idx].tint;
        if (mean)
            *mean = c->textures[idx].value;
        return PW_OK;
    }
    pw_status st = pbrt_get_color(c, ps, name, def, PBRT_ALBEDO, out, NULL);
    if (mean)
        *mean = *out;
    return st;
}

pw_status pbrt_get_float_tex(pbrt_ctx *c, pbrt_params *ps, const char *name, float def, float *out)
{
    pbrt_param *p = pbrt_param_find(ps, name);
    if (!p || p->type != PBRT_P_TEXTURE)
        return pbrt_get_float(ps, name, def, out);
    pw_vec3 v;
    if (!pbrt_texture_lookup(c, ps, p, &v))
        return pbrt_param_error(p, ps, "texture \"%s\" was not defined", p->str[0]);
    *out = v.x;
    return PW_OK;
}

static pw_status add_texture(pbrt_ctx *c, const char *name, const pbrt_texture *src)
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
    *t = *src;
    t->filename = src->filename ? strdup(src->filename) : NULL;
    if (src->filename && !t->filename)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for textures");
    return pbrt_names_set(&c->textures_idx, name, c->n_tex++);
}

/* An image file named in a directive: against the main file's folder as
 * pbrt-v4 does, else against the folder of the file holding the directive
 * (an included file's neighbour). 0 when the name is too long. */
static int resolve_image(const pbrt_ctx *c, const pbrt_params *ps, const char *name, char *full, size_t n)
{
    if (!pbrt_resolve_path(c, name, full, n))
        return 0;
    if (name[0] == '/' || access(full, F_OK) == 0)
        return 1;
    const char *slash = strrchr(ps->path, '/');
    if (!slash)
        return 1;
    char alt[4096];
    int len = snprintf(alt, sizeof alt, "%.*s/%s", (int)(slash - ps->path), ps->path, name);
    if (len > 0 && (size_t)len < sizeof alt && (size_t)len < n && access(alt, F_OK) == 0)
        memcpy(full, alt, (size_t)len + 1);
    return 1;
}

/* How an image map's texels are decoded and adjusted before they become a
 * reflectance: 8-bit texels are decoded as sRGB, linearly or by a gamma;
 * then scale, invert (1 - x) and the clamp to [0, 1] that pbrt-v4 applies
 * to a diffuse reflectance. */
typedef struct image_opts {
    int srgb;    /* 8-bit texels as sRGB (pbrt's default); else linear, or by gamma */
    float gamma; /* > 0: 8-bit texels as code^gamma */
    float scale;
    int invert;
    uint32_t wrap;
} image_opts;

static int is_float_image(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot && (strcasecmp(dot, ".exr") == 0 || strcasecmp(dot, ".hdr") == 0 || strcasecmp(dot, ".pfm") == 0);
}

static void adjust_texels(float *rgb, size_t n, const image_opts *o, int float_image)
{
    for (size_t i = 0; i < n; i++) {
        float x = rgb[i];
        if (!float_image && !o->srgb) {
            float code = pw_linear_to_srgb(x); /* the 8-bit value the reader decoded as sRGB */
            x = o->gamma > 0.0f ? powf(code, o->gamma) : code;
        }
        x *= o->scale;
        if (o->invert)
            x = 1.0f - x;
        rgb[i] = isfinite(x) ? fminf(fmaxf(x, 0.0f), 1.0f) : 0.0f;
    }
}

static pw_vec3 mean_rgb(const float *px, size_t n)
{
    double sum[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 3; k++)
            sum[k] += px[3 * i + k];
    return n ? v3((float)(sum[0] / n), (float)(sum[1] / n), (float)(sum[2] / n)) : v3s(0.5f);
}

/* The scene texture for an image file with these options (decoded once
 * per distinct file and decoding however many Texture directives name it)
 * and its mean; with tex NULL only the mean, nothing kept. */
static pw_status image_texture(pbrt_ctx *c, const char *full, const image_opts *o, uint32_t *tex, pw_vec3 *mean)
{
    char key[4200];
    snprintf(key, sizeof key, "pbrt:%s|%s%g|%g|%d", full, o->srgb ? "srgb" : "gamma", o->gamma, o->scale, o->invert);
    if (tex && (*tex = pw_scene_find_texture(c->scene, key, o->wrap)) != UINT32_MAX) {
        const pw_texture *t = &c->scene->textures[*tex];
        *mean = mean_rgb(c->scene->texels + 3 * (size_t)t->offset, (size_t)t->w * t->h);
        return PW_OK;
    }
    float *rgb;
    int w, h;
    pw_status st = pw_image_read(full, &rgb, &w, &h);
    if (st != PW_OK)
        return st;
    adjust_texels(rgb, (size_t)w * h * 3, o, is_float_image(full));
    *mean = mean_rgb(rgb, (size_t)w * h);
    if (tex)
        st = pw_scene_add_texture(c->scene, rgb, w, h, o->wrap, key, tex);
    free(rgb);
    return st;
}

/* "wrap" and "encoding" of an image map into o; unknown names are errors,
 * modes pathwave lacks are mapped to the nearest one with a warning. */
static pw_status image_options(pbrt_ctx *c, pbrt_params *ps, image_opts *o)
{
    const char *wrap, *enc;
    pw_status st;
    memset(o, 0, sizeof *o);
    if ((st = pbrt_get_string(ps, "wrap", "repeat", &wrap)) != PW_OK ||
        (st = pbrt_get_string(ps, "encoding", "sRGB", &enc)) != PW_OK ||
        (st = pbrt_get_float(ps, "scale", 1.0f, &o->scale)) != PW_OK ||
        (st = pbrt_get_bool(ps, "invert", 0, &o->invert)) != PW_OK)
        return st;
    if (!isfinite(o->scale))
        return pbrt_param_error(pbrt_param_find(ps, "scale"), ps, "must be finite");
    uint32_t mode;
    if (strcmp(wrap, "repeat") == 0) {
        mode = PW_WRAP_REPEAT;
    } else if (strcmp(wrap, "clamp") == 0) {
        mode = PW_WRAP_CLAMP;
    } else if (strcmp(wrap, "black") == 0 || strcmp(wrap, "octahedralsphere") == 0) {
        int black = wrap[0] == 'b';
        mode = black ? PW_WRAP_CLAMP : PW_WRAP_REPEAT;
        char key[80];
        snprintf(key, sizeof key, "wrap %s", wrap);
        pbrt_warn_once(c, key, ps->path, pbrt_param_find(ps, "wrap")->line,
                       "Texture \"imagemap\": wrap \"%s\" is not supported: \"%s\" is used", wrap,
                       black ? "clamp" : "repeat");
    } else {
        return pbrt_param_error(pbrt_param_find(ps, "wrap"), ps,
                                "unknown wrap mode \"%s\" (repeat, clamp, black or octahedralsphere)", wrap);
    }
    o->wrap = PW_WRAP_UV(mode, mode);
    if (strcmp(enc, "sRGB") == 0) {
        o->srgb = 1;
    } else if (strcmp(enc, "linear") == 0) {
        o->gamma = 0.0f;
    } else if (strncmp(enc, "gamma ", 6) == 0) {
        char *end;
        o->gamma = strtof(enc + 6, &end);
        if (*end || !(o->gamma > 0.0f) || !isfinite(o->gamma))
            return pbrt_param_error(pbrt_param_find(ps, "encoding"), ps, "bad gamma in \"%s\"", enc);
    } else {
        return pbrt_param_error(pbrt_param_find(ps, "encoding"), ps,
                                "unknown encoding \"%s\" (sRGB, linear or \"gamma <value>\")", enc);
    }
    return PW_OK;
}

/* imagemap: a spectrum texture becomes a scene texture (used where a
 * diffuse reflectance names it, its mean elsewhere); a float texture is its
 * image's mean. An image that cannot be read is a warning, not an error:
 * the texture is the constant 0.5. full receives the resolved file name. */
static pw_status image_map(pbrt_ctx *c, pbrt_params *ps, const char *name, int spectrum, pbrt_texture *t, char *full,
                           size_t n)
{
    const char *filename;
    image_opts o;
    pw_status st = pbrt_get_string(ps, "filename", NULL, &filename);
    if (st != PW_OK)
        return st;
    if (!filename)
        return pbrt_error_at(ps->path, ps->line, ps->col, "Texture \"imagemap\" has no \"string filename\"");
    if ((st = image_options(c, ps, &o)) != PW_OK)
        return st;
    pbrt_param_find(ps, "filter"); /* bilinear filtering stands in for every filter */
    pbrt_param_find(ps, "maxanisotropy");
    if (!resolve_image(c, ps, filename, full, n))
        return pbrt_error_at(ps->path, ps->line, ps->col, "file name too long");
    t->filename = full;
    uint32_t tex;
    if (image_texture(c, full, &o, spectrum ? &tex : NULL, &t->value) != PW_OK) {
        t->value = v3s(0.5f);
        pw_scene_warn(c->scene, "%s:%d: Texture \"%s\": image \"%s\" not used (%s); a constant 0.5 stands in",
                      ps->path, ps->line, name, filename, pw_last_error());
        return PW_OK;
    }
    if (spectrum)
        t->image = tex;
    else
        pbrt_warn_once(c, "float imagemap", ps->path, ps->line,
                       "Texture \"%s\" \"float\" \"imagemap\": pathwave has no float textures; the image's mean "
                       "red channel is used",
                       name);
    return PW_OK;
}

/* scale: an image map times a constant keeps its image, the constant
 * joining its tint; anything else is the product of the constants. */
static pw_status scale_texture(pbrt_ctx *c, pbrt_params *ps, pbrt_texture *t)
{
    static const char *const names[2] = {"tex", "scale"};
    int img = -1;
    uint32_t idx[2];
    for (int i = 0; i < 2; i++) {
        pbrt_param *p = pbrt_param_find(ps, names[i]);
        if (img < 0 && p && p->type == PBRT_P_TEXTURE && pbrt_names_find(&c->textures_idx, p->str[0], &idx[i]) &&
            c->textures[idx[i]].image != UINT32_MAX)
            img = i;
    }
    pw_vec3 v[2];
    pw_status st;
    for (int i = 0; i < 2; i++) {
        if (i == img)
            continue;
        if ((st = pbrt_get_color(c, ps, names[i], v3s(1.0f), PBRT_UNBOUNDED, &v[i], NULL)) != PW_OK)
            return st;
    }
    if (img < 0) {
        t->value = v3_mul(v[0], v[1]);
        return PW_OK;
    }
    const pbrt_texture *src = &c->textures[idx[img]];
    pw_vec3 k = v[1 - img];
    t->image = src->image;
    t->tint = v3_mul(src->tint, k);
    t->value = v3_mul(src->value, k);
    return PW_OK;
}

pw_status pbrt_texture_define(pbrt_ctx *c, const char *name, const char *kind, const char *cls, pbrt_params *ps)
{
    if (strcmp(kind, "spectrum") != 0 && strcmp(kind, "float") != 0 && strcmp(kind, "color") != 0)
        return pbrt_error_at(ps->path, ps->line, ps->col,
                             "Texture \"%s\": type \"%s\" is not \"spectrum\" or \"float\"", name, kind);
    pbrt_texture t = {v3s(0.5f), UINT32_MAX, v3s(1.0f), NULL};
    char full[4096];
    pw_status st = PW_OK;
    if (strcmp(cls, "imagemap") == 0) {
        st = image_map(c, ps, name, strcmp(kind, "float") != 0, &t, full, sizeof full);
    } else if (strcmp(cls, "constant") == 0) {
        st = pbrt_get_color(c, ps, "value", v3s(1.0f), PBRT_UNBOUNDED, &t.value, NULL);
    } else if (strcmp(cls, "scale") == 0) {
        st = scale_texture(c, ps, &t);
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
    return add_texture(c, name, &t);
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
    /* GGX rough glass; below PW_GGX_MIN_ALPHA pw_rough_dielectric is the smooth one. */
    *out = pw_rough_dielectric(eta.y, alpha);
    return PW_OK;
}

/* Of the light a diffuse base of albedo rho sends up under a smooth coat
 * of index eta, the part that leaves: (1 - Fdr) of each bounce leaves and
 * Fdr goes back down, giving the series rho (1 - Fdr) / (1 - rho Fdr). Fdr
 * is the coat's internal diffuse reflectance (Egan and Hilgeman's fit).
 * The entry loss (1 - F) is left to the material it goes into. */
static float coat_base(float rho, float eta)
{
    float fdr = eta > 1.0f ? -1.440f / (eta * eta) + 0.710f / eta + 0.668f + 0.0636f * eta : 0.0f;
    fdr = fminf(fmaxf(fdr, 0.0f), 0.99f);
    return rho * (1 - fdr) / (1 - rho * fdr);
}

/* coateddiffuse as the glTF dielectric (PW_MAT_METALLIC_ROUGHNESS with
 * metallic 0): a GGX coat of the pbrt coat's alpha with Schlick's F0 = 0.04
 * (that of eta 1.5, pbrt's default) over a Lambert base that loses 1 - F.
 * The base colour is coat_base of the reflectance; for a textured
 * reflectance it is the texture times coat_base(mean) / mean. The coat's
 * medium (thickness, albedo, g) is dropped. */
static pw_status coated_diffuse(pbrt_ctx *c, pbrt_params *ps, pw_material *out)
{
    pw_vec3 rho, mean;
    uint32_t tex;
    float eta, alpha;
    pw_status st;
    if ((st = pbrt_get_albedo(c, ps, "reflectance", v3s(0.5f), &rho, &tex, &mean)) != PW_OK ||
        (st = pbrt_get_float(ps, "eta", 1.5f, &eta)) != PW_OK ||
        (st = get_alpha(c, ps, "coateddiffuse", &alpha)) != PW_OK)
        return st;
    if (!(eta > 0.0f))
        return pbrt_error_at(ps->path, ps->line, ps->col, "coateddiffuse: eta must be positive");
    pbrt_warn_once(c, "coateddiffuse", ps->path, ps->line,
                   "coateddiffuse approximated as a GGX clear coat of F0 0.04 over a diffuse base (its "
                   "interreflections folded into the base colour, its medium dropped)");
    if (fabsf(eta - 1.5f) > 0.05f)
        pbrt_warn_once(c, "coateddiffuse eta", ps->path, ps->line,
                       "coateddiffuse: eta %g rendered with the reflectance of eta 1.5 (F0 0.04)", eta);
    static const char *const ignored[] = {"thickness", "albedo", "g", "maxdepth", "nsamples"};
    for (size_t i = 0; i < sizeof ignored / sizeof *ignored; i++)
        pbrt_param_find(ps, ignored[i]);
    rho = v3_min(rho, v3s(1.0f));
    mean = v3_min(mean, v3s(1.0f));
    float base[3];
    for (int k = 0; k < 3; k++) {
        float m = v3_get(mean, k);
        base[k] = v3_get(rho, k) * (m > 0.0f ? coat_base(m, eta) / m : 1.0f);
    }
    *out = pw_metallic_roughness(v3(base[0], base[1], base[2]), 0.0f, sqrtf(alpha));
    if (tex != UINT32_MAX)
        PW_MAT_SET_ALBEDO_TEX(out, tex);
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
        return pbrt_param_error(p, ps, "material \"%s\" is not defined before the mix (pathwave needs a mix's "
                                "materials made first)",
                                name);
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
        uint32_t tex;
        st = pbrt_get_albedo(c, ps, "reflectance", v3s(0.5f), &r, &tex, NULL);
        *out = pw_lambert(fminf(r.x, 1.0f), fminf(r.y, 1.0f), fminf(r.z, 1.0f));
        if (tex != UINT32_MAX)
            PW_MAT_SET_ALBEDO_TEX(out, tex);
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
            (st = pbrt_get_float_tex(c, ps, "conductor.roughness", 0.0f, &r)) == PW_OK) {
            if (!(r >= 0.0f))
                st = pbrt_error_at(ps->path, ps->line, ps->col, "coatedconductor: roughness must not be negative");
            else
                *out = pw_conductor(eta, k, sqrtf(r));
        }
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
            (c->default_mat = pw_scene_push_material(c->scene, pw_lambert(0.5f, 0.5f, 0.5f))) == UINT32_MAX)
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
    uint32_t idx = pw_scene_push_material(c->scene, m);
    if (idx == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "out of memory for materials");
    c->em_valid = 1;
    c->em_base = base;
    c->em_light = *a;
    c->em_index = idx;
    *out = idx;
    return PW_OK;
}
