#!/bin/sh
# The pathwave program on bad and good input.
#   usage: sh test_cli.sh PATH/TO/pathwave
# Every bad input must exit non-zero with exactly one line on stderr that
# names the problem (the offending value or file); the good cases must
# exit 0 and produce what they promise; Ctrl-C must stop a render with exit
# status 130 and still write the image.
set -u
PW=${1:?usage: sh test_cli.sh PATH/TO/pathwave}
case $PW in /*) ;; *) PW=$(pwd)/$PW ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pathwave-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
failures=0
checks=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_error NAME NEEDLE ARGS...: non-zero exit (not a crash), one line on
# stderr containing NEEDLE.
expect_error() {
    name=$1
    needle=$2
    shift 2
    checks=$((checks + 1))
    "$PW" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(grep -c . "$tmp/err")
    if [ "$rc" -eq 0 ]; then
        fail "$name: exit status 0 for: pathwave $*"
    elif [ "$rc" -gt 128 ]; then
        fail "$name: killed by signal $((rc - 128)) for: pathwave $*"
    elif [ "$lines" -ne 1 ]; then
        fail "$name: $lines lines on stderr, expected one, for: pathwave $*"
        sed 's/^/    stderr: /' "$tmp/err"
    elif ! grep -qF -- "$needle" "$tmp/err"; then
        fail "$name: the message does not name '$needle': $(cat "$tmp/err")"
    else
        echo "ok: $name (exit $rc): $(cat "$tmp/err")"
    fi
}

# ---- bad input ----
expect_error "unknown scene" "nosuchscene" render nosuchscene -o x.png
expect_error "non-numeric --spp" "abc" render toy-small --spp abc -o x.png
expect_error "negative --spp" "-5" render toy-small --spp -5 -o x.png
expect_error "absurd --spp" "99999999999" render toy-small --spp 99999999999 -o x.png
expect_error "zero --spp" "--spp" render toy-small --spp 0 -o x.png
expect_error "--spp without a value" "--spp" render toy-small --spp
expect_error "--width 0" "--width" render toy-small --width 0 -o x.png
expect_error "--height 1e9" "1e9" render toy-small --height 1e9 -o x.png
expect_error "unknown option" "--frobnicate" render toy-small --frobnicate -o x.png
expect_error "unknown bench option" "--frobnicate" bench toy-small --frobnicate
expect_error "unknown --backend" "vulkan" render toy-small --backend vulkan -o x.png
expect_error "unknown --light-mode" "sideways" render toy-small --light-mode sideways -o x.png
expect_error "unknown command" "frob" frob
expect_error "output in a missing directory" "$tmp/no/such/dir/x.png" render toy-small --spp 1 -o "$tmp/no/such/dir/x.png"
expect_error "output with an unknown extension" "x.bmp" render toy-small --spp 1 -o x.bmp
expect_error "--exr with an unknown extension" "y.png" render toy-small --spp 1 -o x.png --exr y.png
expect_error "missing mesh file" "$tmp/missing.obj" render "$tmp/missing.obj" -o x.png
printf 'this is not\nan obj file at all\nf 1 2 3\n' >"$tmp/garbage.obj"
expect_error "malformed OBJ" "$tmp/garbage.obj" render "$tmp/garbage.obj" -o x.png
printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nend_header\n1 2\n' >"$tmp/garbage.ply"
expect_error "malformed PLY" "$tmp/garbage.ply" render "$tmp/garbage.ply" -o x.png
printf 'v 0 0 0\nv 1 0 0\nv 0 1 0\n' >"$tmp/points.obj"
expect_error "mesh without triangles" "$tmp/points.obj" render "$tmp/points.obj" -o x.png
: >"$tmp/empty.ply"
expect_error "empty mesh file" "$tmp/empty.ply" render "$tmp/empty.ply" -o x.png
printf 'WorldBegin\nShape "sphere" "float radius" [ 1\n' >"$tmp/bad.pbrt"
expect_error "malformed pbrt file" "$tmp/bad.pbrt:3:1: \"float radius\": expected ']'" render "$tmp/bad.pbrt" -o x.png
for f in x.png x.bmp y.png; do
    [ -e "$tmp/$f" ] && fail "a failed command left $f behind"
done

# ---- good input ----
# hex_bytes FILE OFFSET COUNT: the bytes as lowercase hex without spaces.
hex_bytes() {
    od -An -tx1 -j "$2" -N "$3" "$1" | tr -d ' \n'
}

checks=$((checks + 1))
if "$PW" render toy-small --width 32 --height 18 --spp 1 -o "$tmp/x.png" --exr "$tmp/x.exr" >"$tmp/out" 2>"$tmp/err"; then
    if [ ! -s "$tmp/x.png" ]; then
        fail "render: no PNG written"
    elif [ "$(hex_bytes "$tmp/x.png" 0 8)" != "89504e470d0a1a0a" ]; then
        fail "render: x.png is not a PNG"
    elif [ "$(hex_bytes "$tmp/x.png" 12 12)" != "494844520000002000000012" ]; then
        fail "render: the PNG header is not a 32x18 IHDR: $(hex_bytes "$tmp/x.png" 12 12)"
    elif [ "$(hex_bytes "$tmp/x.exr" 0 4)" != "762f3101" ]; then
        fail "render: x.exr is not an OpenEXR file"
    else
        echo "ok: render toy-small wrote a 32x18 PNG and an EXR"
    fi
else
    fail "render toy-small --width 32 --height 18 --spp 1 exited with $?: $(cat "$tmp/err")"
fi

# A pbrt scene: the Film's size is the default, the command line overrides
# it, and the Film's filename is not written (only -o or pathwave.png is).
cat >"$tmp/small.pbrt" <<'PBRT'
LookAt 0 0 5  0 0 0  0 1 0
Camera "perspective" "float fov" 30
Film "rgb" "integer xresolution" 40 "integer yresolution" 30 "string filename" "film.png"
Sampler "sobol" "integer pixelsamples" 2
WorldBegin
LightSource "infinite" "rgb L" [ 0.5 0.5 0.5 ]
Material "diffuse" "rgb reflectance" [ 0.8 0.2 0.2 ]
Shape "sphere" "float radius" 1
PBRT
checks=$((checks + 1))
if "$PW" render "$tmp/small.pbrt" -o "$tmp/p.png" >"$tmp/out" 2>"$tmp/err" &&
    "$PW" render "$tmp/small.pbrt" --width 32 --height 18 -o "$tmp/q.png" >>"$tmp/out" 2>>"$tmp/err"; then
    if [ "$(hex_bytes "$tmp/p.png" 12 12)" != "49484452000000280000001e" ]; then
        fail "render pbrt: p.png is not the Film's 40x30: $(hex_bytes "$tmp/p.png" 12 12)"
    elif [ "$(hex_bytes "$tmp/q.png" 12 12)" != "494844520000002000000012" ]; then
        fail "render pbrt: --width/--height did not override the Film: $(hex_bytes "$tmp/q.png" 12 12)"
    elif [ -e "$tmp/film.png" ]; then
        fail "render pbrt: wrote the Film's filename"
    elif grep -q warning "$tmp/err"; then
        fail "render pbrt: unexpected warning: $(cat "$tmp/err")"
    else
        echo "ok: render small.pbrt at the Film's 40x30 and at --width 32 --height 18"
    fi
else
    fail "render small.pbrt exited with $?: $(cat "$tmp/err")"
fi

checks=$((checks + 1))
if "$PW" scenes >"$tmp/out" 2>"$tmp/err" && grep -q '^cornell[[:space:]]' "$tmp/out" &&
    grep -q '^toy-small[[:space:]]' "$tmp/out"; then
    echo "ok: scenes lists cornell and toy-small"
else
    fail "pathwave scenes does not list cornell and toy-small: $(cat "$tmp/out" "$tmp/err")"
fi

checks=$((checks + 1))
if "$PW" bench toy-small --width 32 --height 18 --frames 1 --json >"$tmp/out" 2>"$tmp/err"; then
    if ! grep -Eq '"mrays_per_s_median":[[:space:]]*[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?[[:space:]]*,?$' "$tmp/out"; then
        fail "bench --json: no numeric \"mrays_per_s_median\" in: $(cat "$tmp/out")"
    elif ! grep -q '"scene":[[:space:]]*"toy-small"' "$tmp/out"; then
        fail "bench --json: no \"scene\": \"toy-small\" in: $(cat "$tmp/out")"
    elif [ "$(head -c 1 "$tmp/out")" != "{" ] || [ "$(tail -c 2 "$tmp/out" | head -c 1)" != "}" ]; then
        fail "bench --json: stdout is not one JSON object: $(cat "$tmp/out")"
    else
        echo "ok: bench --json prints $(grep mrays_per_s_median "$tmp/out" | tr -d ' \t')"
    fi
else
    fail "bench toy-small --json exited with $?: $(cat "$tmp/err")"
fi

# ---- Ctrl-C ----
# A render far too long to finish; SIGINT once it is under way must stop it
# with status 130 and still write the image. The shell starts background
# commands with SIGINT ignored, so wait until the program has installed its
# handler (SigCgt in /proc, bit 1 for SIGINT) before the 1 s of rendering.
checks=$((checks + 1))
"$PW" render cornell --width 64 --height 64 --spp 1000000 -o "$tmp/int.png" >"$tmp/out" 2>"$tmp/err" &
pid=$!
n=0
while [ $n -lt 100 ] && [ -r "/proc/$pid/status" ]; do
    cgt=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$pid/status")
    [ -n "$cgt" ] && [ $((0x$cgt & 2)) -ne 0 ] && break
    sleep 0.1 2>/dev/null || sleep 1
    n=$((n + 1))
done
sleep 1
kill -INT "$pid"
# Give it 60 s to stop before killing it (a hang is a failure, not a stall).
n=0
while kill -0 "$pid" 2>/dev/null && [ $n -lt 600 ]; do
    sleep 0.1 2>/dev/null || sleep 1
    n=$((n + 1))
done
kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
wait "$pid"
rc=$?
if [ "$rc" -ne 130 ]; then
    fail "Ctrl-C: exit status $rc, expected 130: $(cat "$tmp/err")"
elif [ "$(hex_bytes "$tmp/int.png" 0 8 2>/dev/null)" != "89504e470d0a1a0a" ]; then
    fail "Ctrl-C: no PNG written"
elif ! grep -q "interrupted" "$tmp/err"; then
    fail "Ctrl-C: the summary does not say the render was interrupted: $(cat "$tmp/err")"
else
    echo "ok: Ctrl-C stopped the render with 130 and wrote the PNG: $(grep interrupted "$tmp/err")"
fi

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
