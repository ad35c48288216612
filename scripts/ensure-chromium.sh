#!/usr/bin/env bash
# The Temporal UI browser test drives Debian's chromium (playwright-core brings no browser, and
# nothing downloads a browser build at test time). Installs it once, as root, through apt; skips at
# once when it is there. Without root or apt it says so and the test reports the missing browser.
set -euo pipefail
CHROMIUM=/usr/bin/chromium
[ -x "$CHROMIUM" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure-chromium: $CHROMIUM is missing and this is not root with apt-get; install chromium to run the Temporal UI test" >&2
  exit 0
fi
echo "ensure-chromium: installing Debian's chromium (once per machine)..." >&2
export DEBIAN_FRONTEND=noninteractive
# An install from the current lists first; update the lists only when that fails (stale or empty).
if ! apt-get install -y -q --no-install-recommends chromium >/tmp/ensure-chromium.log 2>&1; then
  apt-get update -q >>/tmp/ensure-chromium.log 2>&1
  apt-get install -y -q --no-install-recommends chromium >>/tmp/ensure-chromium.log 2>&1 || {
    echo "ensure-chromium: apt-get install chromium failed; see /tmp/ensure-chromium.log" >&2
    exit 1
  }
fi
[ -x "$CHROMIUM" ] || { echo "ensure-chromium: installed, but $CHROMIUM is missing" >&2; exit 1; }
echo "ensure-chromium: $($CHROMIUM --version 2>/dev/null || echo chromium) ready" >&2
