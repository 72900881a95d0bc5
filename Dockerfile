# syntax=docker/dockerfile:1
# svc: the compiled single executable on a slim Debian base.
#   docker build -t svc .
#   docker run -d -p 127.0.0.1:4649:4649 -v svc-data:/data svc
# (svc has no authentication: publish the port on the loopback address, or behind a proxy.)

FROM node:20-bookworm AS build
WORKDIR /src
# whisper.cpp is compiled here (python3, make and g++ come with this image). x86-64 builds use
# AVX2/FMA/F16C when the build machine has them; pass --build-arg SVC_WHISPER_CFLAGS= for a
# portable baseline build that runs on older CPUs too (several times slower).
ARG SVC_WHISPER_CFLAGS
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm install --no-audit --no-fund
COPY . .
RUN npx bun scripts/build.ts --outfile /out/svc && /out/svc version

FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates libstdc++6 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin svc \
 && mkdir -p /data \
 && chown svc:svc /data
COPY --from=build /out/svc /usr/local/bin/svc
ENV SVC_DB_PATH=/data/svc.db \
    HOST=0.0.0.0 \
    PORT=4649 \
    SVC_ENV=production
USER svc
WORKDIR /data
VOLUME /data
EXPOSE 4649
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["/usr/local/bin/svc","healthcheck"]
ENTRYPOINT ["/usr/local/bin/svc"]
CMD ["serve"]
