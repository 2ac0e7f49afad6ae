/* Image files on bad and good input. Reading: the Radiance HDR reader
 * against stb_image on valid files (made here, and the shared HDRIs) to
 * the bit and against the RGBE formula, every truncation and damaged run
 * an error naming the file (stb_image 2.27 hung on them), the header's
 * refusals; PFM in both byte orders and grey, its size checked against
 * its data; EXR written and read back, every truncation refused; a
 * missing file's reason; a device refused; gzip inflated; the size limit
 * held before stb_image allocates. Writing: a full device fails with the
 * system's reason, a write that fails leaves the image it would replace
 * untouched and no temporary file, a link keeps pointing at the replaced
 * file, permissions are kept. */
#include "test_common.h"
#include "film/white_balance.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <stb_image.h>
#include <stb_image_write.h>

#include "core/file_write.h"
#include "film/image_decode.h"
#include "film/tonemap.h"
#include "scene/scene.h"

static char dir[64];

static const char *in_dir(const char *name)
{
    static char buf[8][sizeof dir + 256];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s/%.255s", dir, name);
    return b;
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

/* The whole file, with its length; NULL when it cannot be read. */
static unsigned char *read_bytes(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (len == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        buf[len++] = (unsigned char)c;
    }
    fclose(f);
    *n = len;
    return buf ? buf : malloc(1);
}

/* The names in the test folder, sorted and joined by spaces. */
static void folder_listing(char *out, size_t size)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0) {
            size_t len = strlen(out);
            snprintf(out + len, size - len, "%s%s", len ? " " : "", names[i]->d_name);
        }
        free(names[i]);
    }
    free(names);
}

static void empty_folder(void)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, NULL);
    for (int i = 0; i < n; i++) {
        if (strcmp(names[i]->d_name, ".") != 0 && strcmp(names[i]->d_name, "..") != 0)
            unlink(in_dir(names[i]->d_name));
        free(names[i]);
    }
    free(names);
}

static void assert_error_names(const char *name, const char *reason)
{
    const char *e = pw_last_error();
    if (!strstr(e, name) || (reason && !strstr(e, reason)))
        fail_msg("message '%s' does not name '%s' and '%s'", e, name, reason ? reason : "");
}

/* ---- Radiance HDR ---- */

/* Pixels with long runs and random stretches: a random pixel, or the one
 * before it. Mantissas of 128 and up, as a normalised RGBE pixel has for
 * its largest channel, so no pixel reads as an old-style run (1, 1, 1, n)
 * or a run-length header (2, 2, ...); exponent 0 (black) sometimes. */
static unsigned char *random_rgbe(int w, int h, uint64_t seed)
{
    test_rng g = {seed};
    unsigned char *px = malloc((size_t)w * h * 4);
    assert_non_null(px);
    for (int i = 0; i < w * h; i++) {
        if (i > 0 && trng_u64(&g) % 2) {
            memcpy(px + 4 * i, px + 4 * (i - 1), 4);
            continue;
        }
        uint64_t r = trng_u64(&g);
        px[4 * i + 0] = (unsigned char)(128 + r % 128);
        px[4 * i + 1] = (unsigned char)(r >> 8);
        px[4 * i + 2] = (unsigned char)(r >> 16);
        px[4 * i + 3] = (unsigned char)(r % 17 == 0 ? 0 : 1 + (r >> 24) % 255);
    }
    return px;
}

/* One channel of a scanline, new-style: runs of 3 to 127 equal bytes as
 * (128 + n, byte), the rest as dumps of at most 128 bytes. */
static size_t rle_channel(const unsigned char *px, int w, int k, unsigned char *out)
{
    size_t o = 0;
    int i = 0;
    while (i < w) {
        int run = 1;
        while (i + run < w && run < 127 && px[4 * (i + run) + k] == px[4 * i + k])
            run++;
        if (run >= 3) {
            out[o++] = (unsigned char)(128 + run);
            out[o++] = px[4 * i + k];
            i += run;
            continue;
        }
        int start = i, n = 0;
        while (i < w && n < 128) {
            int ahead = 1;
            while (i + ahead < w && ahead < 3 && px[4 * (i + ahead) + k] == px[4 * i + k])
                ahead++;
            if (ahead >= 3)
                break;
            i++, n++;
        }
        out[o++] = (unsigned char)n;
        for (int z = 0; z < n; z++)
            out[o++] = px[4 * (start + z) + k];
    }
    return o;
}

/* A whole HDR file of w x h RGBE pixels, new-style RLE or flat; *n its size. */
static unsigned char *make_hdr(const unsigned char *px, int w, int h, int rle, size_t *n)
{
    unsigned char *buf = malloc(256 + (size_t)w * h * 8 + (size_t)h * 4);
    assert_non_null(buf);
    size_t o = (size_t)sprintf((char *)buf, "#?RADIANCE\n# made by test_image_io\nFORMAT=32-bit_rle_rgbe\n"
                                            "EXPOSURE=1.0\n\n-Y %d +X %d\n", h, w);
    for (int j = 0; j < h; j++) {
        const unsigned char *row = px + (size_t)j * w * 4;
        if (!rle) {
            memcpy(buf + o, row, (size_t)w * 4);
            o += (size_t)w * 4;
            continue;
        }
        unsigned char head[4] = {2, 2, (unsigned char)(w >> 8), (unsigned char)w};
        memcpy(buf + o, head, 4);
        o += 4;
        for (int k = 0; k < 4; k++)
            o += rle_channel(row, w, k, buf + o);
    }
    *n = o;
    return buf;
}

