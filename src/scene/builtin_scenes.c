/* The built-in scenes. toy, toy-small and rtiow are the sphere scenes of
 * BENCHMARKS.md (B1, B1b, B1c); cornell is Bitterli's Cornell box (CC0),
 * transcribed from ../shared/scenes/bitterli-cornell-box so that renders can
 * be checked against its published reference image. */
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "scene/generated_scenes.h"
#include "scene/scene.h"

/* Geometry of Bitterli's Cornell box (pbrt-v4 export, CC0). */
static const float cb_floor_p[] = {-1.0f, 1.74846e-07f, -1.0f, -1.0f, 1.74846e-07f, 1.0f, 1.0f, -1.74846e-07f, 1.0f, 1.0f, -1.74846e-07f, -1.0f};
static const uint32_t cb_floor_i[] = {0, 1, 2, 0, 2, 3,};
static const float cb_ceiling_p[] = {1.0f, 2.0f, 1.0f, -1.0f, 2.0f, 1.0f, -1.0f, 2.0f, -1.0f, 1.0f, 2.0f, -1.0f};
static const uint32_t cb_ceiling_i[] = {0, 1, 2, 0, 2, 3,};
static const float cb_backwall_p[] = {-1.0f, 0.0f, -1.0f, -1.0f, 2.0f, -1.0f, 1.0f, 2.0f, -1.0f, 1.0f, 0.0f, -1.0f};
static const uint32_t cb_backwall_i[] = {0, 1, 2, 0, 2, 3,};
static const float cb_rightwall_p[] = {1.0f, 0.0f, -1.0f, 1.0f, 2.0f, -1.0f, 1.0f, 2.0f, 1.0f, 1.0f, 0.0f, 1.0f};
static const uint32_t cb_rightwall_i[] = {0, 1, 2, 0, 2, 3,};
static const float cb_leftwall_p[] = {-1.0f, 0.0f, 1.0f, -1.0f, 2.0f, 1.0f, -1.0f, 2.0f, -1.0f, -1.0f, 0.0f, -1.0f};
static const uint32_t cb_leftwall_i[] = {0, 1, 2, 0, 2, 3,};
static const float cb_shortbox_p[] = {-0.0460751f, 0.6f, 0.573007f, -0.0460751f, -2.98023e-08f, 0.573007f, 0.124253f, 0.0f, 0.00310463f, 0.124253f, 0.6f, 0.00310463f, 0.533009f, 0.0f, 0.746079f, 0.533009f, 0.6f, 0.746079f, 0.703337f, 0.6f, 0.176177f, 0.703337f, 2.98023e-08f, 0.176177f, 0.533009f, 0.6f, 0.746079f, -0.0460751f, 0.6f, 0.573007f, 0.124253f, 0.6f, 0.00310463f, 0.703337f, 0.6f, 0.176177f, 0.703337f, 2.98023e-08f, 0.176177f, 0.124253f, 0.0f, 0.00310463f, -0.0460751f, -2.98023e-08f, 0.573007f, 0.533009f, 0.0f, 0.746079f, 0.533009f, 0.0f, 0.746079f, -0.0460751f, -2.98023e-08f, 0.573007f, -0.0460751f, 0.6f, 0.573007f, 0.533009f, 0.6f, 0.746079f, 0.703337f, 0.6f, 0.176177f, 0.124253f, 0.6f, 0.00310463f, 0.124253f, 0.0f, 0.00310463f, 0.703337f, 2.98023e-08f, 0.176177f};
static const uint32_t cb_shortbox_i[] = {0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6, 8, 10, 9, 8, 11, 10, 12, 14, 13, 12, 15, 14, 16, 18, 17, 16, 19, 18, 20, 22, 21, 20, 23, 22,};
static const float cb_tallbox_p[] = {-0.720444f, 1.2f, -0.473882f, -0.720444f, 0.0f, -0.473882f, -0.146892f, 0.0f, -0.673479f, -0.146892f, 1.2f, -0.673479f, -0.523986f, 0.0f, 0.0906493f, -0.523986f, 1.2f, 0.0906492f, 0.0495656f, 1.2f, -0.108948f, 0.0495656f, 0.0f, -0.108948f, -0.523986f, 1.2f, 0.0906492f, -0.720444f, 1.2f, -0.473882f, -0.146892f, 1.2f, -0.673479f, 0.0495656f, 1.2f, -0.108948f, 0.0495656f, 0.0f, -0.108948f, -0.146892f, 0.0f, -0.673479f, -0.720444f, 0.0f, -0.473882f, -0.523986f, 0.0f, 0.0906493f, -0.523986f, 0.0f, 0.0906493f, -0.720444f, 0.0f, -0.473882f, -0.720444f, 1.2f, -0.473882f, -0.523986f, 1.2f, 0.0906492f, 0.0495656f, 1.2f, -0.108948f, -0.146892f, 1.2f, -0.673479f, -0.146892f, 0.0f, -0.673479f, 0.0495656f, 0.0f, -0.108948f};
static const uint32_t cb_tallbox_i[] = {0, 2, 1, 0, 3, 2, 4, 6, 5, 4, 7, 6, 8, 10, 9, 8, 11, 10, 12, 14, 13, 12, 15, 14, 16, 18, 17, 16, 19, 18, 20, 22, 21, 20, 23, 22,};
static const float cb_light_p[] = {-0.24f, 1.98f, -0.22f, 0.23f, 1.98f, -0.22f, 0.23f, 1.98f, 0.16f, -0.24f, 1.98f, 0.16f};
static const uint32_t cb_light_i[] = {0, 1, 2, 0, 2, 3,};

