#!/bin/sh
# Installs the Debian packages pathwave builds with, if any are missing.
# Safe to run repeatedly; uses sudo when not root.
set -eu
PACKAGES="build-essential cmake pkg-config libstb-dev libassimp-dev libcjson-dev libtinyexr-dev zlib1g-dev libcmocka-dev clang libclang-rt-dev"
missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
