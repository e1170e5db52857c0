# Local stand-in for golang:1.26-bookworm, from the debootstrapped Debian 12. Debian's Go is too old,
# so the toolchain is the one Go itself fetches for GOTOOLCHAIN: the golang.org/toolchain module
# from the Go module proxy.
ARG DEBIAN=conformance-local/debian:bookworm
FROM ${DEBIAN}
ARG GO_VERSION=1.26.8
ARG GOPROXY=https://proxy.golang.org
RUN apt-get update && apt-get install -y --no-install-recommends curl unzip ca-certificates git && \
    curl -fsSL -o /tmp/go.zip "$GOPROXY/golang.org/toolchain/@v/v0.0.1-go$GO_VERSION.linux-amd64.zip" && \
    unzip -q /tmp/go.zip -d /tmp/go && \
    mv "/tmp/go/golang.org/toolchain@v0.0.1-go$GO_VERSION.linux-amd64" /usr/local/go && \
    rm -rf /tmp/go /tmp/go.zip && apt-get purge -y curl unzip && apt-get autoremove -y && \
    rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/local/go/bin:/root/go/bin:$PATH GOTOOLCHAIN=local
RUN go version
