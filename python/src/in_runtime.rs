//! Tables that scan inside the package's runtime. datafusion-python polls a foreign
//! table's `scan` future on its own tokio runtime, which is another library's: our code
//! would find no runtime there (`openings` replays its lines with `spawn_blocking`). Its
//! streams and `execute` already enter the runtime given to the FFI structs.
//!
//! A view (`explorer`'s table) is planned on a session of this side with the host's
//! configuration: the host's session would have to serialize the view's plan, whose
//! tables (our PGN scans) its codec does not know.

use std::borrow::Cow;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{Constraints, Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::{Expr, LogicalPlan, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;
use futures::future::BoxFuture;
use tokio::runtime::Handle;

/// A table whose `scan` runs inside the runtime of `handle`; everything else is the
/// inner table's.
#[derive(Debug)]
pub(crate) struct InRuntime {
    inner: Arc<dyn TableProvider>,
    handle: Handle,
}

impl InRuntime {
    /// `inner`, scanned inside `handle`'s runtime.
    pub(crate) fn new(inner: Arc<dyn TableProvider>, handle: Handle) -> InRuntime {
        InRuntime { inner, handle }
    }
}

#[async_trait]
impl TableProvider for InRuntime {
    fn schema(&self) -> SchemaRef {
        self.inner.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.inner.constraints()
    }

    fn table_type(&self) -> TableType {
        self.inner.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.inner.get_table_definition()
    }

    fn get_logical_plan(&'_ self) -> Option<Cow<'_, LogicalPlan>> {
        self.inner.get_logical_plan()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.inner.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let local;
        let state = if self.inner.get_logical_plan().is_some() {
            local = SessionStateBuilder::new()
                .with_config(state.config().clone())
                .with_runtime_env(state.runtime_env().clone())
                .with_default_features()
                .build();
            &local as &dyn Session
        } else {
            state
        };
        Entered {
            handle: self.handle.clone(),
            future: self.inner.scan(state, projection, filters, limit),
        }
        .await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.inner.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.inner.statistics()
    }
}

/// A table function whose tables are [`InRuntime`].
#[derive(Debug)]
pub(crate) struct InRuntimeFunction {
    inner: Arc<dyn TableFunctionImpl>,
    handle: Handle,
}

impl InRuntimeFunction {
    /// `inner`, its tables scanned inside `handle`'s runtime.
    pub(crate) fn new(inner: Arc<dyn TableFunctionImpl>, handle: Handle) -> InRuntimeFunction {
        InRuntimeFunction { inner, handle }
    }
}

impl TableFunctionImpl for InRuntimeFunction {
    fn call_with_args(&self, args: TableFunctionArgs) -> Result<Arc<dyn TableProvider>> {
        let table = self.inner.call_with_args(args)?;
        Ok(Arc::new(InRuntime::new(table, self.handle.clone())))
    }
}

/// A future polled with a runtime entered.
struct Entered<'a, T> {
    handle: Handle,
    future: BoxFuture<'a, T>,
}

impl<T> Future for Entered<'_, T> {
    type Output = T;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<T> {
        let _entered = self.handle.enter();
        self.future.as_mut().poll(cx)
    }
}
