/* pathwave: the command-line program over libpathwave. */
#include <stdio.h>
#include <string.h>

#include "cli/options.h"

static const char *const usage_main =
    "usage: pathwave <command> [options]\n"
    "\n"
    "commands:\n"
    "  render [SCENE|FILE]  render a built-in scene, a .pbrt scene or a mesh file to an image\n"
    "  bench [SCENE|FILE]   time a fixed render and print Mray/s and ms per frame\n"
    "  scenes               list the built-in scenes\n"
    "  help [COMMAND]       show help for a command\n"
    "\n"
    "Run 'pathwave <command> --help' for its options.\n";

static const char *const usage_render =
    "usage: pathwave render [SCENE|FILE] [options]\n"
    "\n"
    "Renders SCENE (a built-in, see 'pathwave scenes'; default cornell), a pbrt-v4\n"
    "scene file (.pbrt) or a mesh file (.obj, .ply, .gltf, .glb, ...)\n"
    "progressively, then writes the image.\n"
    "Generated scenes take a size: terrain:N (N triangles), bunnies:K (K bunnies),\n"
    "bunnies-mixed:K (K bunnies of six materials).\n"
    "Ctrl-C stops early and still writes what was accumulated.\n"
    "\n"
    "  -o, --output FILE    image to write; .png (tonemapped sRGB), .exr or .pfm\n"
    "                       (linear float) by extension [pathwave.png]\n"
    "  --exr FILE           also write the linear image as EXR\n"
    "  --spp N              samples per pixel [scene's default]\n"
    "  --width N, --height N  image size, at most 32768 a side and 67108864 pixels\n"
    "                       (8192 x 8192) in all [scene's default]\n"
    "  --max-depth N        bounces per path [scene's default]\n"
    "  --seed N             random seed; same seed, same image [1]\n"
    "  --threads N          CPU threads, 0 = all cores [0]\n"
    "  --backend NAME       auto, cpu, cuda-mega, cpu-wave or cuda-wave [auto]\n"
    "  --light-mode MODE    mis, toy or none [scene's default]\n"
    "  --tonemap NAME       clamp, aces or reinhard, for PNG [clamp]\n"
    "  --exposure X         multiply radiance before tonemapping [1]\n"
    "  --env FILE           light the scene with an equirectangular map (.hdr, .exr, ...),\n"
    "                       importance-sampled; --env-scale X multiplies it [1]\n"
    "  --split N            ray splitting: N child paths at each path's first hit [1]\n"
    "  --wave-paths N       wavefront backends: at most N paths in flight [as memory allows]\n"
    "  --ignore-required-extensions  load a glTF file that requires extensions pathwave\n"
    "                       lacks, without them (a warning each), instead of failing\n"
    "                       [8 where the CPU has AVX2]\n"
    "  --look-from X,Y,Z    camera position (alias --camera) [scene's camera]\n"
    "  --look-at X,Y,Z      point the camera looks at [scene's camera]\n"
    "  --up X,Y,Z           camera's up direction [scene's camera]\n"
    "  --fov DEG            vertical field of view, 0 < DEG < 180 [scene's camera]\n"
    "  --aperture D         lens diameter, 0 = pinhole [scene's camera]\n"
    "  --focus-dist D       distance in focus, 0 = to the look-at point [scene's camera]\n"
    "  --stats              print load and BVH build times, BVH nodes, primitive and\n"
    "                       light counts, host (and GPU) memory, render time, Mray/s\n"
    "  --stats-json FILE    write the same figures as JSON to FILE ('-': stdout)\n"
    "  -q, --quiet          no progress bar and no summary\n"
    "\n"
    "examples:\n"
    "  pathwave render cornell --spp 256 -o cornell.png\n"
    "  pathwave render toy --width 640 --height 360 --exr toy.exr -o toy.png\n"
    "  pathwave render ../shared/scenes/stanford-bunny/bunny.ply -o bunny.png\n"
    "  pathwave render ../shared/scenes/gltf-samples/Duck.glb --env ../shared/scenes/hdri/venice_sunset_1k.hdr\n"
    "  pathwave render cornell --look-from 0.8,1.5,4 --fov 35 -o corner.png\n"
    "  pathwave render terrain:1000000 --spp 1 --stats      (BVH build time of 1M triangles)\n";

static const char *const usage_bench =
    "usage: pathwave bench [SCENE|FILE] [options]\n"
    "\n"
    "Renders one warm-up frame and N timed frames of SCENE [toy] and prints rays\n"
    "per pixel-sample, Mray/s and ms per frame (medians). Toy scenes default to\n"
    "4 samples per pixel per frame, others to 1.\n"
    "\n"
    "  --frames N           timed frames [5]\n"
    "  --spp-per-frame N    samples per pixel in each frame\n"
    "  --width N, --height N, --max-depth N, --seed N, --threads N, --backend NAME,\n"
    "  --split N, --wave-paths N, --env FILE, --env-scale X,\n"
    "  --look-from X,Y,Z, --camera X,Y,Z, --look-at X,Y,Z, --up X,Y,Z, --fov DEG,\n"
    "  --aperture D, --focus-dist D, --ignore-required-extensions,\n"
    "  --light-mode MODE    as for render\n"
    "  --stats              wavefront backends: time and items of each stage per bounce\n"
    "  --json               print the result as JSON instead of a table\n";

static int cmd_scenes(void)
{
    for (int i = 0; i < pw_builtin_scene_count(); i++)
        printf("%-16s %s\n", pw_builtin_scene_name(i), pw_builtin_scene_description(i));
    return 0;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

static int help(const char *command)
{
    if (!command) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(command, "render") == 0)
        fputs(usage_render, stdout);
    else if (strcmp(command, "bench") == 0)
        fputs(usage_bench, stdout);
    else if (strcmp(command, "scenes") == 0)
        fputs("usage: pathwave scenes\n\nLists the built-in scenes.\n", stdout);
    else {
        fprintf(stderr, "pathwave: unknown command '%s'\n", command);
        return EXIT_USAGE;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return help(NULL);
    if (strcmp(cmd, "--version") == 0) {
        printf("pathwave %s\n", pw_version());
        return 0;
    }
    if (strcmp(cmd, "help") == 0)
        return help(argc > 2 ? argv[2] : NULL);
    if (wants_help(argc, argv))
        return help(cmd);
    if (strcmp(cmd, "render") == 0)
        return cmd_render(argc, argv);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc, argv);
    if (strcmp(cmd, "scenes") == 0)
        return cmd_scenes();
    fprintf(stderr, "pathwave: unknown command '%s' (see 'pathwave --help')\n", cmd);
    return EXIT_USAGE;
}
