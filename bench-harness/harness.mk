# Targets of the C++ harness (owned by bench-harness/).
.PHONY: harness-build harness-test
harness-build:
	@echo "harness-build: TODO"
harness-test:
	@echo "harness-test: TODO"
