#!/bin/sh
# scripts/check-layering.sh on small trees of its own: it must report a
# planted cycle (each edge on it, with the #include's file and line) and
# pass the same tree once the cycle is gone. Without this a checker that
# could never fail would pass test_layering for ever.
#   usage: sh test_layering.sh PATH/TO/check-layering.sh
set -u
CHECK=${1:?usage: sh test_layering.sh PATH/TO/check-layering.sh}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pathwave-layering.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_out NEEDLE: the last run's output holds NEEDLE.
expect_out() {
    grep -qF -- "$1" "$tmp/out" || fail "no '$1' in the output:" "$(cat "$tmp/out")"
}

# low <- mid <- top, top also on "pathwave.h" (no folder) and on itself;
# then mid/b.c includes top/, closing mid -> top -> mid.
mkdir -p "$tmp/src/low" "$tmp/src/mid" "$tmp/src/top" "$tmp/src/top/sub"
printf '#include <stdint.h>\n' >"$tmp/src/low/a.h"
printf '#include "low/a.h"\n' >"$tmp/src/mid/b.h"
printf '#include "pathwave.h"\n#include "top/sub/d.h"\n  #  include "mid/b.h"\n' >"$tmp/src/top/c.c"
printf '#include "low/a.h"\n' >"$tmp/src/top/sub/d.h"

sh "$CHECK" "$tmp/src" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "acyclic tree: exit $rc, want 0:" "$(cat "$tmp/out")"
expect_out "0: low"
expect_out "1: mid"
expect_out "2: top"

printf '/* a comment */\n#include "mid/b.h"\n#include "top/sub/d.h"\n' >"$tmp/src/mid/b.c"
sh "$CHECK" "$tmp/src" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "planted cycle: exit $rc, want 1:" "$(cat "$tmp/out")"
expect_out "mid -> top is on the cycle mid -> top -> mid"
expect_out "mid/b.c:3"
expect_out "top -> mid is on the cycle top -> mid -> top"
expect_out "top/c.c:3"
expect_out "2 edges on a cycle"
if grep -q -- "-> low is on" "$tmp/out"; then
    fail "an edge off the cycle reported:" "$(cat "$tmp/out")"
fi

sh "$CHECK" "$tmp/nowhere" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "missing folder: exit $rc, want 2"

[ $failures -eq 0 ] && echo "test_layering: all checks passed"
[ $failures -eq 0 ]
