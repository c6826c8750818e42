#!/usr/bin/env bash
# Build the installable desktop program: one folder with one executable for every verb
# (`memory-center gui|mcp|init|...`), then a tarball with a desktop entry, an icon and INSTALL.
#
#   packaging/build.sh          -> dist/memory-center/ and
#                                  dist/memory-center-<version>-linux-x86_64.tar.gz
#
# Needs the `build` extra in .venv (`.venv/bin/pip install -e ".[build]"`; bootstrap.sh test
# installs it). Outputs go to build/ and dist/, which git ignores.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=.venv/bin

if ! "$bin/python" -c "import PyInstaller" 2>/dev/null; then
  echo "error: PyInstaller is not installed; run: $bin/pip install -e '.[build]'" >&2
  exit 1
fi
version="$("$bin/python" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
arch="$(uname -m)"
name="memory-center-$version-linux-$arch"

start=$SECONDS
"$bin/pyinstaller" --noconfirm --log-level WARN \
  --workpath build/pyinstaller --distpath dist packaging/memory-center.spec
app=dist/memory-center
# Libraries compiled on this machine (the interpreter, its extension modules, hnswlib,
# SQLAlchemy's) carry debug information: about 40 MB. Only the debug sections go, and only
# where they exist; stripping wheel-repaired libraries (numpy's OpenBLAS) breaks them.
if command -v strip >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1; then
  find "$app/_internal" -type f -name '*.so*' -print0 | while IFS= read -r -d '' lib; do
    if readelf -S "$lib" 2>/dev/null | grep -q '\.debug_info'; then
      strip --strip-debug "$lib"
    fi
  done
  # The interpreter has no debug sections but a full symbol table (about 18 MB).
  strip --strip-unneeded "$app"/_internal/libpython3*.so*
fi

# Desktop integration: the entry, the icon (SVG and a 256 px PNG drawn by Qt) and the notes.
cp packaging/memory-center.desktop packaging/install-desktop-entry.sh "$app/"
# The newest glibc symbol version anything in the bundle needs is the oldest glibc it runs on.
glibc="$(find "$app" -type f \( -name '*.so*' -o -name memory-center \) -exec objdump -T {} + \
  2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -1 || true)"
sed "s/@GLIBC@/${glibc:-of the build machine}/" packaging/INSTALL > "$app/INSTALL"
cp resources/icons/app.svg "$app/memory-center.svg"
QT_QPA_PLATFORM=offscreen "$bin/python" - "$app/memory-center.png" <<'EOF'
import sys

from PySide6.QtGui import QGuiApplication, QImage, QPainter, Qt
from PySide6.QtSvg import QSvgRenderer

app = QGuiApplication([])
image = QImage(256, 256, QImage.Format.Format_ARGB32)
image.fill(Qt.GlobalColor.transparent)
painter = QPainter(image)
QSvgRenderer("resources/icons/app.svg").render(painter)
painter.end()
if not image.save(sys.argv[1]):
    sys.exit(f"error: cannot write {sys.argv[1]}")
EOF

rm -f "dist/$name.tar.gz"
tar -C dist --transform "s,^memory-center,$name," -czf "dist/$name.tar.gz" memory-center
echo "built $app ($(du -sh "$app" | cut -f1)) and dist/$name.tar.gz" \
  "($(du -h "dist/$name.tar.gz" | cut -f1)) in $((SECONDS - start)) s"
