# sidecar-init image: /usr/local/bin/sidecar-init, the single executable
# (npm run build:binary), its native addon beside it (sidecar-init.node, as
# `sidecar-init install` writes it) and a glibc base, nothing else: no shell,
# no Node. It needs a glibc-based Linux on x86-64 or arm64. Use it
#
# - as an init container that installs sidecar-init into a shared volume for
#   the app container's entrypoint:  args: ["install", "/sidecar-init"]
# - or to give your own image the same entrypoint:
#
#   COPY --from=sidecar-init /usr/local/bin/sidecar-init /usr/local/bin/sidecar-init.node /usr/local/bin/
#   ENTRYPOINT ["/usr/local/bin/sidecar-init"]
#
# - or, on Kubernetes 1.35+ (image volumes, KEP-4639), as an image volume the
#   app container runs it from, nothing copied: the `volume` target
#   (--target volume), the executable and its addon at the image's root.
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
# RUNTIME_IMAGE needs glibc, libstdc++ and libgcc_s (what Node links) and
# nothing more: distroless/cc is exactly that.
ARG BUILD_IMAGE=node:24-bookworm-slim
ARG DEMO_IMAGE=node:24-bookworm-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12

FROM ${BUILD_IMAGE} AS build
# gcc builds the native reaper addon; binutils strips the executable.
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
# `install` writes the executable and its addon, each checked, into /out: the
# image's sidecar-init loads the addon from beside itself, so it needs no
# writable or exec-mounted folder at start.
RUN SIDECAR_INIT_NODE="$(command -v node)" node scripts/build-binary.mjs \
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
# itself, so the mount needs no write. Not runnable as a container itself.
FROM scratch AS volume
COPY --from=build /out/ /

# The default target, last: the executable, its addon, their checksum and
# notices on a glibc base.
FROM ${RUNTIME_IMAGE}
COPY --from=build /out/ /usr/local/bin/
COPY --from=build /src/dist/sidecar-init.sha256 /src/dist/THIRD-PARTY-NOTICES.txt /src/LICENSE /usr/local/share/sidecar-init/
ENTRYPOINT ["/usr/local/bin/sidecar-init"]
