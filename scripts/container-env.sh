#!/usr/bin/env bash
# Vendored copy of ../shared/tools/container-env.sh (the team's shared tools folder), so that .ci/run
# works from a clean clone; keep the two in step.
# Make this machine able to build and run the project's Docker image for real, with no Docker Hub:
#   - podman (Docker-compatible CLI) with the runc runtime, rootful, from Debian's packages;
#   - a local stand-in for the `node:20-slim` base image: a minimal Debian bookworm rootfs
#     (debootstrap) carrying this machine's own Node.js 20 and npm, tagged docker.io/library/node:20-slim,
#     so an unchanged `FROM node:20-slim` Dockerfile builds here.
# Idempotent; about 2 minutes the first time. Needs root and Debian's package mirror.
#
# Then, from the project root (npm's cache stands in for the registry inside the build):
#   npm ci                                  # fills ~/.npm with everything the image needs
#   podman build --format docker --network host --pull=never --volume "$HOME/.npm:/root/.npm" \
#     --build-arg npm_config_offline=true -t kafka-mock-coordinator -f docker/Dockerfile .
#   podman run -d --name kmc -p 9092:9092 kafka-mock-coordinator
#   podman healthcheck run kmc             # no systemd here: podman runs no healthcheck timer itself
# `--format docker` keeps HEALTHCHECK (podman's default OCI format drops it).
# The Dockerfile needs `ARG npm_config_offline` (no default) in each stage that runs npm, so that
# the build-arg reaches npm here while a normal `docker build` elsewhere uses the registry.
set -euo pipefail
log=/tmp/container-env.log
if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v debootstrap >/dev/null; then
  apt-get update >>"$log" 2>&1
  DEBIAN_FRONTEND=noninteractive apt-get install -y podman runc debootstrap >>"$log" 2>&1
fi
mkdir -p /etc/containers
# crun (podman's default) cannot run under this machine's hybrid cgroups, and rlimits cannot be raised.
cat > /etc/containers/containers.conf <<'CONF'
[containers]
default_ulimits = []

[engine]
runtime = "runc"
CONF
if ! podman image exists docker.io/library/node:20-slim; then
  root=$(mktemp -d)
  mirror=$(awk '/^URIs/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  debootstrap --variant=minbase bookworm "$root" ${mirror:+"$mirror"} >>"$log" 2>&1
  node_bin=$(command -v node); npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  install -m 0755 "$node_bin" "$root/usr/local/bin/node"
  mkdir -p "$root/usr/local/lib/node_modules" && cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
  groupadd -R "$root" -g 1000 node && useradd -R "$root" -u 1000 -g 1000 -m -s /bin/bash node
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" -c . | podman import --change 'CMD ["node"]' - docker.io/library/node:20-slim >>"$log" 2>&1
  rm -rf "$root"
fi
podman run --rm --network host docker.io/library/node:20-slim node -e 'console.log("container-env ready: node " + process.version + " in node:20-slim")'
