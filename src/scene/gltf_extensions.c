#include "scene/gltf_extensions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

static pw_status each_in(const pw_gltf_doc *d, const cJSON *v, pw_gltf_extension_fn fn, void *user)
{
    pw_status st = PW_OK;
    /* cJSON refuses documents nested deeper than CJSON_NESTING_LIMIT, which
     * bounds this recursion. */
    for (const cJSON *c = v->child; c && st == PW_OK; c = c->next) {
        if (c->string && strcmp(c->string, "extras") == 0 && cJSON_IsObject(v))
            continue; /* an application's own data, not the format's */
        if (c->string && strcmp(c->string, "extensions") == 0 && cJSON_IsObject(v) && cJSON_IsObject(c)) {
            for (const cJSON *e = c->child; e && st == PW_OK; e = e->next)
                if ((st = fn(d, e->string, e, user)) == PW_OK)
                    st = each_in(d, e, fn, user);
        } else if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
            st = each_in(d, c, fn, user);
        }
    }
    return st;
}

pw_status pw_gltf_each_extension(const pw_gltf_doc *d, pw_gltf_extension_fn fn, void *user)
{
    return each_in(d, d->root, fn, user);
}

static const char *const implemented[] = {"KHR_texture_transform",   "KHR_materials_emissive_strength",
                                          "KHR_lights_punctual",     "KHR_materials_ior",
                                          "KHR_mesh_quantization",   "EXT_mesh_gpu_instancing"};

int pw_gltf_extension_implemented(const char *name)
{
    for (size_t i = 0; i < sizeof implemented / sizeof *implemented; i++)
        if (strcmp(name, implemented[i]) == 0)
            return 1;
    return 0;
}

/* What a render lacks without an extension. */
static const char *without(const char *name)
{
    static const struct {
        const char *name, *without;
    } known[] = {
        {"KHR_materials_clearcoat", "materials render without their clear coat"},
        {"KHR_materials_iridescence", "materials render without iridescence"},
        {"KHR_materials_sheen", "materials render without sheen"},
        {"KHR_materials_specular", "materials keep the default specular strength (F0 0.04)"},
        {"KHR_materials_transmission", "transmissive materials render opaque"},
        {"KHR_materials_volume", "materials render without volume absorption"},
        {"KHR_materials_anisotropy", "materials render isotropic"},
        {"KHR_materials_dispersion", "materials render without dispersion"},
        {"KHR_materials_unlit", "unlit materials are shaded as lit metallic-roughness ones"},
        {"KHR_materials_pbrSpecularGlossiness",
         "its materials take their metallic-roughness values (the defaults, a white metal, where the file has none)"},
        {"KHR_materials_variants", "each mesh keeps its default material"},
        {"KHR_texture_basisu",
         "KTX2 textures are not read: a texture with a PNG or JPEG fallback uses that, one without is left out "
         "(its material keeps its factors)"},
        {"EXT_texture_webp", "WebP textures are not read: a texture without a PNG or JPEG fallback is left out"},
        {"KHR_draco_mesh_compression", "Draco-compressed meshes cannot be read"},
        {"EXT_meshopt_compression", "meshopt-compressed buffers cannot be read"},
        {"KHR_xmp_json_ld", "its metadata is ignored (no effect on the image)"},
        {"KHR_animation_pointer", "animations are ignored (the scene renders as at rest)"},
    };
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (strcmp(name, known[i].name) == 0)
            return known[i].without;
    return "what it adds is ignored";
}

#define MAX_NAMES 64

/* The distinct extension names of a file and whether it requires each. */
typedef struct name_set {
    char names[MAX_NAMES][96];
    int required[MAX_NAMES];
    int n, dropped;
} name_set;

static void add_name(name_set *ns, const char *name, int required)
{
    if (!name)
        return;
    for (int i = 0; i < ns->n; i++)
        if (strncmp(ns->names[i], name, sizeof ns->names[i] - 1) == 0) {
            ns->required[i] |= required;
            return;
        }
    if (ns->n == MAX_NAMES) {
        ns->dropped++;
        return;
    }
    snprintf(ns->names[ns->n], sizeof ns->names[ns->n], "%s", name);
    ns->required[ns->n++] = required;
}

static void add_declared(name_set *ns, const cJSON *list, int required)
{
    if (!cJSON_IsArray(list))
        return;
    for (const cJSON *c = list->child; c; c = c->next)
        if (cJSON_IsString(c))
            add_name(ns, c->valuestring, required);
}

static pw_status add_found(const pw_gltf_doc *d, const char *name, const cJSON *value, void *user)
{
    (void)d, (void)value;
    add_name(user, name, 0);
    return PW_OK;
}

static void append_name(char *list, size_t cap, const char *name)
{
    size_t len = strlen(list);
    if (len < cap)
        snprintf(list + len, cap - len, "%s%s", len ? ", " : "", name);
}

pw_status pw_gltf_check_extensions(const pw_gltf_doc *d, pw_scene *s, int ignore_required, char *ignored,
                                   size_t cap)
{
    if (cap)
        ignored[0] = '\0';
    name_set *ns = calloc(1, sizeof *ns);
    if (!ns)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", d->path);
    add_declared(ns, pw_gltf_get(d->root, "extensionsRequired"), 1);
    add_declared(ns, pw_gltf_get(d->root, "extensionsUsed"), 0);
    pw_gltf_each_extension(d, add_found, ns);
    char missing[512] = "";
    int n_missing = 0;
    for (int i = 0; i < ns->n; i++) {
        const char *name = ns->names[i];
        if (pw_gltf_extension_implemented(name))
            continue;
        if (!ns->required[i])
            pw_scene_warn(s, "%s: glTF extension %s is not implemented; %s", d->path, name, without(name));
        else if (ignore_required) {
            pw_scene_warn(s, "%s: glTF extension %s is required by the file but not implemented; loaded anyway, "
                          "as asked: %s", d->path, name, without(name));
            append_name(ignored, cap, name);
        } else {
            append_name(missing, sizeof missing, name);
            n_missing++;
        }
    }
    if (ns->dropped)
        pw_scene_warn(s, "%s: %d more glTF extension names not listed", d->path, ns->dropped);
    free(ns);
    if (n_missing)
        return pw_fail(PW_ERR_FORMAT,
                       "%s: requires glTF extension%s %s, which pathwave does not implement (to render it without, "
                       "pass --ignore-required-extensions, or set pw_load_options.ignore_required_extensions)",
                       d->path, n_missing > 1 ? "s" : "", missing);
    return PW_OK;
}
