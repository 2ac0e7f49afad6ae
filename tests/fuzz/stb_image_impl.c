/* stb_image's decoders compiled into the image fuzzer from the same Debian
 * header libstb is built from, so that libFuzzer follows their branches
 * and the sanitizers check their memory accesses; the target's copy takes
 * the place of the shared library's. */
#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>
