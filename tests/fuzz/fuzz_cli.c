/* libFuzzer target for the command line: the input, cut at NUL bytes, is
 * an argument list for `pathwave render` or `pathwave bench` (the first
 * byte chooses). What parses is applied to the built-in Cornell box, as
 * cli_load_scene does for a user: the camera overrides (which
 * pw_scene_set_camera checks), the image size limits and the settings.
 * Scene files and environment maps are left out (other targets fuzz those
 * readers), and so is pw_renderer_create, whose image buffers at the
 * largest sizes would pass the fuzzer's memory limit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "cli/options.h"
#include "pathwave.h"
#include "fuzz_common.h"

#define MAX_ARGS 64

/* cli_parse's messages go to /dev/null while it runs; libFuzzer's own
 * report needs stderr back afterwards. */
static int devnull = -1, saved_stderr = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    pw_set_warning_handler(fuzz_quiet, NULL);
    devnull = open("/dev/null", O_WRONLY);
    saved_stderr = dup(2);
    if (devnull < 0 || saved_stderr < 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    const char *command = data[0] & 1 ? "bench" : "render";
    char *text = malloc(size); /* the arguments, NUL-terminated each */
    if (!text)
        abort();
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *argv[MAX_ARGS + 3] = {"pathwave", (char *)command};
    int argc = 2;
    for (size_t i = 0; i < size - 1 && argc < MAX_ARGS + 2; i += strlen(text + i) + 1)
        argv[argc++] = text + i;
    argv[argc] = NULL;
    cli_options o;
    fflush(stderr);
    dup2(devnull, 2);
    if (cli_parse(argc, argv, 2, command, &o)) {
        o.scene = "cornell";
        o.env = NULL;
        pw_scene *scene = NULL;
        pw_settings s;
        if (cli_load_scene(&o, &scene, &s) == 0)
            pw_scene_free(scene);
        else if (scene)
            abort(); /* a failed load leaves no scene behind */
    }
    fflush(stderr);
    dup2(saved_stderr, 2);
    free(text);
    return 0;
}
