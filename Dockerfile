# syntax=docker/dockerfile:1
# Threat Radar: build stage compiles client and server; the runtime stage has only what `node` needs to run them.

FROM node:24-slim AS build
WORKDIR /app
# better-sqlite3 builds from source when no prebuilt binary matches the platform.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
ARG BUILD_ID
RUN BUILD_ID="${BUILD_ID}" npm run build && npm prune --omit=dev

FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_PATH=/data/threat-radar.sqlite
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's files stay root's; only the data folder is the app's to write.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
# Ready means the database answers and its migrations are applied (GET /readyz).
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1's only process: `docker stop`'s SIGTERM reaches the server, which drains and exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=8", "dist/server/index.js"]
