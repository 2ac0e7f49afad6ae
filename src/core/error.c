#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local char last_error[512];

pw_status pw_fail(pw_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

static pw_warning_fn warning_fn;
static void *warning_user;

void pw_set_warning_handler(pw_warning_fn fn, void *user)
{
    warning_fn = fn;
    warning_user = user;
}

void pw_warn(const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (warning_fn)
        warning_fn(msg, warning_user);
    else
        fprintf(stderr, "pathwave: warning: %s\n", msg);
}

const char *pw_last_error(void) { return last_error[0] ? last_error : "no error"; }

const char *pw_version(void) { return "0.1.0"; }

void pw_free(void *p) { free(p); }
