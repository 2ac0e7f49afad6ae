/* Stand-ins for the CUDA backend when the build has no CUDA compiler: every
 * entry point reports that this build has no GPU support. */
#include "api/renderer.h"
#include "core/error.h"

int pw_cuda_compiled(void) { return 0; }

int pw_cuda_usable(void)
{
    pw_fail(PW_ERR_NO_DEVICE, "this pathwave was built without CUDA");
    return 0;
}

pw_status pw_cuda_create(pw_renderer *r)
{
    (void)r;
    pw_cuda_usable();
    return PW_ERR_NO_DEVICE;
}

pw_status pw_cuda_render(pw_renderer *r, int spp)
{
    (void)r;
    (void)spp;
    return pw_fail(PW_ERR_NO_DEVICE, "this pathwave was built without CUDA");
}

pw_status pw_cuda_wave_render(pw_renderer *r, int spp)
{
    return pw_cuda_render(r, spp);
}

pw_status pw_cuda_download(pw_renderer *r)
{
    (void)r;
    return PW_OK;
}

void pw_cuda_destroy(pw_renderer *r) { (void)r; }
