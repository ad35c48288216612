#!/usr/bin/env bash
# Builds the test agents on other SDKs (test/interop.test.ts) into the user cache, once per version:
#   - a Python venv with test/agents/python/requirements.txt (a2a-sdk 1.3.0 from PyPI), keyed by a
#     hash of that file and the Python version;
#   - the a2a-go v2.4.0 agents binary (Go module proxy), keyed by a hash of go.mod, go.sum, the
#     sources and the Go version.
# Idempotent and fast when cached. Progress goes to stderr; stdout gets only three lines the caller
# can read or eval:  A2A_TEST_PYTHON=<venv python>,
# A2A_TEST_GO_AGENTS=<binary> and A2A_TEST_PYTHON_V03=<v0.3 venv python>.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/a2a-planner"
mkdir -p "$CACHE"

missing() { echo "setup-test-agents: $1" >&2; exit 1; }

# --- Python --------------------------------------------------------------------------------------
PY_REQ=test/agents/python/requirements.txt
PYTHON="${A2A_TEST_PYTHON_BASE:-python3}"
command -v "$PYTHON" >/dev/null || missing "no python3 on PATH: the Python test agents need Python >= 3.10 with the venv module (or set A2A_TEST_PYTHON_BASE)"
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
  || missing "$("$PYTHON" --version 2>&1) is too old: the Python test agents need Python >= 3.10 (a2a-sdk 1.3.0)"
# A venv with one requirements file, keyed by its hash and the Python version, built once. A venv
# is not relocatable, so it is built in place; .complete marks a finished one. Prints its path.
venv_for() { # <requirements file> <cache dir prefix> <what it is, for the progress line>
  local key dir
  key=$( { cat "$1"; "$PYTHON" --version 2>&1; } | sha256sum | cut -c1-16)
  dir="$CACHE/$2-$key"
  if [ ! -f "$dir/.complete" ]; then
    echo "Building $3 (pip from PyPI) in $dir ..." >&2
    rm -rf "$dir"
    "$PYTHON" -m venv "$dir" || missing "'$PYTHON -m venv' failed: install the venv module (Debian: python3-venv)"
    "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$1" >&2 \
      || missing "pip install -r $1 failed (is PyPI reachable?)"
    touch "$dir/.complete"
    echo "$3: ready." >&2
  fi
  echo "$dir"
}
VENV=$(venv_for "$PY_REQ" py-agents 'the Python test-agent venv (a2a-sdk 1.3.0)')
# The v0.3 agents and the v0.3 client of the interop suite (a2a-sdk 0.3.26).
VENV03=$(venv_for test/agents/python-v03/requirements.txt py-agents-v03 'the Python A2A v0.3 venv (a2a-sdk 0.3.26)')

# --- Go ------------------------------------------------------------------------------------------
GO_DIR=test/agents/go
command -v go >/dev/null || missing "no go on PATH: the Go test agents need Go >= 1.25 (a2a-go v2.4.0)"
GO_KEY=$( { cat "$GO_DIR"/go.mod "$GO_DIR"/go.sum "$GO_DIR"/*.go; go version; } | sha256sum | cut -c1-16)
GO_BIN="$CACHE/go-agents-$GO_KEY/a2a-go-agents"
if [ ! -x "$GO_BIN" ]; then
  echo "Building the Go test agents (a2a-go v2.4.0, Go module proxy) into $GO_BIN ..." >&2
  mkdir -p "$(dirname "$GO_BIN")"
  (cd "$GO_DIR" && GOFLAGS=-mod=readonly go build -o "$GO_BIN.tmp" .) \
    || missing "go build in $GO_DIR failed (Go >= 1.25 and the Go module proxy are needed)"
  mv "$GO_BIN.tmp" "$GO_BIN"
  echo "Go test agents ready." >&2
fi

echo "A2A_TEST_PYTHON=$VENV/bin/python"
echo "A2A_TEST_GO_AGENTS=$GO_BIN"
echo "A2A_TEST_PYTHON_V03=$VENV03/bin/python"
