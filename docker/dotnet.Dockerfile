# The .NET driver (drivers/dotnet) in a container. Build context: drivers/dotnet.
#   docker build -f docker/dotnet.Dockerfile --build-arg SDK_VERSION=1.0.11 drivers/dotnet
# BASE is a .NET 8 SDK image; RUNTIME_BASE a .NET 8 runtime image. Needs NuGet (nuget.org).
ARG BASE=mcr.microsoft.com/dotnet/sdk:8.0
ARG RUNTIME_BASE=mcr.microsoft.com/dotnet/runtime:8.0
FROM ${BASE} AS build
ARG SDK_VERSION=1.0.11
ENV DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1 \
    DOTNET_GENERATE_ASPNET_CERTIFICATE=false DOTNET_CLI_USE_MSBUILD_SERVER=0 \
    MSBUILDDISABLENODEREUSE=1 NUGET_XMLDOC_MODE=skip
WORKDIR /src
COPY Directory.Build.props Driver.csproj *.cs ./
# Same recipe as the local runner (internal/sdks/dotnet.go). CopilotSkipCliDownload: the SDK's
# build targets would download a ~100 MB Copilot CLI the driver never uses.
RUN dotnet publish Driver.csproj -c Release -o /out --nologo -nodeReuse:false \
      -p:CopilotSkipCliDownload=true -p:CopilotSdkVersion="${SDK_VERSION#v}" && \
    dotnet /out/Driver.dll --self-check

FROM ${RUNTIME_BASE}
ENV DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
COPY --from=build /out /driver
WORKDIR /driver
ENTRYPOINT ["dotnet", "/driver/Driver.dll"]
