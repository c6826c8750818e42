"""A non-editable install (`pip install .`) finds every resource through importlib.resources.

Builds the wheel (pip, isolated build: needs the package index, as set-up does), installs it
into a scratch directory without dependencies and runs it there, away from this checkout.
Part of the `build` group that packaging/check.sh runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import read_resource
from core.resources import resource_root
from tests.conftest import PASSPHRASE

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys
import core, resources
from core import read_resource, resource_path
from core.resources import resource_root
from ui.presentation import icon
from ui.style import stylesheet
print(json.dumps({
    "core": core.__file__, "root": str(resource_root()),
    "files": sorted(str(p.relative_to(resource_root())) for p in resource_root().rglob("*")
                    if p.is_file() and p.suffix != ".pyc"),
    "template": read_resource("templates", "memory_block.txt"),
    "qss": len(stylesheet(False)),
    "qm": resource_path("i18n", "memory_center_zh_CN.qm").is_file(),
}))
"""


def _pip(*args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    scratch = tmp_path_factory.mktemp("install")
    _pip("wheel", "--no-deps", "-w", str(scratch / "wheel"), str(ROOT))
    (wheel,) = (scratch / "wheel").glob("memory_center-*.whl")
    _pip("install", "--no-deps", "--target", str(scratch / "site"), str(wheel))
    return scratch / "site"


def _python(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # -P: not the current directory on sys.path; the installed copy comes first.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=str(site), QT_QPA_PLATFORM="offscreen")
    env.update(MEMORY_CENTER_PASSPHRASE=PASSPHRASE, MEMORY_CENTER_EMBEDDER="hashing")
    env.update(PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    return subprocess.run(
        [sys.executable, "-P", *args],
        env=env,
        cwd=site.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_installed_copy_finds_every_resource(site: Path) -> None:
    done = _python(site, "-c", PROBE)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    assert Path(got["core"]).is_relative_to(site) and Path(got["root"]) == site / "resources"
    wanted = {
        str(p.relative_to(resource_root()))
        for p in resource_root().rglob("*")
        if p.is_file() and p.suffix in (".txt", ".qss", ".svg", ".qm", ".json")
    }
    assert wanted <= set(got["files"])
    assert "models/all-MiniLM-L6-v2/tokenizer.json" in wanted  # MiniLM's tokenizer ships
    assert [f for f in got["files"] if f.endswith((".ts", ".py")) and f != "__init__.py"] == []
    assert got["template"] == read_resource("templates", "memory_block.txt")
    assert got["qss"] > 1000 and got["qm"] is True


def test_the_installed_cli_renders_the_shipped_template(site: Path, tmp_path: Path) -> None:
    cli = "from app.cli import main; main()"
    store = ["--data-dir", str(tmp_path / "store")]
    remember = [*store, "remember", "--scope", "user=alice", "--text", "I prefer pnpm"]
    for args in ([*store, "init"], remember):
        made = _python(site, "-c", cli, *args)
        assert made.returncode == 0, made.stderr
    inject = [*store, "inject", "--scope", "user=alice", "--budget", "200", "pnpm"]
    done = _python(site, "-c", cli, *inject)
    assert done.returncode == 0, done.stderr
    header = read_resource("templates", "memory_block.txt").splitlines()[0]
    assert done.stdout.splitlines()[0] == header
