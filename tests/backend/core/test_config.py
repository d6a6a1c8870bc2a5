"""Settings: environment, .env-style and TOML settings files, URL normalisation."""

from __future__ import annotations

from pathlib import Path

from basketbench.core.config import Settings


def test_environment_and_url_normalisation(monkeypatch):
    monkeypatch.setenv("BASKETBENCH_DATABASE_URL", "postgresql://u@h:5432/db")
    monkeypatch.setenv("BASKETBENCH_PRIVATE_READS", "true")
    monkeypatch.setenv("BASKETBENCH_CORS_ORIGINS", "http://a.test, http://b.test")
    s = Settings()
    assert s.sqlalchemy_url == "postgresql+psycopg://u@h:5432/db"
    assert s.private_reads is True and s.cors_origins == ["http://a.test", "http://b.test"]
    assert s.embedded is True


def test_dotenv_settings_file(monkeypatch, tmp_path: Path):
    f = tmp_path / "bb.env"
    f.write_text("BASKETBENCH_BROKER_URL=redis://127.0.0.1:6379/3\n"
                 "BASKETBENCH_WEBHOOK_SECRET=from-file\n")
    monkeypatch.setenv("BASKETBENCH_SETTINGS_FILE", str(f))
    monkeypatch.setenv("BASKETBENCH_WEBHOOK_SECRET", "from-env")  # the environment wins
    s = Settings()
    assert s.broker_url == "redis://127.0.0.1:6379/3" and not s.embedded
    assert s.webhook_secret == "from-env"


def test_toml_settings_file(monkeypatch, tmp_path: Path):
    f = tmp_path / "bb.toml"
    f.write_text('[basketbench]\ndata_dir = "%s"\nprivate_reads = true\n'
                 'cors_origins = ["http://x.test"]\n' % (tmp_path / "d"))
    monkeypatch.setenv("BASKETBENCH_SETTINGS_FILE", str(f))
    monkeypatch.delenv("BASKETBENCH_DATABASE_URL", raising=False)
    s = Settings()
    assert s.private_reads is True and s.cors_origins == ["http://x.test"]
    assert s.sqlalchemy_url == f"sqlite:///{tmp_path / 'd' / 'basketbench.sqlite'}"
