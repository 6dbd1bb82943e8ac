"""Screenshots of the browsable site for the README, from the shipped sample's validation.

    python -m validation.browse.screenshots [--report reports/sample]

Needs headless Chromium (`make test` installs Debian's package when run as root). Writes
`notebooks/browse-index.png` and `notebooks/browse-task.png`.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import tempfile
from pathlib import Path

from validation.browse.site import write_site

ROOT = Path(__file__).resolve().parents[2]
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def shoot(browser: str, page: Path, target: Path, size: str) -> None:
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", f"--window-size={size}",
             f"--screenshot={target}", page.as_uri()],
            capture_output=True, timeout=120, check=True,
        )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, default=ROOT / "reports" / "sample")
    parser.add_argument("--task", default="astropy__astropy-12907")
    args = parser.parse_args()
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        raise SystemExit("headless Chromium is needed (apt-get install chromium)")
    if not (args.report / "judgements.jsonl").exists():
        subprocess.run([str(ROOT / ".venv" / "bin" / "rubric-judge"), "validate", "--out",
                        str(args.report)], check=True)  # fmt: skip
    index = write_site(args.report, args.report / "browse")
    task = next((index.parent / "tasks").glob(f"{args.task}-*.html"))
    shoot(browser, index.parent / "worst-auc.html", ROOT / "notebooks" / "browse-index.png",
          "1300,800")  # fmt: skip
    shoot(browser, task, ROOT / "notebooks" / "browse-task.png", "1300,1000")
    print("wrote notebooks/browse-index.png and notebooks/browse-task.png")


if __name__ == "__main__":
    main()
