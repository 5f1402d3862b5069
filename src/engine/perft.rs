//! Perft: the number of leaf nodes of the legal move tree, level by level in bounded memory
//! (levels in hash buckets, spilled to disk when large: [`super::frontier`]; positions in
//! chunks), and perft per root move ("divide").

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::Float64Type;

use super::frontier::Level;
use super::{CHILD_STRIDE, Engine, thread_runtime};
use crate::chess::setup::Setup;
use crate::error::{Error, Result};
use crate::session::memory::{TableMemory, arrow_bytes};
use crate::session::read::{self, Row};
use crate::session::{PipelineConfig, SessionError};
use crate::stages::{InputTable, LEGAL, Stage, Table, tables};

crate::table_row! {
    /// A row of stage `perft_counts`: the leaf count of a root.
    struct RootCount {
        root_id: u64,
        nodes: u64,
        approx_nodes: Option<f64>,
    }
}

/// A progress callback of [`PerftOptions::progress`], called from the workers' threads too.
pub type ProgressFn = Arc<dyn Fn(&PerftProgress) + Send + Sync>;

/// How [`Engine::perft_with`] splits its work. The defaults suit any depth; the knobs exist
/// to test the bucketed, spilled path on small trees.
#[derive(Clone, Default)]
pub struct PerftOptions {
    /// Positions run through the legal-move stages at once. Default: sized after each chunk
    /// from the stage-table memory it took per position, so that the tables of the next
    /// chunk take about [`CHUNK_TABLES_SHARE`] of the memory limit (cut among the workers
    /// of a large bucket; at most [`MAX_CHUNK_TABLES`]); the first chunk has
    /// [`FIRST_CHUNK`] positions.
    pub chunk: Option<usize>,
    /// Buckets of each level. Default: from the level's expected size, about
    /// [`MAX_BUCKET_BYTES`] (or a 16th of the limit) each.
    pub buckets: Option<usize>,
    /// Bytes of a level's nodes kept in memory before the level is spilled to Arrow IPC files
    /// in the temporary folder: 0 spills every level. Default: an 8th of the memory limit, at
    /// most [`MAX_IN_MEMORY_LEVEL`].
    pub spill_at: Option<u64>,
    /// Called after each chunk and each bucket with where perft is (from the workers'
    /// threads too).
    pub progress: Option<ProgressFn>,
    /// Nodes of a level from which its chunks (and those of every later level) are shared
    /// among workers, pipelines of one partition each (one per target partition of the
    /// engine, or fewer under a small memory limit). Default [`PARALLEL_FROM`]; `Some(1)`
    /// shares every level (to test the workers on small trees).
    pub parallel_from: Option<usize>,
}

/// Where a perft run is ([`PerftOptions::progress`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct PerftProgress {
    /// The ply whose moves are being generated (1..=depth): the positions of level `ply - 1`
    /// are expanded, or counted at the last ply.
    pub ply: u32,
    /// The depth asked for.
    pub depth: u32,
    /// Nodes of the level, before transpositions are merged.
    pub nodes: u64,
    /// Of those, the nodes of the buckets merged so far.
    pub nodes_merged: u64,
    /// Distinct positions of the level done so far.
    pub positions: u64,
    /// Whether the level was spilled to disk.
    pub spilled: bool,
}

