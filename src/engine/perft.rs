//! Perft: the number of leaf nodes of the legal move tree, level by level, and perft per
//! root move ("divide").

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::UInt64Type;

use super::{CHILD_STRIDE, Engine, uci_of_code};
use crate::chess::fen::Setup;
use crate::error::{Error, Result};
use crate::session::read::Row;
use crate::stages::{InputTable, LEGAL, Stage, tables};

crate::table_row! {
    /// A row of stage `perft_merge`: one representative of the positions of a level that
    /// share a key, with the summed multiplicity.
    struct MergedNode {
        position_id: u64,
        root_id: u64,
        multiplicity: u64,
        approx_multiplicity: Option<f64>,
    }
}

crate::table_row! {
    /// A row of stage `perft_counts`: the leaf count of a root.
    struct RootCount {
        root_id: u64,
        nodes: u64,
        approx_nodes: Option<f64>,
    }
}

impl Engine {
    /// Perft: the number of leaf nodes of the legal move tree of each position at `depth`
    /// plies (depth 0 = 1). Computed level by level: all positions of a level in one batch,
    /// positions reached by several move orders merged (GROUP BY their key, multiplicities
    /// summed), the last level counted from `legal_moves`.
    ///
    /// Errors: [`Error::Usage`] when a count would exceed 2^64; pipeline failures.
    pub async fn perft(&self, setups: &[Setup], depth: u32) -> Result<Vec<u64>> {
        if depth == 0 {
            return Ok(vec![1; setups.len()]);
        }
        let p = self.pipeline();
        self.load(setups).await?;
        let n = setups.len() as u64;
        let ids: Vec<u64> = (0..n).collect();
        p.set_table(
            InputTable::PerftNodes,
            vec![nodes_batch(&ids, &ids, &vec![1; ids.len()])?],
        )
        .await?;
        let mut sizes = None;
        for level in 1..depth {
            p.run_all(LEGAL).await?;
            self.check_next_level(depth, level, &mut sizes).await?;
            let moves = p.run(Stage::PerftMoves).await?;
            p.set_table(InputTable::ChosenMoves, moves).await?;
            let children = p.run(Stage::PerftChildren).await?;
            self.advance().await?;
            p.set_table(InputTable::PerftNodes, children).await?;
            p.run(Stage::PositionKeys).await?;
            let merged = MergedNode::read_rows(&p.run(Stage::PerftMerge).await?)?;
            check_u64(merged.iter().map(|m| m.approx_multiplicity))?;
            self.renumber(&merged).await?;
        }
        p.run_all(LEGAL).await?;
        let counts = RootCount::read_rows(&p.run(Stage::PerftCounts).await?)?;
        check_u64(counts.iter().map(|c| c.approx_nodes))?;
        let mut out = vec![0u64; setups.len()];
        for c in counts {
            if let Some(slot) = out.get_mut(c.root_id as usize) {
                *slot = c.nodes;
            }
        }
        Ok(out)
    }

    /// Refuses a perft level whose tables cannot fit in the memory limit, estimated from the
    /// level sizes: the bytes one more position adds to the level tables (measured between
    /// the previous level and this one, as small levels carry a fixed cost per batch) times
    /// the positions the next level adds (this level's legal moves, before positions
    /// reached twice are merged). `prev` carries (positions, bytes) from level to level.
    ///
    /// Errors: [`crate::session::SessionError::MemoryLimit`] naming the depth and level.
    async fn check_next_level(
        &self,
        depth: u32,
        level: u32,
        prev: &mut Option<(f64, f64)>,
    ) -> Result<()> {
        let p = self.pipeline();
        let rows = |b: Vec<RecordBatch>| b.iter().map(RecordBatch::num_rows).sum::<usize>();
        let positions = rows(p.table(InputTable::Positions).await?).max(1) as f64;
        let next = rows(p.table(Stage::LegalMoves).await?);
        let tables = LEGAL
            .stages
            .iter()
            .map(|s| s.name())
            .chain([InputTable::Positions.name(), InputTable::Pieces.name()]);
        let memory = p.session().memory();
        let now = memory.bytes_of(tables) as f64;
        // the first level has too few positions to tell the cost of one more
        let Some((n, bytes)) = prev.replace((positions, now)) else {
            return Ok(());
        };
        let per_position = if positions > n {
            (now - bytes).max(0.0) / (positions - n)
        } else {
            now / positions
        };
        Ok(memory.budget().check_estimate(
            &format!(
                "perft depth {depth}: level {} ({next} positions)",
                level + 1
            ),
            (per_position * (next as f64 - positions).max(0.0)) as u64,
        )?)
    }

