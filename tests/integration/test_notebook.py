"""The report notebook runs top to bottom on a validation of the shipped sample."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from judge.config import load_app_settings
from validation.validate import ValidateJob, validate

pytestmark = [pytest.mark.integration, pytest.mark.slow]
NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "validation_report.ipynb"


async def test_notebook_executes_on_a_sample_report(tmp_path, monkeypatch):
    settings = load_app_settings(cache_path=str(tmp_path / "cache.sqlite"))
    out = tmp_path / "report"
    await validate(ValidateJob(out=out, limit=8, runs=2, n_boot=200), settings)
    monkeypatch.setenv("REPORT_DIR", str(out))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    )
    await client.async_execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 4
    assert "judge reference" in outputs[0]["text"]
