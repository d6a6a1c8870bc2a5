# Test-only stand-in for python:3.11-slim-bookworm, from Debian's packages (no registry here):
# `python`, `python3` and `pip` on PATH install into a prefix of their own, as in the
# official image (a venv, since Debian's system Python is externally managed).
# The build context (made by engine.sh) holds the host's extra CA certificates: where
# HTTPS goes through an intercepting proxy, pip and npm in the image builds trust it too.
ARG BASE_IMAGE=basketbench-local/debian:bookworm
FROM ${BASE_IMAGE}
COPY extra-ca/ /usr/local/share/ca-certificates/
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && update-ca-certificates \
 && python3 -m venv /usr/local/python
ENV LANG=C.UTF-8 \
    PATH=/usr/local/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_CERT=/etc/ssl/certs/ca-certificates.crt \
    SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
    NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["python3"]
