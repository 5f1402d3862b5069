//! Static tables probed, not hashed again: the hash joins of a stage's physical plan whose
//! one input reads only static tables ([`is_static`]) become [`StaticLookupExec`]s, which
//! probe an index of that input built once, when the plan is made ([`static_lookups`]).
//!
//! A stage's physical plan is made once and re-executed at every run (see
//! [`super::slot`]); a `HashJoinExec` hashes its build side again at each execution, and
//! when DataFusion picked the per-run input as the build side, it scans the whole static
//! table as its probe side. Either way each run costs the static table's rows. The lookup
//! costs the per-run input's rows only. This is how a database uses an index: the stage
//! SQL (the rule) is unchanged, its logical plan shows the join, its physical plan (EXPLAIN)
//! the `StaticLookupExec` with the tables it indexes.
//!
//! Replaced: inner joins on equal keys (with or without a join filter) where NULL keys
//! match nothing, with no row limit. Every other join stays a `HashJoinExec`. A join filter
//! of bit tests over UInt64 columns (`a & b <> 0`, `a & b = 0`) is tested at each matched
//! pair as the index finds it (`bit_tests`; EXPLAIN adds `(bit tests)` to the filter).

mod bit_tests;
mod exec;
mod index;

pub use exec::StaticLookupExec;
pub use index::StaticIndex;

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::compute::concat_batches;
use datafusion::common::tree_node::{Transformed, TreeNode, TreeNodeRecursion};
use datafusion::common::{JoinType, NullEquality};
use datafusion::error::Result;
use datafusion::execution::TaskContext;
use datafusion::physical_expr::PhysicalExprRef;
use datafusion::physical_plan::joins::HashJoinExec;
use datafusion::physical_plan::{ExecutionPlan, collect};

use super::slot::SlotExec;

/// Whether a plan reads only static tables: its leaves are all scans of a static
/// [`super::slot::SlotTable`]. Its rows are then the same at every run.
pub fn is_static(plan: &Arc<dyn ExecutionPlan>) -> bool {
    match plan.downcast_ref::<SlotExec>() {
        Some(scan) => scan.is_static(),
        None => {
            let children = plan.children();
            !children.is_empty() && children.iter().all(|c| is_static(c))
        }
    }
}

/// The static tables a plan reads, in plan order.
fn static_tables(plan: &Arc<dyn ExecutionPlan>) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    let _ = plan.apply(|node| {
        if let Some(scan) = node.downcast_ref::<SlotExec>()
            && !out.iter().any(|t| t == scan.table())
        {
            out.push(scan.table().to_string());
        }
        Ok(TreeNodeRecursion::Continue)
    });
    out
}

