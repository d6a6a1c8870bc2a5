# The Docker Compose stack, really up (owned by docker/): builds the images from the project's
# Dockerfiles, starts docker-compose.yml (+ docker/e2e/compose.e2e.yml), uses it through the
# API port on 127.0.0.1, restarts it and removes it. Engine and base images: docker/e2e/engine.sh
# (cached under /var/cache/basketbench, reused by the next run).
.PHONY: compose-e2e

compose-e2e: venv frontend-deps
	@engine="$$(bash $(ROOT_DIR)/docker/e2e/engine.sh)" && eval "$$engine" \
	  && BASKETBENCH_COMPOSE_E2E=1 $(PY) -m pytest -q -rs -p no:cacheprovider --timeout 3000 \
	       $(ROOT_DIR)/tests/compose
