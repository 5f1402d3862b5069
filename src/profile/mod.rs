//! Profiling and EXPLAIN of the two pipelines: ours (`fide`, [`crate::session`]) and the
//! seed replica (`seed`, [`crate::seed`]): the library side of `sqlchess profile`,
//! `sqlchess explain` and `sqlchess validate --profile`; the command line prints them.
//!
//! A profile runs a [`Workload`] (`workload.rs`: what runs on each pipeline, PGN files read
//! through [`crate::io::input`]) and reads the per-stage figures both pipelines record on
//! every stage run ([`crate::session::StageProfile`]): runs, output rows, wall time spent
//! creating physical plans (planning) and executing them (execution), DataFusion's
//! `elapsed_compute` summed over the operators of the executed plans, and their peak-memory
//! metrics. Each stage's share is its part of the summed execution wall time; planning is
//! reported separately. The report ([`ProfileReport`], `report.rs`) is a text table, a
//! record batch or JSON lines; [`explain()`] (`explain.rs`) gives the stages' plans, after a
//! workload with their metrics, as text, from the plans [`explain_plans`] collects (which
//! the pictures draw, as the profile's chart).
//!
//! Entry points: [`run_profile`] (`run.rs`), [`explain()`], [`explain_plans`],
//! [`ProfileReport::of_engines`].

mod explain;
mod report;
mod run;
mod workload;

pub use explain::{Explanation, PlanNode, StagePlans, explain, explain_plans};
pub use report::{ProfileReport, ProfileRow, format_bytes};
pub use run::run_profile;
pub use workload::{
    DEFAULT_POSITIONS, GAME_BATCH, POSITION_BATCH, Workload, parse_fens, start_positions,
};

use strum::{Display, EnumString, IntoStaticStr, VariantArray};

/// Which pipeline to profile or explain, named `fide` or `seed` ([`PipelineKind::as_str`],
/// `Display`; `FromStr` reads them).
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Display, EnumString, IntoStaticStr, VariantArray,
)]
#[strum(serialize_all = "lowercase")]
pub enum PipelineKind {
    /// Ours: the FIDE-exact stages of `plans/` ([`crate::session`]).
    #[default]
    Fide,
    /// The seed replica: the SAP blog's statement, `plans/seed/` ([`crate::seed`]).
    Seed,
}

impl PipelineKind {
    /// `"fide"` or `"seed"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}
