"""Issue 13 point 9: security headers on every answer, and the built dashboard and /docs
work under that Content-Security-Policy in a real browser, with hostile names shown as
text, never as live markup."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from bb_factories import MACHINE, document

pytestmark = pytest.mark.integration
REPO_ROOT = Path(__file__).resolve().parents[3]
FRONTEND = REPO_ROOT / "frontend"
EVIL = '<a href="https://evil.example/">pwned</a>'


def test_every_answer_carries_the_security_headers(client):
    answers = [client.get("/api/v1/health"), client.get("/api/v1/runs/999999"),
               client.get("/docs"), client.get("/api/v1/openapi.json"),
               client.post("/api/v1/trigger", json={})]
    for r in answers:
        assert r.headers["x-content-type-options"] == "nosniff", r.url
        assert r.headers["x-frame-options"] == "DENY", r.url
        assert "frame-ancestors 'none'" in r.headers["content-security-policy"], r.url
    assert answers[0].headers["content-security-policy"].startswith("default-src 'none'")
    docs_csp = answers[2].headers["content-security-policy"]
    assert "script-src 'self' 'sha256-" in docs_csp and "cdn" not in docs_csp
    assert "unsafe-eval" not in docs_csp and "/docs-assets/swagger-ui-bundle.js" in answers[2].text


@pytest.mark.skipif(not (FRONTEND / "dist" / "index.html").is_file(),
                    reason="the dashboard is not built (make frontend-build)")
def test_dashboard_and_docs_work_under_the_csp_and_escape_hostile_names(api_server):
    assert shutil.which("node") and (FRONTEND / "node_modules" / "playwright-core").is_dir()
    with httpx.Client(base_url=api_server.api, headers=api_server.headers, timeout=60) as http:
        for name, fp, tag in (("bench-01", MACHINE, "haswell"),
                              (EVIL, dict(MACHINE, fingerprint_hash="e0e0e0e0e0e0e0e0"),
                               "epyc")):
            doc = document(commit="c" * 40, machine=name, tag=tag)
            doc["machine"] = dict(fp, hostname=name)
            r = http.post("/results", json=doc)
            assert r.status_code == 201, r.text
        index = http.get(api_server.url + "/")
    csp = index.headers["content-security-policy"]
    # 'unsafe-eval' only for Plotly's WebGL traces (regl compiles shaders with Function).
    assert "script-src 'self' 'unsafe-eval' 'sha256-" in csp
    done = subprocess.run(["node", str(REPO_ROOT / "tests/backend/csp_check.mjs"),
                           str(FRONTEND), api_server.url,
                           "/tradeoffs?machine=bench-01&machine=" + quote(EVIL)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert "failure" not in seen, seen
    assert seen["violations"] == [], seen
    assert [e for e in seen["errors"] if "Content Security Policy" in e] == [], seen
    assert seen["points"] > 0 and seen["docs_operations"] >= 20
    assert seen["history_trace_types"], seen
    # The hostile machine name is in the legend as the text it is, and no link exists.
    assert any(EVIL in text for text in seen["legend"]), seen["legend"]
    assert seen["links_in_plot"] == [], seen["links_in_plot"]
