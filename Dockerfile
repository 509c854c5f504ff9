# Stepdeck service image. The runtime is installed by scripts/install-runtime.sh, the same
# script .ci/run uses on a fresh machine, so every CI run proves the steps below (this
# repository's machines have no container engine to build the image itself).
#
#   docker build -t stepdeck .
#   docker run -p 8080:8080 -p 2525:2525 -v stepdeck-data:/data stepdeck
#
# Browsers: Chromium from the npm package @sparticuz/chromium, unpacked at build time into
# /opt/stepdeck-cache (it needs only libc from the base image). Firefox and WebKit are not in
# the image: a run configured for them fails with a runner error naming the browser.
#
# Run isolation (RUNNER_ISOLATION=on, docs/runner-isolation.md): the service runs as root in
# the container so that each run executes under a uid of its own (RUNNER_UID_RANGE, no account
# needed) with Chromium's sandbox on; /data is root's alone (0700). Chromium's sandbox needs
# user namespaces, which Docker's default seccomp profile may refuse: start-up then says so in
# one line. Allow them (e.g. `--security-opt seccomp=unconfined`, or a profile that permits
# clone/unshare with CLONE_NEWUSER), or opt out with `-e RUNNER_ISOLATION=off`.

FROM debian:bookworm-slim AS build
# Node and npm from Debian only bootstrap Node 24 and npm 11 (from npm); nothing is compiled
# (better-sqlite3's prebuilt binary, `allowScripts` in package.json), so no compiler is needed.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates nodejs npm \
 && rm -rf /var/lib/apt/lists/*
ENV NODE24_HOME=/opt/node24 \
    STEPDECK_CACHE_DIR=/opt/stepdeck-cache
WORKDIR /app
COPY . .
RUN bash scripts/install-runtime.sh --omit=dev \
 && PATH=/opt/node24/node_modules/.bin:$PATH npm run build -w console \
 && chmod -R a+rX /opt/stepdeck-cache

FROM debian:bookworm-slim AS runtime
# util-linux's unshare lets start-up prove that Chromium's sandbox can start here.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates tini util-linux \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /data \
 && chmod 0700 /data
COPY --from=build /opt/node24 /opt/node24
COPY --from=build /opt/stepdeck-cache /opt/stepdeck-cache
COPY --from=build --chown=root:root /app /app
ENV PATH=/opt/node24/node_modules/.bin:$PATH \
    NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    SMTP_PORT=2525 \
    DATA_DIR=/data \
    STEPDECK_CACHE_DIR=/opt/stepdeck-cache \
    PLAYWRIGHT_BROWSERS_PATH=/opt/stepdeck-cache/ms-playwright
WORKDIR /app/service
VOLUME /data
EXPOSE 8080 2525
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["/usr/bin/tini", "--"]
# The worker image is the same with: command: ["node", "src/worker.ts"]
CMD ["node", "src/server.ts"]
