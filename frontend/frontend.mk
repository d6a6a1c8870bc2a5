# Targets of the dashboard (owned by frontend/). Node >= 20.19, npm; browser
# tests drive Debian's /usr/bin/chromium through playwright-core (no download).
FRONTEND_DIR := $(ROOT_DIR)/frontend
NPM          := npm --prefix $(FRONTEND_DIR)

.PHONY: frontend-deps frontend-build frontend-lint frontend-test frontend-e2e frontend-perf frontend-client

$(FRONTEND_DIR)/node_modules/.package-lock.json: $(FRONTEND_DIR)/package-lock.json
	cd $(FRONTEND_DIR) && npm ci --no-audit --no-fund

frontend-deps: $(FRONTEND_DIR)/node_modules/.package-lock.json

frontend-build: frontend-deps
	cd $(FRONTEND_DIR) && npm run build

frontend-lint: frontend-deps
	cd $(FRONTEND_DIR) && npm run lint

frontend-test: frontend-deps
	cd $(FRONTEND_DIR) && npm test

# Starts `basketbench serve` on a free port with a fresh PostgreSQL database,
# seeds it through the API (tests/e2e/seed.py) and drives Chromium.
frontend-e2e: frontend-build venv
	cd $(FRONTEND_DIR) && BASKETBENCH_BIN=$(VENV)/bin/basketbench PYTHON=$(PY) node e2e/run.mjs

# Time to first plot with 10 000 commits of history (docs/perf/frontend.md).
frontend-perf: frontend-build venv
	cd $(FRONTEND_DIR) && BASKETBENCH_BIN=$(VENV)/bin/basketbench PYTHON=$(PY) node e2e/perf.mjs

# Regenerate the API types after the backend changed (writes frontend/openapi.json first).
frontend-client: frontend-deps venv
	$(PY) scripts/export-openapi.py $(FRONTEND_DIR)/openapi.json
	cd $(FRONTEND_DIR) && npm run generate-client
