# Two images from one build of the workspace:
#   docker build -t tollgate/gateway .                                      (default target: gateway)
#   docker build -t tollgate/sample-downstream --target sample-downstream .
#
# The build stage installs the whole workspace (the same lockfile CI uses),
# builds the two apps and `pnpm deploy`s each into a folder holding only its
# production dependencies. The runtime stages copy that folder and nothing else:
# no pnpm, no compiler, no sources, no dev dependencies.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Must match "packageManager" in package.json (the deployment tests check it).
ARG PNPM_VERSION=10.34.9
RUN npm install --global --no-fund --no-audit pnpm@${PNPM_VERSION}
WORKDIR /workspace
# Packages first, from the lockfile alone, into the store layer: source edits reuse it
# and the install and deploy steps below link from it.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile
RUN pnpm exec turbo run build --filter=@tollgate/gateway-app... --filter=@tollgate/sample-downstream...
# --legacy: deploy from the shared lockfile without switching the workspace to
# injected dependencies. gateway-core and host-kit arrive as copies of their built packages.
RUN pnpm --filter @tollgate/gateway-app deploy --legacy --prod /out/gateway
RUN pnpm --filter @tollgate/sample-downstream deploy --legacy --prod /out/sample-downstream

FROM ${NODE_IMAGE} AS sample-downstream
ENV NODE_ENV=production PORT=8081 HOST=0.0.0.0
WORKDIR /app
# Files stay owned by root: the process may read them, never change them.
COPY --from=build /out/sample-downstream/package.json ./package.json
COPY --from=build /out/sample-downstream/node_modules ./node_modules
COPY --from=build /out/sample-downstream/dist ./dist
# The `node` user of the official image, by number so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8081
# Slim images have no curl: Node's fetch does the probe.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8081)+'/gw/schema').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]

# Last, so a plain `docker build .` produces the gateway.
FROM ${NODE_IMAGE} AS gateway
# V8's heap, bounded: left to itself, V8 lets garbage pile up in a busy gateway's old
# generation (~60 MB live, 300+ MB committed after a minute of load). With these limits
# RSS after load is ~255-290 MB with the embedding model loaded, at the same throughput
# (`pnpm bench` starts the gateway with them). The young generation (16 MB semi-spaces,
# up to ~27 MB resident) is kept for CPU: 8 MB saved ~14 MB but cost ~5-10 % CPU per
# cache hit in an A/B. Raise them for a very large in-memory store.
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 NODE_OPTIONS="--max-semi-space-size=16 --max-old-space-size=224"
WORKDIR /app
COPY --from=build /out/gateway/package.json ./package.json
COPY --from=build /out/gateway/node_modules ./node_modules
COPY --from=build /out/gateway/dist ./dist
USER 1000:1000
EXPOSE 8080
# Liveness only: readiness (/health/ready) depends on Redis and belongs to the orchestrator.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself: it drains calls in flight, then exits.
CMD ["node", "dist/main.js"]
