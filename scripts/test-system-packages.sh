#!/usr/bin/env bash
# What `make test` needs from the system besides Python packages: a PostgreSQL server's
# binaries (the store tests start a real one), espeak-ng (the worker's speech tests speak with
# it), and Debian's Chromium with its driver and a CJK font (the recap page's browser test).
# As root with apt-get (a CI machine, a container), the missing ones are installed; otherwise
# this stops with the command that installs them, rather than letting tests skip.
set -euo pipefail

missing=()
ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || missing+=(postgresql)
command -v espeak-ng >/dev/null 2>&1 || missing+=(espeak-ng)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v chromedriver >/dev/null 2>&1 || missing+=(chromium-driver)
fonts=$(fc-list 2>/dev/null || true)  # read whole: `grep -q` on a pipe would break it (pipefail)
grep -qi "noto.*cjk" <<<"$fonts" || missing+=(fonts-noto-cjk)
[ ${#missing[@]} -eq 0 ] && exit 0

command="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing the system packages the tests need: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  exit 0
fi
echo "the tests need system packages that are missing: ${missing[*]}" >&2
echo "install them with:  sudo apt-get update && sudo $command" >&2
echo "(or leave out what needs them: make test PYTEST_ARGS=\"-m 'not postgres and not worker and not browser'\")" >&2
exit 1
