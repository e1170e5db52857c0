# Local stand-in for rust:1-bookworm, from the debootstrapped Debian 12. Debian's Rust (1.63) is too
# old for the SDK and no Rust distribution server is reachable here, so the toolchain is a copy of
# the host's (bin/ and lib/ of the rustup toolchain, put in the build context as toolchain/ by
# `conformance images --local-bases`).
ARG DEBIAN=conformance-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && \
    apt-get install -y --no-install-recommends gcc libc6-dev pkg-config libssl-dev ca-certificates && \
    rm -rf /var/lib/apt/lists/*
COPY toolchain /usr/local/rust
ENV PATH=/usr/local/rust/bin:/usr/local/cargo/bin:$PATH CARGO_HOME=/usr/local/cargo
RUN cargo --version && rustc --version
