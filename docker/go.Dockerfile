# The Go driver (drivers/go) in a container. Build context: drivers/go.
#   docker build -f docker/go.Dockerfile --build-arg SDK_VERSION=v1.0.14 drivers/go
# BASE is any image with a Go >= 1.24 toolchain on PATH; RUNTIME_BASE any Linux image (the driver is
# a static binary). On a machine without a registry, `conformance images --local-bases` builds both.
ARG BASE=golang:1.26-bookworm
ARG RUNTIME_BASE=debian:bookworm-slim
FROM ${BASE} AS build
ARG SDK_VERSION=v1.0.14
WORKDIR /src
COPY go.mod go.sum *.go ./
COPY gentypes ./gentypes
ENV GOFLAGS="-mod=mod -buildvcs=false" GOWORK=off CGO_ENABLED=0
# Same recipe as the local runner (internal/sdks/go.go): keep go.sum's pin, or switch the SDK to the
# requested version through the module proxy; then the generated type registry (gentypes).
RUN v="${SDK_VERSION#v}"; v="v$v"; \
    if ! grep -q "^github.com/github/copilot-sdk/go $v " go.sum; then \
      go mod edit -require="github.com/github/copilot-sdk/go@$v" && go mod tidy; \
    fi && \
    go mod download github.com/github/copilot-sdk/go && \
    go run ./gentypes "$(go list -m -f '{{.Dir}}' github.com/github/copilot-sdk/go)" zgenerated_types.go && \
    go build -o /out/conformance-driver . && go version -m /out/conformance-driver | grep copilot-sdk
# The driver reads the SDK's enum constants from the SDK's source (drivers/go/enums.go), found
# under GOMODCACHE as the go command lays it out: keep that one module for the runtime image.
RUN d="$(go list -m -f '{{.Dir}}' github.com/github/copilot-sdk/go)" && \
    mkdir -p /out/mod/github.com/github/copilot-sdk && cp -r "$d" /out/mod/github.com/github/copilot-sdk/

FROM ${RUNTIME_BASE}
COPY --from=build /out/conformance-driver /usr/local/bin/conformance-driver
COPY --from=build /out/mod /opt/go-sdk-mod
ENV GOMODCACHE=/opt/go-sdk-mod
ENTRYPOINT ["/usr/local/bin/conformance-driver"]
