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
# stderr containing NEEDLE; when $want_rc is set, exactly that exit status.
want_rc=
expect_error() {
    name=$1
    needle=$2
    shift 2
    checks=$((checks + 1))
    "$PW" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    lines=$(grep -c . "$tmp/err")
    if [ -n "$want_rc" ] && [ "$rc" -ne "$want_rc" ]; then
        fail "$name: exit status $rc, expected $want_rc, for: pathwave $* ($(cat "$tmp/err"))"
    elif [ "$rc" -eq 0 ]; then
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

# Usage errors (exit status 2): camera overrides, generated scenes' sizes.
want_rc=2
expect_error "--look-at on the camera" "--look-at 0,2,3" render toy-small --look-at 0,2,3 -o x.png
expect_error "--look-from on the target" "same point" render toy-small --look-from 0,0,0 -o x.png
expect_error "view along --up" "parallel" render toy-small --look-at 0,10,3 -o x.png
expect_error "zero --up" "--up 0,0,0" render toy-small --up 0,0,0 -o x.png
expect_error "--fov 180" "--fov" render toy-small --fov 180 -o x.png
expect_error "--fov 0" "--fov" render toy-small --fov 0 -o x.png
expect_error "negative --aperture" "--aperture" render toy-small --aperture -0.5 -o x.png
expect_error "negative --focus-dist" "--focus-dist" render toy-small --focus-dist -1 -o x.png
expect_error "NaN in --look-from" "nan,0,0" render toy-small --look-from nan,0,0 -o x.png
expect_error "two numbers for --look-at" "--look-at" render toy-small --look-at 1,2 -o x.png
expect_error "--camera with words" "--camera" render toy-small --camera a,b,c -o x.png
expect_error "camera override on bench" "--fov" bench toy-small --fov -3
expect_error "absurd terrain size" "10000000000" render terrain:10000000000 -o x.png
expect_error "negative terrain size" "-5" render terrain:-5 -o x.png
expect_error "non-numeric terrain size" "abc" render terrain:abc -o x.png
expect_error "no mixed bunnies" "'0' is not a copy count" render bunnies-mixed:0 -o x.png
expect_error "terrain without a size" "terrain:N" render terrain -o x.png
expect_error "parameter for a fixed scene" "cornell:3" render cornell:3 -o x.png
expect_error "--stats-json in a missing directory" "$tmp/no/s.json" render toy-small --stats-json "$tmp/no/s.json" -o x.png
want_rc=
# A missing mesh behind a generated scene is a runtime error (1), not usage.
want_rc=1
expect_error "bunnies of a missing mesh" "$tmp/no-such.ply" render "bunnies:2:$tmp/no-such.ply" -o x.png
want_rc=
printf 'WorldBegin\nShape "sphere" "float radius" [ 1\n' >"$tmp/bad.pbrt"
expect_error "malformed pbrt file" "$tmp/bad.pbrt:3:1: \"float radius\": expected ']'" render "$tmp/bad.pbrt" -o x.png
# Files that are not regular files are refused, not read: a FIFO would
# otherwise keep the load waiting for a writer, /dev/zero fill memory.
mkfifo "$tmp/fifo.pbrt"
expect_error "pbrt scene that is a FIFO" "$tmp/fifo.pbrt: not a regular file" render "$tmp/fifo.pbrt" -o x.png
printf 'WorldBegin\nInclude "fifo.pbrt"\n' >"$tmp/inc-fifo.pbrt"
expect_error "pbrt Include of a FIFO" "inc-fifo.pbrt:2:9: $tmp/fifo.pbrt: not a regular file" render "$tmp/inc-fifo.pbrt" -o x.png
# Mesh files read through assimp are refused the same way, before assimp
# opens them (an fopen of a FIFO waits for a writer: a 20-second timeout
# turns that hang into a failure).
for ext in obj gltf; do
    mkfifo "$tmp/fifo.$ext"
    checks=$((checks + 1))
    msg=$(timeout 20 "$PW" render "$tmp/fifo.$ext" -o x.png 2>&1)
    rc=$?
    if [ "$rc" -eq 1 ] && [ "$msg" = "pathwave: $tmp/fifo.$ext: not a regular file" ]; then
        echo "ok: .$ext mesh that is a FIFO: $msg"
    else
        fail ".$ext mesh that is a FIFO: exit $rc (124: a hang), $msg"
    fi
done
printf 'WorldBegin\nInclude "/dev/zero"\n' >"$tmp/zero.pbrt"
expect_error "pbrt Include of /dev/zero" "zero.pbrt:2:9: /dev/zero: not a regular file" render "$tmp/zero.pbrt" -o x.png
# Control bytes from a scene reach the terminal escaped.
printf 'WorldBegin\n\033P\007\233 1\n' >"$tmp/esc.pbrt"
expect_error "pbrt directive of control bytes" "unknown directive '\\x1bP\\x07\\x9b'" render "$tmp/esc.pbrt" -o x.png
checks=$((checks + 1))
if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177-\377]')" "$tmp/err"; then
    fail "control bytes of a scene reached stderr raw: $(od -c "$tmp/err" | head -3)"
