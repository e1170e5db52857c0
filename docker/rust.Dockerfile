# The Rust driver (drivers/rust) in a container. Build context: drivers/rust.
#   docker build -f docker/rust.Dockerfile --build-arg SDK_VERSION=1.0.28 drivers/rust
# BASE is any image with cargo/rustc (and a C linker, pkg-config, OpenSSL headers) on PATH;
# RUNTIME_BASE a Debian-like image (the driver links the system OpenSSL).
ARG BASE=rust:1-bookworm
ARG RUNTIME_BASE=debian:bookworm-slim
FROM ${BASE} AS build
ARG SDK_VERSION=1.0.28
WORKDIR /src
COPY Cargo.toml Cargo.lock build.rs build_*.rs ./
COPY src ./src
ENV COPILOT_SKIP_CLI_DOWNLOAD=1 CARGO_TERM_COLOR=never CARGO_TERM_PROGRESS_WHEN=never
# Same recipe as the local runner (internal/sdks/rust.go): the locked build when Cargo.toml pins the
# requested version, else that exact version from crates.io.
RUN pinned="$(sed -n 's/^github-copilot-sdk *=.*version *= *"=\([^"]*\)".*/\1/p' Cargo.toml)"; \
    if [ "$SDK_VERSION" = "$pinned" ]; then \
      cargo build --release --locked; \
    else \
      sed -i "s/^github-copilot-sdk *=.*/github-copilot-sdk = { version = \"=$SDK_VERSION\", default-features = false, features = [\"runtime\"] }/" Cargo.toml && \
      cargo update --package github-copilot-sdk && cargo build --release; \
    fi && \
    cp target/release/driver /conformance-driver

FROM ${RUNTIME_BASE}
RUN apt-get update && apt-get install -y --no-install-recommends libssl3 ca-certificates && \
    rm -rf /var/lib/apt/lists/*
COPY --from=build /conformance-driver /usr/local/bin/conformance-driver
ENTRYPOINT ["/usr/local/bin/conformance-driver"]
