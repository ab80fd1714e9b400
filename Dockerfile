# Plant Store's image: `docker build -t plantstore .` (or `podman build`). docs/containers.md tells how to run it.
# Node 24 LTS on Debian 12 in both stages; the build stage has what node-gyp needs for better-sqlite3.
FROM node:24-bookworm AS build
WORKDIR /src
# Node's own headers, so node-gyp builds the SQLite addon without downloading anything.
ENV npm_config_nodedir=/usr/local npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
# Dependencies first, in their own layer: a change to the code alone reuses them.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json .redocly.yaml ./
COPY bin bin
COPY openapi openapi
COPY src src
COPY console console
COPY scripts scripts
COPY packages/client packages/client
# Production dependencies only; their source maps and type declarations serve no running process.
RUN npm run build && npm prune --omit=dev && rm -rf node_modules/@plantstore \
 && find node_modules -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -delete \
 && find node_modules -type d -empty -delete

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PLANTSTORE_HOST=0.0.0.0 \
    PLANTSTORE_PORT=8080 \
    PLANTSTORE_DATABASE_URL=sqlite:/data/plantstore.db
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/openapi openapi
COPY --from=build /src/bin bin
COPY --from=build /src/dist dist
# The store, and the first-start token beside it, live in /data, owned by the unprivileged user `node`
# (uid 1000) that runs the service; the image itself stays read-only to it.
RUN ln -s /app/bin/plantstore.js /usr/local/bin/plantstore && mkdir /data && chown node:node /data
VOLUME /data
WORKDIR /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM (docker stop) drains in-flight requests, closes the store and exits 0.
ENTRYPOINT ["plantstore"]
CMD ["serve"]
