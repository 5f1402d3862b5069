//! The library API over the pipeline: legal moves with SAN, applying moves, perft.
//!
//! Every rule is evaluated by the stages of [`crate::session`]; this module only loads
//! positions into the input tables, runs stage sequences and moves batches between tables.

pub(crate) mod replay;

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::{Float64Type, UInt64Type};

use crate::error::{Error, Result};
use crate::chess::fen::Setup;
use crate::session::{Pipeline, PipelineConfig};
use crate::stages::{APPLY, LEGAL};
use crate::stages::tables;

/// The rules engine: a planned [`Pipeline`] and the operations built from its stages.
pub struct Engine {
    pipeline: Pipeline,
}

/// Multiplier of child position ids: a child of position `p` by move `m` is
/// `p * CHILD_STRIDE + m.move_code` (move codes are below 20,480).
pub const CHILD_STRIDE: u64 = 32768;

impl Engine {
    /// Plans the pipeline. Errors: [`Error::DataFusion`] / [`Error::Plan`] (bugs in `plans/`).
    pub async fn new(config: PipelineConfig) -> Result<Engine> {
        Ok(Engine {
            pipeline: Pipeline::new(config).await?,
        })
    }

    /// The pipeline, for profiling, EXPLAIN and user SQL over its tables.
    pub fn pipeline(&self) -> &Pipeline {
        &self.pipeline
    }

    /// Loads positions into `positions` and `pieces`, position_id = index in `setups`.
    pub async fn load(&self, setups: &[Setup]) -> Result<()> {
        let pairs: Vec<(u64, &Setup)> = setups
            .iter()
            .enumerate()
            .map(|(i, s)| (i as u64, s))
            .collect();
        self.load_pairs(&pairs).await
    }

    /// Loads (position_id, setup) pairs into `positions` and `pieces`.
    pub async fn load_pairs(&self, pairs: &[(u64, &Setup)]) -> Result<()> {
        let (positions, pieces) = tables::setups_to_batches(pairs)?;
        self.pipeline
            .set_table("positions", vec![positions])
            .await?;
        self.pipeline.set_table("pieces", vec![pieces]).await
    }

    /// Legal moves of the loaded positions (stage `legal_moves`), without notation.
    pub async fn run_legal(&self) -> Result<Vec<RecordBatch>> {
        self.pipeline.run_all(LEGAL).await?;
        self.pipeline.table("legal_moves").await
    }

    /// Applies the moves now in `chosen_moves` to the loaded positions and makes the
    /// resulting positions the loaded ones (stages `next_positions`, `next_pieces`).
    pub async fn advance(&self) -> Result<()> {
        self.pipeline.run_all(APPLY).await?;
        let positions = self.pipeline.table("next_positions").await?;
        let pieces = self.pipeline.table("next_pieces").await?;
        self.pipeline.set_table("positions", positions).await?;
        self.pipeline.set_table("pieces", pieces).await
    }

    /// All legal moves of each position (FIDE Laws art. 3), with notation.
    ///
    /// Returns the batches of stage `san`: `position_id: UInt64` (index into `setups`),
    /// `move_code: Int32`, `color: Utf8`, `piece: Utf8`, `from_sq: Int32`, `to_sq: Int32`
    /// (0..63, a1 = 0), `promotion: Utf8` (nullable), `captured: Utf8` (nullable),
    /// `is_capture`, `is_en_passant`, `is_castling: Boolean`, `cap_sq`, `rook_from`,
    /// `rook_to: Int32` (nullable), `from_name`, `to_name`, `uci`, `san: Utf8`,
    /// `is_check`, `is_mate: Boolean`.
    ///
    /// Checkmate ('#') is found by running the legal-move stages once more on the positions
    /// after the checking moves. Errors: [`Error::DataFusion`].
    pub async fn legal_moves(&self, setups: &[Setup]) -> Result<Vec<RecordBatch>> {
        self.load(setups).await?;
        self.legal_moves_loaded().await
    }

    /// [`Engine::legal_moves`] for the positions already loaded.
    pub async fn legal_moves_loaded(&self) -> Result<Vec<RecordBatch>> {
        let p = &self.pipeline;
        p.run_all(LEGAL).await?;
        p.run_all(&["king_lines", "move_checks"]).await?;
        let saved: Vec<(&str, Vec<RecordBatch>)> = {
            let mut v = vec![];
            for name in ["positions", "pieces", "legal_moves", "move_checks"] {
                v.push((name, p.table(name).await?));
            }
            v
        };
        // replies to the checking moves: none = checkmate
        let checking = p.run("checking_moves").await?;
        p.set_table("chosen_moves", checking).await?;
        self.advance().await?;
        p.run_all(LEGAL).await?;
        p.run("reply_counts").await?;
        for (name, batches) in saved {
            p.set_table(name, batches).await?;
        }
        p.run("move_flags").await?;
        p.run("san").await
    }

