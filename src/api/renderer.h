/* The renderer behind the public handle, shared by the backends. */
#ifndef PW_RENDERER_H
#define PW_RENDERER_H

#include <signal.h>

#include "pathwave.h"
#include "accel/bvh8_cpu.h"
#include "scene/scene.h"

struct pw_renderer {
    pw_scene *scene;
    pw_settings settings;
    pw_render_params params;
    pw_scene_view view;   /* host view; backends with device memory keep their own */
    pw_backend backend;
    pw_bvh8 bvh8;         /* CPU backends: the 8-wide BVH the view points to */
    float *sum;           /* 3 floats per pixel: summed radiance */
    uint32_t *count;      /* samples per pixel; Ctrl-C can leave a pass half done */
    pw_render_stats stats;
    volatile sig_atomic_t cancel;
};

/* CPU megakernel: adds spp samples to every pixel with all threads. */
pw_status pw_cpu_render(pw_renderer *r, int spp);

double pw_now_seconds(void);

#endif
