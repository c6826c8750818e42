#!/bin/sh
# Put Memory Center in the application menu and on the PATH, for the current user only.
# Run from the unpacked folder; run again after moving the folder. Nothing needs root.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
bindir="$HOME/.local/bin"
mkdir -p "$apps" "$bindir"
sed -e "s|^Exec=memory-center|Exec=\"$here/memory-center\"|" \
    -e "s|^Icon=memory-center|Icon=$here/memory-center.png|" \
    "$here/memory-center.desktop" > "$apps/memory-center.desktop"
ln -sf "$here/memory-center" "$bindir/memory-center"
echo "added $apps/memory-center.desktop and $bindir/memory-center"
