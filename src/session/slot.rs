//! Slot tables: in-memory tables whose batches are read when a plan *executes*, not when it
//! is planned.
//!
//! DataFusion's `MemTable` copies its batches into the physical plan when the plan is
//! created, so a physical plan over it answers for the data of that moment only. The
//! pipeline re-runs the same stages on new positions every ply; creating the physical plan
//! of a many-join stage each time costs milliseconds (more than executing it on a few
//! hundred positions). A [`SlotTable`] scan reads the table's current batches in
//! `execute`, so each stage's physical plan is created once and re-executed (after
//! `reset_plan_states`, which clears hash-join build sides and other per-run state).
//! Row counts are reported as estimates from the data present when the plan is created
//! (join build sides are chosen from them).

use std::fmt;
use std::sync::{Arc, RwLock};

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::Session;
use datafusion::common::Statistics;
use datafusion::common::stats::Precision;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::datasource::{TableProvider, TableType};
use datafusion::error::{DataFusionError, Result};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::logical_expr::Expr;
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::memory::MemoryStream;
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
    ReplaceChildrenOptions,
};

/// The batches of a slot, one vector per partition.
pub type SlotData = Arc<RwLock<Vec<Vec<RecordBatch>>>>;

/// A named in-memory table with a fixed schema and replaceable contents.
#[derive(Debug)]
pub struct SlotTable {
    name: String,
    schema: SchemaRef,
    data: SlotData,
    /// Filled once, when the session is made (a static table): its scans read the same
    /// rows at every run ([`super::lookup`] indexes them).
    is_static: bool,
}

impl SlotTable {
    /// An empty table with `partitions` partitions.
    pub fn new(name: &str, schema: SchemaRef, partitions: usize) -> SlotTable {
        SlotTable {
            name: name.to_string(),
            schema,
            data: Arc::new(RwLock::new(vec![vec![]; partitions.max(1)])),
            is_static: false,
        }
    }

    /// The table marked as static: filled once, when the session is made.
    pub fn into_static(self) -> SlotTable {
        SlotTable {
            is_static: true,
            ..self
        }
    }

    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The table's batches (shared with every scan of it).
    pub fn data(&self) -> &SlotData {
        &self.data
    }
}

#[async_trait]
impl TableProvider for SlotTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    /// A plan made for one partition (`target_partitions` 1: [`super::Session::run`]'s plans
    /// for few rows) reads all of the table's partitions as one.
    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        _limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        let partitions = self.data.read().map_err(poisoned)?.len();
        let merged = state.config().target_partitions() == 1 && partitions > 1;
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(if merged { 1 } else { partitions }),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Ok(Arc::new(SlotExec {
            name: self.name.clone(),
            data: self.data.clone(),
            projection: projection.cloned(),
            schema,
            properties: Arc::new(properties),
            is_static: self.is_static,
            merged,
        }))
    }
}

fn poisoned<T>(_: T) -> DataFusionError {
    DataFusionError::Internal("slot table lock poisoned".into())
}

/// Scan of a [`SlotTable`]: reads the table's batches of a partition when executed.
#[derive(Debug)]
pub struct SlotExec {
    name: String,
    data: SlotData,
    projection: Option<Vec<usize>>,
    schema: SchemaRef,
    properties: Arc<PlanProperties>,
    is_static: bool,
    /// One partition holding all of the table's (a plan made for one partition).
    merged: bool,
}

impl SlotExec {
    /// The table it scans.
    pub fn table(&self) -> &str {
        &self.name
    }

    /// Whether it scans a static table (see [`SlotTable::into_static`]).
    pub fn is_static(&self) -> bool {
        self.is_static
    }

    /// The same scan of another table of the same name and schema (a twin session's:
    /// [`super::Session::twin`]).
    pub(super) fn of_table(&self, table: &SlotTable) -> SlotExec {
        SlotExec {
            name: self.name.clone(),
            data: table.data().clone(),
            projection: self.projection.clone(),
            schema: self.schema.clone(),
            properties: self.properties.clone(),
            is_static: self.is_static,
            merged: self.merged,
        }
    }
}

impl DisplayAs for SlotExec {
    fn fmt_as(&self, _t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "SlotExec: table={}", self.name)
    }
}

impl ExecutionPlan for SlotExec {
    fn name(&self) -> &str {
        "SlotExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn replace_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
        _options: ReplaceChildrenOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn with_new_children(
        self: Arc<Self>,
        _children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        Ok(self)
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        // the row count at planning time, as an estimate: it orders the joins of a plan
        // that is then re-executed on similar data
        let data = self.data.read().map_err(poisoned)?;
        let rows: usize = match args.partition() {
            Some(p) if !self.merged => data
                .get(p)
                .map(|b| b.iter().map(RecordBatch::num_rows).sum())
                .unwrap_or(0),
            _ => data.iter().flatten().map(RecordBatch::num_rows).sum(),
        };
        Ok(Arc::new(
            Statistics::new_unknown(&self.schema).with_num_rows(Precision::Inexact(rows)),
        ))
    }

    fn execute(
        &self,
        partition: usize,
        _context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let data = self.data.read().map_err(poisoned)?;
        let batches = if self.merged {
            data.iter().flatten().cloned().collect()
        } else {
            data.get(partition).cloned().unwrap_or_default()
        };
        let batches = match &self.projection {
            Some(p) => batches
                .iter()
                .map(|b| b.project(p))
                .collect::<std::result::Result<Vec<_>, _>>()?,
            None => batches,
        };
        Ok(Box::pin(MemoryStream::try_new(
            batches,
            self.schema.clone(),
            None,
        )?))
    }
}
