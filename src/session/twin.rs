//! A session's twin: another session of the same spec with tables of its own, made from the
//! first one's plans instead of planning its SQL again. Parsing and planning every stage is
//! most of the cost of making a session (a validator and the SQL functions' pool make one
//! per core, a validator while the input is being read); a twin's plans are the first session's with every table scan
//! pointed at the twin's own tables, so the two run side by side on different data.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::dataframe::DataFrame;
use datafusion::datasource::{TableProvider, provider_as_source};
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::ExecutionPlan;

use super::slot::{SlotExec, SlotTable};
use super::{LazyPlan, PipelineConfig, Result, Session, SessionError, StageKind};

impl Session {
    /// Another session of this one's spec, made with `config` (its memory share and batch
    /// size; this one's partitions and static lookups): its own input, static and stage tables
    /// (the static tables filled with this session's rows), this session's logical plans
    /// and the physical plans made so far, each scan reading the twin's table of the same
    /// name. What runs on one does not touch the other. No SQL is parsed or planned.
    ///
    /// Errors: [`SessionError::DataFusion`] registering a table; [`SessionError::Poisoned`];
    /// the memory limit's ([`Session::set_table`]) for the static tables.
    pub async fn twin(&self, config: &PipelineConfig) -> Result<Session> {
        // the plans were made for this session's partitions and joins
        let config = PipelineConfig {
            target_partitions: self.partitions,
            static_lookups: self.static_lookups,
            ..config.clone()
        };
        let mut t = Session::bare(self.spec.clone(), &config);
        t.base = self.base.clone();
        t.order = self.order.clone();
        t.reads = self.reads.clone();
        // the twin's providers by name: its tables, then its views as they are made
        let mut providers: HashMap<String, Arc<dyn TableProvider>> = HashMap::new();
        for (name, table) in &self.tables {
            let own = SlotTable::new(name, table.schema(), t.partitions);
            let own = Arc::new(if self.is_static(name) {
                own.into_static()
            } else {
                own
            });
            t.ctx.register_table(*name, own.clone())?;
            providers.insert(name.to_string(), own.clone());
            t.tables.insert(name, own);
        }
        for (alias, name) in &self.spec.aliases {
            let table = t.table_ref(name)?.clone();
            t.ctx.register_table(*alias, table.clone())?;
            providers.insert(alias.to_string(), table);
        }
        for st in &self.spec.stages {
            match st.kind {
                StageKind::View => {
                    let view = self.ctx.table_provider(st.name).await?;
                    let plan = view
                        .get_logical_plan()
                        .map(|p| p.into_owned())
                        .ok_or_else(|| SessionError::UnknownTable(st.name.to_string()))?;
                    let plan = rescan(plan, &providers)?;
                    let own = DataFrame::new(t.ctx.state(), plan).into_view();
                    t.ctx.register_table(st.name, own.clone())?;
                    providers.insert(st.name.to_string(), own);
                    t.views.insert(st.name);
                }
                StageKind::Table | StageKind::Query => {}
            }
            let lazy = self
                .plans
                .get(st.name)
                .ok_or_else(|| SessionError::UnknownTable(st.name.to_string()))?;
            let optimized = OnceLock::new();
            if let Some(p) = lazy.optimized.get() {
                let _ = optimized.set(rescan(p.clone(), &providers)?);
            }
            let raw = rescan(lazy.raw.clone(), &providers)?;
            t.plans.insert(st.name, LazyPlan { raw, optimized });
        }
        let physical: Vec<(&'static str, Arc<dyn ExecutionPlan>)> = self
            .physical
            .lock()
            .map_err(|_| SessionError::Poisoned)?
            .iter()
            .map(|(n, p)| (*n, p.clone()))
            .collect();
        let mut own = HashMap::new();
        for (name, plan) in physical {
            own.insert(name, rescan_physical(plan, &t.tables)?);
        }
        *t.physical.lock().map_err(|_| SessionError::Poisoned)? = own;
        for st in &self.spec.statics {
            let name = st.name;
            let batches: Vec<_> = {
                let rows = self.table_ref(name)?.data().read();
                let rows = rows.map_err(|_| SessionError::Poisoned)?;
                rows.iter().flatten().cloned().collect()
            };
            t.set_table(name, batches).await?;
        }
        Ok(t)
    }
}

/// `plan` with each table scan (in subqueries too) reading the provider of its table's name
/// in `providers`.
fn rescan(
    plan: LogicalPlan,
    providers: &HashMap<String, Arc<dyn TableProvider>>,
) -> Result<LogicalPlan> {
    Ok(plan
        .transform_up_with_subqueries(|node| match node {
            LogicalPlan::TableScan(mut scan) => match providers.get(scan.table_name.table()) {
                Some(p) => {
                    scan.source = provider_as_source(p.clone());
                    Ok(Transformed::yes(LogicalPlan::TableScan(scan)))
                }
                None => Ok(Transformed::no(LogicalPlan::TableScan(scan))),
            },
            other => Ok(Transformed::no(other)),
        })?
        .data)
}

/// `plan` with each slot scan reading the table of its name in `tables`.
fn rescan_physical(
    plan: Arc<dyn ExecutionPlan>,
    tables: &HashMap<&'static str, Arc<SlotTable>>,
) -> Result<Arc<dyn ExecutionPlan>> {
    Ok(plan
        .transform_up(|node| {
            let Some(scan) = node.downcast_ref::<SlotExec>() else {
                return Ok(Transformed::no(node));
            };
            match tables.get(scan.table()) {
                Some(table) => Ok(Transformed::yes(
                    Arc::new(scan.of_table(table)) as Arc<dyn ExecutionPlan>
                )),
                None => Ok(Transformed::no(node)),
            }
        })?
        .data)
}

#[cfg(test)]
mod tests {
    use datafusion::arrow::array::{Int32Array, Int64Array, RecordBatch};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};