typedef pw_status (*scene_fn)(pw_scene *s);

static pw_status sphere(pw_scene *s, float x, float y, float z, float r, pw_material m)
{
    uint32_t id = pw_scene_push_material(s, m);
    if (id == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    return pw_scene_push_sphere(s, v3(x, y, z), r, id);
}

/* The sphere scenes' shared setup: a thin-lens camera looking at the
 * origin, the white-to-blue sky of the toy tracer and Ray Tracing in One
 * Weekend, a t_min of 0.001 like theirs, and no Russian roulette. */
static void sphere_scene_setup(pw_scene *s, pw_vec3 from, float vfov, float aperture, float focus, float sky,
                               int width, int height, int spp, int max_depth)
{
    s->cam.look_from = from;
    s->cam.look_at = v3(0, 0, 0);
    s->cam.up = v3(0, 1, 0);
    s->cam.vfov_deg = vfov;
    s->cam.aperture = aperture;
    s->cam.focus_dist = focus;
    s->env.type = PW_ENV_GRADIENT;
    s->env.bottom = v3(1.0f, 1.0f, 1.0f);
    s->env.top = v3(0.5f, 0.7f, 1.0f);
    s->env.scale = sky;
    s->t_min = 0.001f;
    s->defaults.width = width;
    s->defaults.height = height;
    s->defaults.spp = spp;
    s->defaults.max_depth = max_depth;
    s->defaults.rr_depth = 1000;
}

/* The toy scenes' camera, sky and resolution. */
static void toy_camera_and_sky(pw_scene *s)
{
    sphere_scene_setup(s, v3(0, 2, 3), 60.0f, 0.02f, 3.0f, 0.3f, 1280, 720, 64, 10);
}

/* Spheres 0-8 of B1: ground, three Lambert, three metal, glass, one emitter. */
static pw_status toy_first_nine(pw_scene *s)
{
    pw_status st = PW_OK;
    st |= sphere(s, 0, -100.5f, -1, 100, pw_lambert(.8f, .8f, .8f));
    st |= sphere(s, 2, 0, -1, .5f, pw_lambert(.8f, .4f, .4f));
    st |= sphere(s, 0, 0, -1, .5f, pw_lambert(.4f, .8f, .4f));
    st |= sphere(s, -2, 0, -1, .5f, pw_metal(.4f, .4f, .8f, 0));
    st |= sphere(s, 2, 0, 1, .5f, pw_metal(.4f, .8f, .4f, 0));
    st |= sphere(s, 0, 0, 1, .5f, pw_metal(.4f, .8f, .4f, .2f));
    st |= sphere(s, -2, 0, 1, .5f, pw_metal(.4f, .8f, .4f, .6f));
    st |= sphere(s, .5f, 1, .5f, .5f, pw_dielectric(1.5f));
    st |= sphere(s, -1.5f, 1.5f, 0, .3f, pw_emissive(pw_lambert(.8f, .6f, .2f), 30, 25, 15));
    return st ? pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name) : PW_OK;
}

