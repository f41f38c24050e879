#!/usr/bin/env bash
# Builds the newsrank container image without pulling any base image: the
# binary is built here with the Go toolchain (static, CGO_ENABLED=0) and
# copied into scratch with this machine's CA bundle and Go's time zone
# database (deploy/Containerfile says what goes where).
#
#   deploy/build-image.sh [TAG]          TAG defaults to newsrank:latest
#
# Environment: CONTAINER_TOOL (default podman; "buildah" and "docker" work
# too, and extra global flags may follow the command, word-split),
# VERSION (default: git describe), CA_CERTS (default
# /etc/ssl/certs/ca-certificates.crt, Debian's ca-certificates).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
tag=${1:-newsrank:latest}
tool=${CONTAINER_TOOL:-podman}
version=${VERSION:-$(git -C "$root" describe --tags --always --dirty 2>/dev/null || echo dev)}
certs=${CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
zoneinfo=$(go env GOROOT)/lib/time/zoneinfo.zip

if [ ! -s "$certs" ]; then
  echo "no CA bundle at $certs: install ca-certificates (Debian) or set CA_CERTS" >&2
  exit 1
fi
if [ ! -s "$zoneinfo" ]; then
  echo "no time zone database at $zoneinfo (the Go toolchain ships it)" >&2
  exit 1
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
(cd "$root" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$ctx/newsrank" ./cmd/newsrank)
cp "$certs" "$ctx/ca-certificates.crt"
cp "$zoneinfo" "$ctx/zoneinfo.zip"
cp "$root/deploy/Containerfile" "$root"/deploy/container/{passwd,group,config.yaml} "$ctx/"

# shellcheck disable=SC2086 # CONTAINER_TOOL may carry global flags
$tool build -t "$tag" -f "$ctx/Containerfile" "$ctx"
echo "built $tag (newsrank $version)" >&2
