# The Java driver (drivers/java) in a container. Build context: drivers/java.
#   docker build -f docker/java.Dockerfile --build-arg SDK_VERSION=0.3.0-java.2 drivers/java
# BASE is any image with a JDK >= 17 and Maven on PATH; RUNTIME_BASE any image with a Java 17 runtime.
ARG BASE=maven:3-eclipse-temurin-17
ARG RUNTIME_BASE=eclipse-temurin:17-jre
FROM ${BASE} AS build
ARG SDK_VERSION=0.3.0-java.2
WORKDIR /src
COPY pom.xml ./
COPY src ./src
# Same recipe as the local runner (internal/sdks/java.go): adapter v0 for the 0.x releases, v1 after.
RUN case "$SDK_VERSION" in 0.*) api=v0 ;; *) api=v1 ;; esac; \
    mvn -q -B package -Dcopilot.sdk.version="$SDK_VERSION" -Dcopilot.sdk.api="$api" \
      -Dcopilot.sdk.source="maven:com.github:copilot-sdk-java:$SDK_VERSION" && \
    cp target/copilot-conformance-driver.jar /conformance-driver.jar

FROM ${RUNTIME_BASE}
COPY --from=build /conformance-driver.jar /driver/conformance-driver.jar
WORKDIR /driver
ENTRYPOINT ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", "/driver/conformance-driver.jar"]
