#!/usr/bin/env bash
# Installs what a fresh machine lacks, then the workspace's packages.
#   scripts/setup.sh          pnpm and the node packages (enough for `pnpm start`)
#   scripts/setup.sh --test   also the system packages the test suite runs against (nats-server, chromium)
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
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup: installing ${missing[*]} with apt-get"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# Installs the packages (Node 24 among them) and generates the Prisma clients (postinstall).
pnpm install --frozen-lockfile
