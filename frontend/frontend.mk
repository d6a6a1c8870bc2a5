# Targets of the dashboard (owned by frontend/).
.PHONY: frontend-deps frontend-build frontend-lint frontend-test frontend-e2e
frontend-deps:
	@echo "frontend-deps: TODO"
frontend-build:
	@echo "frontend-build: TODO"
frontend-lint:
	@echo "frontend-lint: TODO"
frontend-test:
	@echo "frontend-test: TODO"
frontend-e2e:
	@echo "frontend-e2e: TODO"
