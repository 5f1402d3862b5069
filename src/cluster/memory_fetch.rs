//! A limit pushed into an in-memory scan, kept as its own operator for the trip to the
//! executors (our scheduler's last physical optimizer rule).
//!
//! DataFusion's `LimitPushdown` moves a `LIMIT` into the scan under it. For an in-memory
//! scan (`legal_moves(fen)`, `VALUES`, a `CREATE TABLE … AS` table) that is
//! `MemorySourceConfig::fetch`, and on Ballista 55 it does not survive: the executors ran
//! `SELECT uci FROM legal_moves(…) LIMIT 2` whole (20 rows), and datafusion-proto 55 writes
//! the fetch as 32 bits, so the `skip + fetch` of an `OFFSET` (2^63) arrived as 0 and
//! `OFFSET 1` over three rows gave none. This rule takes the fetch out of the scan and puts
//! a `LocalLimitExec` with it above (the same rows: the fetch of a scan limits each of its
//! partitions); a fetch past 32 bits, which no in-memory table reaches, is dropped.

use std::sync::Arc;

use datafusion::catalog::memory::{DataSourceExec, MemorySourceConfig};
use datafusion::common::Result;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::datasource::source::DataSource;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::limit::LocalLimitExec;

/// The rule; see the module's text.
#[derive(Debug, Default)]
pub(crate) struct MemoryFetchAsLimit;

impl PhysicalOptimizerRule for MemoryFetchAsLimit {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        plan.transform_up(|node| {
            let Some(memory) = node
                .downcast_ref::<DataSourceExec>()
                .and_then(|exec| exec.data_source().downcast_ref::<MemorySourceConfig>())
            else {
                return Ok(Transformed::no(node));
            };
            let Some(fetch) = memory.fetch() else {
                return Ok(Transformed::no(node));
            };
            let scan: Arc<dyn ExecutionPlan> =
                DataSourceExec::from_data_source(memory.clone().with_limit(None));
            if u32::try_from(fetch).is_err() {
                return Ok(Transformed::yes(scan));
            }
            Ok(Transformed::yes(Arc::new(LocalLimitExec::new(scan, fetch))))
        })
        .data()
    }

    fn name(&self) -> &str {
        "memory_fetch_as_limit"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