    use super::*;
    use crate::session::{SessionSpec, StageSql};

    fn stage(name: &'static str, sql: &'static str, kind: StageKind) -> StageSql {
        StageSql { name, sql, kind }
    }

    fn numbers(values: &[i32]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![Field::new(
            "value",
            DataType::Int32,
            true,
        )]));
        RecordBatch::try_new(schema, vec![Arc::new(Int32Array::from(values.to_vec()))])
            .expect("batch")
    }

    fn total(batches: &[RecordBatch]) -> i64 {
        batches
            .iter()
            .flat_map(|b| {
                let c = b
                    .column(0)
                    .as_any()
                    .downcast_ref::<Int64Array>()
                    .expect("Int64");
                c.iter().flatten().collect::<Vec<_>>()
            })
            .sum()
    }

    /// A twin runs the first session's stages (a view, a subquery, a static table, a plan
    /// made before the twin and one after) on its own tables: each gives the sums of its own
    /// input, whichever ran last, as a session made alone does.
    #[tokio::test]
    async fn a_twin_runs_the_same_stages_on_its_own_tables() {
        let spec = SessionSpec {
            statics: vec![stage(
                "weights",
                "SELECT CAST(10 AS INT) AS weight",
                StageKind::Table,
            )],
            inputs: vec![(
                "numbers",
                Arc::new(Schema::new(vec![Field::new(
                    "value",
                    DataType::Int32,
                    true,
                )])),
            )],
            stages: vec![
                stage(
                    "weighted",
                    "SELECT n.value * w.weight AS weighted FROM numbers n CROSS JOIN weights w",
                    StageKind::View,
                ),
                stage(
                    "summed",
                    "SELECT CAST(SUM(weighted) AS BIGINT) AS total FROM weighted",
                    StageKind::Table,
                ),
                stage(
                    "above",
                    "SELECT CAST(COUNT(*) AS BIGINT) AS above FROM numbers \
                     WHERE value > (SELECT AVG(value) FROM numbers)",
                    StageKind::Table,
                ),
            ],
            ..SessionSpec::default()
        };
        let config = PipelineConfig {
            target_partitions: 1,
            ..PipelineConfig::default()
        };
        let first = Session::new(spec.clone(), &config).await.expect("session");
        // `summed` planned before the twin is made, `above` after
        first.prepare(&["summed"]).await.expect("prepare");
        let twin = first.twin(&config).await.expect("twin");
        let alone = Session::new(spec, &config).await.expect("session");
        first
            .set_table("numbers", vec![numbers(&[1, 2, 3])])
            .await
            .expect("set");
        twin.set_table("numbers", vec![numbers(&[5, 7, 9, 11])])
            .await
            .expect("set");
        alone
            .set_table("numbers", vec![numbers(&[5, 7, 9, 11])])
            .await
            .expect("set");
        for _ in 0..2 {
            assert_eq!(total(&twin.run("summed").await.expect("run")), 320);
            assert_eq!(total(&first.run("summed").await.expect("run")), 60);
            assert_eq!(total(&twin.run("above").await.expect("run")), 2);
            assert_eq!(total(&first.run("above").await.expect("run")), 1);
        }
        assert_eq!(total(&alone.run("summed").await.expect("run")), 320);
        assert_eq!(total(&alone.run("above").await.expect("run")), 2);
        // user SQL over the twin's context reads the twin's tables
        let users = twin
            .context()
            .sql("SELECT CAST(SUM(weighted) AS BIGINT) FROM weighted")
            .await
            .expect("sql")
            .collect()
            .await
            .expect("collect");
        assert_eq!(total(&users), 320);
        // each keeps its own profile
        assert_eq!(first.stage_runs(), 4);
        assert_eq!(twin.stage_runs(), 4);
    }
}