/// Positions of the first chunk of a run.
pub const FIRST_CHUNK: usize = 1024;
/// The most positions of one chunk.
pub const MAX_CHUNK: usize = 1 << 18;
/// Share of the memory limit the stage tables of one chunk aim at.
pub const CHUNK_TABLES_SHARE: f64 = 1.0 / 6.0;
/// Share of the memory limit the workers of large buckets take together (each an equal
/// share of it, reserved when they are planned: [`PARALLEL_FROM`]; as many workers as cores,
/// or fewer when a share would be below [`MIN_WORKER_MEMORY`]); the rest
/// stays with the engine for the levels and the merge of each bucket.
pub const WORKERS_SHARE: f64 = 0.5;
/// Under a memory limit below this, every level's chunks run on workers (see
/// [`PARALLEL_FROM`]): the engine's own plans of several partitions would race for a small
/// pool, so that whether a run fits would depend on thread timing.
pub const WORKERS_ALWAYS_BELOW: u64 = 1 << 30;
/// The smallest memory share of a worker: [`WORKER_FIXED_MEMORY`] and room for chunks
/// (measured on the start position's level 4: 16 MiB shares fail on the tables a chunk
/// leaves for the next).
pub const MIN_WORKER_MEMORY: u64 = 32 << 20;
/// What a worker holds whatever its chunks: the static tables (`piece_rays`,
/// `castling_rules`, … about 6 MiB) and the hash tables its stages build over them (about
/// 5 MiB).
pub const WORKER_FIXED_MEMORY: u64 = 12 << 20;
/// Share of what a worker's memory leaves after [`WORKER_FIXED_MEMORY`] that the stage
/// tables of one of its chunks aim at (the rest is
/// for the hash tables its stages build).
pub const WORKER_CHUNK_TABLES_SHARE: f64 = 1.0 / 3.0;
/// The most bytes the stage tables of one chunk aim at, whatever the limit: larger chunks
/// are no faster.
pub const MAX_CHUNK_TABLES: u64 = 32 << 20;
/// The most bytes of a level's nodes kept in memory by default.
pub const MAX_IN_MEMORY_LEVEL: u64 = 512 << 20;
/// The most bytes of one bucket by default.
pub const MAX_BUCKET_BYTES: u64 = 128 << 20;
/// Nodes of a level from which its chunks are shared among workers (pipelines of one
/// partition each, each on its own thread, as `validate` does); smaller levels run on the
/// engine itself, as planning a worker costs about 0.1 s.
pub const PARALLEL_FROM: usize = 4 * FIRST_CHUNK;

/// The reservations of two consecutive levels (the one read and the one written).
const LEVEL_NAMES: [&str; 2] = ["perft nodes (even plies)", "perft nodes (odd plies)"];

/// The tables one chunk fills (their memory sizes the next chunk).
const CHUNK_TABLES: &[Table] = &[
    Table::Input(InputTable::Positions),
    Table::Input(InputTable::Pieces),
    Table::Input(InputTable::PerftNodes),
    Table::Input(InputTable::ChosenMoves),
    Table::Stage(Stage::Placed),
    Table::Stage(Stage::Boards),
    Table::Stage(Stage::PseudoMoves),
    Table::Stage(Stage::Threats),
    Table::Stage(Stage::LegalMoves),
    Table::Stage(Stage::PerftMoves),
    Table::Stage(Stage::PerftChildren),
    Table::Stage(Stage::NextPositions),
    Table::Stage(Stage::NextPieces),
    Table::Stage(Stage::PositionKeys),
    Table::Stage(Stage::PerftFrontier),
    Table::Stage(Stage::PerftCounts),
];

/// What one chunk gives: the leaf counts per root (last ply), or the children as nodes of
/// the next level.
enum ChunkOut {
    Counts(Vec<RootCount>),
    Children(Vec<RecordBatch>),
}

impl Engine {
    /// Perft: the number of leaf nodes of the legal move tree of each position at `depth`
    /// plies (depth 0 = 1), with the default [`PerftOptions`].
    ///
    /// Errors: [`Error::Usage`] when a count would exceed 2^64; pipeline failures.
    pub async fn perft(&self, setups: &[Setup], depth: u32) -> Result<Vec<u64>> {
        self.perft_with(setups, depth, &PerftOptions::default())
            .await
    }

