"""Static validation of docker-compose.yml (and docker/compose.worker.yml) with compose's own
`config`: interpolation, structure, healthchecks, volumes, start order, and no baked-in secrets."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from .support import REPO

MAIN = REPO / "docker-compose.yml"
WORKER_ONLY = REPO / "docker" / "compose.worker.yml"
SECRET_VARS = ("POSTGRES_PASSWORD", "BASKETBENCH_WEBHOOK_SECRET", "BASKETBENCH_WORKER_TOKEN")
WORKER_ONLY_VARS = (
    "BASKETBENCH_TAG",
    "BASKETBENCH_API_URL",
    "BASKETBENCH_WORKER_TOKEN",
    "BASKETBENCH_BROKER_URL",
)


def _env(extra: dict[str, str]) -> dict[str, str]:
    # Only PATH/HOME from outside: a BASKETBENCH_* or POSTGRES_* in the caller's shell must
    # not satisfy a check that is about the file.
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "LC_ALL")}
    return {**base, **extra}


def run_config(
    compose: list[str], file: Path, env: dict[str, str], tmp_path: Path
) -> subprocess.CompletedProcess[str]:
    empty_env_file = tmp_path / "empty.env"  # never read a developer's .env
    empty_env_file.write_text("")
    return subprocess.run(
        [*compose, "--env-file", str(empty_env_file), "-f", str(file), "config"],
        capture_output=True,
        text=True,
        env=_env(env),
        cwd=file.parent,
        timeout=60,
        check=False,
    )


@pytest.fixture
def values() -> dict[str, str]:
    return {
        "POSTGRES_PASSWORD": "pw-" + secrets.token_hex(6),
        "BASKETBENCH_WEBHOOK_SECRET": "wh-" + secrets.token_hex(6),
        "BASKETBENCH_WORKER_TOKEN": "tok-" + secrets.token_hex(6),
        "BASKETBENCH_TAG": "tag" + secrets.token_hex(3),
    }


@pytest.fixture
def resolved(compose: list[str], values: dict[str, str], tmp_path: Path) -> dict[str, Any]:
    done = run_config(compose, MAIN, values, tmp_path)
    assert done.returncode == 0, done.stderr
    doc = yaml.safe_load(done.stdout)
    assert isinstance(doc, dict)
    return doc


def _env_of(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment", {})
    if isinstance(env, list):  # compose may print KEY=VALUE lists
        env = dict(item.split("=", 1) for item in env)
    return {k: "" if v is None else str(v) for k, v in env.items()}


def _healthcheck_words(service: dict[str, Any]) -> list[str]:
    test = service["healthcheck"]["test"]
    return test if isinstance(test, list) else ["CMD-SHELL", test]


def test_services_and_images(resolved: dict[str, Any]) -> None:
    services = resolved["services"]
    assert set(services) == {"postgres", "redis", "api", "worker"}
    for name in ("postgres", "redis"):
        image = services[name]["image"]
        repo, _, tag = image.partition(":")
        assert tag and tag != "latest", f"{name}: image {image} is not pinned to a tag"
    for name in ("api", "worker"):
        dockerfile = f"docker/{name}.Dockerfile"
        build = services[name]["build"]
        assert Path(build["context"]).resolve() == REPO
        assert build["dockerfile"] == dockerfile
        assert (REPO / dockerfile).is_file()


def test_every_service_has_a_meaningful_healthcheck(resolved: dict[str, Any]) -> None:
    services = resolved["services"]
    for name, service in services.items():
        assert "healthcheck" in service, f"{name} has no healthcheck"
        assert not service["healthcheck"].get("disable"), name
        words = _healthcheck_words(service)
        assert words[0] in ("CMD", "CMD-SHELL") and len(words) > 1, (name, words)
    assert "pg_isready" in _healthcheck_words(services["postgres"])
    assert _healthcheck_words(services["redis"])[1:] == ["redis-cli", "ping"]
    api_check = " ".join(_healthcheck_words(services["api"]))
    assert "http://127.0.0.1:8000/api/v1/health" in api_check
    assert _healthcheck_words(services["worker"])[1] == "basketbench-worker-healthcheck"


def test_start_order_waits_for_healthy_dependencies(resolved: dict[str, Any]) -> None:
    services = resolved["services"]
    assert services["api"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    worker_deps = services["worker"]["depends_on"]
    assert worker_deps["api"] == {"condition": "service_healthy"}
    assert worker_deps["redis"] == {"condition": "service_healthy"}


def _mounts(service: dict[str, Any]) -> dict[str, str]:
    """target -> named volume source, for the service's volume mounts."""
    out: dict[str, str] = {}
    for v in service.get("volumes", []):
        if isinstance(v, str):
            source, target = v.split(":")[:2]
        else:
            assert v.get("type", "volume") == "volume", v
            source, target = v["source"], v["target"]
        out[target] = source
    return out


def test_named_volumes_hold_the_state(resolved: dict[str, Any]) -> None:
    services = resolved["services"]
    declared = set(resolved["volumes"])
    assert {"pgdata", "redisdata", "workerdata"} <= declared
    assert _mounts(services["postgres"])["/var/lib/postgresql/data"] == "pgdata"
    assert _mounts(services["redis"])["/data"] == "redisdata"
    worker_dir = _env_of(services["worker"])["BASKETBENCH_WORKER_DIR"]
    assert _mounts(services["worker"])[worker_dir] == "workerdata"
    for service in services.values():  # no bind mounts of host paths for state
        for source in _mounts(service).values():
            assert source in declared, f"{source} is not a named volume"


