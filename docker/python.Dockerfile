# The Python driver (drivers/python) in a container. Build context: drivers/python.
#   docker build -f docker/python.Dockerfile --build-arg SDK_VERSION=1.0.27 drivers/python
# BASE is any image with Python >= 3.11 (python3, with venv) on PATH.
ARG BASE=python:3.11-slim
FROM ${BASE}
ARG SDK_VERSION=1.0.27
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONUNBUFFERED=1 PYTHONIOENCODING=utf-8
# Same recipe as the local runner (internal/sdks/python.go): a virtual environment with the exact
# release from PyPI.
RUN python3 -c "import sys; sys.exit(0 if sys.version_info >= (3, 11) else 'github-copilot-sdk needs Python >= 3.11')" && \
    python3 -m venv /venv && \
    /venv/bin/python -m pip install --no-cache-dir "github-copilot-sdk==${SDK_VERSION}"
COPY *.py /driver/
WORKDIR /driver
ENV CONFORMANCE_SDK_SOURCE=pypi:github-copilot-sdk@${SDK_VERSION}
ENTRYPOINT ["/venv/bin/python", "/driver/driver.py"]
