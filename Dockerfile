# sidecar-init demo image: the supervisor as ENTRYPOINT (PID 1) running the
# demo from examples/. For your own image, copy /app/bin and /app/dist into an
# image that has Node >= 22 and set the same ENTRYPOINT.

FROM node:24-bookworm-slim AS build
# gcc builds the native reaper addon (waitpid/prctl), see src/process/native/.
RUN apt-get update \
 && apt-get install -y --no-install-recommends gcc libc6-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build

FROM node:24-bookworm-slim
WORKDIR /app
# The bundle carries every runtime dependency: no node_modules in the image.
COPY --from=build /src/package.json ./
COPY --from=build /src/bin ./bin
COPY --from=build /src/dist ./dist
COPY --from=build /src/examples ./examples
ENTRYPOINT ["/app/bin/sidecar-init"]
CMD ["-c", "examples/demo.yaml"]
