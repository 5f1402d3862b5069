//! Errors as Python exceptions: [`SqlchessError`] with the Rust error's text and its kind.

use datafusion::error::DataFusionError;
use pyo3::PyErr;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    _sqlchess,
    SqlchessError,
    PyException,
    "An error of sqlchess: its message is the Rust error's text, its attribute `kind` the \
     error's kind (`Fen`, `Io`, `NotPgn`, `Plan`, `Sql`, `Execution`, …)."
);

/// An error on its way to Python: its kind and text (both `Send`, so that a stream's
/// worker can hand it over).
#[derive(Debug)]
pub(crate) struct Failure {
    kind: &'static str,
    message: String,
}

impl Failure {
    /// A failure of `kind` saying `message`.
    pub(crate) fn new(kind: &'static str, message: String) -> Failure {
        Failure { kind, message }
    }
}

impl From<sqlchess::Error> for Failure {
    fn from(e: sqlchess::Error) -> Failure {
        let kind = match &e {
            sqlchess::Error::DataFusion(inner) => kind_of(inner),
            other => other.kind(),
        };
        Failure::new(kind, e.to_string())
    }
}

impl From<DataFusionError> for Failure {
    fn from(e: DataFusionError) -> Failure {
        Failure::new(kind_of(&e), e.to_string())
    }
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        Python::attach(|py| {
            let err = SqlchessError::new_err(f.message);
            // an exception instance takes attributes; failing that, the message still goes
            let _ = err.value(py).setattr("kind", f.kind);
            err
        })
    }
}

/// The kind of a DataFusion error: ours ([`sqlchess::Error::kind`]) when it carries one of
/// ours, else its variant (`Plan`, `Sql`, `Execution`, `Arrow`, `Io`, …).
fn kind_of(e: &DataFusionError) -> &'static str {
    use DataFusionError as D;
    match e {
        D::External(inner) => match inner.downcast_ref::<sqlchess::Error>() {
            Some(sqlchess::Error::DataFusion(d)) => kind_of(d),
            Some(ours) => ours.kind(),
            None => "External",
        },
        D::Context(_, inner) | D::Diagnostic(_, inner) => kind_of(inner),
        D::Shared(inner) => kind_of(inner),
        D::Collection(all) => all.first().map_or("Collection", kind_of),
        D::ArrowError(..) => "Arrow",
        D::IoError(..) => "Io",
        D::SQL(..) => "Sql",
        D::NotImplemented(..) => "NotImplemented",
        D::Internal(..) => "Internal",
        D::Plan(..) => "Plan",
        D::Configuration(..) => "Configuration",
        D::SchemaError(..) => "Schema",
        D::Execution(..) | D::ExecutionJoin(..) => "Execution",
        D::ResourcesExhausted(..) => "ResourcesExhausted",
        _ => "DataFusion",
    }
}
