//! Stage projections without per-expression metrics ([`StageProjectionExec`]).
//!
//! DataFusion 55's `ProjectionExec` names a metric after every expression each time it is
//! executed: it writes each expression out as SQL (`create_expression_metrics`). The
//! pipeline re-executes its cached physical plans once per ply on a few rows, and its
//! stages project long `CASE` expressions, so writing them out was about a fifth of a
//! ply's time when few games are left in play. [`lean_projections`] puts a
//! [`StageProjectionExec`] in place of every `ProjectionExec` of a stage's plan: the same
//! expressions (their inner types worked out once: [`super::known_type`]) evaluated by a
//! [`Projector`], with the operator's baseline metrics (`output_rows`, `output_batches`,
//! `elapsed_compute`) only.

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{RecordBatchStream, SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr::projection::Projector;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::projection::ProjectionExec;
use datafusion::physical_plan::{
    ChildrenPropertiesMode, DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties,
    ReplaceChildrenOptions,
};
use futures::{Stream, StreamExt};

use super::known_type::known_types;

/// `plan` with a [`StageProjectionExec`] in place of each `ProjectionExec`.
///
/// Errors: [`DataFusionError`] when a projection's expressions do not fit its input's
/// schema (they always do in a plan DataFusion made).
pub fn lean_projections(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
    plan.transform_up(|node| {
        if node.is::<ProjectionExec>() {
            Ok(Transformed::yes(StageProjectionExec::wrap(node)?))
        } else {
            Ok(Transformed::no(node))
        }
    })
    .map(|t| t.data)
}

/// A `ProjectionExec` executed without its per-expression metrics: same expressions,
/// properties, output schema and display (prefixed `Stage`).
#[derive(Debug)]
pub struct StageProjectionExec {
    /// The projection it stands for (its properties, expressions, input).
    inner: Arc<dyn ExecutionPlan>,
    projector: Projector,
    metrics: ExecutionPlanMetricsSet,
}

impl StageProjectionExec {
    /// Wraps a `ProjectionExec` (an `Internal` error for any other plan).
    fn wrap(inner: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>> {
        let projection = inner
            .downcast_ref::<ProjectionExec>()
            .ok_or_else(|| DataFusionError::Internal("not a ProjectionExec".into()))?;
        // the output schema's metadata as the planner gave it; each expression's inner
        // types worked out now, not at every batch
        let input = projection.input().schema();
        let projector = projection
            .projection_expr()
            .clone()
            .try_map_exprs(|e| known_types(e, &input))?
            .make_projector_with_schema_metadata(&input, &projection.schema())?;
        Ok(Arc::new(StageProjectionExec {
            inner,
            projector,
            metrics: ExecutionPlanMetricsSet::new(),
        }))
    }
}

impl DisplayAs for StageProjectionExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "Stage")?;
        self.inner.fmt_as(t, f)
    }
}

impl ExecutionPlan for StageProjectionExec {
    fn name(&self) -> &str {
        "StageProjectionExec"
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
        let inner = self.inner.clone().replace_children(children, options)?;
        match options.children_properties {
            // the same input schema (a reset before each run): the same projector, whose
            // output schema is costly to derive from long expressions
            ChildrenPropertiesMode::Keep => Ok(Arc::new(StageProjectionExec {
                inner,
                projector: self.projector.clone(),
                metrics: ExecutionPlanMetricsSet::new(),
            })),
            ChildrenPropertiesMode::Recompute => StageProjectionExec::wrap(inner),
        }
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
        let input = self
            .inner
            .children()
            .first()
            .ok_or_else(|| DataFusionError::Internal("a projection without input".into()))?
            .execute(partition, context)?;
        Ok(Box::pin(ProjectionStream {
            input,
            projector: self.projector.clone(),
            metrics: BaselineMetrics::new(&self.metrics, partition),
        }))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}

/// Counts an operator's output batch in its baseline metrics: rows and batches, not bytes.
/// DataFusion's `BaselineMetrics::record_poll` also counts bytes, walking every buffer of
/// every column (`get_record_batch_memory_size`): a few per cent of a replay step with its
/// hundreds of columns.
pub(crate) fn count_output(metrics: &BaselineMetrics, batch: &RecordBatch) {
    metrics.record_output(batch.num_rows());
    metrics.output_batches().add(1);
}

/// The batches of a [`StageProjectionExec`]'s input, projected.
struct ProjectionStream {
    input: SendableRecordBatchStream,
    projector: Projector,
    metrics: BaselineMetrics,
}

impl Stream for ProjectionStream {
    type Item = Result<RecordBatch>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let polled = self.input.poll_next_unpin(cx);
        let out = polled.map(|next| {
            next.map(|batch| {
                let _timer = self.metrics.elapsed_compute().timer();
                batch.and_then(|b| self.projector.project_batch(&b))
            })
        });
        match &out {
            Poll::Ready(Some(Ok(b))) => count_output(&self.metrics, b),
            Poll::Ready(_) => self.metrics.done(),
            Poll::Pending => {}
        }
        out
    }
}

impl RecordBatchStream for ProjectionStream {
    fn schema(&self) -> SchemaRef {
        self.projector.output_schema().clone()
    }
}
