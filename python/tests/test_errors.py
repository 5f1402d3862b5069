"""Bad input raises ``SqlchessError`` with the Rust error's text and kind; a datafusion of
another major version is refused before any FFI struct is made."""

from __future__ import annotations

import sys

import pytest

import sqlchess
from sqlchess import SqlchessError


def test_a_bad_path_raises() -> None:
    with pytest.raises(SqlchessError, match="no/such.pgn") as e:
        sqlchess.sql("SELECT count(*) FROM read_pgn('no/such.pgn')")
    assert e.value.kind == "Plan"
    with pytest.raises(SqlchessError, match="no/such.pgn") as e:
        sqlchess.validate("no/such.pgn")
    assert e.value.kind == "Io"


def test_a_file_that_is_not_pgn_raises_while_reading(tmp_path) -> None:
    path = tmp_path / "games.pgn"
    path.write_bytes(b"\xfd7zXZ\x00" + bytes(range(256)) * 4)  # xz-compressed
    with pytest.raises(SqlchessError, match="not a PGN file") as e:
        sqlchess.validate(path).read_all()
    assert e.value.kind == "NotPgn"
    reader = sqlchess.sql(f"SELECT count(*) FROM read_pgn('{path}')")
    with pytest.raises(SqlchessError, match="not a PGN file") as e:
        reader.read_all()
    assert e.value.kind == "NotPgn"
    # a failed stream never reads as a complete one: the error again, not an empty table
    with pytest.raises(SqlchessError, match="not a PGN file"):
        reader.read_all()


def test_validate_takes_globs_and_refuses_folders_without_games(tmp_path) -> None:
    assert sqlchess.validate("data/s*.pgn").read_all().num_rows == 20
    with pytest.raises(SqlchessError, match="no file matches") as e:
        sqlchess.validate("data/nothing*.pgn")
    assert e.value.kind == "Usage"
    with pytest.raises(SqlchessError, match="no PGN files") as e:
        sqlchess.validate(tmp_path)
    assert e.value.kind == "Usage"


def test_an_error_pickles_with_its_kind() -> None:
    import pickle

    with pytest.raises(SqlchessError) as e:
        sqlchess.sql("SELEC 1")
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is SqlchessError
    assert (str(again), again.kind) == (str(e.value), "Sql")
    assert SqlchessError("by hand").kind == "Error"


def test_a_huge_argument_is_not_echoed_whole() -> None:
    with pytest.raises(SqlchessError, match=r"\(1000000 characters\)") as e:
        sqlchess.perft("x" * 1_000_000, 1)
    assert len(str(e.value)) < 1_000
    with pytest.raises(SqlchessError, match=r"\(1000000 characters\)") as e:
        sqlchess.legal_moves("x" * 1_000_000)
    assert len(str(e.value)) < 1_000


def test_a_bad_fen_raises() -> None:
    with pytest.raises(SqlchessError, match="not a valid position") as e:
        sqlchess.legal_moves("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1")
    assert e.value.kind == "Plan"
    with pytest.raises(SqlchessError, match="invalid FEN") as e:
        sqlchess.perft("8/8/8/8/8/8/8/8 w - - 0 1", 1)
    assert e.value.kind == "Fen"
    # a quote in the FEN stays inside the literal
    with pytest.raises(SqlchessError, match="not a valid position"):
        sqlchess.legal_moves("x' OR '1")


def test_a_syntax_error_raises() -> None:
    with pytest.raises(SqlchessError, match="SELEC") as e:
        sqlchess.sql("SELEC 1")
    assert e.value.kind == "Sql"
    with pytest.raises(SqlchessError) as e:
        sqlchess.sql("  ")
    assert e.value.kind == "Usage"
    with pytest.raises(SqlchessError) as e:
        sqlchess.sql("SELECT no_such_column FROM read_pgn('data/sample.pgn')")
    assert e.value.kind == "Schema"


def test_bad_arguments_raise_before_the_call() -> None:
    import datafusion

    fen = "8/8/8/8/8/8/8/K1k5 w - - 0 1"
    for call, error, name in [
        (lambda: sqlchess.validate("data/sample.pgn", batch_size=0), ValueError, "batch_size"),
        (lambda: sqlchess.validate("data/sample.pgn", batch_size="8"), TypeError, "batch_size"),
        (lambda: sqlchess.validate("data/sample.pgn", threads=0), ValueError, "threads"),
        (lambda: sqlchess.validate([42]), TypeError, "int"),
        (lambda: sqlchess.perft(fen, -1), ValueError, "depth"),
        (lambda: sqlchess.perft(fen, "3"), TypeError, "depth"),
        (lambda: sqlchess.perft(fen, True), TypeError, "depth"),
        (lambda: sqlchess.perft(fen, 2**40), ValueError, "depth"),
        (lambda: sqlchess.perft(None, 1), TypeError, "fen"),
        (lambda: sqlchess.perft(fen, 1, chess960=1), TypeError, "chess960"),
        (lambda: sqlchess.legal_moves(None), TypeError, "fen"),
        (lambda: sqlchess.sql(b"SELECT 1"), TypeError, "query"),
        (lambda: sqlchess.register(None), TypeError, "SessionContext"),
        (lambda: sqlchess.register(datafusion.SessionContext(), split_bytes=-1), ValueError, "split_bytes"),
        (lambda: sqlchess.register(datafusion.SessionContext(), split_bytes="x"), TypeError, "split_bytes"),
    ]:
        with pytest.raises(error, match=name):
            call()
    # a bytes path is a path
    assert sqlchess.validate(b"data/sample.pgn").read_all().num_rows == 20


def test_errors_through_register() -> None:
    import datafusion

    ctx = datafusion.SessionContext()
    sqlchess.register(ctx)
    sqlchess.register(ctx)  # again: replaces, no error
    assert ctx.sql("SELECT count(*) AS n FROM read_pgn('data/sample.pgn')").to_pylist() == [{"n": 20}]
    with pytest.raises(Exception, match="no/such.pgn"):
        ctx.sql("SELECT count(*) FROM read_pgn('no/such.pgn')").collect()
    with pytest.raises(Exception, match="not a valid position"):
        ctx.sql("SELECT * FROM legal_moves('8/8/8 w - - 0 1')").collect()
    # a scalar function's rules: a bad FEN literal is a planning error, a bad FEN in a
    # column is NULL
    with pytest.raises(Exception, match="not a valid position"):
        ctx.sql("SELECT fen_after('nonsense', 'e4') AS f").collect()
    got = ctx.sql("SELECT fen_after(f, 'e4') AS a FROM (VALUES ('nonsense')) t(f)").to_pylist()
    assert got == [{"a": None}]


def test_another_datafusion_major_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import datafusion

    ctx = datafusion.SessionContext()
    monkeypatch.setattr(datafusion, "__version__", "54.1.0")
    with pytest.raises(ImportError) as e:
        sqlchess.register(ctx)
    message = str(e.value)
    assert "54.1.0" in message and sqlchess.DATAFUSION_VERSION in message
    # nothing was registered
    with pytest.raises(Exception, match="read_pgn"):
        ctx.sql("SELECT * FROM read_pgn('data/sample.pgn')").collect()


def test_no_datafusion_is_an_import_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datafusion", None)
    with pytest.raises(ImportError, match="datafusion"):
        sqlchess.register(object())