    /// Perft, computed level by level in bounded memory. A level is a set of nodes (a
    /// position key, its root and its multiplicity: the move paths that reach it),
    /// hash-partitioned by key into buckets, kept in memory while the level is small and
    /// spilled to Arrow IPC files when it is large. Each bucket in turn has its
    /// transpositions merged (`perft_merge`: GROUP BY key, multiplicities summed; equal keys
    /// share a bucket, so this is exact), and its distinct positions go through the
    /// legal-move stages in chunks (from the first large level on shared among workers,
    /// pipelines of one partition each: [`PARALLEL_FROM`]): at the last ply
    /// only counted (`perft_counts`), before it expanded (`perft_moves`, `perft_children`,
    /// the move applied, `position_keys`, `perft_frontier`) into the next level's buckets.
    /// The stage tables of a chunk are reserved in the memory pool; a chunk that runs out of
    /// it is run again at half the size.
    ///
    /// Errors: [`Error::Usage`] when a count would exceed 2^64;
    /// [`crate::session::SessionError::MemoryLimit`] when one position does not fit;
    /// [`Error::Io`] (spill files); pipeline failures.
    pub async fn perft_with(
        &self,
        setups: &[Setup],
        depth: u32,
        options: &PerftOptions,
    ) -> Result<Vec<u64>> {
        if depth == 0 {
            return Ok(vec![1; setups.len()]);
        }
        // what an earlier run left (a failed one too) is not held while perft runs
        self.pipeline().session().clear_tables()?;
        let memory = self.pipeline().session().memory();
        let limit = memory.budget().limit();
        let spill_at = options
            .spill_at
            .unwrap_or((limit / 8).min(MAX_IN_MEMORY_LEVEL));
        let mut level = Level::new(LEVEL_NAMES[0], 1, spill_at);
        level.push(tables::roots_to_bucket(setups)?, memory)?;
        level.finish()?;
        let mut run = PerftRun {
            modes: setups.iter().map(|s| s.chess960).collect(),
            tally: Tally {
                counts: vec![0; setups.len()],
                approx: vec![0.0; setups.len()],
                chunk: options.chunk.unwrap_or(FIRST_CHUNK).max(1),
                max_chunk: MAX_CHUNK,
            },
            workers: vec![],
        };
        let result = self
            .perft_levels(&mut run, level, depth, spill_at, options)
            .await;
        // the chunk tables are not kept: the next run's first chunk is small
        let cleared = self.clear(CHUNK_TABLES).await;
        result?;
        cleared?;
        Ok(run.tally.counts)
    }

    async fn perft_levels(
        &self,
        run: &mut PerftRun,
        mut level: Level,
        depth: u32,
        spill_at: u64,
        options: &PerftOptions,
    ) -> Result<()> {
        let p = self.pipeline();
        let memory = p.session().memory();
        let limit = memory.budget().limit();
        for ply in 1..=depth {
            let last = ply == depth;
            if last {
                // the expansion's tables are not needed to count
                self.clear(&CHUNK_TABLES[3..]).await?;
                for w in &run.workers {
                    w.clear(&CHUNK_TABLES[3..]).await?;
                }
            }
            let mut next = (!last).then(|| {
                let buckets = options
                    .buckets
                    .unwrap_or_else(|| buckets_for(level.rows(), limit));
                Level::new(LEVEL_NAMES[ply as usize % 2], buckets, spill_at)
            });
            let mut progress = PerftProgress {
                ply,
                depth,
                nodes: level.rows(),
                spilled: level.spilled(),
                ..PerftProgress::default()
            };
            for b in 0..level.buckets() {
                let rows = level.bucket_rows(b);
                if let Some(bucket) = level.take(b, memory)? {
                    p.set_table(InputTable::PerftBucket, vec![bucket]).await?;
                    let merged = p.run(Stage::PerftMerge).await;
                    p.set_table(InputTable::PerftBucket, vec![]).await?;
                    let merged = merged?;
                    let approx = read::primitive::<Float64Type>;
                    for m in &merged {
                        check_u64(approx(m, "approx_multiplicity")?.iter())?;
                    }
                    if let Some(first) = merged.first() {
                        let merged = concat_batches(&first.schema(), &merged)?;
                        p.set_table(Stage::PerftMerge, vec![]).await?;
                        self.perft_bucket(
                            run,
                            &merged,
                            last,
                            next.as_mut(),
                            &mut progress,
                            options,
                        )
                        .await?;
                    }
                }
                progress.nodes_merged += rows;
                report(options, &progress);
            }
            level.release(memory)?;
            drop(level);
            match next {
                Some(mut n) => {
                    n.finish()?;
                    level = n;
                }
                None => break,
            }
        }
        for (count, approx) in run.tally.counts.iter().zip(&run.tally.approx) {
            check_u64([Some(*approx), Some(*count as f64)].into_iter())?;
        }
        Ok(())
    }

