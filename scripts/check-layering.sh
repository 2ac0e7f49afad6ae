#!/bin/sh
# The folders of src/ must form layers: a file in src/X that includes
# "Y/..." makes X depend on Y, and no chain of such dependencies may lead
# back to the folder it started from. A cycle means that neither folder can
# be built, read or tested without the other, which is what the layering
# (docs/ARCHITECTURE.md, "Layering") rules out.
#   usage: sh scripts/check-layering.sh [-v] [SRC_DIR]
# SRC_DIR defaults to the src/ beside this script. Exits 0 and prints the
# folder order when there is no cycle; exits 1 and prints every edge that
# lies on a cycle, with a cycle through it and the #include lines (file and
# line) that make it; exits 2 on bad usage. -v also lists every edge.
# POSIX sh and utilities (find, grep, sed, awk, sort) only: CI has no python.
set -u
verbose=0
src=
for arg in "$@"; do
    case $arg in
    -v) verbose=1 ;;
    -h | --help)
        sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
        exit 0
        ;;
    -*)
        echo "check-layering: unknown option $arg" >&2
        exit 2
        ;;
    *)
        [ -z "$src" ] || { echo "check-layering: one SRC_DIR only" >&2; exit 2; }
        src=$arg
        ;;
    esac
done
[ -n "$src" ] || src=$(dirname "$0")/../src
[ -d "$src" ] || { echo "check-layering: $src is not a folder" >&2; exit 2; }

# The folders, separated by spaces (awk -v takes no newlines everywhere):
# the only include prefixes that count ("pathwave.h" or "stb_image.h"
# names no folder of src/).
folders=$(for d in "$src"/*/; do [ -d "$d" ] && basename "$d"; done | sort | awk '{ printf "%s ", $0 }')
[ -n "$folders" ] || { echo "check-layering: $src has no folders" >&2; exit 2; }

# Every quoted include as "FILE:LINE:#include ..." with FILE relative to
# src/, then one edge per line: "FROM TO FILE:LINE".
# shellcheck disable=SC2086 # folders are plain names, one word each
edges=$(cd "$src" && find $folders -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) |
    sort | while IFS= read -r f; do
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | sed "s|^|$f:|"
    done |
    awk -v folders="$folders" '
        BEGIN { n = split(folders, fl, " "); for (i = 1; i <= n; i++) known[fl[i]] = 1 }
        {
            # FILE:LINE:text; the text may hold colons, the path never does.
            file = $0; sub(/:.*/, "", file)
            rest = substr($0, length(file) + 2)
            line = rest; sub(/:.*/, "", line)
            text = substr(rest, length(line) + 2)
            if (!match(text, /"[^"]*"/)) next
            inc = substr(text, RSTART + 1, RLENGTH - 2)
            if (index(inc, "/") == 0) next
            to = inc; sub(/\/.*/, "", to)
            from = file; sub(/\/.*/, "", from)
            if (!(to in known) || to == from) next
            print from, to, file ":" line
        }')

printf '%s\n' "$edges" | awk -v folders="$folders" -v verbose="$verbose" '
    BEGIN { nf = split(folders, node, " ") }
    NF == 3 {
        key = $1 SUBSEP $2
        if (!(key in adj)) { adj[key] = 1; ne++; efrom[ne] = $1; eto[ne] = $2 }
        where[key] = uses[key]++ ? where[key] "\n    " $3 : $3
    }
    END {
        for (i = 1; i <= nf; i++)
            for (j = 1; j <= nf; j++)
                reach[node[i], node[j]] = ((node[i], node[j]) in adj)
        # Transitive closure (Warshall): a dozen folders, so cubic is nothing.
        for (k = 1; k <= nf; k++)
            for (i = 1; i <= nf; i++)
                if (reach[node[i], node[k]])
                    for (j = 1; j <= nf; j++)
                        if (reach[node[k], node[j]]) reach[node[i], node[j]] = 1
        if (verbose) {
            print "edges (folder -> folder it includes: #include lines):"
            for (e = 1; e <= ne; e++) print "  " efrom[e] " -> " eto[e] ": " uses[efrom[e], eto[e]]
        }
        bad = 0
        for (e = 1; e <= ne; e++) {
            a = efrom[e]; b = eto[e]
            if (!reach[b, a]) continue
            if (!bad) print "layering: include cycles between folders of src/:"
            bad++
            print ""
            print "  " a " -> " b " is on the cycle " a " -> " path(b, a) ", made by:"
            print "    " where[a, b]
        }
        if (bad) {
            print ""
            print "layering: " bad " edge" (bad > 1 ? "s" : "") " on a cycle; move the declaration to the folder that owns it"
            exit 1
        }
        # Levels: a folder sits one above the highest folder it includes,
        # so each line depends only on the lines above it.
        top = 0
        for (i = 1; i <= nf; i++) {
            lv = level(node[i])
            if (lv > top) top = lv
        }
        print "layering: no include cycles between the " nf " folders of src/; from the bottom up:"
        for (l = 0; l <= top; l++) {
            s = ""
            for (i = 1; i <= nf; i++) if (lev[node[i]] == l) s = s (s == "" ? "" : " ") node[i]
            print "  " l ": " s
        }
    }
    # The shortest chain of edges from x to y (breadth first), as "x -> ... -> y".
    function path(x, y,    q, h, t, u, i, v, p, seen, prev) {
        h = 1; t = 1; q[1] = x; seen[x] = 1
        while (h <= t) {
            u = q[h++]
            if (u == y) break
            for (i = 1; i <= nf; i++) {
                v = node[i]
                if ((u, v) in adj && !(v in seen)) { seen[v] = 1; prev[v] = u; q[++t] = v }
            }
        }
        p = y
        for (v = y; v != x; v = prev[v]) p = prev[v] " -> " p
        return p
    }
    # Acyclic by now, so the recursion ends.
    function level(x,    i, l, m) {
        if (x in lev) return lev[x]
        m = 0
        for (i = 1; i <= nf; i++)
            if ((x, node[i]) in adj) { l = level(node[i]) + 1; if (l > m) m = l }
        lev[x] = m
        return m
    }'
