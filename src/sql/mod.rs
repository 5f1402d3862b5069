//! SQL over chess games: PGN files as tables and the chess rules as functions, on any
//! DataFusion [`SessionContext`].
//!
//! [`register`] adds everything to a user's session; [`context`] returns a session with
//! everything registered. Then plain SQL:
//!
//! ```sql
//! SELECT eco, result, count(*) FROM read_pgn('games/*.pgn.zst') GROUP BY 1, 2;
//! SELECT final_status, count(*) FROM read_pgn('games/') GROUP BY 1;
//! ```
//!
//! Tables (table functions; the path argument is a string literal: a file, a directory
//! searched recursively for PGN files, or a glob; `.zst`, `.gz`, `.bz2` are decompressed on
//! the fly):
//! - `read_pgn(path)`: one row per game, schema [`read_pgn_schema`]. Tag-only queries never
//!   run the rules (projection pushdown); the rules columns are `validate`'s report.
//! - `read_plies(path)`: one row per legal main-line ply, schema [`read_plies_schema`]; the
//!   same scan with the plies of `validate --plies`.
//! - `legal_moves(fen)`: the legal moves of one position (a FEN literal), schema
//!   [`legal_moves_schema`].
//!
//! Games go back out as PGN: `read_pgn`'s `pgn` column written by `COPY (…) TO 'x.pgn'`
//! ([`pgn_format`]) or `sqlchess sql --format pgn`.
//!
//! Scalar functions ([`ChessFunction`], table of types and NULL rules in
//! [`functions`](self::functions)): `fen_after(fen, move)`, `is_legal(fen, move)`,
//! `position_status(fen)`, `position_key(fen)`, `epd(fen)`, `material(fen)`,
//! `fen_error(fen)`, `legal_moves_list(fen)`, …; the rules over any table's move column,
//! `plies_of(moves …)` and `validate_moves(moves …)` ([`MoveFunction`]; an optimizer rule,
//! [`plies_of_fields`], has `plies_of` compute only the fields a query reads). Each call runs the pipeline's stages once per
//! batch on an engine of a pool ([`engines`](self::engines): how the synchronous call reaches
//! the asynchronous pipeline, and why concurrent partitions never share an engine).
//!
//! One large plain PGN file is read as several partitions (byte ranges starting at game
//! boundaries, [`crate::io::split`]; `game_index` stays the index in the file), from
//! [`ChessOptions::split_bytes`] (`SET sqlchess.split_bytes = …`) up; `EXPLAIN` shows the
//! ranges.
//!
//! DataFusion 55 limits: table function arguments are literals only (no columns, no named
//! arguments); function names are lowercase.
//!
//! Plans that travel to other processes (a Ballista cluster, `crate::cluster` with the
//! feature `ballista`) carry these tables and scans through the extension codecs of
//! [`codec`]; a scan's byte ranges are its input plan (`src/sql/ranges.rs`), so that a
//! distributed engine can share its partitions out.
//!
//! This module is the user-facing layer; the stage plumbing it runs on is
//! [`crate::session`].

mod arguments;
pub mod codec;
pub mod engines;
pub mod explorer;
pub mod functions;
mod game_columns;
mod legal_moves;
mod move_functions;
pub mod openings;
mod options;
pub mod pgn_format;
mod plies_of_fields;
mod ply_bound;
mod ply_columns;
mod ranges;
mod read_pgn;
mod read_plies;
mod scan;

use std::sync::Arc;

use datafusion::catalog::{TableFunctionImpl, TableProvider};
use datafusion::logical_expr::ScalarUDF;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use codec::{ChessLogicalCodec, ChessPhysicalCodec};
pub use functions::ChessFunction;
pub use game_columns::read_pgn_schema;
pub use legal_moves::{LegalMoves, legal_moves_schema};
pub use move_functions::{MoveFunction, plies_of_type, validate_moves_type};
pub use options::ChessOptions;
pub use ply_columns::read_plies_schema;
pub use read_pgn::ReadPgn;
pub use read_plies::ReadPlies;
pub use scan::{PgnScanExec, PgnTable, Rows};

/// Registers the chess tables and functions on `ctx`: the table functions `read_pgn`,
/// `read_plies`, `legal_moves`, the table `openings` ([`openings::table::OpeningsTable`]) and
/// the scalar functions of [`functions`] (`fen_after`, `is_legal`, `position_status`,
/// `position_key`, `epd`, `material`, `fen_error`, `legal_moves_list`). They share the
/// process's pool of engines (at most one per core, whatever the number of sessions). Adds the [`ChessOptions`] to the session's configuration when it has none, and the PGN
/// file format for `COPY (SELECT pgn FROM read_pgn(…) …) TO 'x.pgn'`
/// ([`pgn_format::PgnFormatFactory`], extension `pgn`, replacing one registered before).
pub fn register(ctx: &SessionContext) {
    register_with_pool(ctx, engines::EnginePool::shared());
}