/* m 2^(e - 136) in double, exact, then to float: what RGBE means. */
static void assert_rgbe_values(const unsigned char *px, const float *rgb, int count)
{
    for (int i = 0; i < count; i++)
        for (int c = 0; c < 3; c++) {
            float want = px[4 * i + 3] ? (float)ldexp((double)px[4 * i + c], px[4 * i + 3] - 136) : 0.0f;
            if (memcmp(&want, &rgb[3 * i + c], sizeof want) != 0)
                fail_msg("pixel %d channel %d: %.9g, expected %.9g", i, c, rgb[3 * i + c], want);
        }
}

/* Our decode and stb_image's of valid bytes: equal to the bit. */
static void assert_decode_equals_stb(const char *name, const unsigned char *data, size_t n)
{
    float *ours;
    int w, h;
    assert_int_equal(pw_image_decode(name, data, n, &ours, &w, &h), PW_OK);
    int sw, sh, comp;
    float *theirs = stbi_loadf_from_memory(data, (int)n, &sw, &sh, &comp, 3);
    assert_non_null(theirs);
    assert_int_equal(w, sw);
    assert_int_equal(h, sh);
    for (size_t i = 0; i < (size_t)w * h * 3; i++)
        if (memcmp(&ours[i], &theirs[i], sizeof *ours) != 0)
            fail_msg("%s: value %zu is %.9g, stb_image's %.9g", name, i, ours[i], theirs[i]);
    stbi_image_free(theirs);
    free(ours);
}

/* Run-length-encoded (widths 8 and up) and flat (below 8) files made here. */
static void hdr_matches_stb_and_rgbe(void **state)
{
    (void)state;
    static const int sizes[][3] = {{37, 5, 1}, {300, 3, 1}, {8, 2, 1}, {5, 3, 0}, {1, 1, 0}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int w = sizes[s][0], h = sizes[s][1];
        unsigned char *px = random_rgbe(w, h, 11 + s);
        size_t n;
        unsigned char *file = make_hdr(px, w, h, sizes[s][2], &n);
        assert_decode_equals_stb("made.hdr", file, n);
        float *rgb;
        int dw, dh;
        assert_int_equal(pw_image_decode("made.hdr", file, n, &rgb, &dw, &dh), PW_OK);
        assert_rgbe_values(px, rgb, w * h);
        free(rgb);
        free(file);
        free(px);
    }
}

/* The shared HDRIs, through pw_image_read, against stb_image's decode. */
static void hdr_shared_files_match_stb(void **state)
{
    (void)state;
    static const char *const files[] = {"scenes/hdri/venice_sunset_1k.hdr", "scenes/hdri/studio_small_03_1k.hdr"};
    int found = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[1024];
        if (!pw_test_shared_file(files[i], path, sizeof path))
            continue;
        found++;
        size_t n;
        unsigned char *data = read_bytes(path, &n);
        assert_non_null(data);
        assert_decode_equals_stb(path, data, n);
        float *rgb;
        int w, h;
        assert_int_equal(pw_image_read(path, &rgb, &w, &h), PW_OK);
        float *again;
        int w2, h2;
        assert_int_equal(pw_image_decode(path, data, n, &again, &w2, &h2), PW_OK);
        assert_memory_equal(rgb, again, (size_t)w * h * 3 * sizeof *rgb);
        free(rgb);
        free(again);
        free(data);
    }
    if (!found)
        PW_SKIP("no shared HDRIs under %s/scenes/hdri", pw_test_shared_dir());
}

/* Every proper prefix of a file fails with a message naming it, and
 * past the header one that says it is truncated: stb_image 2.27 never
 * returned from some of them. */
static void hdr_every_truncation_fails(void **state)
{
    (void)state;
    for (int rle = 0; rle <= 1; rle++) {
        int w = rle ? 23 : 6, h = 3;
        unsigned char *px = random_rgbe(w, h, 5);
        size_t n;
        unsigned char *file = make_hdr(px, w, h, rle, &n);
        const char *pixels = strstr((const char *)file, "+X");
        size_t data_start = (size_t)(strchr(pixels, '\n') - (const char *)file) + 1;
        for (size_t len = 0; len < n; len++) {
            float *rgb = (float *)1;
            int dw, dh;
            assert_int_equal(pw_image_decode("cut.hdr", file, len, &rgb, &dw, &dh), PW_ERR_FORMAT);
            assert_null(rgb);
            assert_error_names("cut.hdr", len > data_start ? "truncated" : NULL);
        }
        free(file);
        free(px);
    }
}

/* A file of the standard header, "-Y h +X w", then the given pixel bytes. */
static pw_status decode_hdr_body(int w, int h, const unsigned char *body, size_t n, float **rgb)
{
    unsigned char buf[512];
    int hn = snprintf((char *)buf, sizeof buf, "#?RGBE\nFORMAT=32-bit_rle_rgbe\n\n-Y %d +X %d\n", h, w);
    assert_true(hn > 0 && (size_t)hn + n <= sizeof buf);
    memcpy(buf + hn, body, n);
    int dw, dh;
    return pw_image_decode("body.hdr", buf, (size_t)hn + n, rgb, &dw, &dh);
}

