"""sqlchess from Python: a FIDE-exact chess rules engine that runs as DataFusion query plans.

Two ways in (docs/python.md):

- ``register(ctx)`` adds the chess table functions, scalar functions and the ``openings``
  table to a ``datafusion.SessionContext`` (datafusion-python 55) through its FFI capsules;
- without datafusion-python, ``sql(query)`` runs SQL statements on a session of sqlchess's
  own and returns the last one's rows as a ``pyarrow.RecordBatchReader``; ``validate``,
  ``legal_moves`` and ``perft`` do what the command line's subcommands do.

Errors raise ``SqlchessError`` (message: the Rust error's text; ``kind``: its kind); bad
arguments ``TypeError`` or ``ValueError``. Long calls release the GIL; Ctrl-C raises
``KeyboardInterrupt`` within 0.1 s (``validate``: between batches).
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Iterator, Union

import pyarrow as pa


class SqlchessError(Exception):
    """An error of sqlchess: ``str(e)`` is the Rust error's text, ``e.kind`` its kind
    (``Fen``, ``Io``, ``NotPgn``, ``Usage``, ``Session``; DataFusion's ``Sql``, ``Plan``,
    ``Schema``, ``Execution``, …; ``Error`` when made by hand)."""

    def __init__(self, message: str, kind: str = "Error") -> None:
        super().__init__(message)
        self.kind = kind


from . import _sqlchess  # noqa: E402  (it raises SqlchessError, defined above)
from ._sqlchess import DATAFUSION_MAJOR, DATAFUSION_VERSION  # noqa: E402

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

PathLike = Union[str, bytes, "os.PathLike[str]"]


def _integer(name: str, value: Any, minimum: int, maximum: int = 2**64 - 1) -> int:
    """``value`` if it is an int (not a bool) from ``minimum`` to ``maximum``; ``TypeError``
    or ``ValueError`` naming the argument otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not minimum <= value <= maximum:
        raise ValueError(f"{name} must be from {minimum} to {maximum}, not {value}")
    return value


def _text(name: str, value: Any) -> str:
    """``value`` if it is a str; ``TypeError`` naming the argument otherwise."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    return value


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
    installed = str(getattr(datafusion, "__version__", "of an unknown version"))
    if installed.split(".", 1)[0] != str(DATAFUSION_MAJOR):
        raise ImportError(
            f"sqlchess was built for datafusion {DATAFUSION_VERSION} (major "
            f"{DATAFUSION_MAJOR}), but the installed datafusion is {installed}: "
            f"pip install 'datafusion=={DATAFUSION_MAJOR}.*', or build sqlchess against "
            f"the installed datafusion"
        )
    return datafusion


def register(ctx: Any, *, split_bytes: int | None = None) -> None:
    """Add every chess table function (``read_pgn``, ``read_plies``, ``legal_moves``,
    ``explorer``), every scalar function (``fen_after``, ``is_legal``, ``plies_of``, …) and
    the ``openings`` table to ``ctx``, a ``datafusion.SessionContext``.

    ``split_bytes``: a plain PGN file of at least twice this many bytes is read as several
    partitions (default 32 MiB; 0 never splits); the ``SET sqlchess.split_bytes`` of the
    command line does not cross the FFI.

    Registering again replaces what the first call registered.

    Raises ``ImportError`` when datafusion is missing or of another major version,
    ``TypeError`` when ``ctx`` is no ``datafusion.SessionContext``.
    """
    datafusion = _check_datafusion()
    if not isinstance(ctx, datafusion.SessionContext):
        raise TypeError(f"ctx must be a datafusion.SessionContext, not {type(ctx).__name__}")
    if split_bytes is not None:
        _integer("split_bytes", split_bytes, 0)
    for f in _sqlchess.table_functions(split_bytes):
        ctx.register_udtf(datafusion.udtf(f, f.name))
    for f in _sqlchess.scalar_functions():
        ctx.register_udf(datafusion.udf(f))
    table = _sqlchess.openings_table()
    if ctx.table_exist(table.name):
        ctx.deregister_table(table.name)
    ctx.register_table(table.name, table)


class _Batches:
    """The batches of a stream of the extension, each read when asked for. An iterator
    object, not a generator: after ``KeyboardInterrupt`` it reads on where it was, and after
    an error it raises that error again (a generator would end, and the reader with it, as
    if the rows were complete)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __iter__(self) -> Iterator[pa.RecordBatch]:
        return self

    def __next__(self) -> pa.RecordBatch:
        batch = self._stream.next_batch()
        if batch is None:
            raise StopIteration
        return pa.record_batch(batch)


def _reader(stream: Any) -> pa.RecordBatchReader:
    """A ``pyarrow.RecordBatchReader`` over a stream of the extension."""
    return pa.RecordBatchReader.from_batches(pa.schema(stream), _Batches(stream))


def sql(query: str) -> pa.RecordBatchReader:
    """The rows of the last of the SQL statements in ``query`` (``;``-separated, run in
    order) on a session like the command line's ``sqlchess sql`` (every chess table and
    function, ``SET sqlchess.split_bytes``, file paths as tables), as a stream:
    ``.read_all()`` gives a ``pyarrow.Table``; polars, pandas and duckdb read the reader as
    it is. Its schema is the query's.

    Raises ``SqlchessError`` for no statement (kind ``Usage``) or one that does not parse or
    plan (``Sql``, ``Plan``, ``Schema``, …), and while reading for a failure of the query
    (then again at every later read).
    """
    return _reader(_sqlchess.sql(_text("query", query)))


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

    Raises ``SqlchessError`` now for a path that does not exist, a glob that matches nothing
    or no PGN file found, and while reading for an input that cannot be read.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    paths = [os.fsdecode(p) for p in paths]
    _integer("batch_size", batch_size, 1)
    if threads is not None:
        _integer("threads", threads, 1, 1024)
    return _reader(_sqlchess.validate(paths, batch_size, threads))


def _literal(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def legal_moves(fen: str) -> pa.Table:
    """The legal moves of the position ``fen``, one row per move ordered by ``uci`` (the
    table function ``legal_moves``, docs/sql.md): move_code int32, color string (w/b),
    piece string, from_sq int32, to_sq int32 (a1 = 0 … h8 = 63), promotion string, captured
    string, is_capture bool, is_en_passant bool, is_castling bool, cap_sq int32, rook_from
    int32, rook_to int32, from_name string, to_name string, uci string, san string,
    is_check bool, is_mate bool. Checkmate and stalemate give no rows.

    Raises ``SqlchessError`` (kind ``Plan``) for a FEN that is not a legal position.
    """
    return sql(f"SELECT * FROM legal_moves({_literal(_text('fen', fen))})").read_all()


def perft(fen: str, depth: int, *, chess960: bool = False) -> int:
    """The number of leaf nodes of the legal move tree of ``fen``, ``depth`` plies deep
    (``sqlchess perft``). ``chess960``: Chess960 castling (without it, chosen when the
    castling rights can only mean Chess960).

    Raises ``SqlchessError`` (kind ``Fen``) for a FEN no legal game reaches.
    """
    _integer("depth", depth, 0, 2**32 - 1)
    if not isinstance(chess960, bool):
        raise TypeError(f"chess960 must be a bool, not {type(chess960).__name__}")
    return _sqlchess.perft(_text("fen", fen), depth, chess960)
