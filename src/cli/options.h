/* Command-line parsing shared by the pathwave commands. */
#ifndef PW_CLI_OPTIONS_H
#define PW_CLI_OPTIONS_H

#include "pathwave.h"

#define EXIT_USAGE 2

typedef struct cli_options {
    const char *scene;
    const char *output;
    const char *exr;
    const char *env; /* environment map file */
    float env_scale;
    pw_settings settings;
    int set_width, set_height, set_spp, set_depth, set_seed, set_light_mode;
    int width, height, spp, max_depth, threads, frames, spp_per_frame;
    uint32_t seed;
    pw_backend backend;
    pw_light_mode light_mode;
    pw_tonemap tonemap;
    float exposure;
    int quiet, json, stats, split, wave_paths;
    int ignore_required_extensions; /* glTF: load without extensions the file requires */
    const char *stats_json; /* render: file for the --stats figures as JSON ("-": stdout) */
    /* Camera overrides: each set_ flag says the option was given. */
    float look_from[3], look_at[3], up[3], fov, aperture, focus_dist;
    int set_look_from, set_look_at, set_up, set_fov, set_aperture, set_focus_dist;
    char camera_args[512]; /* the camera options as given, for messages */
    double load_ms;         /* set by cli_load_scene: reading the file or building the scene */
    int from_file;          /* set by cli_load_scene: the scene is a mesh file */
} cli_options;

/* Parses argv[first..] for the given command; prints a one-line error and
 * returns 0 on bad input. */
int cli_parse(int argc, char **argv, int first, const char *command, cli_options *o);
/* Loads the scene (built-in name or file) and applies the options to its
 * defaults; returns 0, or the exit code after printing why it failed. */
int cli_load_scene(cli_options *o, pw_scene **scene, pw_settings *settings);

int cmd_render(int argc, char **argv);
int cmd_bench(int argc, char **argv);

#endif
