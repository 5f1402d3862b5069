//! The report of a profile: one [`ProfileRow`] per stage in a [`ProfileReport`], written as a
//! text table, a record batch or JSON lines.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{ArrayRef, Float64Array, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::engine::Engine;
use crate::error::Result;
use crate::io::report::{self, Format};
use crate::session::StageProfile;

use super::PipelineKind;

/// One stage's row of a profile.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileRow {
    /// Stage name (a file of `plans/` or `plans/seed/`).
    pub stage: String,
    /// The stages fused into it, run inside its plan: its figures include their work
    /// ([`StageProfile::fused`]).
    pub fused: Vec<String>,
    /// How many times it ran.
    pub runs: u64,
    /// Output rows, summed over runs.
    pub rows: u64,
    /// Wall time creating physical plans.
    pub planning: Duration,
    /// Wall time executing them.
    pub execution: Duration,
    /// DataFusion `elapsed_compute`, summed over operators, partitions and runs.
    pub compute: Duration,
    /// The part of `compute` hash joins spent on a static table's rows (zero where the
    /// static table is an index lookup, see [`crate::session::lookup`]).
    pub static_join: Duration,
    /// Percentage of the summed execution time of all stages.
    pub share: f64,
    /// Largest summed operator peak memory of a run, in bytes, where DataFusion reports it.
    pub peak_memory: Option<u64>,
}

impl ProfileRow {
    /// The stage's name with the stages fused into it after `+` (`legal_moves+castling`).
    pub fn named(&self) -> String {
        std::iter::once(self.stage.as_str())
            .chain(self.fused.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join("+")
    }
}

/// A profile: the pipeline, what ran, and one row per stage that ran (in stage order).
#[derive(Debug, Clone)]
pub struct ProfileReport {
    /// The pipeline.
    pub pipeline: PipelineKind,
    /// The workload, described.
    pub input: String,
    /// Wall time of the whole workload (loading and moving batches included), if measured.
    pub wall: Option<Duration>,
    /// Per-stage rows.
    pub rows: Vec<ProfileRow>,
}

impl ProfileReport {
    /// Builds the rows from the per-stage figures of [`crate::Pipeline::profile`] or
    /// [`crate::seed::SeedPipeline::profile`].
    pub fn from_stages(
        pipeline: PipelineKind,
        input: String,
        wall: Option<Duration>,
        stages: &[(String, StageProfile)],
    ) -> ProfileReport {
        let total: f64 = stages.iter().map(|(_, p)| p.execution.as_secs_f64()).sum();
        let rows = stages
            .iter()
            .map(|(name, p)| ProfileRow {
                stage: name.clone(),
                fused: p.fused.iter().map(|f| f.to_string()).collect(),
                runs: p.runs,
                rows: p.rows,
                planning: p.planning,
                execution: p.execution,
                compute: p.compute,
                static_join: p.static_join,
                share: if total > 0.0 {
                    100.0 * p.execution.as_secs_f64() / total
                } else {
                    0.0
                },
                peak_memory: p.peak_memory,
            })
            .collect();
        ProfileReport {
            pipeline,
            input,
            wall,
            rows,
        }
    }

    /// The profile of everything the engines' pipelines have run since they were made (or
    /// their profiles were reset), summed over engines stage by stage (peak memory: the
    /// largest), with no workload description and no wall time (`sqlchess validate
    /// --profile`).
    pub fn of_engines(engines: &[Engine]) -> ProfileReport {
        let mut stages: Vec<(String, StageProfile)> = vec![];
        for engine in engines {
            for (name, p) in engine.pipeline().profile() {
                match stages.iter_mut().find(|(n, _)| *n == name) {
                    Some((_, sum)) => sum.merge(&p),
                    None => stages.push((name, p)),
                }
            }
        }
        ProfileReport::from_stages(PipelineKind::Fide, String::new(), None, &stages)
    }

    /// Planning wall time summed over stages.
    pub fn planning(&self) -> Duration {
        self.rows.iter().map(|r| r.planning).sum()
    }

    /// Execution wall time summed over stages.
    pub fn execution(&self) -> Duration {
        self.rows.iter().map(|r| r.execution).sum()
    }

    /// DataFusion `elapsed_compute` summed over stages.
    pub fn compute(&self) -> Duration {
        self.rows.iter().map(|r| r.compute).sum()
    }

