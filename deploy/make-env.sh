#!/usr/bin/env bash
# Writes deploy/.env (git-ignored) with fresh random secrets for compose.yaml; refuses to overwrite.
# The secrets come from packages/testkit/src/containers/secrets.ts, which GatewayContainer uses too
# (run with the workspace's Node 24: scripts/setup.sh first).
set -euo pipefail
cd "$(dirname "$0")"
[ -e .env ] && { echo "deploy/.env exists; remove it first to make new secrets" >&2; exit 1; }
node=../node_modules/node/bin/node
[ -x "$node" ] || { echo "make-env: $node is missing: run scripts/setup.sh first" >&2; exit 2; }
secrets=$("$node" ../packages/testkit/src/containers/secrets.ts)
umask 077
cat > .env <<ENV
PAG_VERSION=0.1.0
PUBLIC_URL=http://127.0.0.1:8080
$secrets
ENV
echo "wrote deploy/.env"
