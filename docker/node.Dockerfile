# The Node driver (drivers/node) in a container. Build context: drivers/node.
#   docker build -f docker/node.Dockerfile --build-arg SDK_VERSION=1.0.14 drivers/node
# BASE is any image with Node ^20.19.0 or >= 22.12.0 and npm on PATH.
ARG BASE=node:20-bookworm-slim
FROM ${BASE}
ARG SDK_VERSION=1.0.14
WORKDIR /driver
COPY driver.mjs surface.mjs handlers.mjs holds.mjs package.json package-lock.json ./
ENV npm_config_update_notifier=false
# Same recipe as the local runner (internal/sdks/node.go): the committed lockfile when it pins the
# requested version, else that exact version from npm. --ignore-scripts: the only install script is
# koffi's (the SDK's FFI transport, which the driver never uses).
RUN locked="$(node -p 'require("./package-lock.json").packages["node_modules/@github/copilot-sdk"].version')"; \
    if [ "$SDK_VERSION" = "$locked" ]; then \
      npm install --no-audit --no-fund --ignore-scripts; \
    else \
      npm install --no-audit --no-fund --ignore-scripts --save-exact "@github/copilot-sdk@$SDK_VERSION"; \
    fi && \
    npm cache clean --force && \
    node driver.mjs --self-check && \
    for f in node_modules/@github/*/schemas/api.schema.json; do \
      [ -e "$f" ] && ln -s "$(dirname "$f")" runtime-schemas; break; \
    done
# /driver/runtime-schemas: the runtime's published schemas of the SDK's platform package, linked as
# the local recipe links them in its cache (older SDKs ship none); `--runner docker` reads the
# runtime schema from here (the recipe's ImageSchema).
ENV CONFORMANCE_SDK_SOURCE=npm:@github/copilot-sdk@${SDK_VERSION}
ENTRYPOINT ["node", "/driver/driver.mjs"]