    /// Keeps only the merged representatives in `positions`/`pieces` and numbers them
    /// 0..n, so that child ids stay far below 2^64 however deep perft goes.
    async fn renumber(&self, merged: &[MergedNode]) -> Result<()> {
        let p = self.pipeline();
        let mut map: HashMap<u64, u64> = HashMap::with_capacity(merged.len());
        let (mut ids, mut roots, mut mults) = (vec![], vec![], vec![]);
        for m in merged {
            let new = map.len() as u64;
            map.insert(m.position_id, new);
            ids.push(new);
            roots.push(m.root_id);
            mults.push(m.multiplicity);
        }
        for table in [InputTable::Positions, InputTable::Pieces] {
            let kept = tables::filter_ids(&p.table(table).await?, |id| map.contains_key(&id))?;
            let renamed = kept
                .into_iter()
                .map(|b| {
                    let at = b.schema().index_of("position_id")?;
                    let old = b.column(at).as_primitive::<UInt64Type>();
                    let new: UInt64Array = old
                        .iter()
                        .map(|v| v.and_then(|v| map.get(&v).copied()))
                        .collect();
                    let mut cols: Vec<ArrayRef> = b.columns().to_vec();
                    cols[at] = Arc::new(new);
                    RecordBatch::try_new(b.schema(), cols)
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            p.set_table(table, renamed).await?;
        }
        p.set_table(
            InputTable::PerftNodes,
            vec![nodes_batch(&ids, &roots, &mults)?],
        )
        .await
    }

    /// Perft per root move ("divide"): for each legal move of `setup`, its UCI and the
    /// perft of the position after it at `depth - 1`, sorted by UCI. Errors: `depth` = 0
    /// gives [`Error::Usage`].
    pub async fn perft_divide(&self, setup: &Setup, depth: u32) -> Result<Vec<(String, u64)>> {
        if depth == 0 {
            return Err(Error::Usage(
                "perft --divide needs a depth of at least 1".into(),
            ));
        }
        let p = self.pipeline();
        // the UCI of each root move (castling by the position's mode), by move code
        let mut uci: HashMap<u64, String> = HashMap::new();
        for b in &self.legal_moves(std::slice::from_ref(setup)).await? {
            let code: &datafusion::arrow::array::Int32Array = tables::column(b, "move_code")?;
            let text: &datafusion::arrow::array::StringArray = tables::column(b, "uci")?;
            for i in 0..b.num_rows() {
                uci.insert(code.value(i) as u64, text.value(i).to_string());
            }
        }
        self.load(std::slice::from_ref(setup)).await?;
        p.run_all(LEGAL).await?;
        let moves = p.run(Stage::PerftMoves).await?;
        p.set_table(InputTable::ChosenMoves, moves).await?;
        self.advance().await?;
        let children = self.loaded_setups().await?;
        let setups: Vec<Setup> = children.values().copied().collect();
        let counts = self.perft(&setups, depth - 1).await?;
        let mut out: Vec<(String, u64)> = children
            .keys()
            .zip(counts)
            .map(|(child, nodes)| {
                let code = child % CHILD_STRIDE;
                let text = uci.get(&code).cloned();
                (text.unwrap_or_else(|| uci_of_code(code as u32)), nodes)
            })
            .collect();
        out.sort();
        Ok(out)
    }
}

/// Perft counts are UInt64: a float shadow sum tells when one would wrap.
fn check_u64(approx: impl Iterator<Item = Option<f64>>) -> Result<()> {
    if approx.flatten().any(|v| v >= u64::MAX as f64) {
        return Err(Error::Usage("perft: the node count exceeds 2^64".into()));
    }
    Ok(())
}

fn nodes_batch(ids: &[u64], roots: &[u64], mults: &[u64]) -> Result<RecordBatch> {
    Ok(RecordBatch::try_new(
        tables::perft_nodes_schema(),
        vec![
            Arc::new(UInt64Array::from(ids.to_vec())) as ArrayRef,
            Arc::new(UInt64Array::from(roots.to_vec())),
            Arc::new(UInt64Array::from(mults.to_vec())),
        ],
    )?)
}
