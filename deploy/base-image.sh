#!/usr/bin/env bash
# Makes local/debian:bookworm-slim with debootstrap (no registry needed); skipped when present.
# Needs root, debootstrap and a Debian mirror (the one apt uses).
set -euo pipefail
IMAGE=${BASE_IMAGE:-local/debian:bookworm-slim}
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "base image $IMAGE present"
  exit 0
fi
MIRROR=${DEBIAN_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
ROOTFS=$(mktemp -d)
trap 'rm -rf "$ROOTFS"' EXIT
debootstrap --variant=minbase bookworm "$ROOTFS" "$MIRROR"
tar -C "$ROOTFS" --exclude='./var/lib/apt/lists/*' --exclude='./var/cache/apt/*' \
  --exclude='./usr/share/doc/*' --exclude='./usr/share/man/*' --exclude='./usr/share/locale/*' \
  -c . | docker import -c 'CMD ["bash"]' - "$IMAGE"
