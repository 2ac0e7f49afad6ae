#include "core/env.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

int pw_env_number(const char *name, double lo, double hi, int integer, double *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    /* Decimal only: strtod would also take hex ("0x10"), "inf" and
     * leading blanks, and a value too small for a double would pass as 0,
     * which turns some settings off. */
    char *end = NULL;
    double x = 0.0;
    int ok = strspn(v, "0123456789.eE+-") == strlen(v);
    if (ok) {
        errno = 0;
        x = strtod(v, &end);
        ok = end != v && !*end && errno != ERANGE && x >= lo && x <= hi && !(integer && x != floor(x));
    }
    if (!ok) {
        pw_warn("%s='%s' is not %s in [%g, %g]; the default is used", name, v, integer ? "a whole number" : "a number",
                lo, hi);
        return 0;
    }
    *out = x;
    return 1;
}
