# syntax=docker/dockerfile:1
# crawld container image: docker build -t crawld .
# Runs as the unprivileged "node" user; state (SQLite frontier, results.jsonl) lives in /data.
# No config is baked in: mount one at /etc/crawld/crawld.yaml with dataDir: /data and
# http: { host: 0.0.0.0, port: 9464 } (see deploy/compose/crawld.yaml and docs/deploy.md).

############################ build stage ############################
FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles its native addon when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Dependencies first (cached layer). --ignore-scripts skips the package's "prepare" (tsc needs
# src/, not copied yet); better-sqlite3's own install script is then run by npm rebuild.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
COPY tsconfig.json ./
COPY src ./src
# tsc, then esbuild bundles dist/src/cli.js into dist/crawld.mjs, the entry point.
COPY scripts/bundle.mjs ./scripts/bundle.mjs
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

############################ runtime stage ############################
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# The data dir belongs to the unprivileged user; a named volume mounted here inherits it.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
# The image's own node user (uid 1000): never run the crawler as root.
USER node
# Metrics, /healthz, /readyz, status page and admin API (when http.port is 9464 in the config).
EXPOSE 9464
# No curl in slim images: node does the probe. Fails when the HTTP server is off or unhealthy.
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains gracefully (give docker stop -t / stop_grace_period more than
# shutdown.drainTimeoutMs); a second signal exits at once with code 3.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/crawld.mjs"]
CMD ["run", "--config", "/etc/crawld/crawld.yaml"]
