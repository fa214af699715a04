# fidelity on Debian 12 with LibreOffice (for unoserver conversion and rendering): the README's
# first command's setup (`make setup` installs the Debian packages and the package into .venv).
FROM python:3.11-slim-bookworm

ENV DEBIAN_FRONTEND=noninteractive PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY . /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends make \
 && make setup \
 && rm -rf /var/lib/apt/lists/*

ENTRYPOINT [".venv/bin/fidelity"]
CMD ["build", "fixtures", "-o", "out"]