    /// The seed's use case: validates one move token (SAN, UCI or null move, as python-chess
    /// `parse_san` reads them) per position and returns, per position, the position after it,
    /// or why the token was refused (not a move, no legal move matches, or several do).
    ///
    /// SAN moves and castling are checked on their own first (stages `replay_moves`, `replay_verdicts`,
    /// `replay_next`: the token's
    /// piece reaching its target, one attack test on the king's square after the move); the
    /// other tokens, and those that do not stand for exactly one legal move, are resolved
    /// among all legal moves (`LEGAL`, `token_matches`, `token_verdicts`, `token_moves`,
    /// `APPLY`), which also says why a token is refused.
    ///
    /// Errors: [`Error::Usage`] when the two slices differ in length; pipeline failures.
    pub async fn play_tokens(
        &self,
        setups: &[Setup],
        tokens: &[&str],
    ) -> Result<Vec<std::result::Result<Setup, String>>> {
        if setups.len() != tokens.len() {
            return Err(Error::Usage(format!(
                "{} positions but {} tokens",
                setups.len(),
                tokens.len()
            )));
        }
        let mut out: Vec<std::result::Result<Setup, String>> =
            vec![Err(String::new()); setups.len()];
        let mut lexed = vec![];
        // tokens with an en passant mark: checked against the move they resolve to
        let mut ep_marked = std::collections::HashSet::new();
        for (i, t) in tokens.iter().enumerate() {
            match crate::chess::san::parse_san(t) {
                Ok((tok, suffix)) => {
                    if suffix.en_passant {
                        ep_marked.insert(i as u64);
                    }
                    lexed.push((i as u64, tok));
                }
                Err(e) => out[i] = Err(e.to_string()),
            }
        }
        let quick: Vec<(u64, &crate::chess::san::SanToken)> = lexed
            .iter()
            .filter(|(i, t)| replay::replayable(t) && !ep_marked.contains(i))
            .map(|(i, t)| (*i, t))
            .collect();
        if !quick.is_empty() {
            let starts: Vec<(u64, &Setup)> = quick
                .iter()
                .map(|(i, _)| (*i, &setups[*i as usize]))
                .collect();
            let states = vec![tables::setups_to_states(&starts)?];
            let (_, next) = replay::step(&self.pipeline, states, &quick).await?;
            for (id, s) in tables::states_to_setups(&next)? {
                if let Some(slot) = out.get_mut(id as usize) {
                    *slot = Ok(s);
                }
            }
        }
        lexed.retain(|(i, _)| out[*i as usize].is_err());
        if !lexed.is_empty() {
            self.resolve_tokens(setups, &lexed, &ep_marked, &mut out)
                .await?;
        }
        Ok(out)
    }

    /// [`Engine::play_tokens`] for the lexed tokens (position index, token) among all legal
    /// moves.
    async fn resolve_tokens(
        &self,
        setups: &[Setup],
        lexed: &[(u64, crate::chess::san::SanToken)],
        ep_marked: &std::collections::HashSet<u64>,
        out: &mut [std::result::Result<Setup, String>],
    ) -> Result<()> {
        let p = &self.pipeline;
        let pairs: Vec<(u64, &Setup)> = lexed
            .iter()
            .map(|(i, _)| (*i, &setups[*i as usize]))
            .collect();
        self.load_pairs(&pairs).await?;
        p.run_all(LEGAL).await?;
        let pairs: Vec<(u64, &crate::chess::san::SanToken)> =
            lexed.iter().map(|(i, t)| (*i, t)).collect();
        p.set_table("tokens", vec![tables::tokens_to_batch(&pairs)?])
            .await?;
        p.run("token_matches").await?;
        for b in p.run("token_verdicts").await? {
            let id = b.column(0).as_primitive::<UInt64Type>();
            let n = b
                .column(1)
                .as_primitive::<datafusion::arrow::datatypes::Int64Type>();
            for i in 0..b.num_rows() {
                let (pos, n) = (id.value(i) as usize, n.value(i));
                if n != 1
                    && !matches!(
                        lexed.iter().find(|(j, _)| *j as usize == pos),
                        Some((_, crate::chess::san::SanToken::Null))
                    )
                    && let Some(slot) = out.get_mut(pos)
                {
                    *slot = Err(if n == 0 {
                        "no legal move matches".into()
                    } else {
                        format!("{n} legal moves match")
                    });
                }
            }
        }
        let mut moves = p.run("token_moves").await?;
        let mut refused = std::collections::HashSet::new();
        for b in &moves {
            let id = b.column(0).as_primitive::<UInt64Type>();
            let ep: &datafusion::arrow::array::BooleanArray = tables::column(b, "is_en_passant")?;
            for i in 0..b.num_rows() {
                if ep_marked.contains(&id.value(i)) && !ep.value(i) {
                    refused.insert(id.value(i));
                }
            }
        }
        if !refused.is_empty() {
            for id in &refused {
                out[*id as usize] =
                    Err("en passant mark on a move that is not an en passant capture".into());
            }
            moves = tables::filter_ids(&moves, |id| !refused.contains(&id))?;
        }
        p.set_table("chosen_moves", moves).await?;
        self.advance().await?;
        let next =
            tables::batches_to_setups(&p.table("positions").await?, &p.table("pieces").await?)?;
        for (id, s) in next {
            if let Some(slot) = out.get_mut(id as usize) {
                *slot = Ok(s);
            }
        }
        Ok(())
    }

