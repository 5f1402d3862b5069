//! The chess functions as datafusion-python 55 takes foreign ones: objects with a method
//! that returns a PyCapsule of a datafusion-ffi 55 struct (`__datafusion_table_function__`,
//! `__datafusion_scalar_udf__`, `__datafusion_table_provider__`), registered by
//! `sqlchess.register(ctx)`.

use std::sync::Arc;

use datafusion::catalog::{TableFunctionImpl, TableProvider};
use datafusion::logical_expr::ScalarUDF;
use datafusion_ffi::proto::logical_extension_codec::FFI_LogicalExtensionCodec;
use datafusion_ffi::table_provider::FFI_TableProvider;
use datafusion_ffi::udf::FFI_ScalarUDF;
use datafusion_ffi::udtf::FFI_TableFunction;
use datafusion_python_util::ffi_logical_codec_from_pycapsule;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use tokio::runtime::Handle;

use crate::in_runtime::{InRuntime, InRuntimeFunction};
use crate::runtime;

/// A table function (`read_pgn`, `read_plies`, `legal_moves`, `explorer`) for
/// `ctx.register_udtf(datafusion.udtf(f, f.name))`.
#[pyclass(module = "sqlchess._sqlchess", frozen)]
pub struct TableFunction {
    name: &'static str,
    function: Arc<dyn TableFunctionImpl>,
}

impl TableFunction {
    /// `function` under `name`.
    pub(crate) fn new(name: &'static str, function: Arc<dyn TableFunctionImpl>) -> TableFunction {
        TableFunction { name, function }
    }
}

#[pymethods]
impl TableFunction {
    /// The function's SQL name.
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// The function as an `FFI_TableFunction` in a capsule named `datafusion_table_function`,
    /// with `session`'s logical codec; its tables scan on the package's runtime.
    fn __datafusion_table_function__<'py>(
        &self,
        py: Python<'py>,
        session: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let (codec, handle) = session_parts(session)?;
        let function = Arc::new(InRuntimeFunction::new(
            self.function.clone(),
            handle.clone(),
        ));
        let ffi = FFI_TableFunction::new_with_ffi_codec(function, Some(handle), codec);
        PyCapsule::new_with_value(py, ffi, c"datafusion_table_function")
    }

    fn __repr__(&self) -> String {
        format!("<sqlchess table function {}>", self.name)
    }
}

/// A scalar function (`fen_after`, `is_legal`, `plies_of`, …) for
/// `ctx.register_udf(datafusion.udf(f))`.
#[pyclass(module = "sqlchess._sqlchess", frozen)]
pub struct ScalarFunction(ScalarUDF);

impl ScalarFunction {
    /// `udf` for Python.
    pub(crate) fn new(udf: ScalarUDF) -> ScalarFunction {
        ScalarFunction(udf)
    }
}

#[pymethods]
impl ScalarFunction {
    /// The function's SQL name.
    #[getter]
    fn name(&self) -> &str {
        self.0.name()
    }

    /// The function as an `FFI_ScalarUDF` in a capsule named `datafusion_scalar_udf`.
    fn __datafusion_scalar_udf__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyCapsule>> {
        let ffi = FFI_ScalarUDF::from(Arc::new(self.0.clone()));
        PyCapsule::new_with_value(py, ffi, c"datafusion_scalar_udf")
    }

    fn __repr__(&self) -> String {
        format!("<sqlchess scalar function {}>", self.0.name())
    }
}

/// A table (`openings`) for `ctx.register_table(name, t)`.
#[pyclass(module = "sqlchess._sqlchess", frozen)]
pub struct Table {
    name: &'static str,
    provider: Arc<dyn TableProvider>,
}

impl Table {
    /// `provider` under `name`.
    pub(crate) fn new(name: &'static str, provider: Arc<dyn TableProvider>) -> Table {
        Table { name, provider }
    }
}

#[pymethods]
impl Table {
    /// The table's SQL name.
    #[getter]
    fn name(&self) -> &'static str {
        self.name
    }

    /// The table as an `FFI_TableProvider` in a capsule named `datafusion_table_provider`,
    /// with `session`'s logical codec; it scans on the package's runtime.
    fn __datafusion_table_provider__<'py>(
        &self,
        py: Python<'py>,
        session: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let (codec, handle) = session_parts(session)?;
        let provider = Arc::new(InRuntime::new(self.provider.clone(), handle.clone()));
        let ffi = FFI_TableProvider::new_with_ffi_codec(provider, false, Some(handle), codec);
        PyCapsule::new_with_value(py, ffi, c"datafusion_table_provider")
    }

    fn __repr__(&self) -> String {
        format!("<sqlchess table {}>", self.name)
    }
}

/// What a foreign object made for `session` carries: the session's logical codec (from its
/// capsule) and the package's runtime, which its scans and streams enter.
fn session_parts(session: Bound<'_, PyAny>) -> PyResult<(FFI_LogicalExtensionCodec, Handle)> {
    Ok((
        ffi_logical_codec_from_pycapsule(session, None)?,
        runtime::handle()?,
    ))
}
