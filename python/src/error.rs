//! Errors as Python exceptions: `sqlchess.SqlchessError(message, kind)` (a class of the
//! package's Python side, so that it pickles) with the Rust error's text and its kind.

use datafusion::error::DataFusionError;
use pyo3::PyErr;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;

/// An error on its way to Python: its kind and text (both `Send`, so that a stream's
/// worker can hand it over, and `Clone`, so that a failed stream raises it at every read).
#[derive(Debug, Clone)]
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
            let class = py
                .import("sqlchess")
                .and_then(|m| m.getattr("SqlchessError"))
                .and_then(|c| Ok(c.cast_into::<PyType>()?));
            match class {
                Ok(class) => PyErr::from_type(class, (f.message, f.kind)),
                // the package's Python side is not importable: the text still goes out
                Err(_) => PyRuntimeError::new_err(format!("{}: {}", f.kind, f.message)),
            }
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