else
    echo "ok: control bytes of a scene are escaped on stderr"
fi
for f in x.png x.bmp y.png; do
    [ -e "$tmp/$f" ] && fail "a failed command left $f behind"
done
# A glTF file that requires an extension pathwave lacks (a quad, its
# buffer inline): refused, naming the extension, unless asked to go on.
b64=AACAvwAAgL8AAAAAAACAPwAAgL8AAAAAAACAPwAAgD8AAAAAAACAvwAAgD8AAAAAAAABAAIAAAACAAMA
printf '{"asset":{"version":"2.0"},"extensionsUsed":["KHR_foo"],"extensionsRequired":["KHR_foo"],"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],"meshes":[{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}],"buffers":[{"byteLength":60,"uri":"data:application/octet-stream;base64,%s"}],"bufferViews":[{"buffer":0,"byteLength":48},{"buffer":0,"byteOffset":48,"byteLength":12}],"accessors":[{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-1,-1,0],"max":[1,1,0]},{"bufferView":1,"componentType":5123,"count":6,"type":"SCALAR"}]}' "$b64" >"$tmp/req.gltf"
want_rc=1
expect_error "glTF requiring an unknown extension" "requires glTF extension KHR_foo" render "$tmp/req.gltf" --spp 1 -o x.png
want_rc=
expect_error "--wave-paths 0" "--wave-paths needs an integer in 1.." render toy --wave-paths 0 -o x.png
# A tuning knob (docs/GPU.md) that is set but malformed stops the render.
export PATHWAVE_WAVE_TAIL=12abc
expect_error "malformed PATHWAVE_WAVE_TAIL" "PATHWAVE_WAVE_TAIL='12abc' is not a whole number" \
    render toy --backend cpu --width 8 --height 8 -o x.png
unset PATHWAVE_WAVE_TAIL
# An EXR records how it was made in its header: the command, seed, spp.
checks=$((checks + 1))
if "$PW" render cornell --width 16 --height 12 --spp 3 --seed 5 -q -o "$tmp/made.exr" &&
    LC_ALL=C grep -a -q "pathwave.command" "$tmp/made.exr" &&
    LC_ALL=C grep -a -q "pathwave render cornell --width 16 --height 12 --spp 3 --seed 5" "$tmp/made.exr" &&
    LC_ALL=C grep -a -q "pathwave.spp" "$tmp/made.exr"; then
    echo "ok: the EXR header records the command, seed and samples"
else
    fail "the EXR header lacks pathwave's attributes"
fi
# A wavefront render with a cap on the paths in flight, in several waves, is
# the render without it to the bit.
checks=$((checks + 1))
if "$PW" render cornell --backend cpu-wave --width 40 --height 30 --spp 3 --wave-paths 500 -q -o "$tmp/wp1.pfm" &&
    "$PW" render cornell --backend cpu-wave --width 40 --height 30 --spp 3 -q -o "$tmp/wp2.pfm" &&
    cmp -s "$tmp/wp1.pfm" "$tmp/wp2.pfm"; then
    echo "ok: --wave-paths 500 gives the image of one wave"
else
    fail "--wave-paths 500 changed the image or failed"
fi

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

# The same scene gzipped, as pbrt-v4's scenes ship: read as pbrt, to the
# same pixels.
checks=$((checks + 1))
gzip -c "$tmp/small.pbrt" >"$tmp/small.pbrt.gz"
if "$PW" render "$tmp/small.pbrt.gz" -o "$tmp/pz.png" >"$tmp/out" 2>"$tmp/err" && cmp -s "$tmp/p.png" "$tmp/pz.png"; then
    echo "ok: render small.pbrt.gz gives small.pbrt's image"
else
    fail "render small.pbrt.gz: exit $?, or not small.pbrt's image: $(cat "$tmp/err")"
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

# pfm_floats FILE: the pixel values of a PFM file, one per line.
pfm_floats() {
    od -An -v -tf4 -j "$(head -n 3 "$1" | wc -c)" "$1" | tr -s ' ' '\n' | grep .
}

