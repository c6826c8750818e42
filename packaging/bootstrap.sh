#!/usr/bin/env bash
# Set up Memory Center on a fresh Debian/Ubuntu machine and run it, or run every check.
#
#   packaging/bootstrap.sh app    install what is missing, then open the memory center
#   packaging/bootstrap.sh test   install what is missing, then run lint, types, contracts, tests
#
# Debian packages are installed with apt-get (as root, or through sudo when available).
# Python packages go into .venv next to this repository; reinstalled when pyproject.toml changes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
mode="${1:-}"
case "$mode" in
  app|test) ;;
  *) echo "usage: packaging/bootstrap.sh app|test" >&2; exit 2 ;;
esac

# Shared libraries PySide6 needs on a bare system, plus a C compiler and headers for hnswlib.
debs_common=(gcc g++ python3-dev python3-venv libegl1 libgl1 libxkbcommon0 libfontconfig1
             libdbus-1-3 libglib2.0-0)
# A real window on X11, and fonts that cover Chinese text.
debs_app=(libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0 libxcb-shape0
          libxcb-render-util0 libxcb-image0 fonts-noto-cjk)
# Tests: offscreen Qt needs no X server; the desktop build's smoke test also shows its window
# on a virtual X display (the xcb platform plugin a user gets) and finds it with xdotool.
# A PostgreSQL server for the team-store backend (the tests start their own throwaway
# cluster with initdb/pg_ctl).
debs_test=(xvfb xdotool postgresql "${debs_app[@]}")

missing_debs() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
  done
}

install_debs() {
  local todo
  mapfile -t todo < <(missing_debs "$@")
  [ "${#todo[@]}" -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "note: not a Debian system; make sure these are installed: ${todo[*]}" >&2
    return 0
  fi
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
      echo "note: cannot install ${todo[*]} without root; continuing" >&2
      return 0
    fi
  fi
  echo "installing Debian packages: ${todo[*]}"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${todo[@]}" >/dev/null
}

find_python() {
  local candidate
  for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
    [ -n "$candidate" ] || continue
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
      echo "$candidate"; return 0
    fi
  done
  echo "error: Python 3.11 or newer is required" >&2
  exit 1
}

setup_venv() {
  # $1: the extras to install (the tests also run the optional MiniLM embedders).
  local extras="$1" py stamp want
  py="$(find_python)"
  if [ ! -x .venv/bin/python ]; then
    "$py" -m venv .venv
  fi
  stamp=.venv/.memory-center-installed
  want="$(sha256sum pyproject.toml | cut -d' ' -f1) $extras"
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    # A portable hnswlib build: -march=native would tie the venv to this CPU.
    # `build` brings PyInstaller for packaging/build.sh, which check.sh runs.
    HNSWLIB_NO_NATIVE=1 .venv/bin/python -m pip install -q -e ".[$extras]"
    echo "$want" > "$stamp"
  fi
}

if [ "$mode" = app ]; then
  install_debs "${debs_common[@]}" "${debs_app[@]}"
  setup_venv dev,build
  exec .venv/bin/memory-center gui
fi

install_debs "${debs_common[@]}" ${debs_test[@]+"${debs_test[@]}"}
setup_venv dev,build,minilm
exec packaging/check.sh
