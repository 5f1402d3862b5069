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
    with pytest.raises(SqlchessError, match="not a PGN file") as e:
        sqlchess.sql(f"SELECT count(*) FROM read_pgn('{path}')").read_all()
    assert e.value.kind == "NotPgn"


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
    with pytest.raises(ValueError, match="batch_size"):
        sqlchess.validate("data/sample.pgn", batch_size=0)
    with pytest.raises(ValueError, match="depth"):
        sqlchess.perft("8/8/8/8/8/8/8/K1k5 w - - 0 1", -1)
    with pytest.raises(ValueError, match="split_bytes"):
        import datafusion

        sqlchess.register(datafusion.SessionContext(), split_bytes=-1)


def test_errors_through_register() -> None:
    import datafusion

    ctx = datafusion.SessionContext()
    sqlchess.register(ctx)
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
