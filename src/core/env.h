/* Tuning settings read from the environment (the PATHWAVE_* variables of
 * docs/GPU.md), which the benchmarks' comparisons set. */
#ifndef PW_ENV_H
#define PW_ENV_H

#ifdef __cplusplus
extern "C" {
#endif

/* Whether $name holds a decimal number in [lo, hi] (a whole number where
 * integer is set), which then goes to *out. Unset or empty: 0, silently.
 * Any other value: 0 and a warning that names the variable, its value and
 * the range, so that a mistyped setting does not pass for a measurement. */
int pw_env_number(const char *name, double lo, double hi, int integer, double *out);

#ifdef __cplusplus
}
#endif
#endif