# all_sky FILE: every pixel is the toy scene's sky seen above the horizon:
# blue exactly 0.3 (both ends of the gradient have blue 1, times 0.3) and
# red < green < blue. Prints the pixel count on success.
all_sky() {
    pfm_floats "$1" | awk 'NR % 3 == 1 { r = $1 } NR % 3 == 2 { g = $1 }
        NR % 3 == 0 { n++; if (($1 - 0.3) ^ 2 > 1e-8 || !(r < g && g < $1)) bad++ }
        END { if (n == 0 || bad) exit 1; print n }'
}

checks=$((checks + 1))
sky_args="--look-from 0,2,3 --look-at 0,10,3 --up 0,0,-1"
if ! "$PW" render toy-small --width 32 --height 18 --spp 1 -q -o "$tmp/default.pfm" 2>"$tmp/err"; then
    fail "render toy-small -o default.pfm exited with $?: $(cat "$tmp/err")"
elif ! "$PW" render toy-small --width 32 --height 18 --spp 1 -q $sky_args -o "$tmp/sky.pfm" 2>"$tmp/err"; then
    fail "render toy-small $sky_args exited with $?: $(cat "$tmp/err")"
elif all_sky "$tmp/default.pfm" >/dev/null; then
    fail "camera override: the default view of toy-small is all sky, so the check below proves nothing"
elif ! n=$(all_sky "$tmp/sky.pfm"); then
    fail "camera override: looking straight up from (0,2,3) does not see only sky"
else
    echo "ok: $sky_args sees only sky ($n pixels), the default view does not"
fi

checks=$((checks + 1))
"$PW" render toy-small --width 32 --height 18 --spp 1 -q --camera 0,2,3 --look-at 0,10,3 --up 0,0,-1 \
    -o "$tmp/sky2.pfm" 2>"$tmp/err"
if cmp -s "$tmp/sky.pfm" "$tmp/sky2.pfm"; then
    echo "ok: --camera is --look-from"
else
    fail "--camera does not give the image --look-from gives: $(cat "$tmp/err")"
fi

checks=$((checks + 1))
"$PW" render toy-small --width 32 --height 18 --spp 1 -q --fov 10 -o "$tmp/narrow.pfm" 2>"$tmp/err"
if [ -s "$tmp/narrow.pfm" ] && ! cmp -s "$tmp/default.pfm" "$tmp/narrow.pfm"; then
    echo "ok: --fov 10 changes the image"
else
    fail "--fov 10 leaves the image as it was: $(cat "$tmp/err")"
fi

# json_number FILE KEY: the number after "KEY": in a cJSON-printed file.
json_number() {
    sed -n "s/^[[:space:]]*\"$2\":[[:space:]]*\([-0-9.eE+]*\),\{0,1\}$/\1/p" "$1"
}

# --stats on cornell, whose 36 triangles and 2 light triangles are fixed:
# the lines exist, the JSON has the same counts, and the BVH's bytes are
# exactly its nodes (32 bytes), primitive references (4 bytes) and leaf
# primitives (48 bytes), and its 4-wide nodes (128 bytes).
checks=$((checks + 1))
if "$PW" render cornell --width 16 --height 16 --spp 2 --stats --stats-json "$tmp/s.json" -o "$tmp/c.png" \
    >"$tmp/out" 2>"$tmp/err"; then
    nodes=$(json_number "$tmp/s.json" bvh_nodes)
    bvh_bytes=$(json_number "$tmp/s.json" bvh_bytes)
    nodes4=$(json_number "$tmp/s.json" bvh4_nodes)
    scene_bytes=$(json_number "$tmp/s.json" scene_bytes)
    cpu_bvh=$(json_number "$tmp/s.json" cpu_bvh_bytes)
    missing=
    for l in "load: " "bvh: $nodes nodes built in" "geometry: 0 spheres, 36 triangles, 4 materials, 2 lights" \
        "host memory: scene arrays $scene_bytes bytes" "render: " "rays: "; do
        grep -q "^$l" "$tmp/err" || missing="$missing '$l'"
    done
    if [ -n "$missing" ]; then
        fail "--stats: no line starting with$missing in: $(cat "$tmp/err")"
    elif [ "$(json_number "$tmp/s.json" triangles)" != 36 ] || [ "$(json_number "$tmp/s.json" lights)" != 2 ]; then
        fail "--stats-json: triangles or lights are not 36 and 2: $(cat "$tmp/s.json")"
    elif [ -z "$nodes" ] || [ "$nodes" -lt 1 ] || [ "$bvh_bytes" != $((32 * nodes + (4 + 48) * 36 + 128 * nodes4)) ]; then
        fail "--stats-json: bvh_bytes $bvh_bytes is not 32 x $nodes nodes + (4 + 48) x 36 references + 128 x $nodes4"
    elif [ -n "$cpu_bvh" ] && { [ "$cpu_bvh" -lt $((320 * 36 / 8)) ] ||
        ! grep -q "^cpu bvh: 8-wide, $cpu_bvh bytes" "$tmp/err"; }; then
        fail "--stats-json: cpu_bvh_bytes '$cpu_bvh' is less than 36 triangles in blocks of 8 (320 bytes), or --stats does not say it: $(cat "$tmp/err")"
    elif [ -z "$scene_bytes" ] || [ "$scene_bytes" -lt $((36 * 16)) ]; then
        fail "--stats-json: scene_bytes '$scene_bytes' is less than the triangles' 36 x 16 bytes"
    elif ! awk -v m="$(json_number "$tmp/s.json" mrays_per_s)" -v l="$(json_number "$tmp/s.json" load_ms)" \
        -v b="$(json_number "$tmp/s.json" bvh_build_ms)" 'BEGIN { exit !(m > 0 && l >= 0 && b >= 0 && l < 60000) }'; then
        fail "--stats-json: implausible mrays_per_s, load_ms or bvh_build_ms: $(cat "$tmp/s.json")"
    else
        echo "ok: --stats and --stats-json: 36 triangles, $nodes nodes, $bvh_bytes BVH bytes, $scene_bytes scene bytes${cpu_bvh:+, CPU 8-wide BVH $cpu_bvh bytes}"
    fi
