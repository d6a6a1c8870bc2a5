# syntax=docker/dockerfile:1
# A benchmark worker: C++ toolchain + codec dev libraries (to build each ROOT commit's
# compression layer and link rzbench against it), git (the ROOT mirror), the harness, and
# bubblewrap: the sandbox every commit's compilation and rzbench run in (docs/security.md).
# The hardware tag comes from the environment: BASKETBENCH_TAG (see docker-compose.yml).
# The base image is a build argument (default: the official image a deployment pulls), so the
# same file builds where only locally made images exist (make compose-e2e).
ARG PYTHON_IMAGE=python:3.11.10-slim-bookworm
FROM ${PYTHON_IMAGE}
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    BASKETBENCH_WORKER_DIR=/var/lib/basketbench \
    BASKETBENCH_CODEC_CACHE=/var/lib/basketbench/codecs \
    BASKETBENCH_SANDBOX_UID=10002 \
    BASKETBENCH_SANDBOX_GID=10002
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      build-essential cmake pkg-config git ca-certificates \
      zlib1g-dev liblzma-dev liblz4-dev libzstd-dev libxxhash-dev nlohmann-json3-dev \
      valgrind bubblewrap \
 && rm -rf /var/lib/apt/lists/*
# Pinned codec sets (builtin, named) build zstd / lz4 / xz from Debian's source packages:
# the deb-src lines for bullseye / bookworm / trixie, written by the same script a host worker
# runs (make codec-sources). Their Sources indexes stay in the image (no apt-get update at
# run time); the binary package lists go.
COPY scripts/setup-codec-sources.sh /usr/local/lib/basketbench/setup-codec-sources.sh
RUN bash /usr/local/lib/basketbench/setup-codec-sources.sh \
 && find /var/lib/apt/lists -maxdepth 1 -type f -name '*_Packages*' -delete \
 && apt-cache showsrc libzstd xz-utils lz4 | grep -q '^Version: 1.4.8'
WORKDIR /app
# basketbench-sandbox: the user every commit's code runs as (BASKETBENCH_SANDBOX_UID), owning
# no file and no other process, so the sandbox's process limit counts only its own.
RUN groupadd --system --gid 10001 basketbench \
 && useradd --system --uid 10001 --gid basketbench --home-dir /app --no-create-home basketbench \
 && groupadd --system --gid 10002 basketbench-sandbox \
 && useradd --system --uid 10002 --gid basketbench-sandbox --home-dir /nonexistent \
      --no-create-home --shell /usr/sbin/nologin basketbench-sandbox \
 && mkdir -p /var/lib/basketbench \
 && chown basketbench:basketbench /var/lib/basketbench
COPY pyproject.toml constraints.txt README.md ./
COPY backend/ backend/
COPY workers/ workers/
COPY devtools/ devtools/
# The `demo` extra is scikit-hep-testdata: the real ROOT files the suites' corpora come from
# (more files, e.g. for the `full` suite: mount them at /shared/data/root-files).
RUN pip install --no-cache-dir -c constraints.txt -e '.[demo]'
# The harness sources stay in the image: the worker builds rzbench against each commit's
# compression library into its build cache (the volume). Building it once here only proves
# that this image's toolchain and libraries can, so a broken image fails at build time.
COPY bench-harness/ bench-harness/
RUN cmake -S bench-harness -B /tmp/rzbench-check -DCMAKE_BUILD_TYPE=Release -DRZBENCH_TESTS=OFF \
 && cmake --build /tmp/rzbench-check -j2 --target rzbench \
 && /tmp/rzbench-check/rzbench version \
 && rm -rf /tmp/rzbench-check
COPY docker/worker-entrypoint.sh /usr/local/bin/basketbench-worker-entrypoint
COPY docker/worker-healthcheck.py /usr/local/bin/basketbench-worker-healthcheck
RUN chmod 0755 /usr/local/bin/basketbench-worker-entrypoint /usr/local/bin/basketbench-worker-healthcheck
# The worker itself runs as root in its container: it makes the sandbox's namespaces (the
# compose files grant CAP_SYS_ADMIN and CAP_NET_ADMIN for that) and runs commit code as
# basketbench-sandbox, a uid other than its own, without capabilities. An unprivileged
# worker could only give commit code its own uid, and Docker's masked /proc paths keep it
# from mounting the fresh /proc that hides the worker's processes.
USER root
VOLUME ["/var/lib/basketbench"]
HEALTHCHECK --interval=30s --timeout=20s --start-period=300s --retries=3 \
  CMD ["basketbench-worker-healthcheck"]
ENTRYPOINT ["basketbench-worker-entrypoint"]
CMD ["basketbench", "worker"]
