/* CUDA backend tests: the GPU megakernel against the CPU on the same seed,
 * and the errors a user gets when the GPU cannot do the work. Skipped where
 * no GPU is usable (CI compiles this but has no GPU). */
#include "test_render_util.h"

#include <cuda_runtime_api.h>
#include <string.h>

#include "api/renderer.h"

/* One agreement check: the image and the settings the renders take. */
typedef struct gpu_case {
    int w, h, spp;
    int split;      /* ray splitting (1: off) */
    int wave_paths; /* wavefront paths in flight, all waves together (0: as many as fit) */
    int first_call; /* GPU only: spp in two pw_renderer_render calls, this
                       many in the first (0: one call) */
} gpu_case;

/* The GPU render of c, in two calls where c says so, as a progressive
 * viewer makes them (the second must go on from the first's samples):
 * its image (rgb may be NULL) and its statistics (rs may be NULL). */
/* The CUDA backends' scheduling in the last render_calls (api/renderer.h):
 * megakernel launches run as a stream of tiles, waves on each wavefront slot. */
static uint32_t last_stream_launches, last_waves[2];

static pw_status render_calls(pw_scene *s, const pw_settings *st, const gpu_case *c, float **rgb,
                              pw_render_stats *rs)
{
    if (rgb)
        *rgb = NULL;
    pw_renderer *r = NULL;
    pw_status e = pw_renderer_create(s, st, &r);
    if (e != PW_OK)
        return e;
    int first = c->first_call > 0 ? c->first_call : c->spp;
    e = pw_renderer_render(r, first);
    if (e == PW_OK && first < c->spp)
        e = pw_renderer_render(r, c->spp - first);
    if (e == PW_OK && rgb) {
        *rgb = malloc((size_t)c->w * c->h * 3 * sizeof **rgb);
        e = *rgb ? pw_renderer_image(r, *rgb) : PW_ERR_OUT_OF_MEMORY;
    }
    if (rs)
        pw_renderer_get_stats(r, rs);
    last_stream_launches = r->job.gpu_stream_launches;
    last_waves[0] = r->job.gpu_waves[0], last_waves[1] = r->job.gpu_waves[1];
    pw_renderer_free(r);
    return e;
}

static void case_settings(pw_scene *s, pw_backend b, const gpu_case *c, pw_settings *st)
{
    pw_settings_default(s, st);
    st->width = c->w;
    st->height = c->h;
    st->seed = 7;
    st->backend = b;
    st->split = c->split ? c->split : 1;
    st->wave_paths = c->wave_paths;
}

/* The statistics of a GPU render of case c on backend b (the test fails,
 * naming name and the backend, if it cannot render). */
static void render_stats(const char *name, pw_scene *s, pw_backend b, const gpu_case *c, pw_render_stats *rs)
{
    pw_settings st;
    case_settings(s, b, c, &st);
    if (render_calls(s, &st, c, NULL, rs) != PW_OK)
        fail_msg("%s: %s render failed: %s", name, pw_backend_name(b), pw_last_error());
}

static pw_status render(pw_scene *s, pw_backend b, const gpu_case *c, float **rgb)
{
    pw_settings st;
    case_settings(s, b, c, &st);
    if (b != PW_BACKEND_CPU)
        return render_calls(s, &st, c, rgb, NULL);
    return test_render_settings(s, &st, c->spp, rgb);
}

/* Same seed, same paths: a pixel differs only where float rounding (the GPU
 * fuses multiply-adds, the CPU does not; the GPU approximates some square
 * roots, divisions and sines, pw_hd.h) flips a decision on some path: a
 * hit at a silhouette, a Fresnel or roulette draw next to its threshold.
 * Such flips are rare and unbiased, so (1) at least 98% of pixels agree to
 * 1e-3 relative, and (2) the mean difference over the image is within 5
 * standard errors of zero, the standard error taken from the per-pixel
 * differences themselves. A real divergence (different RNG streams, a
 * missing factor) fails both by orders of magnitude. */
