# Switchyard for production: `docker build -t switchyard .`, then see compose.yaml (nginx in front of the gateways, on
# Redis and PostgreSQL) or docs/operators/deploy.md. The build stage compiles better-sqlite3 (the one native module) and
# the TypeScript; the runtime stage gets only what the gateway reads at run time, and runs as the unprivileged `node` user.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY simulator ./simulator
COPY test ./test
COPY bench ./bench
COPY scripts ./scripts
COPY schemas ./schemas
COPY routes.yaml channels.yaml ./
COPY vendors ./vendors
COPY dialects ./dialects
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 SWITCHYARD_CONFIG_DIR=/app/deploy/config SWITCHYARD_WORKERS=auto \
    SWITCHYARD_STORE=sqlite:///app/data/switchyard.sqlite SWITCHYARD_WATCH_CONFIG=0
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
COPY package.json routes.yaml channels.yaml ./
COPY schemas ./schemas
COPY vendors ./vendors
COPY dialects ./dialects
COPY deploy/config ./deploy/config
COPY console ./console
RUN mkdir -p /app/data && chown node:node /app/data
USER node
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The gateway drains in-flight requests on SIGTERM (SWITCHYARD_DRAIN_MS, default 30 s): give `docker stop` longer.
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/main.js"]
