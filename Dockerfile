# syntax=docker/dockerfile:1
# latchkey: one image for both services.
#   docker build -t latchkey .
#   docker run latchkey auth serve       # the auth service (migrates at start), port 8081
#   docker run latchkey oauth migrate    # the oauth schema, once per release
#   docker run latchkey oauth serve      # the oauth service, port 8080
# compose.yaml runs them with PostgreSQL and a mail catcher; docs/deployment.md says more.

# Build: every dependency, the TypeScript compiler included, then dist/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the package's own `prepare` builds, and needs the sources copied below; no
# dependency the build uses needs an install script (native ones ship prebuilt binaries).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY domain ./domain
COPY application ./application
COPY adapters ./adapters
COPY bootstrap ./bootstrap
COPY scripts ./scripts
RUN npm run build

# Runtime: the production dependencies alone, installed afresh from the lock file, and dist/.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    LATCHKEY_DATA_DIR=/var/lib/latchkey
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
    && npm cache clean --force \
    && mkdir -p /var/lib/latchkey \
    && chown node:node /var/lib/latchkey
COPY --from=build /app/dist ./dist
# The node image's unprivileged user (uid 1000); it owns only the data folder.
USER node
# The embedded database's folder, when no DATABASE_URL / SQL_URL is set (one instance only).
VOLUME ["/var/lib/latchkey"]
EXPOSE 8080 8081
# GET /health/ready: the service answers and its database did (bootstrap/Healthcheck.ts).
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "dist/bootstrap/Healthcheck.js"]
ENTRYPOINT ["node", "dist/bootstrap/cli.js"]
CMD ["--help"]