static pw_status build_toy(pw_scene *s)
{
    static const float rgb[9][3] = {{.8f, .1f, .1f}, {.8f, .5f, .1f}, {.8f, .8f, .1f}, {.4f, .8f, .1f}, {.1f, .8f, .1f},
                                    {.1f, .8f, .5f}, {.1f, .8f, .8f}, {.1f, .1f, .8f}, {.5f, .1f, .8f}};
    toy_camera_and_sky(s);
    s->defaults.light_mode = PW_LIGHT_MODE_TOY;
    pw_status st = toy_first_nine(s);
    /* Spheres 9-44: four rows of nine at z = -3 .. -6, x = 4 down to -4. */
    for (int row = 0; row < 4; row++)
        for (int i = 0; i < 9; i++) {
            float x = 4.0f - (float)i, z = -3.0f - (float)row, g = 0.1f * (float)(i + 1);
            pw_material m = row == 0   ? pw_lambert(g, g, g)
                            : row == 1 ? pw_metal(g, g, g, 0)
                            : row == 2 || i == 8 ? pw_metal(rgb[i][0], rgb[i][1], rgb[i][2], 0)
                                                 : pw_lambert(rgb[i][0], rgb[i][1], rgb[i][2]);
            st |= sphere(s, x, 0, z, .5f, m);
        }
    st |= sphere(s, 1.5f, 1.5f, -2, .3f, pw_emissive(pw_lambert(.1f, .2f, .5f), 3, 10, 20));
    return st ? pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name) : PW_OK;
}

static pw_status build_toy_small(pw_scene *s)
{
    toy_camera_and_sky(s);
    s->defaults.light_mode = PW_LIGHT_MODE_NONE;
    return toy_first_nine(s);
}

/* The k-th number of a fixed uniform sequence in [0, 1). */
static float scene_random(uint32_t *k)
{
    return (float)(pw_hash32(0x5eed0000u + (*k)++) >> 8) * (1.0f / 16777216.0f);
}

/* The final scene of "Ray Tracing in One Weekend", with the grid's random
 * choices drawn from pathwave's hash so it is the same on every platform. */
static pw_status build_rtiow(pw_scene *s)
{
    pw_status st = sphere(s, 0, -1000, 0, 1000, pw_lambert(.5f, .5f, .5f));
    uint32_t k = 0;
    for (int a = -11; a < 11; a++)
        for (int b = -11; b < 11; b++) {
            float choose = scene_random(&k);
            float cx = (float)a + 0.9f * scene_random(&k);
            float cz = (float)b + 0.9f * scene_random(&k);
            pw_vec3 c = v3(cx, 0.2f, cz);
            if (v3_len(v3_sub(c, v3(4, 0.2f, 0))) <= 0.9f)
                continue;
            float rgb[3], fuzz;
            for (int i = 0; i < 3; i++) {
                float r1 = scene_random(&k), r2 = scene_random(&k);
                rgb[i] = choose < 0.8f ? r1 * r2 : 0.5f * (1.0f + r1);
            }
            fuzz = 0.5f * scene_random(&k);
            pw_material m = choose < 0.8f    ? pw_lambert(rgb[0], rgb[1], rgb[2])
                            : choose < 0.95f ? pw_metal(rgb[0], rgb[1], rgb[2], fuzz)
                                             : pw_dielectric(1.5f);
            st |= sphere(s, c.x, c.y, c.z, 0.2f, m);
        }
    st |= sphere(s, 0, 1, 0, 1, pw_dielectric(1.5f));
    st |= sphere(s, -4, 1, 0, 1, pw_lambert(.4f, .2f, .1f));
    st |= sphere(s, 4, 1, 0, 1, pw_metal(.7f, .6f, .5f, 0));
    sphere_scene_setup(s, v3(13, 2, 3), 20.0f, 0.1f, 10.0f, 1.0f, 1200, 800, 10, 50);
    s->defaults.light_mode = PW_LIGHT_MODE_NONE;
    return st ? pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name) : PW_OK;
}

