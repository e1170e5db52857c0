# Local stand-in for maven:3-eclipse-temurin-17 and eclipse-temurin:17-jre, from the
# debootstrapped Debian 12 (OpenJDK 17 and Maven 3.8 are Debian's own).
ARG DEBIAN=conformance-local/debian:bookworm
FROM ${DEBIAN}
# The official images run in a UTF-8 locale (eclipse-temurin sets LANG); without one the JVM
# encodes a spawned process's arguments as ASCII (sun.jnu.encoding), so a non-ASCII cliArgs value
# reached the runtime as "?" in a container and intact on the host.
ENV LANG=C.UTF-8
RUN apt-get update && \
    apt-get install -y --no-install-recommends openjdk-17-jdk-headless maven ca-certificates-java && \
    rm -rf /var/lib/apt/lists/*
