/* Whole files into memory, for every loader: one place that refuses what
 * is not a regular file (a device, a FIFO, a folder: /dev/zero would
 * otherwise be read until memory runs out), caps the size before reading,
 * and inflates gzip transparently (pbrt-v4 scenes ship .pbrt.gz and
 * .ply.gz), with the same cap on the inflated size. */
#ifndef PW_FILE_READ_H
#define PW_FILE_READ_H

#include <stddef.h>

#include "pathwave.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cap loaders use unless they know better: 2 GiB, which no scene
 * file, mesh or image pathwave reads comes near. */
#define PW_FILE_MAX_BYTES ((size_t)1 << 31)

typedef struct pw_bytes {
    unsigned char *data; /* len bytes and a '\0' after them, so text parsers may stop at it */
    size_t len;
} pw_bytes;

/* Reads path (inflated when its bytes are gzip) into *out. Errors, each
 * naming the file: PW_ERR_NOT_FOUND (cannot open, with the system's
 * reason), PW_ERR_IO (not a regular file, a read error), PW_ERR_FORMAT
 * (over max_bytes, a damaged gzip stream), PW_ERR_OUT_OF_MEMORY. */
pw_status pw_read_file(const char *path, size_t max_bytes, pw_bytes *out);
/* Whether bytes start with gzip's magic number (1f 8b). */
int pw_is_gzip(const unsigned char *data, size_t len);
/* Inflates gzip bytes already in memory (a fuzzer's input, a GLB chunk)
 * into *out; name is for messages. */
pw_status pw_gunzip(const char *name, const unsigned char *data, size_t len, size_t max_bytes, pw_bytes *out);
void pw_bytes_free(pw_bytes *b);

#ifdef __cplusplus
}
#endif
#endif
