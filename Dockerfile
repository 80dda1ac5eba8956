# syntax=docker/dockerfile:1
# The service as a container: build with the dev dependencies, run with the
# production ones only, as a non-root user. README.md, "Production".
#
#   docker build -t user-profile-service .     (or: podman build / buildah bud)
#   docker run --rm -p 3000:3000 --env-file .env user-profile-service
#
# scripts/production-check.sh runs these same steps outside a container (CI).

ARG NODE_IMAGE=node:22-slim

# --- build: every dependency, compile to dist/, then drop the dev dependencies
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY client/package.json client/package.json
COPY console/package.json console/package.json
COPY patches patches
# --ignore-scripts: the sources are not here yet for `prepare`; `npm run build`
# below compiles. `npm run postinstall` applies patches/ (docs/PATCHES.md), which
# the runtime stage keeps: it copies this node_modules.
RUN npm ci --ignore-scripts --no-audit --no-fund && npm run postinstall
COPY tsconfig.json tsconfig.build.json ./
COPY src src
COPY routers routers
COPY db db
COPY scripts scripts
# The operator's console (console/): Vite builds it into dist/console, served at /admin.
COPY console console
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime: node, the production dependencies and the compiled service
FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    PORT=3000 \
    DATA_DIR=/app/.data
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./
COPY --from=build --chown=root:root /app/node_modules node_modules
COPY --from=build --chown=root:root /app/dist dist
# The image's files belong to root; the service runs as `node` (uid 1000, in
# the node image) and may write only DATA_DIR (the development keys and, with
# ALLOW_EMBEDDED_DATABASE=true, the embedded database).
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# Liveness (GET /healthz answers while the process runs); no curl in the slim image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Migrations run at start unless MIGRATE_ON_START=false; then run them as a
# release step: docker run --rm --env-file .env user-profile-service node dist/scripts/migrate.js
# Heap: NODE_OPTIONS=--max-old-space-size=<MB> (README, Production).
# node itself, not npm: SIGTERM must reach the service so it drains (npm start runs the same).
CMD ["node", "--import", "./dist/src/telemetry/preload.js", "dist/src/server.js"]