static void check_agreement_with(const char *name, pw_scene *s, const gpu_case *c, pw_backend backend)
{
    float *cpu, *gpu;
    if (render(s, PW_BACKEND_CPU, c, &cpu) != PW_OK)
        fail_msg("%s: cpu render failed: %s", name, pw_last_error());
    if (render(s, backend, c, &gpu) != PW_OK)
        fail_msg("%s: %s render failed: %s", name, pw_backend_name(backend), pw_last_error());
    size_t n = (size_t)c->w * c->h, close = 0;
    double sum = 0, sum2 = 0;
    for (size_t i = 0; i < n; i++) {
        double dmax = 0, d = 0;
        for (int k = 0; k < 3; k++) {
            double a = cpu[3 * i + k], b = gpu[3 * i + k];
            double rel = fabs(a - b) / (1e-3 + fmax(fabs(a), fabs(b)));
            dmax = fmax(dmax, rel);
            d += (b - a) / 3.0;
        }
        close += dmax < 1e-3;
        sum += d;
        sum2 += d * d;
    }
    double mean = sum / n, var = fmax(0.0, sum2 / n - mean * mean), se = sqrt(var / n);
    double frac = (double)close / n;
    printf("%s, %s: %.3f%% of pixels within 1e-3; mean difference %.3g (standard error %.3g)\n", name,
           pw_backend_name(backend), 100 * frac, mean, se);
    assert_true(frac >= 0.98);
    assert_true(fabs(mean) <= 5 * se + 1e-6);
    free(cpu);
    free(gpu);
}

/* The GPU's two backends against each other: on one device they run the
 * same code on the same paths, and radiance is summed in the same order
 * with every addition rounded on its own (v3_add_rn), so the images are
 * equal to the last bit, with ray splitting too (the wavefront's gather
 * sums a pixel's children in child order, as the megakernel does). */
/* The pixels of case c's size where images a and b differ in any bit. */
static size_t pixels_differing(const float *a, const float *b, const gpu_case *c)
{
    size_t n = (size_t)c->w * c->h, differ = 0;
    for (size_t i = 0; i < n; i++)
        differ += memcmp(a + 3 * i, b + 3 * i, 3 * sizeof *a) != 0;
    return differ;
}

static void check_mega_equals_wave(const char *name, pw_scene *s, const gpu_case *c)
{
    float *mega, *wave;
    if (render(s, PW_BACKEND_CUDA_MEGA, c, &mega) != PW_OK || render(s, PW_BACKEND_CUDA_WAVE, c, &wave) != PW_OK)
        fail_msg("%s: GPU render failed: %s", name, pw_last_error());
    size_t differ = pixels_differing(mega, wave, c);
    printf("%s: cuda-mega and cuda-wave differ in %zu of %zu pixels\n", name, differ, (size_t)c->w * c->h);
    assert_true(differ == 0);
    free(mega);
    free(wave);
}

/* Both GPU backends against the CPU, and against each other. */
static void check_case(const char *name, pw_scene *s, const gpu_case *c)
{
    check_agreement_with(name, s, c, PW_BACKEND_CUDA_MEGA);
    check_agreement_with(name, s, c, PW_BACKEND_CUDA_WAVE);
    check_mega_equals_wave(name, s, c);
}

/* The same without splitting, all paths in flight. */
static void check_agreement(const char *name, pw_scene *s, int w, int h, int spp)
{
    gpu_case c = {w, h, spp, 1, 0, 0};
    check_case(name, s, &c);
}

/* A built-in scene (the test fails if it cannot be made). */
static pw_scene *builtin(const char *name)
{
    pw_scene *s = NULL;
    assert_int_equal(pw_scene_builtin(name, &s), PW_OK);
    return s;
}

static int gpu_or_skip(void)
{
    if (pw_cuda_usable())
        return 1;
    printf("SKIPPED: %s\n", pw_last_error());
    pw_test_skipped_count++;
    return 0;
}

static void test_agree_toy(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    pw_scene *s = builtin("toy");
    check_agreement("toy", s, 320, 180, 4);
    pw_scene_free(s);
}

/* The toy estimator with PW_MAX_SHADOW (8) sphere lights
 * (test_scene_eight_toy_lights). With 14 spheres the toy kernel walks the
 * sphere list and a warp deals out up to 256 shadow rays in turns of 32
 * (pw_trace_shadows); with 30 it walks the sphere groups, and its shadow
 * rays go through the lights' direction maps, all nine of them in use
 * (accel/sphere_dirmap.h). */
