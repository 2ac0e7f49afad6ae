#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static _Thread_local char last_error[512];

/* The length of a valid UTF-8 sequence at s for a code point that prints
 * (U+00A0 and above), or 0. */
static int printable_utf8(const unsigned char *s)
{
    int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (n == 0 || s[0] > 0xf4)
        return 0;
    unsigned cp = s[0] & (0x7f >> n);
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    int shortest = n == 2 || (n == 3 && cp >= 0x800) || (n == 4 && cp >= 0x10000);
    return shortest && cp >= 0xa0 && cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? n : 0;
}

/* Messages quote names and paths from files a user downloaded: control
 * bytes among them (an escape sequence can retitle or clear a terminal),
 * C1 controls and bytes that are not UTF-8 are written as \xNN instead.
 * The message is cut, never a sequence, when it is too long. */
void pw_escape_controls(const char *in, char *out, size_t size)
{
    const unsigned char *s = (const unsigned char *)in;
    size_t o = 0;
    while (*s && o + 1 < size) {
        int n = *s >= 0x20 && *s < 0x7f ? 1 : *s >= 0x80 ? printable_utf8(s) : 0;
        if (n > 0) {
            if (o + (size_t)n >= size)
                break;
            for (int i = 0; i < n; i++)
                out[o++] = (char)*s++;
        } else {
            if (o + 4 >= size)
                break;
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", *s++);
        }
    }
    out[o] = '\0';
}

pw_status pw_fail(pw_status status, const char *fmt, ...)
{
    char msg[sizeof last_error];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pw_escape_controls(msg, last_error, sizeof last_error);
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
    char raw[512], msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    pw_escape_controls(raw, msg, sizeof msg);
    if (warning_fn)
        warning_fn(msg, warning_user);
    else
        fprintf(stderr, "pathwave: warning: %s\n", msg);
}

const char *pw_last_error(void) { return last_error[0] ? last_error : "no error"; }

const char *pw_version(void) { return "0.1.0"; }

void pw_free(void *p) { free(p); }