/// [`register`] with engines of `pool`.
fn register_with_pool(ctx: &SessionContext, pool: Arc<engines::EnginePool>) {
    {
        let state = ctx.state_ref();
        let mut state = state.write();
        let options = state.config_mut().options_mut();
        if options.extensions.get::<ChessOptions>().is_none() {
            options.extensions.insert(ChessOptions::default());
        }
        // overwrite = true: registering never fails (a second register, a format of the
        // same extension registered before)
        let _ = state.register_file_format(Arc::new(pgn_format::PgnFormatFactory), true);
        // CREATE EXTERNAL TABLE … STORED AS PGN: the listing tables' factory, which asks
        // the format for a schema and gets its not-implemented error naming read_pgn
        state.table_factories_mut().insert(
            pgn_format::PGN_EXTENSION.to_ascii_uppercase(),
            Arc::new(datafusion::datasource::listing_table_factory::ListingTableFactory::new()),
        );
    }
    for (name, f) in table_functions_with(&pool, &ChessOptions::default()) {
        ctx.register_udtf(name, f);
    }
    // replayed on its first scan, not here; a session without a default schema (the only
    // error) has no `openings` table
    ctx.register_table("openings", openings_table_with(&pool))
        .ok();
    for f in scalar_functions_with(&pool) {
        ctx.register_udf(f);
    }
    // plies_of computes only the item fields a query reads; once per session
    let rule: Arc<dyn datafusion::optimizer::OptimizerRule + Send + Sync> =
        Arc::new(plies_of_fields::PliesOfFields);
    let known = (ctx.state_ref().read().optimizer().rules.iter()).any(|r| r.name() == rule.name());
    if !known {
        ctx.add_optimizer_rule(rule);
    }
}

/// The table functions [`register`] adds, by name: `read_pgn`, `read_plies`, `legal_moves`,
/// `explorer`, with engines of the process's pool. `defaults` are the settings a call uses
/// when its session has no [`ChessOptions`] (a datafusion-python session calling over the
/// FFI; the Python package's `register(ctx, split_bytes=…)`).
#[must_use]
pub fn table_functions(defaults: &ChessOptions) -> Vec<(&'static str, Arc<dyn TableFunctionImpl>)> {
    table_functions_with(&engines::EnginePool::shared(), defaults)
}

/// [`table_functions`] with engines of `pool`.
fn table_functions_with(
    pool: &Arc<engines::EnginePool>,
    defaults: &ChessOptions,
) -> Vec<(&'static str, Arc<dyn TableFunctionImpl>)> {
    let d = || defaults.clone();
    vec![
        ("read_pgn", Arc::new(ReadPgn::new(pool.clone(), d()))),
        ("read_plies", Arc::new(ReadPlies::new(pool.clone(), d()))),
        ("legal_moves", Arc::new(LegalMoves::new(pool.clone()))),
        (
            "explorer",
            Arc::new(explorer::Explorer::new(pool.clone(), d())),
        ),
    ]
}

/// The scalar functions [`register`] adds ([`ChessFunction`] and [`MoveFunction`]), with
/// engines of the process's pool.
#[must_use]
pub fn scalar_functions() -> Vec<ScalarUDF> {
    scalar_functions_with(&engines::EnginePool::shared())
}

/// [`scalar_functions`] with engines of `pool`.
fn scalar_functions_with(pool: &Arc<engines::EnginePool>) -> Vec<ScalarUDF> {
    let mut all = functions::all(pool);
    all.extend(move_functions::all(pool));
    all
}

/// The `openings` table [`register`] adds ([`openings::table::OpeningsTable`]), with engines
/// of the process's pool.
#[must_use]
pub fn openings_table() -> Arc<dyn TableProvider> {
    openings_table_with(&engines::EnginePool::shared())
}

/// [`openings_table`] with engines of `pool`.
fn openings_table_with(pool: &Arc<engines::EnginePool>) -> Arc<dyn TableProvider> {
    Arc::new(openings::table::OpeningsTable::new(pool.clone()))
}

/// A new session with [`register`]ed chess tables and functions and the information schema
/// (`SHOW TABLES`, `SHOW COLUMNS`) on.
#[must_use]
pub fn context() -> SessionContext {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_information_schema(true));
    register(&ctx);
    ctx
}

/// [`context`] that honours `config` (`sqlchess sql --threads N --memory-limit SIZE`): its
/// `target_partitions` are the session's, its memory limit bounds the query's operators and
/// the chess engines together (the engines, at most one per target partition, each with an
/// equal share of half the limit reserved when it is planned; the query's operators spill
/// or stop within the rest), and a query over it fails with
/// [`crate::session::SessionError::MemoryLimit`] inside the DataFusion error
/// ([`crate::session::memory::MemoryBudget::query_error`] names it).
#[must_use]
pub fn context_with(config: &crate::session::PipelineConfig) -> SessionContext {
    let session = SessionConfig::new()
        .with_information_schema(true)
        .with_target_partitions(config.target_partitions.max(1));
    let ctx = SessionContext::new_with_config_rt(session, config.memory.runtime());
    register_with_pool(&ctx, Arc::new(engines::EnginePool::with_config(config)));
    ctx
}
