#!/usr/bin/env bash
# Installs what a fresh machine lacks, then the workspace's packages.
#   scripts/setup.sh          pnpm and the node packages (enough for `pnpm start`)
#   scripts/setup.sh --test   also what the test suite runs against: nats-server, chromium, and for the
#                             container tests the Docker engine (started when none answers), compose v1,
#                             debootstrap, and the images (`pnpm images`)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=false
for arg in "$@"; do
  case "$arg" in
    --test) want_test=true ;;
    *) echo "setup.sh: unknown option $arg (use --test)" >&2; exit 2 ;;
  esac
done

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v pnpm >/dev/null 2>&1; then
  echo "setup: installing pnpm 10 with npm"
  as_root npm install -g pnpm@10 >/dev/null
fi

if [ "$want_test" = true ]; then
  missing=()
  command -v nats-server >/dev/null 2>&1 || missing+=(nats-server)
  # The browser test (test/browser-dashboard.test.ts) drives Debian's chromium with playwright-core.
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  # The container tests (test/containers): Debian's Docker engine, compose v1 for the compose check,
  # debootstrap for the base image (deploy/base-image.sh). With their recommends, as measured in
  # ../shared/CONTAINERS.md (debootstrap verifies the mirror with debian-archive-keyring).
  containers=()
  command -v dockerd >/dev/null 2>&1 || containers+=(docker.io)
  command -v docker-compose >/dev/null 2>&1 || containers+=(docker-compose)
  command -v debootstrap >/dev/null 2>&1 || containers+=(debootstrap)
  if [ "$((${#missing[@]} + ${#containers[@]}))" -gt 0 ]; then
    echo "setup: installing ${missing[*]} ${containers[*]} with apt-get"
    as_root apt-get update -qq
    [ "${#missing[@]}" -eq 0 ] ||
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    [ "${#containers[@]}" -eq 0 ] ||
      DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${containers[@]}" >/dev/null
  fi
fi

# Installs the packages (Node 24 among them) and generates the Prisma clients (postinstall).
pnpm install --frozen-lockfile

if [ "$want_test" = true ]; then
  scripts/start-docker.sh
  # The images the container tests run (pag/*:<version>, local/nats, local/postgres); they hold the
  # code of this moment: after a change, `pnpm images` again. BuildKit through Debian's client
  # when there is one (faster; the static client in /usr/local/bin has no buildx).
  if docker info >/dev/null 2>&1; then
    started=$(date +%s)
    if [ -x /usr/bin/docker ]; then
      DOCKER_BUILDKIT=1 DOCKER=/usr/bin/docker pnpm --silent images
    else
      pnpm --silent images
    fi
    echo "setup: images built in $(($(date +%s) - started)) s"
  else
    echo "setup: no Docker engine answers: the images are not built and the container tests will fail" >&2
  fi
fi
