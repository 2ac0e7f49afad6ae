#!/bin/sh
# Makes the seed corpus of the image fuzzer, tests/corpus/image/: tiny valid
# images of every format pw_image_decode reads (PNG, JPEG, BMP, TGA and a
# Radiance HDR written by stb_image_write, EXR and PFM by pathwave, HDR and
# PNM by hand) and damaged ones made from them: truncations, zeroed blocks,
# sizes far beyond the data, NaNs, the zero-length run that hung stb_image.
#   usage: scripts/make-image-corpus.sh [PATH/TO/pathwave]   (from the repository root)
set -eu
PW=${1:-build/pathwave}
out=tests/corpus/image
mkdir -p "$out"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pw-corpus.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# stb_image_write's formats, from a 9 x 6 gradient.
cat >"$tmp/w.c" <<'C'
#include <stdio.h>
#include <stb_image_write.h>
int main(int argc, char **argv)
{
    unsigned char px[9 * 6 * 3];
    float f[9 * 6 * 3];
    for (int i = 0; i < 9 * 6 * 3; i++)
        px[i] = (unsigned char)(i * 37), f[i] = (float)i * 0.25f;
    char p[4096];
    int ok = 1;
    snprintf(p, sizeof p, "%s/stb.png", argv[1]), ok &= stbi_write_png(p, 9, 6, 3, px, 27);
    snprintf(p, sizeof p, "%s/stb.jpg", argv[1]), ok &= stbi_write_jpg(p, 9, 6, 3, px, 90);
    snprintf(p, sizeof p, "%s/stb.bmp", argv[1]), ok &= stbi_write_bmp(p, 9, 6, 3, px);
    snprintf(p, sizeof p, "%s/stb.tga", argv[1]), ok &= stbi_write_tga(p, 9, 6, 3, px);
    snprintf(p, sizeof p, "%s/stb.hdr", argv[1]), ok &= stbi_write_hdr(p, 9, 6, 3, f);
    return ok ? 0 : 1;
}
C
cc -I/usr/include/stb "$tmp/w.c" -lstb -o "$tmp/w"
"$tmp/w" "$out"

# pathwave's own EXR (uncompressed below 16 pixels a side, ZIP above) and PFM.
"$PW" render toy-small --width 6 --height 4 --spp 1 -q -o "$out/small.exr"
"$PW" render toy-small --width 20 --height 16 --spp 1 -q -o "$out/zip.exr"
"$PW" render toy-small --width 6 --height 4 --spp 1 -q -o "$out/small.pfm"

# By hand: a flat HDR with an old-style run, a grey big-endian PFM, a PPM
# (a format pathwave refuses, so the refusal is exercised).
{
    printf '#?RGBE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 4\n'
    printf '\310\144\062\202\001\001\001\003\200\100\040\212\001\001\001\002\200\100\040\212\001\001\001\001'
} >"$out/flat_old_runs.hdr"
{
    printf 'Pf\n2 1\n1.0\n'
    printf '\077\200\000\000\100\000\000\000'
} >"$out/grey_big_endian.pfm"
printf 'P6\n2 2\n255\n\377\000\000\000\377\000\000\000\377\377\377\377' >"$out/tiny.ppm"
gzip -9nc "$out/stb.hdr" >"$out/stb.hdr.gz"

# Damaged copies. prefix NAME BYTES NEW: the first BYTES bytes of NAME.
prefix() { head -c "$2" "$out/$1" >"$out/$3"; }
# zero NAME OFFSET COUNT NEW: NAME with COUNT bytes from OFFSET set to zero.
zero() {
    cp "$out/$1" "$out/$4"
    dd if=/dev/zero of="$out/$4" bs=1 seek="$2" count="$3" conv=notrunc 2>/dev/null
}
size() { wc -c <"$out/$1"; }
for f in stb.png stb.jpg stb.bmp stb.tga stb.hdr small.exr zip.exr small.pfm; do
    base=${f%.*} ext=${f##*.}
    prefix "$f" $(($(size "$f") / 2)) "${base}_half.$ext"
    zero "$f" $(($(size "$f") / 3)) 16 "${base}_zeroed.$ext"
done
prefix stb.hdr $(($(size stb.hdr) - 1)) stb_short1.hdr
# The run of zero length that stb_image 2.27 looped on (CVE-2021-42715).
{
    printf '#?RADIANCE\n\n-Y 1 +X 8\n'
    printf '\002\002\000\010\000'
} >"$out/zero_run.hdr"
# Sizes far beyond the data.
printf '#?RADIANCE\n\n-Y 8192 +X 32767\n\002\002\177\377\377\001' >"$out/huge.hdr"
printf 'PF\n30000 30000\n-1\n\000\000\200\177' >"$out/huge.pfm"
cp "$out/stb.png" "$out/huge.png"
printf '\000\000\177\377\000\000\177\377' | dd of="$out/huge.png" bs=1 seek=16 conv=notrunc 2>/dev/null
cp "$out/small.exr" "$out/huge_window.exr"
at=$(grep -abo dataWindow "$out/small.exr" | head -1 | cut -d: -f1)
printf '\377\377\000\000\377\377\000\000' |
    dd of="$out/huge_window.exr" bs=1 seek=$((at + 11 + 6 + 4 + 8)) conv=notrunc 2>/dev/null
# NaNs and infinities in a PFM that is otherwise whole.
{
    printf 'PF\n2 1\n-1.0\n'
    printf '\000\000\300\177\000\000\200\177\000\000\200\377\000\000\200\077\000\000\000\000\000\000\000\200'
} >"$out/nan.pfm"