static void test_agree_many_toy_lights(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const int sizes[2] = {14, 30};
    for (int k = 0; k < 2; k++) {
        pw_scene *s = test_scene_eight_toy_lights(sizes[k]);
        char name[64];
        snprintf(name, sizeof name, "eight toy lights, %d spheres", sizes[k]);
        check_agreement(name, s, 97, 61, 4); /* tiles cut by the image's edge */
        pw_scene_free(s);
    }
}

/* The scenes without light sampling (their own megakernel variants):
 * toy-small through the sphere list, rtiow through the BVH, and toy-small
 * again through the sphere groups (PATHWAVE_CUDA_FLAT=0), where its bounce
 * rays take the origin maps of the sphere they leave and the ground's
 * cells (accel/sphere_dirmap.h). */
static void test_agree_no_light_sampling(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const char *names[3] = {"toy-small", "rtiow", "toy-small"};
    for (int i = 0; i < 3; i++) {
        if (i == 2)
            setenv("PATHWAVE_CUDA_FLAT", "0", 1);
        pw_scene *s = builtin(names[i]);
        check_agreement(i == 2 ? "toy-small through the sphere groups" : names[i], s, 240, 160, 4);
        pw_scene_free(s);
    }
    unsetenv("PATHWAVE_CUDA_FLAT");
}

/* Teardown of the tests that set a debug switch: a failed assert leaves
 * the test before it unsets the switch, and the tests after it would run
 * under it. */
static int unset_debug_switches(void **state)
{
    (void)state;
    unsetenv("PATHWAVE_CUDA_FLAT");
    unsetenv("PATHWAVE_MEGA_TILE");
    unsetenv("PATHWAVE_MEGA_BATCH");
    return 0;
}

static void test_agree_cornell(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    pw_scene *s = builtin("cornell");
    check_agreement("cornell", s, 128, 128, 8);
    pw_scene_free(s);
}

/* Bitterli's Cornell box read from its pbrt-v4 file (its maximum depth of
 * 65, area lights, a rough conductor): the GPU's two backends equal to the
 * bit at 256x256, in one call and in two (progressive), and both close to
 * the CPU. Skipped without the shared scenes. */
static void test_agree_cornell_pbrt(void **state)
{
    (void)state;
    char path[4096];
    if (!gpu_or_skip() || !pw_test_shared_file("scenes/bitterli-cornell-box/pbrt-v4/scene-v4.pbrt", path, sizeof path))
        skip();
    pw_scene *s;
    if (pw_scene_load(path, &s) != PW_OK)
        fail_msg("%s", pw_last_error());
    const gpu_case one_call = {256, 256, 16, 1, 0, 0}, two_calls = {256, 256, 16, 1, 0, 5};
    check_case("cornell .pbrt 256x256, 16 spp", s, &one_call);
    check_mega_equals_wave("cornell .pbrt 256x256, 5 + 11 spp", s, &two_calls);
    pw_scene_free(s);
}