else
    fail "render cornell --stats --stats-json exited with $?: $(cat "$tmp/err")"
fi

checks=$((checks + 1))
if "$PW" render terrain:1001 --width 16 --height 9 --spp 1 -q --stats-json - -o "$tmp/t.png" >"$tmp/t.json" 2>"$tmp/err" &&
    [ "$(json_number "$tmp/t.json" triangles)" = 1001 ] && [ "$(json_number "$tmp/t.json" spheres)" = 0 ]; then
    echo "ok: terrain:1001 has exactly 1001 triangles (--stats-json - on stdout)"
else
    fail "terrain:1001: not 1001 triangles, or it failed: $(cat "$tmp/t.json" "$tmp/err")"
fi

checks=$((checks + 1))
if "$PW" render "$tmp/req.gltf" --ignore-required-extensions --width 8 --height 8 --spp 1 -q -o "$tmp/req.png" 2>"$tmp/err" &&
    [ -s "$tmp/req.png" ] && [ "$(grep -c . "$tmp/err")" -eq 1 ] && grep -q "KHR_foo is required" "$tmp/err"; then
    echo "ok: --ignore-required-extensions rendered it with one warning: $(cat "$tmp/err")"
else
    fail "--ignore-required-extensions: $(cat "$tmp/err")"
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

# ---- image files: damaged input, failed writes, size limits ----
# A small Radiance HDR made here (two run-length-encoded scanlines of 8
# pixels), and the same cut inside its second scanline: stb_image 2.27 never
# returned from such a file (CVE-2021-42715), so each of these runs through
# a 30-second timeout that turns a hang into a failure.
printf '#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y 2 +X 8\n' >"$tmp/map.hdr"
for row in 1 2; do
    printf '\002\002\000\010\210\200\210\200\210\200\210\201' >>"$tmp/map.hdr"
done
head -c $(($(wc -c <"$tmp/map.hdr") - 5)) "$tmp/map.hdr" >"$tmp/cut.hdr"
printf '#!/bin/sh\ntimeout 30 "%s" "$@"\nrc=$?\n[ $rc -eq 124 ] && echo "pathwave did not return within 30 s (a hang)" >&2\nexit $rc\n' \
    "$PW" >"$tmp/pw-timeout"
chmod +x "$tmp/pw-timeout"
pw_plain=$PW
PW=$tmp/pw-timeout
want_rc=1
expect_error "truncated HDR as --env" "$tmp/cut.hdr: HDR pixel data is truncated" \
    render cornell --env "$tmp/cut.hdr" --spp 1 --width 8 --height 8 -q -o x.png
sed 's|"rgb L" \[ 0.5 0.5 0.5 \]|"string filename" "cut.hdr"|' "$tmp/small.pbrt" >"$tmp/envcut.pbrt"
expect_error "truncated HDR as a pbrt infinite light" "$tmp/cut.hdr: HDR pixel data is truncated" \
    render "$tmp/envcut.pbrt" --spp 1 -q -o x.png