    /// The rows as a text table (stage, runs, rows, plan ms, exec ms, compute ms, static
    /// ms, share, peak memory, and the stages fused into it after `+`), a total line and a
    /// line with planning, execution and wall times.
    pub fn to_table(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<18} {:>5} {:>11} {:>9} {:>10} {:>11} {:>9} {:>6} {:>10}  fused",
            "stage",
            "runs",
            "rows",
            "plan ms",
            "exec ms",
            "compute ms",
            "static ms",
            "share",
            "peak mem"
        );
        for r in &self.rows {
            let fused: String = r.fused.iter().map(|f| format!("+{f}")).collect();
            let line = format!(
                "{:<18} {:>5} {:>11} {:>9.1} {:>10.1} {:>11.1} {:>9.1} {:>5.1}% {:>10}  {fused}",
                r.stage,
                r.runs,
                r.rows,
                ms(r.planning),
                ms(r.execution),
                ms(r.compute),
                ms(r.static_join),
                r.share,
                r.peak_memory.map_or_else(|| "-".to_string(), format_bytes)
            );
            let _ = writeln!(s, "{}", line.trim_end());
        }
        let _ = writeln!(
            s,
            "{:<18} {:>5} {:>11} {:>9.1} {:>10.1} {:>11.1} {:>9.1} {:>5.1}% {:>10}",
            "total",
            self.rows.iter().map(|r| r.runs).sum::<u64>(),
            self.rows.iter().map(|r| r.rows).sum::<u64>(),
            ms(self.planning()),
            ms(self.execution()),
            ms(self.compute()),
            ms(self.rows.iter().map(|r| r.static_join).sum()),
            self.rows.iter().map(|r| r.share).sum::<f64>(),
            ""
        );
        let _ = write!(
            s,
            "planning {:.1} ms, execution {:.1} ms (stage wall times), DataFusion compute {:.1} ms",
            ms(self.planning()),
            ms(self.execution()),
            ms(self.compute())
        );
        if let Some(w) = self.wall {
            let _ = write!(s, "; workload wall time {:.1} ms", ms(w));
        }
        s.push('\n');
        s
    }

    /// Schema of [`ProfileReport::to_batch`]: `pipeline`, `stage`, `fused` Utf8 (the
    /// stages fused into it, comma-separated; empty if none), `runs`, `rows` UInt64,
    /// `planning_ms`, `execution_ms`, `compute_ms`, `static_join_ms`, `share_pct` Float64,
    /// `peak_memory_bytes` UInt64 (nullable).
    pub fn schema() -> SchemaRef {
        let f = |n: &str, t: DataType| Field::new(n, t, false);
        Arc::new(Schema::new(vec![
            f("pipeline", DataType::Utf8),
            f("stage", DataType::Utf8),
            f("fused", DataType::Utf8),
            f("runs", DataType::UInt64),
            f("rows", DataType::UInt64),
            f("planning_ms", DataType::Float64),
            f("execution_ms", DataType::Float64),
            f("compute_ms", DataType::Float64),
            f("static_join_ms", DataType::Float64),
            f("share_pct", DataType::Float64),
            Field::new("peak_memory_bytes", DataType::UInt64, true),
        ]))
    }

    /// The rows (not the total) as one record batch of [`ProfileReport::schema`].
    ///
    /// Errors: [`Error::Arrow`](crate::Error::Arrow).
    pub fn to_batch(&self) -> Result<RecordBatch> {
        let r = &self.rows;
        let ms = |g: fn(&ProfileRow) -> Duration| {
            Arc::new(Float64Array::from_iter_values(
                r.iter().map(|x| g(x).as_secs_f64() * 1e3),
            )) as ArrayRef
        };
        Ok(RecordBatch::try_new(
            ProfileReport::schema(),
            vec![
                Arc::new(StringArray::from_iter_values(
                    r.iter().map(|_| self.pipeline.as_str()),
                )),
                Arc::new(StringArray::from_iter_values(
                    r.iter().map(|x| x.stage.as_str()),
                )),
                Arc::new(StringArray::from_iter_values(
                    r.iter().map(|x| x.fused.join(",")),
                )),
                Arc::new(UInt64Array::from_iter_values(r.iter().map(|x| x.runs))),
                Arc::new(UInt64Array::from_iter_values(r.iter().map(|x| x.rows))),
                ms(|x| x.planning),
                ms(|x| x.execution),
                ms(|x| x.compute),
                ms(|x| x.static_join),
                Arc::new(Float64Array::from_iter_values(r.iter().map(|x| x.share))),
                Arc::new(r.iter().map(|x| x.peak_memory).collect::<UInt64Array>()),
            ],
        )?)
    }

    /// Writes the rows as JSON lines (one object per stage, fields as in
    /// [`ProfileReport::schema`]; a null peak memory is left out).
    ///
    /// Errors: [`Error::Io`](crate::Error::Io), [`Error::Arrow`](crate::Error::Arrow).
    pub fn write_json(&self, path: &Path) -> Result<()> {
        report::write_batches(
            path,
            Format::Json,
            ProfileReport::schema(),
            &[self.to_batch()?],
        )
    }
}

/// `1.5 MiB`, `12 KiB`, `512 B`.
pub fn format_bytes(b: u64) -> String {
    const KIB: f64 = 1024.0;
    let f = b as f64;
    if f >= KIB * KIB * KIB {
        format!("{:.1} GiB", f / (KIB * KIB * KIB))
    } else if f >= KIB * KIB {
        format!("{:.1} MiB", f / (KIB * KIB))
    } else if f >= KIB {
        format!("{:.0} KiB", f / KIB)
    } else {
        format!("{b} B")
    }
}