static void test_agree_bunny(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    char path[1024];
    if (!pw_test_shared_file("scenes/stanford-bunny/bunny.ply", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    check_agreement("bunny", s, 160, 120, 4);
    pw_scene_free(s);
}

/* An environment map on the GPU: its image and sampling tables in device
 * memory, MIS against the BSDF, with the bunny in front of it. */
static void test_agree_envmap(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    char mesh[1024], map[1024];
    if (!pw_test_shared_file("scenes/stanford-bunny/bunny.ply", mesh, sizeof mesh) ||
        !pw_test_shared_file("scenes/hdri/venice_sunset_1k.hdr", map, sizeof map))
        PW_SKIP("the bunny or the Venice map is absent");
    pw_scene *s;
    assert_int_equal(pw_scene_load(mesh, &s), PW_OK);
    assert_int_equal(pw_scene_set_environment(s, map, 1.0f), PW_OK);
    check_agreement("bunny under venice_sunset", s, 160, 120, 4);
    pw_scene_free(s);
}

/* Built-in scene `name` with a GGX conductor sphere (gold, alpha 0.3) of
 * radius 0.3 at c, rendered on both sides. */
static void check_with_gold_sphere(const char *name, pw_vec3 c, int w, int h, int spp)
{
    pw_scene *s = builtin(name);
    uint32_t gold = pw_scene_push_material(s, pw_conductor(v3(0.18f, 0.42f, 1.37f), v3(3.42f, 2.35f, 1.77f), 0.3f));
    assert_int_equal(pw_scene_push_sphere(s, c, 0.3f, gold), PW_OK);
    char label[64];
    snprintf(label, sizeof label, "%s with a gold GGX sphere", name);
    check_agreement(label, s, w, h, spp);
    pw_scene_free(s);
}

/* In the Cornell box the GPU then runs the kernel compiled for microfacet
 * materials. */
static void test_agree_conductor(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    check_with_gold_sphere("cornell", v3(0.3f, 1.0f, 0.3f), 96, 96, 8);
}

/* On toy: a scene of sphere groups with a microfacet material, which the
 * megakernel renders with its split kernel (the kernel for every material
 * leaves the groups out) and whose bounce rays walk the runs (only the
 * kernels for the basic materials know where a ray starts). */
static void test_agree_toy_conductor(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    check_with_gold_sphere("toy", v3(1.0f, 0.3f, 2.0f), 160, 90, 4);
}

/* textures: the Duck's embedded base colour texture (texel pool and table
 * in device memory, triangle uv), and a sphere wearing the same texture
 * (spherical uv) in front of it. */
static void test_agree_textures(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    char path[1024];
    if (!pw_test_shared_file("scenes/gltf-samples/Duck.glb", path, sizeof path))
        PW_SKIP("%s is absent", path);
    pw_scene *s;
    assert_int_equal(pw_scene_load(path, &s), PW_OK);
    assert_true(s->n_textures >= 1);
    pw_material m = pw_lambert(1, 1, 1);
    PW_MAT_SET_ALBEDO_TEX(&m, 0);
    pw_vec3 lo = s->pos[0], hi = lo;
    for (uint32_t i = 1; i < s->n_verts; i++) {
        lo = v3_min(lo, s->pos[i]);
        hi = v3_max(hi, s->pos[i]);
    }
    pw_vec3 ext = v3_sub(hi, lo), c = v3_scale(v3_add(lo, hi), 0.5f);
    pw_vec3 at = v3_add(c, v3(-0.3f * ext.x, -0.25f * ext.y, 0.6f * ext.z));
    assert_int_equal(pw_scene_push_sphere(s, at, 0.2f * ext.y, pw_scene_push_material(s, m)), PW_OK);
    check_agreement("textured duck and sphere", s, 128, 96, 4);
    pw_scene_free(s);
}

/* lights: a point light inside the Cornell box and a distant light shining
 * in through its open front, beside its area light: the delta lights in
 * device memory, picked by the alias table with the area light. */
static void test_agree_delta_lights(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    pw_scene *s = builtin("cornell");
    assert_int_equal(pw_scene_add_point_light(s, v3(0.4f, 1.6f, 0.3f), v3(2.0f, 2.0f, 1.5f)), PW_OK);
    assert_int_equal(pw_scene_add_distant_light(s, v3(-0.3f, -0.4f, -1.0f), v3(1.0f, 1.5f, 2.0f)), PW_OK);
    check_agreement("cornell with point and distant lights", s, 96, 96, 8);
    pw_scene_free(s);
}

/* lights: a spot hanging under the Cornell box's ceiling, tilted, its
 * cone's edge and falloff band across the floor and the walls, beside a
 * point light and the area light: the cones in device memory and the
 * spot's falloff on the GPU. */
static void test_agree_spot_light(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    pw_scene *s = builtin("cornell");
    float cos_end = cosf(40.0f * PW_PI / 180.0f), cos_start = cosf(25.0f * PW_PI / 180.0f);
    assert_int_equal(pw_scene_add_spot_light(s, v3(-0.3f, 1.8f, 0.2f), v3(0.2f, -1.8f, -0.4f), cos_end, cos_start,
                                             v3(3.0f, 3.0f, 2.5f)),
                     PW_OK);
    assert_int_equal(pw_scene_add_point_light(s, v3(0.4f, 1.6f, 0.3f), v3(1.0f, 1.0f, 0.8f)), PW_OK);
    check_agreement("cornell with a spot and a point light", s, 96, 96, 8);
    pw_scene_free(s);
}

static void check_wave_slots(pw_scene *s, const char *name, const gpu_case *c, uint32_t first, uint32_t second);

/* Ray splitting on both GPU backends: the wavefront's children take fixed
 * slots (pw_wf_child_slot) and the next queue's positions through the
 * warp-level allocator with lanes of a warp splitting or not, so a wrong
 * slot or prefix there shows as lost or doubled paths, and the images
 * must be equal bit for bit (check_case). */
static void test_agree_split(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    pw_scene *s = builtin("cornell");
    gpu_case cornell = {96, 96, 4, 4, 0, 0};
    check_case("cornell split 4", s, &cornell);
    pw_scene_free(s);
    s = builtin("toy");
    gpu_case toy = {160, 90, 2, 3, 0, 0};
    check_case("toy split 3", s, &toy);
    /* Pixels in many waves of 999 paths (333 pixels of 3 children): the
     * captured graph is replayed per wave with new parameters. */
    toy.wave_paths = 999;
    check_case("toy split 3 in waves", s, &toy);
    /* Three waves a sample on two slots (768 pixels of 3 children a
     * wave), so a pixel's samples alternate between the slots, whose
     * gathers must add them in sample order; 3 spp then 1 in a second
     * call: 5 + 4 waves, then 2 + 1. */
    const gpu_case turns = {64, 36, 4, 3, 2 * 3 * 768, 3};
    check_case("toy split 3, waves in turn on two slots", s, &turns);
    check_wave_slots(s, "toy split 3, waves in turn on two slots", &turns, 7, 5);
    pw_scene_free(s);
}

/* Ray counts, cuda-mega against cuda-wave: the same paths cast the same
 * rays. The wavefront's shade counts its shadow rays per thread and adds
 * them with a warp-reduced atomic whose result nothing reads
 * (pw_wf_count), so a count left out of that sum would change no image:
 * only --stats and Mray/s would show it. Toy without splitting takes the
 * sphere kernels' blockwise shade, the Cornell box and the split renders
 * the warp-wise one (cuda_wavefront.cu's pick_wave_kernels): both ways
 * are counted.
 * These small images leave every bounce after the first to the tail
 * kernel; gpu-check runs the suite again without a tail
 * (PATHWAVE_WAVE_TAIL=0), which checks shade's counts at every bounce. */
static void check_rays_equal(const char *name, pw_scene *s, const gpu_case *c)
{
    pw_render_stats a, b;
    render_stats(name, s, PW_BACKEND_CUDA_MEGA, c, &a);
    render_stats(name, s, PW_BACKEND_CUDA_WAVE, c, &b);
    printf("%s, split %d: rays %llu/%llu/%llu (cuda-mega) vs %llu/%llu/%llu (cuda-wave)\n", name, c->split,
           (unsigned long long)a.camera_rays, (unsigned long long)a.bounce_rays, (unsigned long long)a.shadow_rays,
           (unsigned long long)b.camera_rays, (unsigned long long)b.bounce_rays, (unsigned long long)b.shadow_rays);
    assert_true(a.camera_rays == b.camera_rays);
    assert_true(a.bounce_rays == b.bounce_rays);
    assert_true(a.shadow_rays == b.shadow_rays);
}

/* Without and with splitting (children in waves of 999 paths), two toy
 * lights, MIS, and PW_MAX_SHADOW toy lights (a path's full share of
 * shadow records). */
static void test_rays_mega_equal_wave(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const gpu_case plain = {97, 61, 2, 1, 0, 0}, split = {97, 61, 2, 3, 999, 0}, batched = {97, 61, 12, 1, 0, 0};
    const char *names[2] = {"toy", "cornell"};
    for (int k = 0; k < 2; k++) {
        pw_scene *s = builtin(names[k]);
        check_rays_equal(names[k], s, &plain);
        check_rays_equal(names[k], s, &split);
        pw_scene_free(s);
    }
    pw_scene *ts = builtin("toy-small"); /* the megakernel's camera rays in batches (cuda_camera_batch.h) */
    check_rays_equal("toy-small", ts, &plain);
    check_rays_equal("toy-small", ts, &batched);
    pw_scene_free(ts);
    pw_scene *s = test_scene_eight_toy_lights(30);
    check_rays_equal("eight toy lights", s, &plain);
    pw_scene_free(s);
}

/* Cases a and b (named "<scene> <what_a>" and "<scene> <what_b>") on toy
 * and on the Cornell box. */
static void check_toy_and_cornell(const char *what_a, const gpu_case *a, const char *what_b, const gpu_case *b)
{
    const char *names[2] = {"toy", "cornell"};
    for (int i = 0; i < 2; i++) {
        pw_scene *s = builtin(names[i]);
        char name[64];
        snprintf(name, sizeof name, "%s %s", names[i], what_a);
        check_case(name, s, a);
        snprintf(name, sizeof name, "%s %s", names[i], what_b);
        check_case(name, s, b);
        pw_scene_free(s);
    }
}

/* Images whose sides are no multiple of the megakernel's 8x4 warp tiles
 * (partial tiles at the right and bottom), more samples in one call than a
 * sample pool holds (8 a pixel: a second pool), and a render continued by
 * a second call, against one CPU render of all the samples. */
static void test_agree_partial_tiles_and_calls(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const gpu_case one_call = {100, 70, 12, 1, 0, 0}, two_calls = {100, 70, 12, 1, 0, 3};
    check_toy_and_cornell("100x70, 12 spp in one call", &one_call, "100x70, 3 + 9 spp", &two_calls);
}

/* Waves of case c that the CUDA wavefront ran on each of its slots. */
static void check_wave_slots(pw_scene *s, const char *name, const gpu_case *c, uint32_t first, uint32_t second)
{
    pw_render_stats rs;
    render_stats(name, s, PW_BACKEND_CUDA_WAVE, c, &rs);
    printf("%s: %u + %u waves on the two slots (want %u + %u)\n", name, last_waves[0], last_waves[1], first,
           second);
    assert_true(last_waves[0] == first && last_waves[1] == second);
}

/* The wavefront's waves taken in turn by its two slots, which run at once
 * (wave_paths limits the paths of both together): waves of every pixel at
 * one sample (7,000 paths a slot), so each wave adds to the pixels the
 * wave before it, on the other slot, is adding to; and three waves a
 * sample (3,000 paths a slot). The images must equal the megakernel's to
 * the bit: a wave's gather waits for the one before. */
static void test_agree_waves_in_turn(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const gpu_case whole = {100, 70, 6, 1, 14000, 0}, thirds = {100, 70, 6, 1, 6000, 0};
    check_toy_and_cornell("100x70, 6 waves of every pixel", &whole, "100x70, 3 waves a sample", &thirds);
    pw_scene *s = builtin("toy");
    check_wave_slots(s, "toy 100x70, 6 waves of every pixel", &whole, 3, 3);
    check_wave_slots(s, "toy 100x70, 3 waves a sample", &thirds, 9, 9);
    pw_scene_free(s);
}

/* Frames cut into two half waves, one a slot (run_waves; toy and the
 * Cornell box are scenes it cuts), each half whole rows of the camera's
 * 8x4 tiles: a frame of one wave (96x60 at 2 spp: 32 rows, then 28), and
 * the last round of a frame of several waves at an odd sample count (5
 * spp in waves of 2 samples a slot: 2 + 2 + 1, the last cut in two); and
 * images of 1, 3 and 5 rows, the first two too short to cut (a cut of no
 * rows once looped for ever), the last cut into 4 rows and 1. The images
 * must equal the megakernel's to the bit and agree with the CPU's (the
 * small ones only the megakernel's: a few pixels are too few for the
 * statistical check), and the waves must have gone to the slots as
 * planned. */
static void test_agree_half_waves(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const gpu_case one = {96, 60, 2, 1, 0, 0}, last = {96, 60, 5, 1, 4 * 96 * 60, 0};
    check_toy_and_cornell("96x60, one wave cut in two", &one, "96x60, 2 + 2 + 1 spp, the last cut", &last);
    pw_scene *s = builtin("cornell");
    check_wave_slots(s, "cornell 96x60, one wave cut in two", &one, 1, 1);
    check_wave_slots(s, "cornell 96x60, 2 + 2 + 1 spp", &last, 2, 2);
    pw_scene_free(s);
    s = builtin("toy");
    const gpu_case rows[3] = {{64, 1, 2, 1, 0, 0}, {64, 3, 2, 1, 0, 0}, {96, 5, 2, 1, 0, 0}};
    const uint32_t second[3] = {0, 0, 1};
    for (int k = 0; k < 3; k++) {
        char name[64];
        snprintf(name, sizeof name, "toy %dx%d", rows[k].w, rows[k].h);
        check_mega_equals_wave(name, s, &rows[k]);
        check_wave_slots(s, name, &rows[k], 1, second[k]);
    }
    pw_scene_free(s);
}

/* Launches of the megakernel that ran as a stream of tiles for case c. */
static uint32_t mega_stream_launches(pw_scene *s, const gpu_case *c)
{
    pw_render_stats rs;
    render_stats("stream of tiles", s, PW_BACKEND_CUDA_MEGA, c, &rs);
    return last_stream_launches;
}

/* Calls of 1, 2 and 4 samples a pixel over an image of whole tiles run the
 * megakernel of toy and of small meshes as a stream of tiles (one sample a
 * pixel added to the image at once; two or four gathered afterwards): the
 * images must agree with the CPU's, and with the wavefront's to the bit,
 * with the default tiles (32 samples at one or two a pixel, 64 at four:
 * the next tile fetched within a tile, not at its first sample) and with
 * larger ones (16x4 pixels). An image of partial tiles runs tile by
 * tile. */
static void test_agree_streams(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const char *names[2] = {"toy", "cornell"};
    for (int i = 0; i < 2; i++) {
        pw_scene *s = builtin(names[i]);
        gpu_case four = {96, 64, 4, 1, 0, 0}, one_two = {96, 64, 3, 1, 0, 1}, partial = {97, 61, 4, 1, 0, 0};
        char name[64];
        for (int big = 0; big < 2; big++) {
            if (big)
                setenv("PATHWAVE_MEGA_TILE", "16x4", 1);
            snprintf(name, sizeof name, "%s 96x64, 4 spp%s", names[i], big ? ", 16x4 tiles" : "");
            assert_int_equal(mega_stream_launches(s, &four), 1);
            check_case(name, s, &four);
            snprintf(name, sizeof name, "%s 96x64, 1 + 2 spp%s", names[i], big ? ", 16x4 tiles" : "");
            assert_int_equal(mega_stream_launches(s, &one_two), 2);
            check_case(name, s, &one_two);
            unsetenv("PATHWAVE_MEGA_TILE");
        }
        assert_int_equal(mega_stream_launches(s, &partial), 0);
        pw_scene_free(s);
    }
}

/* The sphere-only megakernels share one pool of samples among a block's
 * warps, over their four tiles (4x4 pixels each from 17 samples a pixel a
 * launch; 4x2 from 9 in the list's batched kernel): at 40 samples a pixel
 * in one call, pools of 32 and then 8 samples of each pixel, over a 97x61
 * image whose right and bottom blocks are cut by its edges, through the
 * sphere list without light sampling (toy-small, camera rays in batches),
 * the BVH (rtiow) and the list with the toy estimator's shadow slots
 * (eight lights, 14 spheres). */
static void test_agree_block_pools(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    const char *names[3] = {"toy-small", "rtiow", "eight toy lights, 14 spheres"};
    for (int i = 0; i < 3; i++) {
        pw_scene *s = i < 2 ? builtin(names[i]) : test_scene_eight_toy_lights(14);
        char name[80];
        snprintf(name, sizeof name, "%s, 97x61, 40 spp", names[i]);
        check_agreement(name, s, 97, 61, 40);
        pw_scene_free(s);
    }
}

/* The sphere list's megakernel without light sampling traces camera rays
 * in batches, each block's through only the spheres its pixels' rays may
 * hit (backend/cuda/cuda_camera_batch.h): its images must equal the
 * wavefront's to the bit, and the shared loop's (PATHWAVE_MEGA_BATCH=0),
 * and agree with the CPU's, at 1, 4 and 12 samples a launch (16x4, 8x4
 * and 4x2 tiles; test_agree_block_pools runs 40, two pools), on an image
 * of partial tiles; on toy-small, and on toy-small with a wide lens among
 * six more spheres: beside it, straddling the lens's plane, behind it (seen
 * in the mirrors) and just off the image's edges, where a wrong cull would
 * lose them. */
static void test_agree_camera_batches(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    for (int k = 0; k < 2; k++) {
        pw_scene *s = builtin("toy-small");
        if (k == 1) {
            uint32_t mirror = pw_scene_push_material(s, pw_metal(.9f, .9f, .9f, 0.0f));
            uint32_t red = pw_scene_push_material(s, pw_lambert(.8f, .2f, .2f));
            const float spheres[6][4] = {{0.7f, 2.0f, 3.0f, 0.4f}, {-0.6f, 1.6f, 3.2f, 0.5f},
                                         {0.0f, 2.0f, 5.0f, 1.0f}, {2.9f, 0.3f, 0.0f, 0.4f},
                                         {-2.9f, 0.3f, 0.2f, 0.4f}, {0.0f, 0.6f, -1.0f, 0.3f}};
            for (int i = 0; i < 6; i++)
                assert_int_equal(pw_scene_push_sphere(s, v3(spheres[i][0], spheres[i][1], spheres[i][2]), spheres[i][3],
                                                     i % 2 ? mirror : red),
                                 PW_OK);
            pw_camera_params c;
            pw_scene_get_camera(s, &c);
            c.aperture = 0.4f;
            c.focus_dist = 2.0f;
            c.vfov_deg = 70.0f;
            assert_int_equal(pw_scene_set_camera(s, &c), PW_OK);
        }
        const int spps[3] = {1, 4, 12};
        for (int i = 0; i < 3; i++) {
            char name[80];
            snprintf(name, sizeof name, "%s, 97x61, %d spp", k ? "toy-small with spheres at the lens" : "toy-small",
                     spps[i]);
            gpu_case c = {97, 61, spps[i], 1, 0, 0};
            check_case(name, s, &c);
            float *batched, *shared;
            assert_int_equal(render(s, PW_BACKEND_CUDA_MEGA, &c, &batched), PW_OK);
            setenv("PATHWAVE_MEGA_BATCH", "0", 1);
            assert_int_equal(render(s, PW_BACKEND_CUDA_MEGA, &c, &shared), PW_OK);
            unsetenv("PATHWAVE_MEGA_BATCH");
            size_t differ = pixels_differing(batched, shared, &c);
            printf("%s: batched and shared loops differ in %zu of %zu pixels\n", name, differ, (size_t)c.w * c.h);
            assert_true(differ == 0);
            free(batched);
            free(shared);
        }
        pw_scene_free(s);
    }
}

/* With almost all device memory taken, a big render must fail with a clear
 * out-of-memory message, not crash or produce a black image. */
static void test_out_of_device_memory(void **state)
{
    (void)state;
    if (!gpu_or_skip())
        skip();
    size_t free_b, total_b;
    assert_int_equal(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
    void *hog = NULL;
    size_t take = free_b > (256u << 20) ? free_b - (128u << 20) : 0;
    assert_int_equal(cudaMalloc(&hog, take), cudaSuccess);
    pw_scene *s = builtin("toy-small");
    float *img;
    gpu_case big = {8192, 8192, 1, 1, 0, 0};
    pw_status e = render(s, PW_BACKEND_CUDA_MEGA, &big, &img);
    printf("with %.0f MiB taken: %s\n", take / 1048576.0, pw_last_error());
    assert_int_equal(e, PW_ERR_OUT_OF_MEMORY);
    assert_non_null(strstr(pw_last_error(), "device memory"));
    free(img);
    pw_scene_free(s);
    cudaFree(hog);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_agree_toy),
        cmocka_unit_test(test_agree_many_toy_lights),
        cmocka_unit_test_teardown(test_agree_no_light_sampling, unset_debug_switches),
        cmocka_unit_test(test_agree_cornell),
        cmocka_unit_test(test_agree_cornell_pbrt),
        cmocka_unit_test(test_agree_bunny),
        cmocka_unit_test(test_agree_split),
        cmocka_unit_test(test_rays_mega_equal_wave),
        cmocka_unit_test(test_agree_partial_tiles_and_calls),
        cmocka_unit_test_teardown(test_agree_streams, unset_debug_switches),
        cmocka_unit_test(test_agree_block_pools),
        cmocka_unit_test_teardown(test_agree_camera_batches, unset_debug_switches),
        cmocka_unit_test(test_agree_waves_in_turn),
        cmocka_unit_test(test_agree_half_waves),
        cmocka_unit_test(test_agree_envmap),
        cmocka_unit_test(test_agree_conductor),
        cmocka_unit_test(test_agree_toy_conductor),
        cmocka_unit_test(test_agree_textures),
        cmocka_unit_test(test_agree_delta_lights),
        cmocka_unit_test(test_agree_spot_light),
        cmocka_unit_test(test_out_of_device_memory),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, NULL, NULL));
}
