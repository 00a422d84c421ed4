#!/usr/bin/env bash
# Writes deploy/.env (git-ignored) with fresh random secrets for compose.yaml; refuses to overwrite.
set -euo pipefail
cd "$(dirname "$0")"
[ -e .env ] && { echo "deploy/.env exists; remove it first to make new secrets" >&2; exit 1; }
r() { openssl rand -base64 48 | tr -d '/+=\n' | cut -c1-40; }   # 40 base64url-safe characters
b64() { openssl rand -base64 32; }                                  # base64 of 32 bytes
b64url() { openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n'; } # base64url of 32 bytes
umask 077
cat > .env <<ENV
PAG_VERSION=0.1.0
PUBLIC_URL=http://127.0.0.1:8080
POSTGRES_PASSWORD=$(r)
AUDIT_DB_PASSWORD=$(r)
GATEWAY_SECRET=$(r)
COOKIE_KEYS=$(r)
KEY_ENCRYPTION_KEY=$(b64)
TOKEN_HASH_KEY=$(r)
TOKEN_TAG_KEYS=$(r)
GATEWAY_INTROSPECTION_SECRET=$(r)
PROXY_INTROSPECTION_SECRET=$(r)
VAULT_ENCRYPTION_KEY=$(b64)
BRAIN_ENCRYPTION_KEY=$(b64)
AUDIT_SIGNING_KEY=$(b64url)
NATS_GATEWAY_PASSWORD=$(r)
NATS_AUTH_PASSWORD=$(r)
NATS_BRAIN_PASSWORD=$(r)
NATS_PROXY_PASSWORD=$(r)
NATS_TRIGGER_PASSWORD=$(r)
NATS_AUDIT_PASSWORD=$(r)
ENV
echo "wrote deploy/.env"
