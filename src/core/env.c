#include "core/env.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"

int pw_env_number(const char *name, double lo, double hi, int integer, double *out)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return 0;
    char *end;
    double x = strtod(v, &end);
    if (*end || !(x >= lo && x <= hi) || (integer && x != floor(x))) {
        pw_warn("%s='%s' is not %s in [%g, %g]; the default is used", name, v, integer ? "a whole number" : "a number",
                lo, hi);
        return 0;
    }
    *out = x;
    return 1;
}
