# Test-only stand-in for python:3.11-slim-bookworm, from Debian's packages (no registry here):
# `python`, `python3` and `pip` on PATH install into a prefix of their own, as in the
# official image (a venv, since Debian's system Python is externally managed).
ARG BASE_IMAGE=basketbench-local/debian:bookworm
FROM ${BASE_IMAGE}
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /usr/local/python
ENV LANG=C.UTF-8 \
    PATH=/usr/local/python/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
CMD ["python3"]
