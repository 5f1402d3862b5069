//! [`StaticLookupExec`]: a hash join of a per-run input with a static side, done by probing
//! the static side's [`StaticIndex`] (built once, when the plan is made) instead of hashing
//! the static side again at every run.

use std::fmt;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, RecordBatchOptions};
use datafusion::arrow::array::{UInt32Array, UInt64Array};
use datafusion::arrow::compute::{filter, take};
use datafusion::arrow::datatypes::{SchemaRef, UInt32Type, UInt64Type};
use datafusion::common::JoinSide;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr, PhysicalExprRef};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::joins::utils::JoinFilter;
use datafusion::physical_plan::metrics::{BaselineMetrics, ExecutionPlanMetricsSet, MetricsSet};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    ChildrenPropertiesMode, DisplayAs, DisplayFormatType, ExecutionPlan, PlanProperties,
    ReplaceChildrenOptions,
};
use futures::StreamExt;

use super::bit_tests::BitTests;
use super::index::{StaticIndex, evaluate};
use crate::session::projection::count_output;

/// An inner equi-join (with or without a join filter) of a per-run input, its only child,
/// with a static side held as a [`StaticIndex`]: the same rows, in the same output schema,
/// as the `HashJoinExec` it stands for ([`super::static_lookups`]), at a cost per run of
/// the input's rows only, in batches of at most the session's `batch_size` rows. EXPLAIN
/// shows it with the static tables it indexes.
#[derive(Debug)]
pub struct StaticLookupExec {
    probe: Arc<dyn ExecutionPlan>,
    lookup: Arc<Lookup>,
    /// The static tables the index holds rows of.
    tables: Vec<String>,
    properties: Arc<PlanProperties>,
    metrics: ExecutionPlanMetricsSet,
}

/// What a probe batch is joined with, shared by the output streams.
#[derive(Debug)]
struct Lookup {
    index: Arc<StaticIndex>,
    /// The join keys over the probe side's rows.
    probe_keys: Vec<PhysicalExprRef>,
    /// Whether the static side was the join's left input (filter columns name sides).
    static_left: bool,
    filter: Option<JoinFilter>,
    /// The filter as bit tests on the columns' values, when it is a conjunction of them.
    bit_tests: Option<BitTests>,
    /// Each output column: from the static side or not, and its index there.
    columns: Vec<(bool, usize)>,
    schema: SchemaRef,
}

impl StaticLookupExec {
    /// The lookup standing for `join`, whose left input (`static_left`) or right input is
    /// static and indexed as `index` by its join keys.
    pub fn new(
        join: &HashJoinExec,
        static_left: bool,
        index: Arc<StaticIndex>,
        tables: Vec<String>,
    ) -> StaticLookupExec {
        let (probe, probe_keys) = super::join_input(join, !static_left);
        let probe = probe.clone();
        let left_width = join.left.schema().fields().len();
        let width = left_width + join.right.schema().fields().len();
        let columns = match join.projection.as_deref() {
            Some(p) => p.to_vec(),
            None => (0..width).collect(),
        }
        .into_iter()
        .map(|j| {
            if j < left_width {
                (static_left, j)
            } else {
                (!static_left, j - left_width)
            }
        })
        .collect();
        let schema = join.schema();
        // the output partitions are the per-run side's (a hash join's are its probe side's,
        // which was the static side when that was on the right)
        let properties = probe_properties(&schema, &probe);
        StaticLookupExec {
            probe,
            lookup: Arc::new(Lookup {
                index,
                probe_keys,
                static_left,
                filter: join.filter.clone(),
                bit_tests: join
                    .filter
                    .as_ref()
                    .and_then(|f| BitTests::of(f, static_left)),
                columns,
                schema,
            }),
            tables,
            properties,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }
}

impl Lookup {
    /// The joined rows of one probe batch, in batches of at most `chunk` rows (a probe row
    /// can meet many static rows: the join filter and the output are built a chunk of
    /// matching pairs at a time).
    fn join(&self, batch: &RecordBatch, chunk: usize) -> Result<Vec<RecordBatch>> {
        let keys = evaluate(batch, &self.probe_keys)?;
        // a filter of bit tests is tested at each pair as the index finds it
        let bound = self
            .bit_tests
            .as_ref()
            .and_then(|t| t.over(self.index.batch(), batch));
        let (statics, probes) = match &bound {
            Some(tests) => self.index.probe_kept(&keys, |s, p| tests.pass(s, p))?,
            None => self.index.probe(&keys)?,
        };
        let mut out = vec![];
        let chunk = chunk.max(1);
        for start in (0..statics.len()).step_by(chunk) {
            let len = chunk.min(statics.len() - start);
            let (s, p) = if bound.is_some() {
                (statics.slice(start, len), probes.slice(start, len))
            } else {
                self.filtered(batch, statics.slice(start, len), probes.slice(start, len))?
            };
            if s.is_empty() {
                continue;
            }
            // each probe row once, in order (a key of one static row each, all found): the
            // probe columns as they are
            let whole = p.len() == batch.num_rows()
                && p.values().iter().enumerate().all(|(i, &r)| r as usize == i);
            let columns = self
                .columns
                .iter()
                .map(|&(from_static, i)| {
                    if whole && !from_static {
                        Ok(batch.column(i).clone())
                    } else {
                        self.take(from_static, i, batch, &s, &p)
                    }
                })
                .collect::<Result<Vec<ArrayRef>>>()?;
            out.push(with_rows(self.schema.clone(), columns, s.len())?);
        }
        Ok(out)
    }

