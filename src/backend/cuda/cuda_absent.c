/* Stand-ins for the CUDA backends when the build has no CUDA compiler:
 * every entry point reports that this build has no GPU support. */
#include "backend/backend.h"
#include "core/error.h"

int pw_cuda_compiled(void) { return 0; }

int pw_cuda_usable(void)
{
    pw_fail(PW_ERR_NO_DEVICE, "this pathwave was built without CUDA");
    return 0;
}

static pw_status absent_create(pw_render_job *j)
{
    (void)j;
    pw_cuda_usable();
    return PW_ERR_NO_DEVICE;
}

static pw_status absent_render(pw_render_job *j, int spp)
{
    (void)j;
    (void)spp;
    return pw_fail(PW_ERR_NO_DEVICE, "this pathwave was built without CUDA");
}

static void absent_destroy(pw_render_job *j) { (void)j; }

const pw_backend_ops pw_cuda_mega_ops = {absent_create, absent_render, NULL, absent_destroy, 0};
const pw_backend_ops pw_cuda_wave_ops = {absent_create, absent_render, NULL, absent_destroy, 0};
