/* libFuzzer target for image decoding: each input goes through
 * pw_image_decode, the one entry point every image takes (files, a .glb's
 * embedded images, --env maps), gzip inflated first as pw_read_file does.
 * The format comes from the bytes, so one target reaches the Radiance HDR,
 * PFM and EXR readers and stb_image's formats. Any crash, sanitizer
 * report, leak or hang is a bug; a refused input is the expected outcome
 * for most. Build with clang (tests/CMakeLists.txt). */
#include <stdint.h>
#include <stdlib.h>

#include "core/file_read.h"
#include "film/image_decode.h"

/* Inflated inputs are capped well below the fuzzer's memory limit. */
#define FUZZ_MAX_INFLATED ((size_t)64 << 20)

static volatile float sink;

static void decode(const unsigned char *data, size_t size)
{
    float *rgb = (float *)data; /* must come back NULL on failure */
    int w = 0, h = 0;
    if (pw_image_decode("fuzz", data, size, &rgb, &w, &h) != PW_OK) {
        if (rgb)
            abort();
        return;
    }
    if (w < 1 || h < 1 || w > PW_IMAGE_MAX_SIDE || h > PW_IMAGE_MAX_SIDE)
        abort();
    /* Every pixel is read, so a short allocation shows as an overflow. */
    float sum = 0.0f;
    for (size_t i = 0; i < (size_t)w * (size_t)h * 3; i++)
        sum += rgb[i];
    sink = sum;
    free(rgb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!pw_is_gzip(data, size)) {
        decode(data, size);
        return 0;
    }
    pw_bytes inflated;
    if (pw_gunzip("fuzz", data, size, FUZZ_MAX_INFLATED, &inflated) == PW_OK) {
        decode(inflated.data, inflated.len);
        pw_bytes_free(&inflated);
    }
    return 0;
}