/* Runs that would leave their scanline or never advance are damage. */
static void hdr_damaged_scanlines(void **state)
{
    (void)state;
    float *rgb;
    /* A dump of zero bytes: the loop of CVE-2021-42715, which never ends
     * in stb_image 2.27. */
    static const unsigned char zero_dump[] = {2, 2, 0, 8, 0, 0, 0, 0};
    assert_int_equal(decode_hdr_body(8, 1, zero_dump, sizeof zero_dump, &rgb), PW_ERR_FORMAT);
    assert_error_names("body.hdr", "damaged (a dump of zero bytes)");
    static const unsigned char long_run[] = {2, 2, 0, 8, 128 + 9, 7};
    assert_int_equal(decode_hdr_body(8, 1, long_run, sizeof long_run, &rgb), PW_ERR_FORMAT);
    assert_error_names("body.hdr", "longer than its scanline");
    static const unsigned char long_dump[] = {2, 2, 0, 8, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    assert_int_equal(decode_hdr_body(8, 1, long_dump, sizeof long_dump, &rgb), PW_ERR_FORMAT);
    assert_error_names("body.hdr", "longer than its scanline");
    static const unsigned char wrong_length[] = {2, 2, 0, 9, 128 + 8, 1, 128 + 8, 1, 128 + 8, 1, 128 + 8, 1};
    assert_int_equal(decode_hdr_body(8, 1, wrong_length, sizeof wrong_length, &rgb), PW_ERR_FORMAT);
    assert_error_names("body.hdr", "length");
    static const unsigned char run_first[] = {1, 1, 1, 2, 200, 100, 50, 130, 200, 100, 50, 130};
    assert_int_equal(decode_hdr_body(3, 1, run_first, sizeof run_first, &rgb), PW_ERR_FORMAT);
    assert_error_names("body.hdr", "no pixel before it");
    static const unsigned char old_long_run[] = {200, 100, 50, 130, 1, 1, 1, 3};
    assert_int_equal(decode_hdr_body(3, 1, old_long_run, sizeof old_long_run, &rgb), PW_ERR_FORMAT);
    assert_error_names("body.hdr", "longer than its scanline");
}

/* Old-style runs: (1, 1, 1, n) repeats the pixel before it n times, n
 * shifted up 8 bits for each run that follows a run. */
static void hdr_old_style_runs(void **state)
{
    (void)state;
    unsigned char a[4] = {200, 100, 50, 130}, b[4] = {128, 64, 32, 140};
    /* 300 pixels: a, 43 + (1 << 8) more of a, then b: scanlines of 300
     * could be new-style, but these do not start with (2, 2). */
    unsigned char body[16];
    memcpy(body, a, 4);
    memcpy(body + 4, (unsigned char[4]){1, 1, 1, 43}, 4);
    memcpy(body + 8, (unsigned char[4]){1, 1, 1, 1}, 4);
    memcpy(body + 12, b, 4);
    float *rgb;
    assert_int_equal(decode_hdr_body(301, 1, body, sizeof body, &rgb), PW_OK);
    unsigned char *want = malloc(301 * 4);
    for (int i = 0; i < 300; i++)
        memcpy(want + 4 * i, a, 4);
    memcpy(want + 4 * 300, b, 4);
    assert_rgbe_values(want, rgb, 301);
    free(want);
    free(rgb);
}

static void assert_header_refused(const char *header, const char *reason)
{
    unsigned char buf[256];
    size_t n = strlen(header);
    memcpy(buf, header, n);
    memset(buf + n, 0, sizeof buf - n);
    float *rgb;
    int w, h;
    assert_int_equal(pw_image_decode("head.hdr", buf, sizeof buf, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("head.hdr", reason);
}

static void hdr_header_refusals(void **state)
{
    (void)state;
    assert_header_refused("#?NOTRADIANCE\n\n-Y 1 +X 1\n", "#?RADIANCE");
    assert_header_refused("#?RADIANCE\nFORMAT=32-bit_rle_xyze\n\n-Y 1 +X 1\n", "32-bit_rle_xyze");
    assert_header_refused("#?RADIANCE\n\n+Y 2 +X 2\n", "orientation '+Y 2 +X 2'");
    assert_header_refused("#?RADIANCE\n\n-Y 2 -X 2\n", "orientation");
    assert_header_refused("#?RADIANCE\n\n+X 2 -Y 2\n", "orientation");
    assert_header_refused("#?RADIANCE\n\n-Y 2 +Y 2\n", "malformed");
    assert_header_refused("#?RADIANCE\n\n-Y two +X 2\n", "malformed");
    assert_header_refused("#?RADIANCE\n\n-Y 0 +X 2\n", "out of range");
    assert_header_refused("#?RADIANCE\n\n-Y 2 +X 40000\n", "out of range");
    assert_header_refused("#?RADIANCE\n\n-Y 32768 +X 32768\n", "out of range"); /* 2^30 pixels */
    assert_header_refused("#?RADIANCE\n\n-Y 99999999999 +X 2\n", "malformed");
    assert_header_refused("#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n-Y 2 +X 2", "truncated");
}

/* ---- PFM ---- */

static void put_float(unsigned char *p, float f, int little)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++)
        p[little ? i : 3 - i] = (unsigned char)(u >> (8 * i));
}

/* 2 x 2 images in both byte orders and in grey; rows stored bottom up. */
static void pfm_variants(void **state)
{
    (void)state;
    const float top_down[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12.5f};
    for (int form = 0; form < 3; form++) {
        int grey = form == 2, little = form != 1, ch = grey ? 1 : 3;
        unsigned char buf[128];
        int hn = sprintf((char *)buf, "%s\n2 2\n%s\n", grey ? "Pf" : "PF", little ? "-1.0" : "1.0");
        for (int y = 0; y < 2; y++)
            for (int i = 0; i < 2 * ch; i++)
                put_float(buf + hn + 4 * (y * 2 * ch + i), top_down[(1 - y) * 6 + (grey ? 3 * i : i)], little);
        float *rgb;
        int w, h;
        assert_int_equal(pw_image_decode("v.pfm", buf, (size_t)hn + 16 * ch, &rgb, &w, &h), PW_OK);
        assert_int_equal(w, 2);
        assert_int_equal(h, 2);
        for (int i = 0; i < 12; i++)
            assert_true(rgb[i] == top_down[grey ? i / 3 * 3 : i]);
        free(rgb);
        /* One byte short of what the header claims. */
        assert_int_equal(pw_image_decode("v.pfm", buf, (size_t)hn + 16 * ch - 1, &rgb, &w, &h), PW_ERR_FORMAT);
        assert_error_names("v.pfm", "truncated");
    }
    static const char *const bad[] = {"PF\n2 2\n", "PF\n-2 2\n-1\n", "PF\n2 2\n0\n", "PF\n2 2\nnan\n",
                                      "PF\n40000 1\n-1\n", "PF 2 2 -1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        float *rgb;
        int w, h;
        assert_int_equal(pw_image_decode("bad.pfm", (const unsigned char *)bad[i], strlen(bad[i]), &rgb, &w, &h),
                         PW_ERR_FORMAT);
        assert_error_names("bad.pfm", "PFM");
    }
}

/* ---- EXR and files ---- */

/* Noise in [0, 2): no format compresses it much. */
static float *test_image(int w, int h)
{
    float *rgb = malloc((size_t)w * h * 3 * sizeof *rgb);
    assert_non_null(rgb);
    test_rng g = {(uint64_t)w * 7919 + (uint64_t)h};
    for (int i = 0; i < w * h * 3; i++)
        rgb[i] = trng_range(&g, 0.0f, 2.0f);
    return rgb;
}

/* Linear formats come back as written, bit for bit; every prefix of the
 * EXR is refused (and, under the sanitizers, nothing leaks). */
static void float_formats_round_trip(void **state)
{
    (void)state;
    static const char *const names[] = {"small.exr", "zip.exr", "small.pfm"};
    static const int sizes[][2] = {{5, 3}, {21, 17}, {5, 3}};
    for (int k = 0; k < 3; k++) {
        int w = sizes[k][0], h = sizes[k][1];
        float *rgb = test_image(w, h);
        const char *path = in_dir(names[k]);
        assert_int_equal(pw_image_write(path, rgb, w, h, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
        float *back;
        int bw, bh;
        assert_int_equal(pw_image_read(path, &back, &bw, &bh), PW_OK);
        assert_int_equal(bw, w);
        assert_int_equal(bh, h);
        assert_memory_equal(back, rgb, (size_t)w * h * 3 * sizeof *rgb);
        free(back);
        size_t n;
        unsigned char *file = read_bytes(path, &n);
        for (size_t len = 0; len < n && strstr(names[k], ".exr"); len++) {
            assert_int_not_equal(pw_image_decode("cut.exr", file, len, &back, &bw, &bh), PW_OK);
            assert_null(back);
            assert_error_names("cut.exr", NULL);
        }
        free(file);
        free(rgb);
    }
}

/* The system's reason for a file that is not there, whatever the format
 * (tinyexr said "Failed to open EXR file or read version info"), and a
 * device refused rather than read until memory runs out. */
static void missing_and_device_files(void **state)
{
    (void)state;
    static const char *const names[] = {"missing.exr", "missing.hdr", "missing.pfm", "missing.png"};
    for (int i = 0; i < 4; i++) {
        float *rgb;
        int w, h;
        const char *path = in_dir(names[i]);
        assert_int_equal(pw_image_read(path, &rgb, &w, &h), PW_ERR_NOT_FOUND);
        assert_error_names(path, "No such file or directory");
    }
    float *rgb;
    int w, h;
    assert_int_not_equal(pw_image_read("/dev/zero", &rgb, &w, &h), PW_OK);
    assert_error_names("/dev/zero", "not a regular file");
}

/* A gzip-compressed image reads as the image; the format comes from the
 * bytes, not the name. */
static void gzip_and_magic(void **state)
{
    (void)state;
    unsigned char *px = random_rgbe(40, 3, 9);
    size_t n;
    unsigned char *file = make_hdr(px, 40, 3, 1, &n);
    const char *gz = in_dir("map.hdr.gz");
    gzFile g = gzopen(gz, "wb");
    assert_non_null(g);
    assert_int_equal(gzwrite(g, file, (unsigned)n), (int)n);
    assert_int_equal(gzclose(g), Z_OK);
    const char *misnamed = in_dir("map.png");
    write_bytes(misnamed, file, n);
    float *a, *b;
    int w, h;
    assert_int_equal(pw_image_read(gz, &a, &w, &h), PW_OK);
    assert_rgbe_values(px, a, 40 * 3);
    assert_int_equal(pw_image_read(misnamed, &b, &w, &h), PW_OK);
    assert_memory_equal(a, b, 40 * 3 * 3 * sizeof *a);
    free(a);
    free(b);
    free(file);
    free(px);
}

/* stb_image's formats: the size limit holds on the header, before stb
 * allocates pixels; a JPEG table that would overflow stb_image is refused
 * before it sees it, a whole JPEG decodes as stb_image decodes it, a PNG
 * written here to its sRGB codes. */
static void stb_formats(void **state)
{
    (void)state;
    unsigned char bmp[54] = {'B', 'M', 0, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0,
                             0x40, 0x9c, 0, 0 /* 40000 */, 1, 0, 0, 0, 1, 0, 24, 0};
    float *rgb;
    int w, h;
    assert_int_equal(pw_image_decode("wide.bmp", bmp, sizeof bmp, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("wide.bmp", "out of range");
    static const unsigned char junk[] = "not an image at all";
    assert_int_equal(pw_image_decode("junk.bin", junk, sizeof junk, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("junk.bin", NULL);
    /* A Huffman table of 16 x 255 codes, which stb_image 2.27 writes past
     * its arrays of 256. */
    unsigned char dht[4 + 2 + 17] = {0xff, 0xd8, 0xff, 0xc4, 0, 19, 0x00};
    memset(dht + 7, 255, 16);
    assert_int_equal(pw_image_decode("dht.jpg", dht, sizeof dht, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("dht.jpg", "Huffman table of more than 256 codes");
    /* A whole JPEG decodes as stb_image decodes it. */
    unsigned char codes[12 * 10 * 3];
    for (size_t i = 0; i < sizeof codes; i++)
        codes[i] = (unsigned char)(i * 29);
    const char *jpg = in_dir("codes.jpg");
    assert_true(stbi_write_jpg(jpg, 12, 10, 3, codes, 90));
    size_t n;
    unsigned char *file = read_bytes(jpg, &n);
    int sw, sh, comp;
    unsigned char *theirs = stbi_load_from_memory(file, (int)n, &sw, &sh, &comp, 3);
    assert_non_null(theirs);
    assert_int_equal(pw_image_decode(jpg, file, n, &rgb, &w, &h), PW_OK);
    assert_int_equal(w, 12);
    assert_int_equal(h, 10);
    for (size_t i = 0; i < sizeof codes; i++)
        assert_true(rgb[i] == pw_srgb_to_linear((float)theirs[i] / 255.0f));
    stbi_image_free(theirs);
    free(rgb);
    /* The same file with its scan naming Huffman tables 3, which it never
     * defines: stb_image 2.27 would decode through uninitialised tables. */
    size_t sos = 2;
    while (sos + 5 < n && !(file[sos] == 0xff && file[sos + 1] == 0xda))
        sos++;
    assert_true(sos + 5 < n);
    file[sos + 6] = 0x33; /* the first component's DC and AC tables */
    assert_int_equal(pw_image_decode("scan.jpg", file, n, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("scan.jpg", "a scan uses a Huffman table never defined");
    free(file);
    float px[6] = {0.0f, 0.5f, 1.0f, 0.25f, 0.75f, 2.0f};
    const char *path = in_dir("two.png");
    assert_int_equal(pw_image_write(path, px, 2, 1, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    assert_int_equal(pw_image_read(path, &rgb, &w, &h), PW_OK);
    for (int i = 0; i < 6; i++) {
        unsigned char code = (unsigned char)(pw_linear_to_srgb(px[i] > 1.0f ? 1.0f : px[i]) * 255.0f + 0.5f);
        assert_true(rgb[i] == pw_srgb_to_linear((float)code / 255.0f));
    }
    free(rgb);
}

/* Each prefix of a file of stb_image's formats that stb_image writes,
 * short of more than what may follow the last pixel: refused, where
 * stb_image 2.27 filled what was missing of a BMP or TGA with zeros or
 * left it uninitialised, and decoded a cut JPEG grey; the whole files
 * decode as stb_image decodes them. A PNG chunk longer than the data and
 * a 44-byte TGA that claims 90 megapixels are refused, GIF outright. */
static void stb_truncations_refused(void **state)
{
    (void)state;
    unsigned char codes[9 * 6 * 3];
    for (size_t i = 0; i < sizeof codes; i++)
        codes[i] = (unsigned char)(i * 37);
    static const char *const names[] = {"t.png", "t.jpg", "t.bmp", "t.tga", "raw.tga"};
    for (int k = 0; k < 5; k++) {
        const char *path = in_dir(names[k]);
        stbi_write_tga_with_rle = k != 4;
        int ok = k == 0   ? stbi_write_png(path, 9, 6, 3, codes, 27)
                 : k == 1 ? stbi_write_jpg(path, 9, 6, 3, codes, 90)
                 : k == 2 ? stbi_write_bmp(path, 9, 6, 3, codes)
                          : stbi_write_tga(path, 9, 6, 3, codes);
        assert_true(ok);
        size_t n;
        unsigned char *file = read_bytes(path, &n);
        int sw, sh, comp;
        unsigned char *theirs = stbi_load_from_memory(file, (int)n, &sw, &sh, &comp, 3);
        assert_non_null(theirs);
        float *rgb;
        int w, h;
        assert_int_equal(pw_image_decode(names[k], file, n, &rgb, &w, &h), PW_OK);
        for (size_t i = 0; i < sizeof codes; i++)
            assert_true(rgb[i] == pw_srgb_to_linear((float)theirs[i] / 255.0f));
        free(rgb);
        stbi_image_free(theirs);
        /* What may be missing after the last pixel: the padding of a
         * BMP's last row (27 bytes padded to 28). */
        size_t tail = k == 2 ? 1 : 0;
        for (size_t len = 0; len < n - tail; len++) {
            assert_int_equal(pw_image_decode(names[k], file, len, &rgb, &w, &h), PW_ERR_FORMAT);
            assert_error_names(names[k], NULL);
        }
        free(file);
    }
    stbi_write_tga_with_rle = 1;
    /* A run-length TGA of 44 bytes whose header claims 5129 x 17872
     * pixels: stb_image made them all from runs past the end of the data. */
    unsigned char tga[44] = {0, 0, 10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x14, 0xd0, 0x45, 24, 0x08, 0xe6};
    float *rgb;
    int w, h;
    assert_int_equal(pw_image_decode("bomb.tga", tga, sizeof tga, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("bomb.tga", "truncated");
    /* An image data chunk that claims 2 GB: stb_image allocated them. */
    unsigned char png[8 + 25 + 12] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R',
                                      0, 0, 0, 9, 0, 0, 0, 6, 8, 2, 0, 0, 0, 0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff,
                                      'I', 'D', 'A', 'T', 0x78, 0x5e, 0, 0};
    assert_int_equal(pw_image_decode("long.png", png, sizeof png, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("long.png", "truncated");
    static const unsigned char gif[] = "GIF89a\x01\x00\x01\x00\x00\x00\x00;";
    assert_int_equal(pw_image_decode("a.gif", gif, sizeof gif, &rgb, &w, &h), PW_ERR_FORMAT);
    assert_error_names("a.gif", "GIF images are not read");
}

/* Embedded images (a .glb's) go through the same decoder: a truncated HDR
 * is an error naming the image, a whole one its pixels. */
static void embedded_textures(void **state)
{
    (void)state;
    unsigned char *px = random_rgbe(16, 2, 3);
    size_t n;
    unsigned char *file = make_hdr(px, 16, 2, 1, &n);
    pw_scene *s = pw_scene_alloc("embedded");
    uint32_t tex;
    assert_int_equal(pw_scene_decode_texture(s, file, n - 3, 0, "model.glb:*0", &tex), PW_ERR_FORMAT);
    assert_error_names("model.glb:*0", "truncated");
    assert_int_equal(pw_scene_decode_texture_linear(s, file, n, 0, "model.glb:*1", &tex), PW_OK);
    assert_rgbe_values(px, s->texels + 3 * (size_t)s->textures[tex].offset, 32);
    pw_scene_free(s);
    free(file);
    free(px);
}

/* Texture files: each is read once, whatever number of materials ask for
 * it. A float file read as data is found again on its next request; an
 * 8-bit one is kept as data (c / 255) apart from the same file read as
 * colour (sRGB-decoded). */
static void texture_files_read_once(void **state)
{
    (void)state;
    float px[6] = {0.25f, 0.5f, 2.0f, 4.0f, 0.0f, 1.0f};
    const char *pfm = in_dir("rough.pfm");
    assert_int_equal(pw_image_write(pfm, px, 2, 1, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    pw_scene *s = pw_scene_alloc("textures");
    uint32_t a, b;
    assert_int_equal(pw_scene_load_texture_linear(s, pfm, 0, &a), PW_OK);
    assert_int_equal(unlink(pfm), 0); /* a second read would now fail */
    assert_int_equal(pw_scene_load_texture_linear(s, pfm, 0, &b), PW_OK);
    assert_int_equal(a, b);
    assert_int_equal(s->n_textures, 1);
    assert_true(s->texels[3 * (size_t)s->textures[a].offset + 2] == 2.0f);
    const float grey[3] = {0.5f, 0.5f, 0.5f};
    const char *png = in_dir("grey.png");
    assert_int_equal(pw_image_write(png, grey, 1, 1, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    assert_int_equal(pw_scene_load_texture_linear(s, png, 0, &a), PW_OK);
    assert_int_equal(pw_scene_load_texture(s, png, 0, &b), PW_OK);
    assert_int_not_equal(a, b);
    unsigned char code = (unsigned char)(pw_linear_to_srgb(0.5f) * 255.0f + 0.5f);
    assert_true(s->texels[3 * (size_t)s->textures[a].offset] == (float)code / 255.0f);
    assert_true(s->texels[3 * (size_t)s->textures[b].offset] == pw_srgb_to_linear((float)code / 255.0f));
    pw_scene_free(s);
}

/* ---- writing ---- */

/* A link to /dev/full: every format fails with the system's reason, and
 * the link stays a link to the device. */
static void write_to_full_device_fails(void **state)
{
    (void)state;
    struct stat st;
    if (stat("/dev/full", &st) != 0 || !S_ISCHR(st.st_mode))
        PW_SKIP("no /dev/full");
    static const char *const names[] = {"full.png", "full.exr", "full.pfm"};
    float *rgb = test_image(64, 64);
    for (int i = 0; i < 3; i++) {
        const char *link = in_dir(names[i]);
        assert_int_equal(symlink("/dev/full", link), 0);
        assert_int_equal(pw_image_write(link, rgb, 64, 64, 1.0f, PW_TONEMAP_CLAMP), PW_ERR_IO);
        assert_error_names(link, "No space left on device");
        char target[64];
        ssize_t n = readlink(link, target, sizeof target - 1);
        assert_true(n > 0);
        target[n] = '\0';
        assert_string_equal(target, "/dev/full");
    }
    free(rgb);
    char listing[256];
    folder_listing(listing, sizeof listing);
    assert_string_equal(listing, "full.exr full.pfm full.png");
}

/* A write that fails part way (here: over the file-size limit, which
 * holds for root too) leaves the image it would have replaced as it was,
 * and no temporary file. */
static void failed_write_keeps_old_image(void **state)
{
    (void)state;
    static const char *const names[] = {"keep.png", "keep.exr", "keep.pfm"};
    float *small = test_image(2, 2), *big = test_image(200, 200);
    for (int i = 0; i < 3; i++) {
        const char *path = in_dir(names[i]);
        assert_int_equal(pw_image_write(path, small, 2, 2, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
        size_t n_before, n_after;
        unsigned char *before = read_bytes(path, &n_before);
        struct rlimit old, lim;
        assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
        lim = old;
        lim.rlim_cur = 4096;
        void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
        pw_status st = pw_image_write(path, big, 200, 200, 1.0f, PW_TONEMAP_CLAMP);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        signal(SIGXFSZ, prev);
        assert_int_equal(st, PW_ERR_IO);
        assert_error_names(path, "too large");
        unsigned char *after = read_bytes(path, &n_after);
        assert_int_equal(n_after, n_before);
        assert_memory_equal(after, before, n_before);
        free(before);
        free(after);
        char listing[256];
        folder_listing(listing, sizeof listing);
        assert_string_equal(listing, names[i]);
        empty_folder();
    }
    free(small);
    free(big);
}

/* Through a link to a regular file: the target is replaced, the link
 * stays; an existing file keeps its permissions. */
static void write_through_link_keeps_link_and_mode(void **state)
{
    (void)state;
    const char *target = in_dir("target.pfm"), *link = in_dir("link.pfm");
    float *a = test_image(3, 2), *b = test_image(4, 5);
    assert_int_equal(pw_image_write(target, a, 3, 2, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    assert_int_equal(chmod(target, 0640), 0);
    assert_int_equal(symlink("target.pfm", link), 0); /* relative: beside the link */
    assert_int_equal(pw_image_write(link, b, 4, 5, 1.0f, PW_TONEMAP_CLAMP), PW_OK);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(stat(target, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    float *back;
    int w, h;
    assert_int_equal(pw_image_read(target, &back, &w, &h), PW_OK);
    assert_int_equal(w, 4);
    assert_int_equal(h, 5);
    assert_memory_equal(back, b, 4 * 5 * 3 * sizeof *b);
    char listing[256];
    folder_listing(listing, sizeof listing);
    assert_string_equal(listing, "link.pfm target.pfm");
    free(back);
    free(a);
    free(b);
}

/* The early check: a missing folder is named; a good one is left as it was. */
static void check_writable_leaves_nothing(void **state)
{
    (void)state;
    const char *bad = in_dir("no/such/x.png");
    assert_int_equal(pw_check_writable(bad), PW_ERR_IO);
    assert_error_names(bad, "No such file or directory");
    assert_int_equal(pw_check_writable(in_dir("x.png")), PW_OK);
    assert_int_equal(pw_check_writable(dir), PW_ERR_IO);
    assert_error_names(dir, "Is a directory");
    char listing[256];
    folder_listing(listing, sizeof listing);
    assert_string_equal(listing, "");
}

static int clean_folder(void **state)
{
    (void)state;
    empty_folder();
    return 0;
}

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/pw_image_io.XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    empty_folder();
    return rmdir(dir);
}

/* Where bytes want of length wn start in hay, or NULL. */
static const unsigned char *find_bytes(const unsigned char *hay, size_t n, const void *want, size_t wn)
{
    for (size_t i = 0; i + wn <= n; i++)
        if (memcmp(hay + i, want, wn) == 0)
            return hay + i;
    return NULL;
}

/* pw_image_write_attributes: each attribute in the EXR header as OpenEXR
 * lays a string attribute out (name NUL, "string" NUL, a 32-bit
 * little-endian length, the bytes), the pixels read back unchanged, and
 * bad attributes refused with a message naming the file. */
static void exr_records_string_attributes(void **state)
{
    (void)state;
    const float rgb[3 * 6] = {0.5f, 1, 2, 3, 4, 5, 0.25f, 0, 1, 7, 8, 9, 1e-3f, 2e3f, 3, 1, 1, 1};
    const pw_image_attribute attrs[2] = {{"pathwave.seed", "9"}, {"pathwave.command", "pathwave render toy"}};
    const char *path = in_dir("meta.exr");
    assert_int_equal(pw_image_write_attributes(path, rgb, 3, 2, 1.0f, PW_TONEMAP_CLAMP, attrs, 2), PW_OK);
    size_t n;
    unsigned char *bytes = read_bytes(path, &n);
    assert_non_null(bytes);
    for (int k = 0; k < 2; k++) {
        unsigned char rec[512];
        size_t nl = strlen(attrs[k].name) + 1, vl = strlen(attrs[k].value);
        memcpy(rec, attrs[k].name, nl);
        memcpy(rec + nl, "string", 7);
        rec[nl + 7] = (unsigned char)vl, rec[nl + 8] = rec[nl + 9] = rec[nl + 10] = 0;
        memcpy(rec + nl + 11, attrs[k].value, vl);
        if (!find_bytes(bytes, n, rec, nl + 11 + vl))
            fail_msg("%s: no string attribute %s = '%s' in the header", path, attrs[k].name, attrs[k].value);
    }
    free(bytes);
    float *back;
    int w, h;
    assert_int_equal(pw_image_read(path, &back, &w, &h), PW_OK);
    assert_true(w == 3 && h == 2 && memcmp(back, rgb, sizeof rgb) == 0);
    pw_free(back);
    const pw_image_attribute bad[] = {{"", "x"}, {"pathwave.x", NULL}};
    for (int k = 0; k < 2; k++) {
        assert_int_equal(pw_image_write_attributes(path, rgb, 3, 2, 1.0f, PW_TONEMAP_CLAMP, &bad[k], 1),
                         PW_ERR_INVALID_ARGUMENT);
        assert_non_null(strstr(pw_last_error(), "meta.exr"));
    }
}

/* White balance (film/white_balance.h): the daylight locus passes through
 * D65 at 6504 K; balancing from 6504 K changes nearly nothing; and from
 * any other temperature the illuminant's own white becomes grey (the RGB
 * of D65, 1 1 1 at Y = 1), which is what a von Kries adaptation does. */
static void white_balance_maps_illuminant_white_to_grey(void **state)
{
    (void)state;
    double x, y;
    assert_true(pw_daylight_xy(6504.0, &x, &y));
    if (fabs(x - 0.3127) > 5e-4 || fabs(y - 0.3290) > 5e-4)
        fail_msg("daylight at 6504 K: (%.5f, %.5f), D65 is (0.3127, 0.3290)", x, y);
    float m[9];
    assert_true(pw_white_balance_srgb(6504.0, m));
    for (int i = 0; i < 9; i++)
        if (fabs(m[i] - (i % 4 == 0 ? 1.0 : 0.0)) > 5e-3)
            fail_msg("balance from 6504 K: entry %d is %g, not the identity's", i, m[i]);
    static const double rgb_from_xyz[9] = {3.2404542, -1.5371385, -0.4985314, -0.9692660, 1.8760108,
                                           0.0415560, 0.0556434,  -0.2040259, 1.0572252};
    const double temps[] = {4000.0, 5000.0, 6000.0, 7500.0, 10000.0, 25000.0};
    for (size_t k = 0; k < sizeof temps / sizeof temps[0]; k++) {
        assert_true(pw_daylight_xy(temps[k], &x, &y));
        assert_true(pw_white_balance_srgb(temps[k], m));
        double xyz[3] = {x / y, 1.0, (1.0 - x - y) / y}, rgb[3];
        for (int i = 0; i < 3; i++)
            rgb[i] = rgb_from_xyz[3 * i] * xyz[0] + rgb_from_xyz[3 * i + 1] * xyz[1] + rgb_from_xyz[3 * i + 2] * xyz[2];
        for (int i = 0; i < 3; i++) {
            double out = m[3 * i] * rgb[0] + m[3 * i + 1] * rgb[1] + m[3 * i + 2] * rgb[2];
            if (fabs(out - 1.0) > 1e-4)
                fail_msg("%g K: its white balances to channel %d = %.6f, not 1", temps[k], i, out);
        }
    }
    assert_false(pw_white_balance_srgb(3999.0, m));
    assert_false(pw_white_balance_srgb(25001.0, m));
    assert_false(pw_daylight_xy(NAN, &x, &y));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(hdr_matches_stb_and_rgbe, clean_folder),
        cmocka_unit_test_teardown(hdr_shared_files_match_stb, clean_folder),
        cmocka_unit_test_teardown(hdr_every_truncation_fails, clean_folder),
        cmocka_unit_test_teardown(hdr_damaged_scanlines, clean_folder),
        cmocka_unit_test_teardown(hdr_old_style_runs, clean_folder),
        cmocka_unit_test_teardown(hdr_header_refusals, clean_folder),
        cmocka_unit_test_teardown(pfm_variants, clean_folder),
        cmocka_unit_test_teardown(float_formats_round_trip, clean_folder),
        cmocka_unit_test_teardown(missing_and_device_files, clean_folder),
        cmocka_unit_test_teardown(gzip_and_magic, clean_folder),
        cmocka_unit_test_teardown(stb_formats, clean_folder),
        cmocka_unit_test_teardown(stb_truncations_refused, clean_folder),
        cmocka_unit_test_teardown(embedded_textures, clean_folder),
        cmocka_unit_test_teardown(texture_files_read_once, clean_folder),
        cmocka_unit_test_teardown(write_to_full_device_fails, clean_folder),
        cmocka_unit_test_teardown(failed_write_keeps_old_image, clean_folder),
        cmocka_unit_test_teardown(write_through_link_keeps_link_and_mode, clean_folder),
        cmocka_unit_test_teardown(check_writable_leaves_nothing, clean_folder),
        cmocka_unit_test(white_balance_maps_illuminant_white_to_grey),
        cmocka_unit_test_teardown(exr_records_string_attributes, clean_folder),
    };
    return pw_test_exit(cmocka_run_group_tests(tests, make_dir, remove_dir));
}
