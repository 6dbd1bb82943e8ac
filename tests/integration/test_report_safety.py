"""Reports are safe to open: data text is escaped, and no script from the data runs in a real
browser (headless Chromium from Debian's packages, installed by `make test`)."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess

import pytest

from judge.config import load_app_settings
from validation.sample import SAMPLE_CANDIDATES, SAMPLE_TASKS
from validation.validate import ValidateJob, validate

pytestmark = pytest.mark.integration

SCRIPT = "<script>document.body.setAttribute('data-pwned','1');document.title='PWNED'</script>"
IMG = "<img src=x onerror=\"document.body.setAttribute('data-pwned','2')\">"
LINK = "<a href=\"javascript:document.body.setAttribute('data-pwned','3')\">click</a>"
TEXTAREA = "</textarea></table>" + SCRIPT


@pytest.fixture(scope="module")
def hostile_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("safety")
    with gzip.open(SAMPLE_TASKS, "rt") as handle:
        tasks = [json.loads(line) for line in handle][:3]
    planted = f"    assert render('{SCRIPT}') == expected  # {LINK}"
    tasks[0]["test_patch"] += f"\n+{planted}\n"
    tasks[0]["problem_statement"] += f"\n{planted.strip()}\n{IMG}\n"
    (root / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    ids = {t["instance_id"] for t in tasks}
    with gzip.open(SAMPLE_CANDIDATES, "rt") as handle:
        rows = [json.loads(line) for line in handle if json.loads(line)["instance_id"] in ids]
    for number, row in enumerate(rows):
        row["system"] = [SCRIPT, IMG, LINK, TEXTAREA][number % 4] + " agent"
        row["model_patch"] += f"\n+# {SCRIPT} {TEXTAREA}\n" if row["model_patch"] else ""
    (root / "candidates.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    settings = load_app_settings(sets=[f"llm.cache_path={root / 'c.sqlite'}"])
    job = ValidateJob(
        out=root / "report",
        data=str(root / "tasks.jsonl"),
        candidates=(str(root / "candidates.jsonl"),),
        runs=1,
        n_boot=50,
        hostile=True,
    )
    import asyncio

    asyncio.run(validate(job, settings))
    return root / "report" / "report.html"


def test_data_text_is_escaped(hostile_report):
    html = hostile_report.read_text()
    assert "&lt;script&gt;" in html  # the system names are shown, as text
    for raw in (SCRIPT, IMG, LINK, "</textarea>"):
        assert raw not in html
    assert html.count("<script") == 0
    assert "Content-Security-Policy" in html


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_no_script_from_the_data_runs_in_a_browser(hostile_report, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing on CI: `make test` should have installed it")
        pytest.skip("chromium is not installed (make test installs it when run as root)")
    command = [
        browser,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom",
        hostile_report.as_uri(),
    ]
    dom = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout
    assert "<h1>Validation report</h1>" in dom  # the page really loaded
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]
    assert "<title>PWNED</title>" not in dom
    assert "&lt;script&gt;" in dom
