#!/usr/bin/env bash
# Starts the Docker engine when none answers (machines without systemd: the apt package does not
# start it), as ../shared/CONTAINERS.md measured: plain dockerd, log in /tmp/dockerd.log, pid in
# /tmp/dockerd.pid. It outlives this script (stop it with `kill -TERM "$(cat /tmp/dockerd.pid)"`).
# Never fails: when the engine cannot start, it says why, and the container tests fail saying so.
set -uo pipefail

docker info >/dev/null 2>&1 && exit 0
if ! command -v dockerd >/dev/null 2>&1; then
  echo "start-docker: no dockerd (apt-get install docker.io, or scripts/setup.sh --test)" >&2
  exit 0
fi
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
echo "start-docker: starting dockerd (log /tmp/dockerd.log, pid in /tmp/dockerd.pid)"
as_root sh -c 'nohup dockerd >/tmp/dockerd.log 2>&1 & echo $! >/tmp/dockerd.pid'
# dockerd announces nothing a script can wait on but its API: ask it until it answers (about 1 s)
for _ in $(seq 1 150); do
  docker info >/dev/null 2>&1 && exit 0
  kill -0 "$(cat /tmp/dockerd.pid)" 2>/dev/null || break
  sleep 0.2
done
echo "start-docker: dockerd did not come up; the end of /tmp/dockerd.log:" >&2
tail -n 20 /tmp/dockerd.log >&2
exit 0
