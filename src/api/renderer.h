/* The renderer behind the public handle: a render job, the backend that
 * runs it (backend/backend.h), and what only the API keeps. */
#ifndef PW_RENDERER_H
#define PW_RENDERER_H

#include "backend/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pw_renderer {
    pw_render_job job;
    const pw_backend_ops *ops; /* job.backend's */
    char backend_note[300];    /* why auto chose the backend it did, or "" */
    pw_progress_fn progress;   /* pw_renderer_set_progress: called between passes, or NULL */
    void *progress_user;
    int rendering;             /* inside pw_renderer_render: a progress callback may not render again */
};

#ifdef __cplusplus
}
#endif
#endif
