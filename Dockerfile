# sidecar-init image: what `sidecar-init install` writes, in /usr/local/bin:
# sidecar-init (a static launcher), its native addon beside it
# (sidecar-init.node) and sidecar-init.runtime/ (the single executable, npm run
# build:binary, with the glibc loader and libraries it was built against, from
# the build image's Debian packages), on a glibc base, nothing else: no shell,
# no Node. It runs on x86-64 or arm64 Linux, in any app image: glibc, musl,
# static or scratch (docs/install.md). Use it
#
# - as an init container that installs sidecar-init into a shared volume for
#   the app container's entrypoint:  args: ["install", "/sidecar-init"]
# - or to give your own image the same entrypoint:
#
#   COPY --from=sidecar-init /usr/local/bin/ /usr/local/bin/
#   ENTRYPOINT ["/usr/local/bin/sidecar-init"]
#
#   (the folder holds only sidecar-init's files: the launcher, the addon and
#   sidecar-init.runtime/, which the launcher needs beside it)
#
# - or, on Kubernetes 1.35+ (image volumes, KEP-4639), as an image volume the
#   app container runs it from, nothing copied: the `volume` target
#   (--target volume), what install writes at the image's root.
#   examples/k8s/job-image-volume.yaml; docs/kubernetes.md "Image volume".
#
# The demo (examples/, on Node) is the `demo` target: --target demo.
#
# Build: docker build -t sidecar-init .  (or podman build; --platform linux/arm64
# for arm64). Behind a TLS-intercepting proxy, hand npm its CA for the build only:
#   --secret id=npm-ca,src=/path/to/ca.pem

# Bases as arguments, so a mirror or a locally built image can stand in.
# BUILD_IMAGE needs Node >= 22 with npm; its Node becomes the executable, so no
# second Node is downloaded. DEMO_IMAGE needs Node for the demo's own programs.
# RUNTIME_IMAGE: any base; sidecar-init starts with the glibc runtime it
# carries, not the base's. distroless/cc (glibc, libstdc++, libgcc_s) stays
# the default, as before, for images built FROM it that expect those.
ARG BUILD_IMAGE=node:24-bookworm-slim
ARG DEMO_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12

FROM ${BUILD_IMAGE} AS build
# gcc builds the native reaper addon and the launcher; binutils strips the
# executable. The glibc runtime install carries comes from this image's own
# libc6, libstdc++6 and libgcc-s1 (node:24-bookworm-slim has them).
RUN if ! command -v cc >/dev/null || ! command -v strip >/dev/null; then \
      apt-get update \
      && apt-get install -y --no-install-recommends gcc libc6-dev binutils \
      && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /src
COPY package.json package-lock.json ./
COPY scripts/node-runtime/package.json scripts/node-runtime/
# Development pins its own Node (scripts/node-runtime); here the base image's
# Node is used instead, so that dependency is dropped before installing.
RUN --mount=type=secret,id=npm-ca \
    if [ -s /run/secrets/npm-ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm-ca; fi \
    && npm pkg delete devDependencies.sidecar-init-node-runtime \
    && npm install --no-audit --no-fund
COPY . .
# What `sidecar-init version` names as its commit and build time: the context
# leaves .git out, so they are given (docs/install.md), or "unknown".
ARG SOURCE_COMMIT
ARG SOURCE_DATE_EPOCH
# `install` writes the launcher, the addon and the runtime folder with the
# executable, each file checked, into /out: the image's sidecar-init loads the
# addon from beside itself, so it needs no writable or exec-mounted folder at
# start.
RUN BUILD_SIDECAR_INIT_NODE="$(command -v node)" node scripts/build-binary.mjs \
    && cd dist && sha256sum -c sidecar-init.sha256 \
    && mkdir /out && ./sidecar-init install /out

FROM ${DEMO_IMAGE} AS demo
COPY --from=build /out/ /usr/local/bin/
COPY --from=build /src/dist/sidecar-init.sha256 /src/dist/THIRD-PARTY-NOTICES.txt /src/LICENSE /usr/local/share/sidecar-init/
WORKDIR /app
COPY examples ./examples
ENTRYPOINT ["/usr/local/bin/sidecar-init"]
CMD ["-c", "examples/demo.yaml"]

# The image-volume target: what `sidecar-init install` writes, at the root,
# nothing else (no base, no shell, no entrypoint). Kubernetes mounts it
# read-only at /opt/sidecar-init; the executable loads the addon from beside
# itself and its glibc runtime from sidecar-init.runtime/, so the mount needs
# no write and the app image no glibc. Not runnable as a container itself.
FROM scratch AS volume
COPY --from=build /out/ /

# The default target, last: what install writes, the executable's checksum and
# the notices on a glibc base.
FROM ${RUNTIME_IMAGE}
COPY --from=build /out/ /usr/local/bin/
COPY --from=build /src/dist/sidecar-init.sha256 /src/dist/THIRD-PARTY-NOTICES.txt /src/LICENSE /usr/local/share/sidecar-init/
ENTRYPOINT ["/usr/local/bin/sidecar-init"]