    /// The matching pairs (static rows, probe rows) that pass the join filter, if any.
    fn filtered(
        &self,
        batch: &RecordBatch,
        statics: UInt64Array,
        probes: UInt32Array,
    ) -> Result<(UInt64Array, UInt32Array)> {
        let Some(f) = &self.filter else {
            return Ok((statics, probes));
        };
        let columns = f
            .column_indices()
            .iter()
            .map(|c| {
                let from_static = (c.side == JoinSide::Left) == self.static_left;
                self.take(from_static, c.index, batch, &statics, &probes)
            })
            .collect::<Result<Vec<ArrayRef>>>()?;
        let rows = with_rows(f.schema().clone(), columns, statics.len())?;
        let mask = f
            .expression()
            .evaluate(&rows)?
            .into_array(rows.num_rows())?;
        let mask = mask
            .as_boolean_opt()
            .ok_or_else(|| DataFusionError::Internal("a join filter that is not Boolean".into()))?;
        Ok((
            filter(&statics, mask)?.as_primitive::<UInt64Type>().clone(),
            filter(&probes, mask)?.as_primitive::<UInt32Type>().clone(),
        ))
    }

    /// Column `index` of the static side or of the probe batch, at the matched rows.
    fn take(
        &self,
        from_static: bool,
        index: usize,
        batch: &RecordBatch,
        statics: &UInt64Array,
        probes: &UInt32Array,
    ) -> Result<ArrayRef> {
        Ok(if from_static {
            take(self.index.batch().column(index), statics, None)?
        } else {
            take(batch.column(index), probes, None)?
        })
    }
}

/// A lookup's properties: its output partitions are its probe side's; no ordering or
/// equivalence is claimed (the probe side's row order is kept all the same).
fn probe_properties(schema: &SchemaRef, probe: &Arc<dyn ExecutionPlan>) -> Arc<PlanProperties> {
    Arc::new(PlanProperties::new(
        EquivalenceProperties::new(schema.clone()),
        probe.properties().output_partitioning().clone(),
        EmissionType::Incremental,
        Boundedness::Bounded,
    ))
}

/// A batch of `columns` with `rows` rows (also when there are no columns: `count(*)`).
fn with_rows(schema: SchemaRef, columns: Vec<ArrayRef>, rows: usize) -> Result<RecordBatch> {
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    Ok(RecordBatch::try_new_with_options(
        schema, columns, &options,
    )?)
}

impl DisplayAs for StaticLookupExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let keys: Vec<String> = self
            .lookup
            .probe_keys
            .iter()
            .map(|k| k.to_string())
            .collect();
        write!(
            f,
            "StaticLookupExec: static={} ({} rows, {} keys), probe_keys=[{}]",
            self.tables.join(", "),
            self.lookup.index.batch().num_rows(),
            self.lookup.index.key_count(),
            keys.join(", ")
        )?;
        if let Some(filter) = &self.lookup.filter {
            write!(f, ", filter={}", filter.expression())?;
            if self.lookup.bit_tests.is_some() {
                write!(f, " (bit tests)")?;
            }
        }
        Ok(())
    }
}

impl ExecutionPlan for StaticLookupExec {
    fn name(&self) -> &str {
        "StaticLookupExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.probe]
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        let mut recursion = TreeNodeRecursion::Continue;
        for k in &self.lookup.probe_keys {
            recursion = f(k)?;
            if recursion == TreeNodeRecursion::Stop {
                return Ok(recursion);
            }
        }
        if let Some(filter) = &self.lookup.filter {
            recursion = f(filter.expression())?;
        }
        Ok(recursion)
    }

    fn replace_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
        options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let [probe] = <[_; 1]>::try_from(children)
            .map_err(|_| DataFusionError::Internal("StaticLookupExec takes one child".into()))?;
        // recomputed when the per-run side changed: a lookup made below this one (see
        // super::static_lookups) can change its partitions
        let properties = match options.children_properties {
            ChildrenPropertiesMode::Recompute => probe_properties(&self.lookup.schema, &probe),
            ChildrenPropertiesMode::Keep => self.properties.clone(),
        };
        Ok(Arc::new(StaticLookupExec {
            probe,
            lookup: self.lookup.clone(),
            tables: self.tables.clone(),
            properties,
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
        let chunk = context.session_config().batch_size();
        let input = self.probe.execute(partition, context)?;
        let metrics = BaselineMetrics::new(&self.metrics, partition);
        let lookup = self.lookup.clone();
        let joined = input.flat_map(move |batch| {
            let timer = metrics.elapsed_compute().timer();
            let out = batch.and_then(|b| lookup.join(&b, chunk));
            timer.done();
            let out: Vec<Result<RecordBatch>> = match out {
                Ok(batches) => batches
                    .into_iter()
                    .map(|b| {
                        count_output(&metrics, &b);
                        Ok(b)
                    })
                    .collect(),
                Err(e) => vec![Err(e)],
            };
            futures::stream::iter(out)
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.lookup.schema.clone(),
            joined,
        )))
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }
}
