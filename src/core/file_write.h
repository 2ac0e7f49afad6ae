/* Whole files out of memory, so that a failed or interrupted write never
 * leaves half a file where a good one was: the bytes go to a temporary
 * file in the destination's folder, which is renamed over the destination
 * once every write, the flush to disk and the close have succeeded, and
 * is removed when one fails. A destination that exists and is not a
 * regular file (/dev/null, /dev/full, a FIFO, a terminal) is written
 * directly, never renamed over, with every error reported; a symbolic
 * link is followed, so the link stays and its target is replaced. */
#ifndef PW_FILE_WRITE_H
#define PW_FILE_WRITE_H

#include <stddef.h>

#include "pathwave.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes len bytes to path; what names the content in messages ("PNG"),
 * which each name path and the system's reason. PW_ERR_IO on failure. */
pw_status pw_write_file(const char *path, const char *what, const void *data, size_t len);
/* What pw_write_file would do up to the first byte, undone: the folder
 * takes a temporary file (one is made and removed), or the device opens
 * for writing. For failing before a long render, not after it. */
pw_status pw_check_writable(const char *path);

#ifdef __cplusplus
}
#endif
#endif
