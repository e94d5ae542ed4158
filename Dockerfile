# syntax=docker/dockerfile:1
# Build stage: full dependencies, compile TypeScript.
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY migrations ./migrations
COPY console ./console
RUN npx nest build && npx vite build console

# Runtime stage: production dependencies only, non-root user.
FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production SERVICE_HOST=0.0.0.0 SERVICE_PORT=8100 SERVICE_DATA_DIR=/data
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/console/dist ./console/dist
COPY vendor ./vendor
COPY bin ./bin
# `memory-service migrate upgrade head`, `memory-service preflight`, … in the running image.
RUN ln -s /app/bin/memory-service.js /usr/local/bin/memory-service
RUN mkdir -p /data && chown -R node:node /data
USER node
EXPOSE 8100
VOLUME ["/data"]
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.SERVICE_PORT||8100)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# The heap cap matches `npm run start:prod`: V8 otherwise lets garbage pile up to several times
# the live set (about 80 MB after the medium benchmark) before a full collection. Raise it
# when you raise SERVICE_MAX_BODY_BYTES a lot.
CMD ["node", "--max-old-space-size=192", "dist/src/main.js"]
