# One image for every role: PROCESS_ROLE=api|worker|all (default all) picks what a container runs.
# The app creates its database if missing and applies pending migrations before it listens
# (MIGRATIONS_RUN=true), so no separate migration step is needed.

# ---- build: install everything, compile TypeScript, then drop the dev dependencies ----
FROM node:24-bookworm-slim AS build
WORKDIR /app

COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

COPY nest-cli.json tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime: compiled code and production dependencies only, run as the unprivileged user ----
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app

# Files stay owned by root and read-only for the `node` user: the app writes nothing to disk in
# production (.dev-secrets.json is a development-only file).
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

USER node
EXPOSE 3000

# Liveness only (no dependency checks); /health/ready is for load balancers. Node 24 has fetch.
# A worker container (PROCESS_ROLE=worker) answers it on WORKER_HEALTH_PORT when that is set.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.WORKER_HEALTH_PORT || process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

CMD ["node", "dist/main"]