    /// Checks set-up positions with the attack rules (stage `setup_checks`): for each setup,
    /// `None` if it is a position a game can be in, else the kind (`kings_adjacent`,
    /// `opposite_check`, `too_many_checkers`, `impossible_check`) and a message. The static
    /// FEN rules are checked by [`Setup::from_fen`].
    pub async fn check_setups(&self, setups: &[Setup]) -> Result<Vec<Option<(String, String)>>> {
        self.load(setups).await?;
        self.pipeline.run_all(LEGAL).await?;
        let mut out = vec![None; setups.len()];
        for b in &self.pipeline.run("setup_checks").await? {
            let id = b.column(0).as_primitive::<UInt64Type>();
            let kind = b.column(1).as_string::<i32>();
            let msg = b.column(2).as_string::<i32>();
            for i in 0..b.num_rows() {
                if let Some(slot) = out.get_mut(id.value(i) as usize) {
                    slot.get_or_insert_with(|| {
                        (kind.value(i).to_string(), msg.value(i).to_string())
                    });
                }
            }
        }
        Ok(out)
    }

    /// Perft: the number of leaf nodes of the legal move tree of each position at `depth`
    /// plies (depth 0 = 1). Computed level by level: all positions of a level in one batch,
    /// positions reached by several move orders merged (GROUP BY their key, multiplicities
    /// summed), the last level counted from `legal_moves`.
    pub async fn perft(&self, setups: &[Setup], depth: u32) -> Result<Vec<u64>> {
        if depth == 0 {
            return Ok(vec![1; setups.len()]);
        }
        let p = &self.pipeline;
        self.load(setups).await?;
        let n = setups.len() as u64;
        let ids: Vec<u64> = (0..n).collect();
        p.set_table(
            "perft_nodes",
            vec![nodes_batch(&ids, &ids, &vec![1; ids.len()])?],
        )
        .await?;
        let mut sizes = None;
        for level in 1..depth {
            p.run_all(LEGAL).await?;
            self.check_next_level(depth, level, &mut sizes).await?;
            let moves = p.run("perft_moves").await?;
            p.set_table("chosen_moves", moves).await?;
            let children = p.run("perft_children").await?;
            p.run_all(APPLY).await?;
            p.set_table("positions", p.table("next_positions").await?)
                .await?;
            p.set_table("pieces", p.table("next_pieces").await?).await?;
            p.set_table("perft_nodes", children).await?;
            p.run("position_keys").await?;
            let merged = p.run("perft_merge").await?;
            self.renumber(merged).await?;
        }
        p.run_all(LEGAL).await?;
        let counts = p.run("perft_counts").await?;
        let mut out = vec![0u64; setups.len()];
        for b in &counts {
            let root = b.column(0).as_primitive::<UInt64Type>();
            let nodes = b.column(1).as_primitive::<UInt64Type>();
            check_u64(b.column(2).as_primitive::<Float64Type>())?;
            for i in 0..b.num_rows() {
                if let Some(slot) = out.get_mut(root.value(i) as usize) {
                    *slot = nodes.value(i);
                }
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
    /// Errors: [`Error::MemoryLimit`] naming the depth and level.
    async fn check_next_level(
        &self,
        depth: u32,
        level: u32,
        prev: &mut Option<(f64, f64)>,
    ) -> Result<()> {
        let p = &self.pipeline;
        let rows = |b: Vec<RecordBatch>| b.iter().map(RecordBatch::num_rows).sum::<usize>();
        let positions = rows(p.table("positions").await?).max(1) as f64;
        let next = rows(p.table("legal_moves").await?);
        let tables = LEGAL.iter().copied().chain(["positions", "pieces"]);
        let now = p.memory().bytes_of(tables) as f64;
        // the first level has too few positions to tell the cost of one more
        let Some((n, bytes)) = prev.replace((positions, now)) else {
            return Ok(());
        };
        let per_position = if positions > n {
            (now - bytes).max(0.0) / (positions - n)
        } else {
            now / positions
        };
        p.memory().budget().check_estimate(
            &format!("perft depth {depth}: level {} ({next} positions)", level + 1),
            (per_position * (next as f64 - positions).max(0.0)) as u64,
        )
    }

    /// Keeps only the merged representatives in `positions`/`pieces` and numbers them
    /// 0..n, so that child ids stay far below 2^64 however deep perft goes.
    async fn renumber(&self, merged: Vec<RecordBatch>) -> Result<()> {
        let p = &self.pipeline;
        let mut map: HashMap<u64, u64> = HashMap::new();
        let (mut ids, mut roots, mut mults) = (vec![], vec![], vec![]);
        for b in &merged {
            let id = b.column(0).as_primitive::<UInt64Type>();
            let root = b.column(1).as_primitive::<UInt64Type>();
            let mult = b.column(2).as_primitive::<UInt64Type>();
            check_u64(b.column(3).as_primitive::<Float64Type>())?;
            for i in 0..b.num_rows() {
                let new = map.len() as u64;
                map.insert(id.value(i), new);
                ids.push(new);
                roots.push(root.value(i));
                mults.push(mult.value(i));
            }
        }
        for name in ["positions", "pieces"] {
            let kept = tables::filter_ids(&p.table(name).await?, |id| map.contains_key(&id))?;
            let renamed = kept
                .into_iter()
                .map(|b| {
                    let old = b.column(0).as_primitive::<UInt64Type>();
                    let new: UInt64Array = old
                        .iter()
                        .map(|v| v.and_then(|v| map.get(&v).copied()))
                        .collect();
                    let mut cols: Vec<ArrayRef> = b.columns().to_vec();
                    cols[0] = Arc::new(new);
                    RecordBatch::try_new(b.schema(), cols)
                })
                .collect::<std::result::Result<Vec<_>, _>>()?;
            p.set_table(name, renamed).await?;
        }
        p.set_table("perft_nodes", vec![nodes_batch(&ids, &roots, &mults)?])
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
        let p = &self.pipeline;
        self.load(std::slice::from_ref(setup)).await?;
        p.run_all(LEGAL).await?;
        let moves = p.run("perft_moves").await?;
        p.set_table("chosen_moves", moves).await?;
        self.advance().await?;
        let children =
            tables::batches_to_setups(&p.table("positions").await?, &p.table("pieces").await?)?;
        let setups: Vec<Setup> = children.values().copied().collect();
        let counts = self.perft(&setups, depth - 1).await?;
        let mut out: Vec<(String, u64)> = children
            .keys()
            .zip(counts)
            .map(|(child, nodes)| (uci_of_code((child % CHILD_STRIDE) as u32), nodes))
            .collect();
        out.sort();
        Ok(out)
    }
}

/// The UCI text of a move code (`from_sq + 64 * to_sq + 4096 * promotion_index`, promotion
/// index 1..4 = n, b, r, q), as the `san` stage writes it.
pub fn uci_of_code(code: u32) -> String {
    let (from, to) = ((code % 64) as u8, ((code / 64) % 64) as u8);
    let promo = ["", "n", "b", "r", "q"][(code / 4096) as usize % 5];
    format!(
        "{}{}{}",
        crate::chess::fen::square_name(from),
        crate::chess::fen::square_name(to),
        promo
    )
}

/// Perft counts are UInt64: a float shadow sum tells when one would wrap.
fn check_u64(approx: &datafusion::arrow::array::Float64Array) -> Result<()> {
    if approx.iter().flatten().any(|v| v >= u64::MAX as f64) {
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

/// Counts rows of batches.
pub fn row_count(batches: &[RecordBatch]) -> usize {
    batches.iter().map(|b| b.num_rows()).sum()
}
