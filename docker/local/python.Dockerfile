# Local stand-in for python:3.11-slim, from the debootstrapped Debian 12 (its Python is 3.11).
ARG DEBIAN=conformance-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && \
    apt-get install -y --no-install-recommends python3 python3-venv python3-pip ca-certificates && \
    rm -rf /var/lib/apt/lists/*
