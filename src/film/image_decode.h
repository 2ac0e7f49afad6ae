/* Decoding image bytes, whatever their origin (a file, a .glb's embedded
 * image, a fuzzer's input), into pixels: the format is chosen by the
 * bytes' magic number, never by a name's extension. */
#ifndef PW_IMAGE_DECODE_H
#define PW_IMAGE_DECODE_H

#include <stddef.h>

#include "pathwave.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest image any decoder allocates: 32768 a side, as textures, and
 * 2^28 pixels (16384 x 16384, 3 GiB of float RGB), checked before the
 * pixels are allocated. */
#define PW_IMAGE_MAX_SIDE 32768
#define PW_IMAGE_MAX_PIXELS ((size_t)1 << 28)

/* A decoded image: linear float RGB for the float formats (Radiance HDR,
 * OpenEXR, PFM), the stored 8-bit RGB codes for the others (PNG, JPEG,
 * BMP, TGA; sRGB colour or data, as the caller takes them). Exactly one of rgb and rgb8 is set. */
typedef struct pw_decoded_image {
    int w, h;
    float *rgb;
    unsigned char *rgb8;
} pw_decoded_image;

/* Decodes n bytes; name is for messages, which each name it. */
pw_status pw_image_decode_any(const char *name, const unsigned char *data, size_t n, pw_decoded_image *out);
void pw_decoded_image_free(pw_decoded_image *im);
/* Linear float RGB whatever the format (8-bit codes sRGB-decoded); free
 * *rgb with free(). */
pw_status pw_image_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h);
/* n 8-bit sRGB codes to linear floats (a table of the 256 values). */
void pw_srgb8_to_linear(const unsigned char *px, size_t n, float *out);

/* Each format's decoder, as pw_image_decode_any calls it: *rgb gets
 * 3 * w * h floats (rows top to bottom) to free with free(). */
int pw_hdr_is(const unsigned char *data, size_t n);
pw_status pw_hdr_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h);
int pw_exr_is(const unsigned char *data, size_t n);
pw_status pw_exr_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h);
int pw_pfm_is(const unsigned char *data, size_t n);
pw_status pw_pfm_decode(const char *name, const unsigned char *data, size_t n, float **rgb, int *w, int *h);

/* PW_OK when stb_image may be given the bytes: PNG, JPEG, BMP or TGA that
 * passes the checks of stb_guard.c; else an error naming the file. */
pw_status pw_stb_guard(const char *name, const unsigned char *data, size_t n);

/* PW_OK when a w x h image of the named format is within the limits
 * above, else an error naming the file and the size. */
pw_status pw_image_check_size(const char *name, const char *format, long long w, long long h);

#ifdef __cplusplus
}
#endif
#endif
