# syntax=docker/dockerfile:1
# svc: the compiled single executable on a slim Debian base, with PocketSphinx so it dictates offline
# from the first start.
#   docker build -t svc .                     (Podman and Buildah: add --format docker, or the
#                                              HEALTHCHECK below is dropped)
#   docker run -d -p 127.0.0.1:4649:4649 -v svc-data:/data svc
# The binary carries whisper.cpp for every CPU level of its architecture (it picks one at start), so an
# image built on a fast desktop runs on an Atom or Celeron NAS too.

# The release (scripts/release.ts) builds one image per architecture from its own binaries: it replaces
# the `binary` stage with a folder holding out/svc (--build-context binary=DIR) and names that
# architecture's Debian in SVC_RUNTIME_BASE. A plain `docker build` compiles svc in the stage below.
ARG SVC_RUNTIME_BASE=debian:bookworm-slim

FROM node:20-bookworm AS binary
WORKDIR /src
# Behind a proxy that re-signs TLS: mount its CA and name it, e.g.
#   -v /etc/ssl/certs/ca-certificates.crt:/run/proxy-ca.crt:ro --build-arg NODE_EXTRA_CA_CERTS=/run/proxy-ca.crt
ARG NODE_EXTRA_CA_CERTS
# Dependencies and whisper.cpp first: this layer changes only with the lockfile or the engine's build.
COPY package.json package-lock.json ./
COPY scripts/postinstall.mjs scripts/whisper-addon.mjs scripts/whisper-gpu.mjs scripts/
COPY src/dictation/engines/whisper/native src/dictation/engines/whisper/native
# The Vulkan build of whisper.cpp (a GPU of any vendor; about ten minutes more on two cores) needs
# these to build; --build-arg SVC_WHISPER_GPU=off leaves it out and whisper runs on the CPU only.
ARG SVC_WHISPER_GPU=vulkan
RUN if [ "$SVC_WHISPER_GPU" != off ]; then \
      apt-get update && apt-get install -y --no-install-recommends cmake glslc libvulkan-dev spirv-headers \
      && rm -rf /var/lib/apt/lists/*; \
    fi
# --ignore-scripts, then the two install steps svc needs: npm 10 (this image's) does not read
# package.json's allowScripts and would also run smart-whisper's own node-gyp build, which svc does not use.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm rebuild bun \
 && SVC_WHISPER_GPU=$SVC_WHISPER_GPU node scripts/postinstall.mjs
COPY . .
# `svc version` names the commit: docker build --build-arg SVC_COMMIT=$(git rev-parse --short=12 HEAD) .
ARG SVC_COMMIT=unknown
RUN SVC_COMMIT=$SVC_COMMIT npx bun scripts/build.ts --outfile /out/svc && /out/svc version

FROM ${SVC_RUNTIME_BASE}
# The Vulkan loader (libvulkan1, about 1 MB) lets the Vulkan build find a GPU's driver: NVIDIA's
# container toolkit brings its own (--gpus all), Vulkan's part of it only for an image that asks for
# the graphics capability (NVIDIA_DRIVER_CAPABILITIES below; its default is compute and utility);
# Intel's and AMD's come from Mesa, which this slim image leaves out: --build-arg
# SVC_GPU_DRIVERS=mesa-vulkan-drivers adds it (about 100 MB), then run with --device /dev/dri.
ARG SVC_GPU_DRIVERS=
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libpocketsphinx3 pocketsphinx-en-us \
      libvulkan1 $SVC_GPU_DRIVERS \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 svc \
 && useradd --system --uid 10001 --gid svc --home-dir /data --no-create-home --shell /usr/sbin/nologin svc \
 && mkdir -p /data \
 && chown svc:svc /data \
 && chmod 0700 /data
COPY --from=binary /out/svc /usr/local/bin/svc
ENV SVC_DB_PATH=/data/svc.db \
    HOST=0.0.0.0 \
    PORT=4649 \
    SVC_ENV=production \
    NVIDIA_DRIVER_CAPABILITIES=compute,utility,graphics
USER svc
WORKDIR /data
VOLUME /data
EXPOSE 4649
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["/usr/local/bin/svc","healthcheck"]
ENTRYPOINT ["/usr/local/bin/svc"]
CMD ["serve"]
