# fidelity on Debian 12 with LibreOffice (for unoserver conversion and rendering); mirrors .ci/run.
FROM python:3.11-slim-bookworm

ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libreoffice-writer libreoffice-calc libreoffice-impress python3-uno poppler-utils \
      python3-venv make \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY . /app
RUN python -m venv .venv && .venv/bin/pip install -e '.[test]'

ENTRYPOINT [".venv/bin/fidelity"]
CMD ["build", "fixtures", "-o", "out"]
