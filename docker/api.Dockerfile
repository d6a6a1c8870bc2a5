# syntax=docker/dockerfile:1
# The API image: FastAPI + the built dashboard on one origin; migrates the database on start.

# Base images are build arguments (defaults: the official images a deployment pulls), so the
# same file builds where only locally made images exist (make compose-e2e).
ARG NODE_IMAGE=node:20.19.0-bookworm-slim
ARG PYTHON_IMAGE=python:3.11.10-slim-bookworm

# --- stage 1: build the dashboard (static files only leave this stage) ---
FROM ${NODE_IMAGE} AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

# --- stage 2: Python runtime ---
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# The checkout layout is kept (/app/backend, /app/migrations, /app/frontend/dist) so paths
# resolve exactly as in a development tree.
WORKDIR /app
# Without BASKETBENCH_DATABASE_URL the API falls back to SQLite in its data dir: writable.
ENV BASKETBENCH_DATA_DIR=/var/lib/basketbench
RUN groupadd --system --gid 10001 basketbench \
 && useradd --system --uid 10001 --gid basketbench --home-dir /app --no-create-home basketbench \
 && mkdir -p /var/lib/basketbench \
 && chown basketbench:basketbench /var/lib/basketbench
COPY pyproject.toml constraints.txt README.md alembic.ini ./
COPY backend/ backend/
COPY workers/ workers/
COPY devtools/ devtools/
COPY migrations/ migrations/
RUN pip install --no-cache-dir -c constraints.txt -e .
COPY --from=frontend /src/frontend/dist/ frontend/dist/
COPY docker/api-entrypoint.sh /usr/local/bin/basketbench-api-entrypoint
COPY docker/bootstrap_token.py /usr/local/bin/basketbench-bootstrap-token
RUN chmod 0755 /usr/local/bin/basketbench-api-entrypoint /usr/local/bin/basketbench-bootstrap-token
USER basketbench
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=6 \
  CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/v1/health', timeout=4)"]
ENTRYPOINT ["basketbench-api-entrypoint"]
CMD ["basketbench", "serve", "--host", "0.0.0.0", "--port", "8000"]
