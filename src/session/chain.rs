//! Partitions read one after another ([`ChainPartitionsExec`]) in plans made for one
//! partition.
//!
//! A plan made for one partition still has operators of several output partitions: a
//! `UNION ALL` has one per branch. DataFusion 55 merges them with a
//! `CoalescePartitionsExec`, which spawns a task per input partition and passes their
//! batches through a channel: a thread woken per branch at every run. On the few rows such
//! a plan runs on (one position's legal moves, one ply of replay), that is a measurable part
//! of the run. [`chain_partitions`] puts a [`ChainPartitionsExec`] in place of each
//! `CoalescePartitionsExec` whose input repartitions nothing: the same rows, read partition
//! by partition in the caller's task.

use std::fmt;
use std::sync::Arc;

use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::coalesce_partitions::CoalescePartitionsExec;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::repartition::RepartitionExec;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    ChildrenPropertiesMode, DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties,
    ReplaceChildrenOptions,
};
use futures::{StreamExt, TryStreamExt};

use super::projection::count_output;

/// `plan` with a [`ChainPartitionsExec`] in place of each `CoalescePartitionsExec` without a
/// row limit whose input has no `RepartitionExec` (a repartition's outputs are fed side by
/// side: reading them one after another could wait on a full channel), and above its root
/// when that has several partitions (which `collect` would merge with tasks of its own).
///
/// Errors: [`DataFusionError`] from rebuilding the plan (none for a plan DataFusion made).
pub fn chain_partitions(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    let plan = chain_coalesces(plan)?;
    if plan.properties().output_partitioning().partition_count() > 1 && !repartitions(&plan)? {
        return chain_coalesces(Arc::new(CoalescePartitionsExec::new(plan)));
    }
    Ok(plan)
}

/// `plan` with its `CoalescePartitionsExec`s chained (see [`chain_partitions`]).
fn chain_coalesces(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        let Some(coalesce) = node.downcast_ref::<CoalescePartitionsExec>() else {
            return Ok(Transformed::no(node));
        };
        if coalesce.fetch().is_some() || repartitions(coalesce.input())? {
            return Ok(Transformed::no(node));
        }
        Ok(Transformed::yes(Arc::new(ChainPartitionsExec {
            inner: node.clone(),
            metrics: ExecutionPlanMetricsSet::new(),
        }) as Arc<dyn ExecutionPlan>))
    })
    .map(|t| t.data)
}

/// Whether `plan` or an operator below it is a `RepartitionExec`.
fn repartitions(plan: &Arc<dyn ExecutionPlan>) -> Result<bool> {
    let mut found = false;
    plan.apply(|node| {
        found = node.is::<RepartitionExec>();
        Ok(if found {
            TreeNodeRecursion::Stop
        } else {
            TreeNodeRecursion::Continue
        })
    })?;
    Ok(found)
}

/// A `CoalescePartitionsExec` executed in the caller's task: its input's partitions read
/// one after another into its one output partition. Same properties and output as the
/// operator it stands for; its display is prefixed `Chain`.
#[derive(Debug)]
pub struct ChainPartitionsExec {
    /// The `CoalescePartitionsExec` it stands for (its properties and input).
    inner: Arc<dyn ExecutionPlan>,
    metrics: ExecutionPlanMetricsSet,
}

impl DisplayAs for ChainPartitionsExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Chain")?;
        self.inner.fmt_as(t, f)
    }
}

impl ExecutionPlan for ChainPartitionsExec {
    fn name(&self) -> &str {
        "ChainPartitionsExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.inner.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        self.inner.children()
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        self.inner.apply_expressions(f)
    }

    fn replace_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
        options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(Arc::new(ChainPartitionsExec {
            inner: self.inner.clone().replace_children(children, options)?,
            metrics: ExecutionPlanMetricsSet::new(),
        }))
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.replace_children(
            children,
            ReplaceChildrenOptions::new(ChildrenPropertiesMode::Recompute),
        )
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        if partition != 0 {
            return Err(DataFusionError::Internal(format!(
                "ChainPartitionsExec has one partition, not {partition}"
            )));
        }
        let input = self
            .inner
            .children()
            .first()
            .map(|c| Arc::clone(c))
            .ok_or_else(|| DataFusionError::Internal("a coalesce without input".into()))?;
        let metrics = BaselineMetrics::new(&self.metrics, partition);
        let partitions = input.properties().output_partitioning().partition_count();
        let schema = input.schema();
        let batches = futures::stream::iter(0..partitions)
            .map(move |p| input.execute(p, Arc::clone(&context)))
            .try_flatten()
            .inspect(move |batch| match batch {
                Ok(b) => count_output(&metrics, b),
                Err(_) => metrics.done(),
            });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, batches)))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}
