# sidecar-init image. /usr/local/bin/sidecar-init is the single executable
# (npm run build:binary): it needs no Node, only a glibc-based Linux on x86-64
# or arm64. The ENTRYPOINT is sidecar-init; the default command runs the demo
# from examples/. To give your own image the same entrypoint:
#
#   COPY --from=sidecar-init /usr/local/bin/sidecar-init /usr/local/bin/sidecar-init
#   ENTRYPOINT ["/usr/local/bin/sidecar-init"]
#
# Build: docker build -t sidecar-init .  (or podman build; --platform linux/arm64
# for arm64). Behind a TLS-intercepting proxy, hand npm its CA for the build only:
#   --secret id=npm-ca,src=/path/to/ca.pem

# Bases as arguments, so a mirror or a locally built image can stand in.
# BUILD_IMAGE needs Node >= 22 with npm; its Node becomes the executable, so no
# second Node is downloaded. DEMO_IMAGE needs Node for the demo's own programs.
ARG BUILD_IMAGE=node:24-bookworm-slim
ARG DEMO_IMAGE=node:24-bookworm-slim
# RUNTIME_IMAGE needs glibc, libgcc and libstdc++ and nothing else (the
# executable's needs); distroless's nonroot user runs it.
ARG RUNTIME_IMAGE=gcr.io/distroless/cc-debian12:nonroot

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
RUN SIDECAR_INIT_NODE="$(command -v node)" node scripts/build-binary.mjs \
    && cd dist && sha256sum -c sidecar-init.sha256 \
    && mkdir /out && ./sidecar-init install /out

# sidecar-init for Kubernetes without rebuilding your image (docker build
# --target sidecar-init): the executable and its addon, as `sidecar-init
# install` lays them out, on a glibc base. As an init container it runs
# `install /opt/sidecar-init` into an emptyDir; it also serves `webhook`.
FROM ${RUNTIME_IMAGE} AS sidecar-init
COPY --from=build /out/ /usr/local/bin/
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/sidecar-init"]

FROM ${DEMO_IMAGE}
COPY --from=build /src/dist/sidecar-init /usr/local/bin/sidecar-init
COPY --from=build /src/dist/sidecar-init.sha256 /src/dist/THIRD-PARTY-NOTICES.txt /src/LICENSE /usr/local/share/sidecar-init/
WORKDIR /app
COPY examples ./examples
ENTRYPOINT ["/usr/local/bin/sidecar-init"]
CMD ["-c", "examples/demo.yaml"]
