/* White balance as pbrt-v4's default sensor does it (Film "whitebalance"):
 * a von Kries adaptation in the Bradford cone space from the white of a
 * CIE daylight illuminant of the given temperature to the white of the
 * image's colour space, linear sRGB (Rec. 709 primaries, D65 white). */
#ifndef PW_WHITE_BALANCE_H
#define PW_WHITE_BALANCE_H

/* The CIE daylight locus (CIE 15): the chromaticity (x, y) of illuminant
 * D at temperature t kelvin, defined from 4000 K to 25000 K. Returns 0
 * outside that range. */
int pw_daylight_xy(double t, double *x, double *y);

/* The 3x3 matrix (row-major) that white-balances a linear sRGB colour
 * taken under daylight of temperature t (4000 K to 25000 K) to D65: the
 * illuminant's own white becomes grey. Returns 0 outside the range. */
int pw_white_balance_srgb(double t, float m[9]);

#endif
