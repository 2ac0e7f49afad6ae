/* The thread-local last error behind pw_last_error(). */
#ifndef PW_ERROR_H
#define PW_ERROR_H

#include "pathwave.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Records a printf-style message and returns status, so callers write
 * `return pw_fail(PW_ERR_IO, "%s: cannot open", path);`. */
pw_status pw_fail(pw_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reports something the library worked around (an unsupported feature of a
 * scene file, an approximation) through the handler of
 * pw_set_warning_handler, by default "pathwave: warning: ..." on stderr. */
void pw_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* in with control bytes, C1 controls and bytes that are not UTF-8 written
 * as \xNN (what pw_fail and pw_warn do to messages), cut to fit size. */
void pw_escape_controls(const char *in, char *out, size_t size);

#ifdef __cplusplus
}
#endif
#endif
