"""Type stubs of the extension module ``sqlchess._sqlchess`` (python/src/lib.rs); use the
package's functions (``sqlchess.sql``, ``sqlchess.register``, …) rather than these."""

from typing import Any

__version__: str
DATAFUSION_VERSION: str
"""The DataFusion this module was built with ("55.2.0")."""
DATAFUSION_MAJOR: int
"""The datafusion-ffi major version of its FFI structs (55): datafusion-python must match."""

class SqlchessError(Exception):
    """An error of sqlchess: ``str(e)`` is the Rust error's text."""

    kind: str
    """The error's kind: ``Fen``, ``Io``, ``NotPgn``, ``Usage``, ``Plan``, ``Sql``,
    ``Execution``, ``Arrow``, ``Session``, ``Internal``, …"""

class TableFunction:
    """A table function as datafusion-python takes a foreign one."""

    @property
    def name(self) -> str: ...
    def __datafusion_table_function__(self, session: Any) -> Any: ...

class ScalarFunction:
    """A scalar function as datafusion-python takes a foreign one."""

    @property
    def name(self) -> str: ...
    def __datafusion_scalar_udf__(self) -> Any: ...

class Table:
    """A table as datafusion-python takes a foreign one."""

    @property
    def name(self) -> str: ...
    def __datafusion_table_provider__(self, session: Any) -> Any: ...

class ArrowBatch:
    """One record batch (Arrow PyCapsule interface)."""

    def __arrow_c_array__(self, requested_schema: Any = None) -> tuple[Any, Any]: ...
    def __len__(self) -> int: ...

class BatchStream:
    """Record batches of one schema, read one at a time."""

    def __arrow_c_schema__(self) -> Any: ...
    def next_batch(self) -> ArrowBatch | None: ...

def table_functions(split_bytes: int | None = None) -> list[TableFunction]: ...
def scalar_functions() -> list[ScalarFunction]: ...
def openings_table() -> Table: ...
def sql(query: str) -> BatchStream: ...
def validate(paths: list[str], batch_size: int = 10000, threads: int | None = None) -> BatchStream: ...
def perft(fen: str, depth: int, chess960: bool = False) -> int: ...