    /// The distinct positions of one merged bucket, chunk by chunk: on the engine itself
    /// while the levels are small (or with one core), else cut into one slice per worker,
    /// each run by a worker of its own ([`PerftRun::workers`]) on its own thread. The
    /// children of every chunk go to `next` as they come.
    ///
    /// Workers are planned at the first level of at least [`PARALLEL_FROM`] nodes, or at
    /// the first under a limit below [`WORKERS_ALWAYS_BELOW`] (with more than one target
    /// partition), one partition each, as many as cores or as get
    /// [`MIN_WORKER_MEMORY`] of [`WORKERS_SHARE`] of the limit, each with its share
    /// reserved up front; a single worker (a small limit) draws on the engine's pool, as it
    /// runs while the engine waits. From then on every chunk runs on them, never on the
    /// engine, whose plans of several partitions would race for one memory pool: whether a
    /// chunk fits depends on its worker's work only (crate::session::memory).
    async fn perft_bucket(
        &self,
        run: &mut PerftRun,
        merged: &RecordBatch,
        last: bool,
        next: Option<&mut Level>,
        progress: &mut PerftProgress,
        options: &PerftOptions,
    ) -> Result<()> {
        let rows = merged.num_rows();
        let level_large = progress.nodes >= options.parallel_from.unwrap_or(PARALLEL_FROM) as u64;
        let small_limit = self.config.memory.limit() < WORKERS_ALWAYS_BELOW;
        if run.workers.is_empty()
            && self.config.target_partitions > 1
            && (level_large || small_limit)
        {
            // the workers' tables take the place of the engine's
            self.clear(CHUNK_TABLES).await?;
            let cores = self.config.memory.pipelines(
                self.config.target_partitions,
                WORKERS_SHARE,
                MIN_WORKER_MEMORY,
            );
            // one worker runs while the engine waits: it draws on the engine's pool
            let budgets = if cores > 1 {
                self.config
                    .memory
                    .shares("perft worker", cores, WORKERS_SHARE)?
            } else {
                vec![self.config.memory.clone()]
            };
            for memory in budgets {
                let config = PipelineConfig {
                    target_partitions: 1,
                    memory,
                    ..self.config.clone()
                };
                run.workers.push(Engine::new(config).await?);
            }
        }
        let cores = run.workers.len();
        let parallel = cores > 0;
        let memory = self.pipeline().session().memory();
        let limit = memory.budget().limit() as f64;
        // the chunk tables' part of the memory the pipeline running them may use: the
        // engine's limit, or what a worker's share leaves
        let target = if cores > 1 {
            let share = self.config.memory.share_bytes(cores, WORKERS_SHARE);
            share.saturating_sub(WORKER_FIXED_MEMORY) as f64 * WORKER_CHUNK_TABLES_SHARE
        } else {
            limit * CHUNK_TABLES_SHARE
        };
        let shared = Shared {
            next: Mutex::new(next),
            progress: Mutex::new(progress),
            memory,
            target: (target as u64).min(MAX_CHUNK_TABLES),
        };
        if !parallel {
            let (tally, modes) = (&mut run.tally, &run.modes);
            return self
                .perft_slice(tally, modes, merged, last, &shared, options)
                .await;
        }
        let per = rows.div_ceil(cores);
        let (modes, tally, shared) = (&run.modes, &run.tally, &shared);
        let results: Vec<Result<Tally>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..cores)
                .map(|k| k * per)
                .filter(|&start| start < rows)
                .zip(&run.workers)
                .map(|(start, worker)| {
                    let nodes = merged.slice(start, per.min(rows - start));
                    let mut own = tally.zeroed();
                    scope.spawn(move || {
                        thread_runtime()?.block_on(async {
                            let slice = worker
                                .perft_slice(&mut own, modes, &nodes, last, shared, options)
                                .await;
                            // a worker done with its slice holds no tables while the
                            // others finish theirs
                            let cleared = worker.clear(CHUNK_TABLES).await;
                            slice.and(cleared)
                        })?;
                        Ok(own)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Internal("a perft thread panicked".into())))
                })
                .collect()
        });
        for r in results {
            run.tally.add(r?)?;
        }
        Ok(())
    }

    /// Distinct positions (rows of `perft_merge`) chunk by chunk on this engine: counted
    /// into `tally` at the last ply, else expanded into `shared.next`; chunks sized so that
    /// their stage tables take about `shared.target` bytes.
    async fn perft_slice(
        &self,
        tally: &mut Tally,
        modes: &[bool],
        nodes: &RecordBatch,
        last: bool,
        shared: &Shared<'_, '_>,
        options: &PerftOptions,
    ) -> Result<()> {
        let poisoned = || Error::Internal("a perft thread panicked holding a lock".into());
        let mut at = 0;
        while at < nodes.num_rows() {
            let n = tally.chunk.min(nodes.num_rows() - at);
            let out = match self.perft_chunk(&nodes.slice(at, n), modes, last).await {
                Err(Error::Session(SessionError::MemoryLimit { .. })) if n > 1 => {
                    // the tables the last chunks left are not kept for the smaller one
                    self.clear(CHUNK_TABLES).await?;
                    tally.chunk = n / 2;
                    tally.max_chunk = tally.chunk;
                    continue;
                }
                other => other?,
            };
            match out {
                ChunkOut::Counts(rows) => {
                    for c in rows {
                        let (Some(count), Some(approx)) = (
                            tally.counts.get_mut(c.root_id as usize),
                            tally.approx.get_mut(c.root_id as usize),
                        ) else {
                            continue;
                        };
                        check_u64([c.approx_nodes].into_iter())?;
                        *count = count.checked_add(c.nodes).ok_or_else(overflow)?;
                        *approx += c.approx_nodes.unwrap_or(0.0);
                    }
                }
                ChunkOut::Children(children) => {
                    let mut next = shared.next.lock().map_err(|_| poisoned())?;
                    if let Some(level) = next.as_deref_mut() {
                        for b in children {
                            level.push(b, shared.memory)?;
                        }
                    }
                }
            }
            at += n;
            // sized on full chunks only: a bucket's small remainder would show mostly the
            // fixed cost of a batch
            if options.chunk.is_none() && n == tally.chunk {
                let mut kept = vec![];
                for t in CHUNK_TABLES {
                    kept.extend(self.pipeline().table(*t).await?);
                }
                let per_position = arrow_bytes(&kept).max(1) as f64 / n as f64;
                let fits = (shared.target as f64 / per_position) as usize;
                tally.chunk = fits
                    .min(tally.chunk.saturating_mul(4))
                    .clamp(1, tally.max_chunk);
            }
            let mut progress = shared.progress.lock().map_err(|_| poisoned())?;
            progress.positions += n as u64;
            report(options, &progress);
        }
        Ok(())
    }

    /// One chunk of distinct nodes (rows of `perft_merge`): loaded, their legal moves found,
    /// then counted or expanded.
    async fn perft_chunk(
        &self,
        nodes: &RecordBatch,
        modes: &[bool],
        last: bool,
    ) -> Result<ChunkOut> {
        let p = self.pipeline();
        let mode = |root: u64| modes.get(root as usize).copied().unwrap_or(false);
        let (positions, pieces, perft_nodes) = tables::nodes_to_batches(nodes, mode)?;
        p.set_table(InputTable::Positions, vec![positions]).await?;
        p.set_table(InputTable::Pieces, vec![pieces]).await?;
        p.set_table(InputTable::PerftNodes, vec![perft_nodes])
            .await?;
        p.run_all(LEGAL).await?;
        if last {
            let counts = RootCount::read_rows(&p.run(Stage::PerftCounts).await?)?;
            return Ok(ChunkOut::Counts(counts));
        }
        let moves = p.run(Stage::PerftMoves).await?;
        p.set_table(InputTable::ChosenMoves, moves).await?;
        p.run(Stage::PerftChildren).await?;
        self.advance().await?;
        p.run(Stage::PositionKeys).await?;
        Ok(ChunkOut::Children(p.run(Stage::PerftFrontier).await?))
    }

    /// Empties tables (their memory is released).
    async fn clear(&self, tables: &[Table]) -> Result<()> {
        for t in tables {
            self.pipeline().set_table(*t, vec![]).await?;
        }
        Ok(())
    }

    /// Perft per root move ("divide"): for each legal move of `setup`, its UCI and the
    /// perft of the position after it at `depth - 1`, sorted by UCI. Errors: `depth` = 0
    /// gives [`Error::Usage`].
    pub async fn perft_divide(&self, setup: &Setup, depth: u32) -> Result<Vec<(String, u64)>> {
        self.perft_divide_with(setup, depth, &PerftOptions::default())
            .await
    }

    /// [`Engine::perft_divide`] with the given [`PerftOptions`] for the counts below the
    /// root moves.
    pub async fn perft_divide_with(
        &self,
        setup: &Setup,
        depth: u32,
        options: &PerftOptions,
    ) -> Result<Vec<(String, u64)>> {
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
        let counts = self.perft_with(&setups, depth - 1, options).await?;
        // every child is one of the legal moves whose UCI the `san` stage wrote
        let mut out: Vec<(String, u64)> = children
            .keys()
            .zip(counts)
            .map(|(child, nodes)| {
                let code = child % CHILD_STRIDE;
                let text = uci.get(&code).cloned().ok_or_else(|| {
                    Error::Internal(format!("perft --divide: move code {code} is no legal move"))
                })?;
                Ok((text, nodes))
            })
            .collect::<Result<_>>()?;
        out.sort();
        Ok(out)
    }
}

