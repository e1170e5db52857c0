# Any SDK's driver built from a local SDK source: `conformance run --runner docker --sdk-source
# LANG=PATH`. The harness makes the build context (internal/container/source.go):
#   conformance            a static build of the harness
#   driver/                drivers/<lang>
#   sdk-source/<name>      the SDK's folder (or package file) as the recipe finds it in PATH
# and passes BASE, the language's build image: the official BASE of docker/<lang>.Dockerfile, or
# its local base with --local-bases. The build runs the same recipe the local runner runs
# (internal/sdks/<lang>.go) through `conformance prepare`, so no Dockerfile repeats how a source is
# installed and built; the entrypoint starts the driver the recipe prepared.
ARG BASE
FROM ${BASE}
ARG SDK
ARG SDK_VERSION
ARG SOURCE
COPY conformance /usr/local/bin/conformance
COPY driver/ /conformance/drivers/${SDK}/
COPY sdk-source/ /conformance/sdk-source/
RUN conformance prepare --root /conformance --cache /conformance/cache \
      --sdk "$SDK" --sdk-version "$SDK_VERSION" --sdk-source "$SOURCE" --launch /conformance/launch.json
ENTRYPOINT ["/usr/local/bin/conformance", "exec-driver", "/conformance/launch.json"]
