/* Every CUDA call and launch goes through these: a failure becomes a
 * one-line pw_last_error() naming the call, and the caller returns. */
#ifndef PW_CUDA_CHECK_H
#define PW_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "core/error.h"

#define PW_CUDA_TRY(call)                                                                                  \
    do {                                                                                                   \
        cudaError_t pw_err_ = (call);                                                                      \
        if (pw_err_ != cudaSuccess)                                                                        \
            return pw_fail(pw_err_ == cudaErrorMemoryAllocation ? PW_ERR_OUT_OF_MEMORY : PW_ERR_NO_DEVICE, \
                           "CUDA: %s failed: %s", #call, cudaGetErrorString(pw_err_));                   \
    } while (0)

/* After a <<<>>> launch: configuration errors now, execution errors at the
 * next synchronising call. */
#define PW_CUDA_LAUNCH_CHECK(name) PW_CUDA_TRY(cudaGetLastError())

#endif
