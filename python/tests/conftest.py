"""Shared fixtures of the Python package's tests: the repository (examples read its
``data/`` and ``tests/data/``), the command line binary to compare with, the shared data."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pyarrow as pa
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cli_binary() -> pathlib.Path:
    """The ``sqlchess`` binary: ``SQLCHESS_BIN``, else the release build in the target dir."""
    given = os.environ.get("SQLCHESS_BIN")
    if given:
        return pathlib.Path(given)
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    return pathlib.Path(target) / "release" / "sqlchess"


@pytest.fixture(scope="session")
def cli() -> pathlib.Path:
    path = cli_binary()
    assert path.is_file(), f"no sqlchess binary at {path}: cargo build --release, or set SQLCHESS_BIN"
    return path


@pytest.fixture(scope="session")
def shared_data() -> pathlib.Path:
    """``../shared/data`` (``SQLCHESS_SHARED_DATA``): the tests that read it fail without it."""
    path = pathlib.Path(os.environ.get("SQLCHESS_SHARED_DATA", ROOT.parent / "shared" / "data"))
    assert path.is_dir(), f"no shared data at {path} (set SQLCHESS_SHARED_DATA)"
    return path


@pytest.fixture(scope="session")
def standard_glob(shared_data: pathlib.Path) -> str:
    """The shared standard games: every PGN file of ``pgn/`` but ``variants/``."""
    return f"{shared_data}/pgn/[!v]*/*.pgn"


@pytest.fixture(autouse=True)
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    """Relative paths of the docs' examples (``data/sample.pgn``) are the repository's."""
    monkeypatch.chdir(ROOT)


def cli_rows(cli: pathlib.Path, tmp: pathlib.Path, *args: str) -> pa.Table:
    """The rows the command line writes with ``--out rows.arrow`` (an Arrow IPC file)."""
    out = tmp / "rows.arrow"
    done = subprocess.run(
        [str(cli), *args[:1], "--out", str(out), *args[1:]],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode in (0, 1), f"{args}: exit {done.returncode}: {done.stderr}"
    with pa.ipc.open_file(out) as f:
        return f.read_all()


def rows(table: pa.Table) -> list[str]:
    """A table's rows, each as the repr of its dict, sorted: the rows as a multiset (a query
    without ORDER BY may give them in any order)."""
    return sorted(repr(r) for r in table.to_pylist())