/// The state of one perft run carried from chunk to chunk.
struct PerftRun {
    /// Each root's mode (Chess960 or not), by root_id.
    modes: Vec<bool>,
    /// The counts so far and the chunk size.
    tally: Tally,
    /// One engine of one partition per core, planned at the first large bucket
    /// ([`PARALLEL_FROM`]); dropped with the run.
    workers: Vec<Engine>,
}

/// Leaf counts and chunk sizes: the run's, or one worker's for one bucket.
struct Tally {
    /// Leaf counts per root, and their float shadows.
    counts: Vec<u64>,
    approx: Vec<f64>,
    /// Positions of the next chunk, and the most it may grow to (lowered when a chunk ran
    /// out of memory).
    chunk: usize,
    max_chunk: usize,
}

impl Tally {
    /// No counts yet, the same chunk sizes.
    fn zeroed(&self) -> Tally {
        Tally {
            counts: vec![0; self.counts.len()],
            approx: vec![0.0; self.approx.len()],
            chunk: self.chunk,
            max_chunk: self.max_chunk,
        }
    }

    /// Adds a worker's counts; keeps the smaller chunk sizes.
    fn add(&mut self, other: Tally) -> Result<()> {
        for (c, o) in self.counts.iter_mut().zip(other.counts) {
            *c = c.checked_add(o).ok_or_else(overflow)?;
        }
        for (a, o) in self.approx.iter_mut().zip(other.approx) {
            *a += o;
        }
        self.chunk = self.chunk.min(other.chunk);
        self.max_chunk = self.max_chunk.min(other.max_chunk);
        Ok(())
    }
}