def test_environment_comes_from_the_caller(
    resolved: dict[str, Any], values: dict[str, str]
) -> None:
    services = resolved["services"]
    api = _env_of(services["api"])
    assert api["BASKETBENCH_DATABASE_URL"] == (
        f"postgresql+psycopg://basketbench:{values['POSTGRES_PASSWORD']}@postgres:5432/basketbench"
    )
    assert api["BASKETBENCH_WEBHOOK_SECRET"] == values["BASKETBENCH_WEBHOOK_SECRET"]
    assert api["BASKETBENCH_WORKER_TOKEN"] == values["BASKETBENCH_WORKER_TOKEN"]
    assert api["BASKETBENCH_BROKER_URL"].startswith("redis://redis:6379/")
    # webhook runs use a suite the workers know
    from basketbench_workers.pipeline.suites import load_suites

    assert api["BASKETBENCH_DEFAULT_SUITE"] in load_suites()
    assert _env_of(services["postgres"])["POSTGRES_PASSWORD"] == values["POSTGRES_PASSWORD"]

    worker = _env_of(services["worker"])
    assert worker["BASKETBENCH_API_URL"] == "http://api:8000"
    assert worker["BASKETBENCH_API_TOKEN"] == values["BASKETBENCH_WORKER_TOKEN"]
    assert worker["BASKETBENCH_BROKER_URL"] == api["BASKETBENCH_BROKER_URL"]
    tag = values["BASKETBENCH_TAG"]
    assert services["worker"]["command"] == ["basketbench", "worker", "--tag", tag]

    ports = services["api"]["ports"]
    assert len(ports) == 1
    port = ports[0]
    if isinstance(port, str):
        published, target = port.split("/")[0].split(":")[-2:]
    else:
        published, target = port["published"], port["target"]
    assert (int(published), int(target)) == (8000, 8000)


def test_port_and_tag_overrides(compose: list[str], values: dict[str, str], tmp_path: Path) -> None:
    done = run_config(compose, MAIN, {**values, "BASKETBENCH_PORT": "18123"}, tmp_path)
    assert done.returncode == 0, done.stderr
    port = yaml.safe_load(done.stdout)["services"]["api"]["ports"][0]
    published = port.split(":")[-2] if isinstance(port, str) else port["published"]
    assert int(published) == 18123
    done = run_config(compose, MAIN, {**values, "BASKETBENCH_BIND_ADDRESS": "127.0.0.1"}, tmp_path)
    assert done.returncode == 0, done.stderr
    port = yaml.safe_load(done.stdout)["services"]["api"]["ports"][0]
    host_ip = port.split(":")[0] if isinstance(port, str) else port["host_ip"]
    assert host_ip == "127.0.0.1"


@pytest.mark.parametrize("missing", [*SECRET_VARS, "BASKETBENCH_TAG"])
def test_config_refuses_to_run_without_a_secret(
    compose: list[str], values: dict[str, str], tmp_path: Path, missing: str
) -> None:
    env = {k: v for k, v in values.items() if k != missing}
    done = run_config(compose, MAIN, env, tmp_path)
    assert done.returncode != 0
    assert missing in done.stderr, done.stderr
    assert "set " in done.stderr  # our own message, telling what to do


def test_no_secret_is_written_in_the_file() -> None:
    raw = yaml.safe_load(MAIN.read_text())
    required = re.compile(r"\$\{[A-Z_]+:\?[^}]+\}")
    for name, service in raw["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if re.search(r"PASSWORD|SECRET|TOKEN", key):
                assert isinstance(value, str) and required.search(value), (
                    f"{name}.{key} must come from a required ${{VAR:?message}}, got {value!r}"
                )
        # The database URL embeds the password: it must be interpolated too.
        url = (service.get("environment") or {}).get("BASKETBENCH_DATABASE_URL")
        if url is not None:
            assert "${POSTGRES_PASSWORD:?" in url


def test_env_example_names_every_variable() -> None:
    example = (REPO / ".env.example").read_text()
    named = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", example, flags=re.M))
    for file in (MAIN, WORKER_ONLY):
        used = set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)", file.read_text()))
        assert used, file
        assert used <= named, f"{file.name}: not in .env.example: {sorted(used - named)}"
    # and .env.example leaves every secret empty
    for var in SECRET_VARS:
        assert re.search(rf"^{var}=\s*$", example, flags=re.M), var


def test_worker_only_file(compose: list[str], tmp_path: Path) -> None:
    values = {v: f"value-{i}" for i, v in enumerate(WORKER_ONLY_VARS)}
    values["BASKETBENCH_API_URL"] = "https://bench.example.org"
    done = run_config(compose, WORKER_ONLY, values, tmp_path)
    assert done.returncode == 0, done.stderr
    doc = yaml.safe_load(done.stdout)
    assert set(doc["services"]) == {"worker"}
    worker = doc["services"]["worker"]
    assert Path(worker["build"]["context"]).resolve() == REPO
    assert worker["command"][-1] == values["BASKETBENCH_TAG"]
    env = _env_of(worker)
    assert env["BASKETBENCH_API_URL"] == "https://bench.example.org"
    assert env["BASKETBENCH_BROKER_URL"] == values["BASKETBENCH_BROKER_URL"]
    assert _mounts(worker)[env["BASKETBENCH_WORKER_DIR"]] == "workerdata"
    for missing in WORKER_ONLY_VARS:
        partial = {k: v for k, v in values.items() if k != missing}
        failed = run_config(compose, WORKER_ONLY, partial, tmp_path)
        assert failed.returncode != 0 and missing in failed.stderr, (missing, failed.stderr)
