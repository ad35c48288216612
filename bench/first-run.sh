#!/usr/bin/env bash
# The README's first-run figures: `npm start` to its banner, then `npm test` to the end, each on its
# own fresh clone of this repository with empty user caches (npm, pip, Go modules and builds,
# ~/.cache/a2a-planner) under a temporary folder. Chromium is installed system-wide by the first
# `npm test` if missing (remove it first for a truly fresh machine). Takes ~15 minutes; run alone.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
F=$(mktemp -d /tmp/a2a-planner-first-run-XXXXXX)
fresh() { # clone and empty caches for one command
  local d=$F/$1; mkdir -p "$d/cache" "$d/gopath" "$d/npm"
  git clone -q "$repo" "$d/p"
  export XDG_CACHE_HOME=$d/cache GOPATH=$d/gopath GOMODCACHE=$d/gopath/pkg/mod GOCACHE=$d/cache/go-build npm_config_cache=$d/npm PIP_CACHE_DIR=$d/cache/pip
  cd "$d/p"
}
(
  fresh start
  t0=$(date +%s%N)
  setsid npm start > "$F/start.log" 2>&1 < /dev/null &
  pid=$!
  for _ in $(seq 1 600); do # at most 5 minutes
    grep -q "a2a-planner is running" "$F/start.log" && break
    kill -0 "$pid" 2>/dev/null || { echo "npm start ended before its banner: $F/start.log"; break; }
    sleep 0.5
  done
  echo "first npm start to the banner: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
  kill -INT -- "-$pid" 2>/dev/null; sleep 5; kill -KILL -- "-$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
)
(
  fresh test
  t0=$(date +%s%N)
  npm test > "$F/test.log" 2>&1; rc=$?
  echo "first npm test: exit $rc after $(( ($(date +%s%N) - t0) / 1000000 )) ms (log: $F/test.log)"
)
echo "logs and clones in $F (remove it when done)"