/// What the workers of one bucket share: the next level (children are pushed as chunks
/// finish), the progress, the memory the level is accounted in (the engine's), and the
/// bytes of stage tables each chunk aims at.
struct Shared<'a, 'm> {
    next: Mutex<Option<&'a mut Level>>,
    progress: Mutex<&'a mut PerftProgress>,
    memory: &'m TableMemory,
    target: u64,
}

/// The buckets of the level after one of `rows` nodes: about 40 children per node (a
/// generous mean: merging and the real branching give fewer), of about 120 bytes each, in
/// buckets of [`MAX_BUCKET_BYTES`] or a 16th of the limit, whichever is smaller.
fn buckets_for(rows: u64, limit: u64) -> usize {
    let bytes = rows.saturating_mul(40 * 120);
    let per_bucket = (limit / 16).clamp(1 << 20, MAX_BUCKET_BYTES);
    (bytes.div_ceil(per_bucket) as usize).clamp(1, 512)
}

fn report(options: &PerftOptions, progress: &PerftProgress) {
    if let Some(f) = &options.progress {
        f(progress);
    }
}

fn overflow() -> Error {
    Error::Usage("perft: the node count exceeds 2^64".into())
}

/// Perft counts are UInt64: a float shadow sum tells when one would wrap.
fn check_u64(approx: impl Iterator<Item = Option<f64>>) -> Result<()> {
    let mut approx = approx;
    if approx.any(|v| v.is_some_and(|v| v >= u64::MAX as f64)) {
        return Err(overflow());
    }
    Ok(())
}