/// Whether a hash join can be a [`StaticLookupExec`], and then whether its static input is
/// the left one.
fn static_side(join: &HashJoinExec) -> Option<bool> {
    let replaceable = join.join_type == JoinType::Inner
        && join.null_equality == NullEquality::NullEqualsNothing
        && !join.null_aware
        && join.fetch().is_none();
    if !replaceable {
        return None;
    }
    match (is_static(&join.left), is_static(&join.right)) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// One input of a hash join, the left one or the right one, with its join keys.
fn join_input(join: &HashJoinExec, left: bool) -> (&Arc<dyn ExecutionPlan>, Vec<PhysicalExprRef>) {
    let keys = join
        .on
        .iter()
        .map(|(l, r)| if left { l } else { r }.clone())
        .collect();
    (if left { &join.left } else { &join.right }, keys)
}

/// `plan` with a [`StaticLookupExec`] in place of each hash join that can be one (see the
/// module's text). Each static input is run once here, with `context`, and indexed by its
/// join keys; the index's memory is reserved in `context`'s memory pool while the plan
/// lives.
///
/// Errors: a static input that fails to run, join keys that cannot be indexed, a memory
/// pool that cannot hold the index.
pub async fn static_lookups(
    plan: Arc<dyn ExecutionPlan>,
    context: Arc<TaskContext>,
) -> Result<Arc<dyn ExecutionPlan>> {
    // the joins first: building an index runs its static input, which is async
    let mut joins: Vec<(usize, bool, Arc<dyn ExecutionPlan>, Vec<_>)> = vec![];
    plan.apply(|node| {
        if let Some(join) = node.downcast_ref::<HashJoinExec>()
            && let Some(static_left) = static_side(join)
        {
            let (input, keys) = join_input(join, static_left);
            joins.push((address(node), static_left, input.clone(), keys));
        }
        Ok(TreeNodeRecursion::Continue)
    })?;
    if joins.is_empty() {
        return Ok(plan);
    }
    let mut indexes: HashMap<usize, (bool, Arc<StaticIndex>, Vec<String>)> = HashMap::new();
    for (at, static_left, input, keys) in joins {
        let batches = collect(input.clone(), context.clone()).await?;
        let batch = concat_batches(&input.schema(), &batches)?;
        let index = Arc::new(StaticIndex::build(batch, &keys, context.memory_pool())?);
        indexes.insert(at, (static_left, index, static_tables(&input)));
    }
    // top down, so that a join is met before any join below it is replaced (which would
    // make it anew, at another address)
    plan.transform_down(|node| {
        let found = indexes.remove(&address(&node));
        match (found, node.downcast_ref::<HashJoinExec>()) {
            (Some((static_left, index, tables)), Some(join)) => Ok(Transformed::yes(Arc::new(
                StaticLookupExec::new(join, static_left, index, tables),
            )
                as Arc<dyn ExecutionPlan>)),
            _ => Ok(Transformed::no(node)),
        }
    })
    .map(|t| t.data)
}

/// A plan node's address, naming it between two walks of the same plan.
fn address(node: &Arc<dyn ExecutionPlan>) -> usize {
    Arc::as_ptr(node).cast::<()>() as usize
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Int32Array, RecordBatch};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use datafusion::arrow::util::pretty::pretty_format_batches;
    use datafusion::physical_plan::displayable;

    use super::*;
    use crate::session::{PipelineConfig, Session, SessionSpec, StageKind, StageSql};

    const STAGES: [(&str, &str); 6] = [
        // one integer key and a join filter reading both sides
        (
            "filtered",
            "SELECT n.id, n.value, s.name FROM numbers n JOIN named s \
             ON s.k = n.value AND (s.name <> 'x' OR n.id > 1)",
        ),
        // two keys, one a string (the row-format index), the static side written first
        (
            "by_name",
            "SELECT n.id, s.k FROM named s JOIN numbers n \
             ON s.name = CAST(n.id AS VARCHAR) AND s.k = n.value",
        ),
        // no output column (count(*))
        (
            "counted",
            "SELECT count(*) AS c FROM numbers n JOIN named s ON s.k = n.value",
        ),
        // a static side that is itself a filtered join of static tables
        (
            "chained",
            "SELECT n.id, a.name, b.name AS other FROM numbers n \
             JOIN (SELECT * FROM named WHERE k > 1) a ON a.k = n.value \
             JOIN named b ON b.k = a.k",
        ),
        // a filter of bit tests over UInt64 columns of both sides, one of them with a NULL
        // (its pairs fail): tested pair by pair (`bit_tests`)
        (
            "bits",
            "SELECT n.id, s.name FROM \
             (SELECT id, value, CAST(value AS BIGINT UNSIGNED) AS value_bits, \
                     CASE WHEN id <> 3 THEN CAST(id AS BIGINT UNSIGNED) END AS id_bits \
              FROM numbers) n \
             JOIN (SELECT k, name, CAST(k AS BIGINT UNSIGNED) AS mask FROM named) s \
             ON s.k = n.value AND s.mask & n.value_bits <> 0 AND n.id_bits & s.mask & n.id_bits = 0",
        ),
        // lookups under a union (whose partitions are its inputs' partitions)
        (
            "unioned",
            "SELECT n.id, s.name FROM numbers n JOIN named s ON s.k = n.value \
             UNION ALL SELECT n.id, s.name FROM named s JOIN numbers n ON s.k = n.id",
        ),
    ];

    async fn session(lookups: bool, partitions: usize, batch_size: usize) -> Session {
        let numbers = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int32, true),
            Field::new("value", DataType::Int32, true),
        ]));
        let spec = SessionSpec {
            statics: vec![StageSql {
                name: "named",
                sql: "SELECT CAST(k AS INT) AS k, CAST(name AS VARCHAR) AS name FROM (VALUES \
                      (1, '1'), (2, 'x'), (2, '2'), (NULL, 'n'), (3, NULL), (3, '3')) t(k, name)",
                kind: StageKind::Table,
            }],
            inputs: vec![("numbers", numbers)],
            stages: STAGES
                .iter()
                .map(|(name, sql)| StageSql {
                    name,
                    sql,
                    kind: StageKind::Table,
                })
                .collect(),
            ..SessionSpec::default()
        };
        let config = PipelineConfig {
            target_partitions: partitions,
            batch_size,
            static_lookups: lookups,
            ..PipelineConfig::default()
        };
        Session::new(spec, &config).await.expect("session")
    }

    /// Sorted text of a stage's rows (without the header: none when there are no rows).
    fn rows(batches: &[RecordBatch]) -> Vec<String> {
        let text = pretty_format_batches(batches).expect("format").to_string();
        let mut lines: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with('|'))
            .skip(1)
            .map(str::to_string)
            .collect();
        lines.sort();
        lines
    }

    /// Every stage gives the same rows with its static joins as lookups as with DataFusion's
    /// hash joins, run after run on new input rows (NULL keys matching nothing, a filter
    /// over both sides, two keys, no output column, a static side made of static tables),
    /// on one partition and on two, in batches of the default size and of 2 rows (a probe
    /// row meeting several static rows: its output split); each plan shows a
    /// `StaticLookupExec` and no hash join with a static input is left.
    #[tokio::test]
    async fn lookups_give_the_hash_joins_rows() {
        for (partitions, batch_size) in [(1, 8192), (2, 8192), (1, 2), (2, 2)] {
            let with = session(true, partitions, batch_size).await;
            let without = session(false, partitions, batch_size).await;
            with.keep_last_plans(true);
            let inputs = [
                (vec![1, 2, 3, 4], vec![Some(1), Some(2), Some(3), None]),
                (vec![2, 3], vec![Some(2), Some(2)]),
                (vec![], vec![]),
                (vec![3, 1, 2], vec![Some(3), Some(9), Some(1)]),
            ];
            for (ids, values) in inputs {
                let batch = RecordBatch::try_from_iter(vec![
                    ("id", Arc::new(Int32Array::from(ids)) as _),
                    ("value", Arc::new(Int32Array::from(values)) as _),
                ])
                .expect("batch");
                for s in [&with, &without] {
                    s.set_table("numbers", vec![batch.clone()])
                        .await
                        .expect("set");
                }
                for (stage, _) in STAGES {
                    let a = with.run(stage).await.expect("with lookups");
                    let b = without.run(stage).await.expect("with hash joins");
                    assert_eq!(rows(&a), rows(&b), "{stage}, {partitions} partitions");
                    let plan = with.last_plan(stage).expect("plan kept");
                    let text = displayable(plan.as_ref()).indent(true).to_string();
                    assert!(text.contains("StaticLookupExec: static=named"), "{text}");
                    // only the filter of bit tests is tested as bit tests
                    assert_eq!(text.contains("(bit tests)"), stage == "bits", "{text}");
                    let mut left = 0;
                    plan.apply(|node| {
                        if let Some(join) = node.downcast_ref::<HashJoinExec>()
                            && static_side(join).is_some()
                        {
                            left += 1;
                        }
                        Ok(TreeNodeRecursion::Continue)
                    })
                    .expect("walk");
                    assert_eq!(left, 0, "{stage}: {text}");
                }
            }
            // the last input's rows, counted by hand: id 3 (value 3) meets k 3 twice (name
            // NULL and '3'), id 1 (value 9) nothing, id 2 (value 1) meets k 1
            let last = rows(&with.table("filtered").await.expect("table"));
            assert_eq!(last.len(), 3, "{last:?}");
            // by hand too: id 3 (id_bits NULL) fails, id 1 (value 9) meets nothing, id 2
            // (value 1: mask 1; 1 & 1 <> 0, 2 & 1 & 2 = 0) passes
            let bits = rows(&with.table("bits").await.expect("table"));
            assert_eq!(bits.len(), 1, "{bits:?}");
            assert!(bits[0].starts_with("| 2 "), "{bits:?}");
        }
    }
}
