//! Execution figures of stages: DataFusion's operator metrics summed per stage run.

use std::time::Duration;

use datafusion::physical_plan::ExecutionPlan;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::metrics::MetricValue;

use super::lookup::is_static;

/// Execution figures of one stage, summed over its runs.
#[derive(Debug, Clone, Default)]
pub struct StageProfile {
    /// How many times the stage ran.
    pub runs: u64,
    /// Rows it produced, summed over runs.
    pub rows: u64,
    /// Wall time spent creating physical plans (after a stage's first run: resetting its
    /// cached physical plan).
    pub planning: Duration,
    /// Wall time spent executing (collecting) them.
    pub execution: Duration,
    /// DataFusion's `elapsed_compute` metric summed over every operator and partition of
    /// the stage's physical plans, over runs (CPU-bound work; with several partitions it
    /// can exceed the wall time).
    pub compute: Duration,
    /// The part of `compute` that hash joins spent on a static table's rows, over runs
    /// (see [`PlanMetrics::static_join`]).
    pub static_join: Duration,
    /// The largest, over runs, of the stage's summed operator peak memory (DataFusion's
    /// peak-memory metrics: hash join build sides, hash aggregates, …), in bytes; `None`
    /// if no operator of the stage reports one.
    pub peak_memory: Option<u64>,
    /// The stages fused into this one ([`super::StageKind::View`]): their work is in these
    /// figures, as they run inside its plan.
    pub fused: Vec<&'static str>,
}

impl StageProfile {
    /// Adds another profile of the same stage (e.g. from another pipeline): runs, rows and
    /// times summed, peak memory the larger.
    pub fn merge(&mut self, other: &StageProfile) {
        self.runs += other.runs;
        self.rows += other.rows;
        self.planning += other.planning;
        self.execution += other.execution;
        self.compute += other.compute;
        self.static_join += other.static_join;
        self.peak_memory = match (self.peak_memory, other.peak_memory) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
    }

    /// Adds one run: its output rows, planning and execution wall times, and the metrics of
    /// its executed physical plan (see [`plan_metrics`]).
    pub fn add_run(
        &mut self,
        rows: usize,
        planning: Duration,
        execution: Duration,
        metrics: &PlanMetrics,
    ) {
        self.runs += 1;
        self.rows += rows as u64;
        self.planning += planning;
        self.execution += execution;
        self.compute += metrics.compute;
        self.static_join += metrics.static_join;
        if let Some(m) = metrics.peak_memory {
            self.peak_memory = Some(self.peak_memory.map_or(m, |p| p.max(m)));
        }
    }
}

/// DataFusion execution metrics of one executed physical plan, summed over its operators.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PlanMetrics {
    /// Rows the root operator produced (`output_rows`); `None` if it reports none.
    pub output_rows: Option<u64>,
    /// `elapsed_compute` summed over all operators and partitions.
    pub compute: Duration,
    /// Time hash joins spent on the rows of a static table ([`super::lookup::is_static`]):
    /// hashing them (`build_time`, the static side built) or probing them all (`join_time`,
    /// the static side probed); zero where [`super::lookup`] made those joins lookups.
    pub static_join: Duration,
    /// Peak-memory metrics (`MetricValue::PeakMemoryUsage`: `peak_mem_used`,
    /// `build_mem_used`, `max_mem_used`) summed over all operators and partitions, in bytes;
    /// `None` if no operator reports one.
    pub peak_memory: Option<u64>,
}

/// Walks an executed physical plan and sums its operators' metrics (`plan.metrics()` of
/// every node; see [`PlanMetrics`]). Call it after the plan ran: before, the figures are 0.
pub fn plan_metrics(plan: &dyn ExecutionPlan) -> PlanMetrics {
    fn walk(plan: &dyn ExecutionPlan, nanos: &mut u64, statics: &mut u64, mem: &mut Option<u64>) {
        if let Some(join) = plan.downcast_ref::<HashJoinExec>()
            && let Some(set) = plan.metrics()
        {
            let metric = if is_static(&join.left) {
                Some("build_time")
            } else if is_static(&join.right) {
                Some("join_time")
            } else {
                None
            };
            if let Some(v) = metric.and_then(|m| set.sum_by_name(m)) {
                *statics += v.as_usize() as u64;
            }
        }
        if let Some(set) = plan.metrics() {
            *nanos += set.elapsed_compute().unwrap_or(0) as u64;
            for m in set.iter() {
                if let MetricValue::PeakMemoryUsage { gauge, .. } = m.value() {
                    *mem = Some(mem.unwrap_or(0) + gauge.value() as u64);
                }
            }
        }
        for child in plan.children() {
            walk(child.as_ref(), nanos, statics, mem);
        }
    }
    let (mut nanos, mut statics, mut mem) = (0u64, 0u64, None);
    walk(plan, &mut nanos, &mut statics, &mut mem);
    PlanMetrics {
        output_rows: plan
            .metrics()
            .and_then(|m| m.output_rows())
            .map(|r| r as u64),
        compute: Duration::from_nanos(nanos),
        static_join: Duration::from_nanos(statics),
        peak_memory: mem,
    }
}
