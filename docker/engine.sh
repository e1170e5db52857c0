#!/usr/bin/env bash
# Starts or stops a Docker engine owned by this project: its own socket, data root and pid file,
# so it never touches (or depends on) a system engine. Images built into the data root are kept
# between runs; that is the image cache of `--runner docker`.
#
#   docker/engine.sh start   install docker.io (and debootstrap) when missing, start dockerd, wait
#   docker/engine.sh stop    stop the dockerd this script started
#   docker/engine.sh env     print the DOCKER_HOST line to eval
#
# Needs root (dockerd does). Everything lives under $CONFORMANCE_DOCKER_DIR, by default
# $CONFORMANCE_CACHE/docker (the harness's cache folder).
set -euo pipefail

cache="${CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/copilot-sdk-conformance}"
dir="${CONFORMANCE_DOCKER_DIR:-$cache/docker}"
sock="$dir/docker.sock"
pidfile="$dir/dockerd.pid"
log="$dir/dockerd.log"

install_missing() {
  local want=()
  command -v dockerd >/dev/null || want+=(docker.io)
  command -v debootstrap >/dev/null || want+=(debootstrap)
  [ ${#want[@]} -eq 0 ] && return
  if [ "$(id -u)" != 0 ]; then
    echo "engine.sh: ${want[*]} missing and not root; install them (apt-get install ${want[*]})" >&2
    exit 1
  fi
  echo "engine.sh: installing ${want[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}" >/dev/null
}

running() { [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; }

start() {
  install_missing
  mkdir -p "$dir/data" "$dir/exec"
  if running && DOCKER_HOST="unix://$sock" docker version >/dev/null 2>&1; then
    echo "engine.sh: dockerd already running (pid $(cat "$pidfile"), unix://$sock)" >&2
    return
  fi
  # --exec-root and --pidfile of our own: a system engine (if any) keeps /var/run/docker*.
  dockerd --host "unix://$sock" --data-root "$dir/data" --exec-root "$dir/exec" \
    --pidfile "$pidfile" >"$log" 2>&1 &
  for _ in $(seq 1 60); do
    if DOCKER_HOST="unix://$sock" docker version >/dev/null 2>&1; then
      echo "engine.sh: dockerd ready (pid $(cat "$pidfile")); export DOCKER_HOST=unix://$sock" >&2
      return
    fi
    if ! kill -0 $! 2>/dev/null; then break; fi
    sleep 1
  done
  echo "engine.sh: dockerd did not become ready; last lines of $log:" >&2
  tail -20 "$log" >&2
  exit 1
}

stop() {
  running || { echo "engine.sh: no dockerd running for $dir" >&2; return; }
  local pid
  pid="$(cat "$pidfile")"
  kill "$pid"
  for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || { echo "engine.sh: dockerd stopped" >&2; return; }; sleep 1; done
  echo "engine.sh: dockerd (pid $pid) did not stop in 30s" >&2
  exit 1
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) echo "export DOCKER_HOST=unix://$sock" ;;
  *) echo "usage: $0 start|stop|env" >&2; exit 2 ;;
esac
