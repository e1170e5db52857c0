# Local stand-in for maven:3-eclipse-temurin-17 and eclipse-temurin:17-jre, from the
# debootstrapped Debian 12 (OpenJDK 17 and Maven 3.8 are Debian's own).
ARG DEBIAN=conformance-local/debian:bookworm
FROM ${DEBIAN}
RUN apt-get update && \
    apt-get install -y --no-install-recommends openjdk-17-jdk-headless maven ca-certificates-java && \
    rm -rf /var/lib/apt/lists/*