expect_error "missing .exr as --env" "$tmp/missing.exr: cannot open (No such file or directory)" \
    render cornell --env "$tmp/missing.exr" --spp 1 --width 8 --height 8 -q -o x.png
for ext in png exr pfm; do
    ln -s /dev/full "$tmp/full.$ext"
    expect_error "$ext output to a link to /dev/full" \
        "$tmp/full.$ext: cannot write $(echo $ext | tr a-z A-Z) (No space left on device)" \
        render toy-small --spp 1 --width 8 --height 8 -q -o "$tmp/full.$ext"
done
want_rc=2
expect_error "more pixels than a render takes" "67108864" render toy-small --width 10000 --height 10000 -o x.png
sed 's/xresolution" 40/xresolution" 9000/; s/yresolution" 30/yresolution" 9000/' "$tmp/small.pbrt" >"$tmp/huge.pbrt"
expect_error "a pbrt Film of more pixels than a render takes" "67108864" render "$tmp/huge.pbrt" -o x.png
want_rc=
# An imagemap that is never used still reads its file: a warning naming it,
# and the render goes on.
checks=$((checks + 1))
sed 's|^WorldBegin|WorldBegin\nTexture "unused" "spectrum" "imagemap" "string filename" "cut.hdr"|' \
    "$tmp/small.pbrt" >"$tmp/texcut.pbrt"
if "$PW" render "$tmp/texcut.pbrt" --spp 1 -q -o "$tmp/tc.png" >"$tmp/out" 2>"$tmp/err" &&
    grep -q "warning: .*cut.hdr.*HDR pixel data is truncated" "$tmp/err" && [ -s "$tmp/tc.png" ]; then
    echo "ok: an unused imagemap of a truncated HDR is a warning: $(cat "$tmp/err")"
else
    fail "unused imagemap of a truncated HDR: no warning naming it, or no image: $(cat "$tmp/err")"
fi
PW=$pw_plain
# A write that fails part way (over a file-size limit, which binds root
# too) leaves the image it would replace as it was, and no temporary file.
checks=$((checks + 1))
mkdir "$tmp/keep"
if "$PW" render toy-small --spp 1 --width 4 --height 4 -q -o "$tmp/keep/good.png" 2>"$tmp/err"; then
    cp "$tmp/keep/good.png" "$tmp/good-copy.png"
    (
        trap '' XFSZ
        ulimit -f 8
        exec "$PW" render toy-small --spp 1 --width 256 --height 256 -q -o "$tmp/keep/good.png"
    ) 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 1 ] || ! grep -q "good.png: cannot write PNG (File too large)" "$tmp/err"; then
        fail "write over the file-size limit: exit $rc, $(cat "$tmp/err")"
    elif ! cmp -s "$tmp/keep/good.png" "$tmp/good-copy.png"; then
        fail "a failed write changed the image it would have replaced"
    elif [ "$(ls -A "$tmp/keep")" != good.png ]; then
        fail "a failed write left files behind: $(ls -A "$tmp/keep")"
    else
        echo "ok: a failed write left the old image whole and no temporary file: $(cat "$tmp/err")"
    fi
else
    fail "render of the image to keep failed: $(cat "$tmp/err")"
fi
# ---- damaged PLY, OBJ and MTL files: one line and exit 1 ----
# (assimp, which read PLY before, aborted the process on a truncated file.)
want_rc=1
printf 'ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n' >"$tmp/truncated.ply"
printf 'element face 2\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1' >>"$tmp/truncated.ply"
expect_error "truncated PLY" "$tmp/truncated.ply: line 14: face 1: expected 3 vertex indices, found 2" \
    render "$tmp/truncated.ply" -o x.png
# The same file under another name is still read as PLY, by its first line
# (assimp picks its own PLY importer by that line).
cp "$tmp/truncated.ply" "$tmp/truncated.ply.bak"
expect_error "truncated PLY named .bak" "$tmp/truncated.ply.bak: line 14: face 1: expected 3 vertex indices, found 2" \
    render "$tmp/truncated.ply.bak" -o x.png
head -c 160 "$tmp/truncated.ply" >"$tmp/cut.ply"
expect_error "PLY cut in its data" "$tmp/cut.ply: 3 'vertex' elements" render "$tmp/cut.ply" -o x.png
# An MTL texture before any newmtl crashed assimp (SIGSEGV).
printf 'mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n' >"$tmp/m.obj"
printf 'map_Kd a.png\nnewmtl a\n' >"$tmp/m.mtl"
expect_error "MTL texture before newmtl" "$tmp/m.mtl: line 1: 'map_Kd a.png' before any newmtl" render "$tmp/m.obj" -o x.png
want_rc=

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
