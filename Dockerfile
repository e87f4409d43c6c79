# The waveloop worker image: `docker compose up -d --build` builds it (see docs/docker-compose.md).
# It runs `waveloop worker` against the Temporal server named by TEMPORAL_ADDRESS; it never starts
# the embedded dev server, so the Temporal CLI download of the `postinstall` script is skipped.
#
# The Temporal TypeScript SDK needs a glibc image (musl/alpine is not supported): bookworm-slim.

########## build: all dependencies, compile TypeScript, then drop the dev dependencies ##########
FROM node:20-bookworm-slim AS build

# better-sqlite3 is a native module: prebuild-install fetches a prebuilt binary when one matches,
# and falls back to node-gyp, which needs python3, make and a C++ compiler.
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
ENV WAVELOOP_SKIP_TEMPORAL_INSTALL=1

# Dependencies first, from the lockfile, for layer caching. Lifecycle scripts are skipped here:
# the root `prepare` script (tsc) would run before the sources are copied, and the root
# `postinstall` (Temporal CLI download) is not wanted in the image. The dependencies whose install
# scripts are needed (package.json "allowScripts") are then rebuilt explicitly.
# This is the npm bundled with node 20 (10.x); npm 11.19's `npm ci` installs the same lockfile.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts \
    && npm rebuild better-sqlite3 @swc/core protobufjs

COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY bin ./bin
RUN npm run build

# Keep only the production dependencies (with the compiled better-sqlite3 binding) for the runtime.
RUN npm prune --omit=dev --ignore-scripts

########## runtime: production node_modules + dist/ + bin/, as the non-root user `node` ##########
FROM node:20-bookworm-slim AS runtime

# ca-certificates: the Temporal SDK's native core verifies TLS (Temporal Cloud) against the system
# trust store, which the slim image does not ship.
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    WAVELOOP_SKIP_TEMPORAL_INSTALL=1 \
    WAVELOOP_DATA_DIR=/data

WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin

# The demo SQLite database lives in /data (a named volume in docker-compose.yml). Creating it here,
# owned by `node`, lets a fresh named volume inherit that ownership.
RUN mkdir -p /data && chown node:node /data

USER node

CMD ["node", "bin/waveloop.js", "worker"]
