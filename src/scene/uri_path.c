#include "scene/uri_path.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int hex_digit(char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

int pw_uri_decode(const char *uri, char *out, size_t cap)
{
    size_t o = 0;
    int escapes = 0;
    for (const char *c = uri; *c; c++) {
        char ch = *c;
        if (ch == '%') {
            int hi = hex_digit(c[1]), lo = hi < 0 ? -1 : hex_digit(c[2]);
            if (lo < 0 || (hi | lo) == 0)
                return 0;
            ch = (char)(hi * 16 + lo);
            c += 2;
            escapes = 1;
        }
        if (o + 1 >= cap)
            return 0;
        out[o++] = ch;
    }
    out[o] = '\0';
    return escapes;
}

static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode);
}

static void slashes(char *s)
{
    for (; *s; s++)
        if (*s == '\\')
            *s = '/';
}

/* out = folder (dir bytes of it) + name, literal or decoded as the
 * existing files say. */
static int choose(const char *folder, int dir, const char *name, char *out, size_t cap)
{
    if (snprintf(out, cap, "%.*s%s", dir, folder, name) >= (int)cap)
        return 0;
    slashes(out + dir);
    char decoded[4096];
    if (is_file(out) || !pw_uri_decode(name, decoded, sizeof decoded))
        return 1;
    char alt[4096];
    if (snprintf(alt, sizeof alt, "%.*s%s", dir, folder, decoded) >= (int)sizeof alt || strlen(alt) >= cap)
        return 1;
    slashes(alt + dir);
    if (is_file(alt))
        strcpy(out, alt);
    return 1;
}

static int folder_length(const char *model)
{
    const char *slash = strrchr(model, '/');
    return slash ? (int)(slash - model + 1) : 0;
}

int pw_uri_path(const char *model, const char *uri, char *out, size_t cap)
{
    return choose(model, uri[0] == '/' ? 0 : folder_length(model), uri, out, cap);
}

int pw_uri_resolve_joined(const char *model, const char *path, char *out, size_t cap)
{
    int dir = folder_length(model);
    if (strncmp(path, model, (size_t)dir) != 0)
        dir = 0;
    return choose(path, dir, path + dir, out, cap);
}
