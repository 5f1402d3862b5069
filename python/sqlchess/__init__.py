"""sqlchess from Python: a FIDE-exact chess rules engine that runs as DataFusion query plans.

Two ways in (docs/python.md):

- ``register(ctx)`` adds the chess table functions, scalar functions and the ``openings``
  table to a ``datafusion.SessionContext`` (datafusion-python 55) through its FFI capsules;
- without datafusion-python, ``sql(query)`` runs one statement on a session of sqlchess's
  own and returns a ``pyarrow.RecordBatchReader``; ``validate``, ``legal_moves`` and
  ``perft`` do what the command line's subcommands do.

Errors raise ``SqlchessError`` (message: the Rust error's text; ``kind``: its kind). Long
calls release the GIL; Ctrl-C raises ``KeyboardInterrupt`` (a stream is checked at least
every 100 ms while it waits for a batch).
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator, Union

import pyarrow as pa

from . import _sqlchess
from ._sqlchess import DATAFUSION_MAJOR, DATAFUSION_VERSION, SqlchessError

__version__: str = _sqlchess.__version__
__all__ = [
    "DATAFUSION_MAJOR",
    "DATAFUSION_VERSION",
    "SqlchessError",
    "legal_moves",
    "perft",
    "register",
    "sql",
    "validate",
]

PathLike = Union[str, "os.PathLike[str]"]


def _check_datafusion() -> Any:
    """The installed ``datafusion`` module, if its major version is the one this package
    was built for; ``ImportError`` naming both versions otherwise (the FFI structs change
    between majors: a mismatch must not reach them)."""
    try:
        import datafusion
    except ImportError as e:
        raise ImportError(
            f"sqlchess.register needs datafusion-python {DATAFUSION_MAJOR}.x "
            f"(pip install 'datafusion=={DATAFUSION_MAJOR}.*'): {e}"
        ) from e
    installed = str(getattr(datafusion, "__version__", "unknown"))
    major = installed.split(".", 1)[0]
    if major != str(DATAFUSION_MAJOR):
        raise ImportError(
            f"sqlchess was built for datafusion {DATAFUSION_VERSION} (major "
            f"{DATAFUSION_MAJOR}), but the installed datafusion is {installed}: "
            f"pip install 'datafusion=={DATAFUSION_MAJOR}.*', or build sqlchess against "
            f"datafusion {major}"
        )
    return datafusion


def register(ctx: Any, *, split_bytes: int | None = None) -> None:
    """Add every chess table function (``read_pgn``, ``read_plies``, ``legal_moves``,
    ``explorer``), every scalar function (``fen_after``, ``is_legal``, ``plies_of``, …) and
    the ``openings`` table to ``ctx``, a ``datafusion.SessionContext``.

    ``split_bytes``: a plain PGN file of at least twice this many bytes is read as several
    partitions (default 32 MiB; 0 never splits); the ``SET sqlchess.split_bytes`` of the
    command line does not cross the FFI.

    Raises ``ImportError`` when datafusion is missing or of another major version.
    """
    datafusion = _check_datafusion()
    if split_bytes is not None and split_bytes < 0:
        raise ValueError(f"split_bytes must be at least 0, not {split_bytes}")
    for f in _sqlchess.table_functions(split_bytes):
        ctx.register_udtf(datafusion.udtf(f, f.name))
    for f in _sqlchess.scalar_functions():
        ctx.register_udf(datafusion.udf(f))
    table = _sqlchess.openings_table()
    ctx.register_table(table.name, table)


def _reader(stream: Any) -> pa.RecordBatchReader:
    """A ``pyarrow.RecordBatchReader`` over a stream of the extension: each batch is read
    when the reader asks for it."""
    schema = pa.schema(stream)

    def batches() -> Iterator[pa.RecordBatch]:
        while (batch := stream.next_batch()) is not None:
            yield pa.record_batch(batch)

    return pa.RecordBatchReader.from_batches(schema, batches())


def sql(query: str) -> pa.RecordBatchReader:
    """The rows of one SQL statement on a session with every chess table and function (the
    command line's ``sqlchess sql``), as a stream: ``.read_all()`` gives a ``pyarrow.Table``;
    polars, pandas and duckdb read the reader as it is.

    Raises ``SqlchessError`` for a statement that does not parse or plan (kinds ``Sql``,
    ``Plan``, …), and while reading for a failure of the query.
    """
    return _reader(_sqlchess.sql(query))


def validate(
    paths: PathLike | Iterable[PathLike] = (),
    *,
    batch_size: int = 10_000,
    threads: int | None = None,
) -> pa.RecordBatchReader:
    """``sqlchess validate``'s report, one row per game: PGN files, directories or globs
    (``.zst``, ``.gz``, ``.bz2`` decompressed; none: the bundled sample of 20 games),
    ``batch_size`` games validated at a time on ``threads`` pipelines (default: the cores).

    Columns: file, game_index, plies, first_illegal_ply, error_kind, error_message,
    final_fen, final_status, white, black, event, date, result, start_fen,
    result_consistent (docs/python.md).

    Raises ``SqlchessError`` now for a path that does not exist or holds no PGN file, and
    while reading for an input that cannot be read.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if batch_size < 1:
        raise ValueError(f"batch_size must be at least 1, not {batch_size}")
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    return _reader(_sqlchess.validate([os.fspath(p) for p in paths], batch_size, threads))


def _literal(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def legal_moves(fen: str) -> pa.Table:
    """The legal moves of the position ``fen`` (the table function ``legal_moves``: uci,
    san, from and to squares, piece, promotion, flags, fen_after; docs/sql.md).

    Raises ``SqlchessError`` (kind ``Plan``) for a FEN that is not a legal position.
    """
    return sql(f"SELECT * FROM legal_moves({_literal(fen)})").read_all()


def perft(fen: str, depth: int, *, chess960: bool = False) -> int:
    """The number of leaf nodes of the legal move tree of ``fen``, ``depth`` plies deep
    (``sqlchess perft``). ``chess960``: Chess960 castling (without it, chosen when the
    castling rights can only mean Chess960).

    Raises ``SqlchessError`` (kind ``Fen``) for a FEN no legal game reaches.
    """
    if depth < 0:
        raise ValueError(f"depth must be at least 0, not {depth}")
    return _sqlchess.perft(fen, depth, chess960)