static pw_status add_mesh(pw_scene *s, const float *p, uint32_t nv, const uint32_t *idx, uint32_t ni, uint32_t mat)
{
    uint32_t base = pw_scene_add_vertices(s, (const pw_vec3 *)p, NULL, nv);
    if (base == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    for (uint32_t i = 0; i + 2 < ni; i += 3) {
        pw_status st = pw_scene_add_triangle(s, base + idx[i], base + idx[i + 1], base + idx[i + 2], mat);
        if (st != PW_OK)
            return st;
    }
    return PW_OK;
}

#define MESH(s, name, mat) add_mesh(s, cb_##name##_p, sizeof cb_##name##_p / 12, cb_##name##_i, \
                                    sizeof cb_##name##_i / 4, mat)

static pw_status build_cornell(pw_scene *s)
{
    uint32_t white = pw_scene_push_material(s, pw_lambert(0.725f, 0.71f, 0.68f));
    uint32_t red = pw_scene_push_material(s, pw_lambert(0.63f, 0.065f, 0.05f));
    uint32_t green = pw_scene_push_material(s, pw_lambert(0.14f, 0.45f, 0.091f));
    uint32_t light = pw_scene_push_material(s, pw_emissive(pw_lambert(0, 0, 0), 17, 12, 4));
    if (white == UINT32_MAX || red == UINT32_MAX || green == UINT32_MAX || light == UINT32_MAX)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name);
    pw_status st = PW_OK;
    st |= MESH(s, floor, white);
    st |= MESH(s, ceiling, white);
    st |= MESH(s, backwall, white);
    st |= MESH(s, rightwall, green);
    st |= MESH(s, leftwall, red);
    st |= MESH(s, shortbox, white);
    st |= MESH(s, tallbox, white);
    st |= MESH(s, light, light);
    s->cam.look_from = v3(0, 1, 6.8f);
    s->cam.look_at = v3(0, 1, 0);
    s->cam.vfov_deg = 19.5f;
    s->defaults.width = 512;
    s->defaults.height = 512;
    s->defaults.spp = 128;
    s->defaults.max_depth = 64;
    s->defaults.rr_depth = 4;
    s->defaults.light_mode = PW_LIGHT_MODE_MIS;
    return st ? pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", s->name) : PW_OK;
}

typedef pw_status (*param_scene_fn)(pw_scene *s, const char *param);

/* Generated scenes' names end in ":" and the parameter's letter. */
static const struct {
    const char *name, *description;
    scene_fn build;
    param_scene_fn generate;
} builtins[] = {
    {"cornell", "Bitterli's Cornell box (36 triangles, one area light), checked against its reference", build_cornell,
     NULL},
    {"toy", "the classic 46-sphere toy path tracer scene (BENCHMARKS.md B1), toy light sampling", build_toy, NULL},
    {"toy-small", "its first 9 spheres, no light sampling (B1b)", build_toy_small, NULL},
    {"rtiow", "the final scene of Ray Tracing in One Weekend, 485 spheres (B1c)", build_rtiow, NULL},
    {"terrain:N", "generated: a height field of exactly N triangles, for BVH scaling (docs/SCALE.md)", NULL,
     pw_generate_terrain},
    {"bunnies:K", "generated: K Stanford bunnies (69,451 triangles each) on a ground plane; bunnies:K:FILE copies FILE",
     NULL, pw_generate_bunnies},
    {"bunnies-mixed:K", "generated: as bunnies:K, the copies in turn Lambert, toy metal, glass, GGX gold, rough glass and "
     "glTF plastic", NULL, pw_generate_bunnies_mixed},
};

#define N_BUILTINS ((int)(sizeof builtins / sizeof builtins[0]))

int pw_builtin_scene_count(void) { return N_BUILTINS; }

const char *pw_builtin_scene_name(int i) { return i >= 0 && i < N_BUILTINS ? builtins[i].name : NULL; }

const char *pw_builtin_scene_description(int i) { return i >= 0 && i < N_BUILTINS ? builtins[i].description : NULL; }

/* The entry whose name, up to its colon, is name up to its first colon. */
static int find_builtin(const char *name)
{
    size_t len = strcspn(name, ":");
    for (int i = 0; i < N_BUILTINS; i++)
        if (strncmp(name, builtins[i].name, len) == 0 && strcspn(builtins[i].name, ":") == len)
            return i;
    return -1;
}

pw_status pw_scene_builtin(const char *name, pw_scene **out)
{
    *out = NULL;
    int i = find_builtin(name);
    if (i < 0)
        return pw_fail(PW_ERR_NOT_FOUND, "unknown scene '%s' (run 'pathwave scenes' for the list)", name);
    const char *colon = strchr(name, ':');
    if (builtins[i].generate && !colon)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "scene '%s' needs a size: %s", name, builtins[i].name);
    if (!builtins[i].generate && colon)
        return pw_fail(PW_ERR_INVALID_ARGUMENT, "scene '%.*s' takes no parameter, got '%s'", (int)(colon - name), name,
                       name);
    pw_scene *s = pw_scene_alloc(name);
    if (!s)
        return pw_fail(PW_ERR_OUT_OF_MEMORY, "%s: out of memory", name);
    pw_status st = builtins[i].generate ? builtins[i].generate(s, colon + 1) : builtins[i].build(s);
    if (st != PW_OK) {
        pw_scene_free(s);
        return st;
    }
    *out = s;
    return PW_OK;
}
