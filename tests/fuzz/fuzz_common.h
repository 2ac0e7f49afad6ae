/* What the libFuzzer targets share: warnings silenced (a fuzzer's inputs
 * make millions), and a scratch folder of the process's own for the
 * targets whose loaders read files by name. */
#ifndef PW_FUZZ_COMMON_H
#define PW_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pathwave.h"

static void fuzz_quiet(const char *msg, void *user)
{
    (void)msg;
    (void)user;
}

/* /tmp/pw_fuzz_NAME_PID into dir, made if it is not there; aborts when it
 * cannot be written (the target could test nothing then). */
static inline void fuzz_scratch_dir(char *dir, size_t size, const char *name)
{
    snprintf(dir, size, "/tmp/pw_fuzz_%s_%d", name, (int)getpid());
    if (mkdir(dir, 0700) != 0 && access(dir, W_OK) != 0)
        abort();
}

#endif
