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
from validation.browse.screenshots import FLAGS
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
    dom = _dump(browser, hostile_report, tmp_path / "profile")
    assert "<h1>Validation report</h1>" in dom  # the page really loaded
    assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]
    assert "<title>PWNED</title>" not in dom
    assert "&lt;script&gt;" in dom


@pytest.fixture(scope="module")
def hostile_site(hostile_report):
    from validation.browse.site import write_site

    return write_site(hostile_report.parent, hostile_report.parent / "browse")


def _dump(browser: str, page, profile) -> str:
    command = [browser, *FLAGS, f"--user-data-dir={profile}", "--dump-dom", page.as_uri()]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=True).stdout


def test_browse_pages_escape_the_data(hostile_site):
    pages = [hostile_site, *sorted((hostile_site.parent / "tasks").glob("*.html"))]
    assert len(pages) == 4  # the index and three task pages
    for page in pages:
        html = page.read_text()
        for raw in (SCRIPT, IMG, LINK, "</textarea>"):
            assert raw not in html
        assert "<script" not in html and "Content-Security-Policy" in html
    task_html = pages[1].read_text()
    assert "&lt;script&gt;" in task_html  # the planted text is shown, as text


def test_browse_pages_in_a_browser_mark_the_pick_and_the_evidence(hostile_site, tmp_path):
    browser = _chromium()
    if browser is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing on CI: `make test` should have installed it")
        pytest.skip("chromium is not installed (make test installs it when run as root)")
    index = _dump(browser, hostile_site, tmp_path / "p1")
    assert "<h1>Run browser</h1>" in index
    assert "data-pwned" not in index.split("<body", 1)[1].split(">", 1)[0]  # nothing ran
    tasks = sorted((hostile_site.parent / "tasks").glob("*.html"))
    marked = 0
    for page in tasks:
        dom = _dump(browser, page, tmp_path / page.stem)
        assert "data-pwned" not in dom.split("<body", 1)[1].split(">", 1)[0]
        assert "<title>PWNED</title>" not in dom
        assert 'class="picked"' in dom and '<span class="tag">pick</span>' in dom
        marked += dom.count('<mark title="evidence for')
    assert marked > 0  # quoted evidence is highlighted in the diffs
