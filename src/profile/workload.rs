//! What a profile (or `explain --analyze`) runs: the [`Workload`] (positions, or the games of
//! PGN files) and how each pipeline runs it.
//!
//! * `fide`, positions: [`Engine::legal_moves`] (legal moves with SAN, check and mate), in
//!   batches of [`POSITION_BATCH`] positions.
//! * `fide`, PGN files: [`validate_games`] (ply-synchronous replay), in batches of
//!   [`GAME_BATCH`] games, as `sqlchess validate` does.
//! * `seed`, positions: [`SeedPipeline::load_fens`] + [`SeedPipeline::all_moves`] (the
//!   post's "similar WITH statement which generates all possible moves"), in batches of
//!   [`POSITION_BATCH`].
//! * `seed`, PGN files: the seed cannot replay a game (it has no SAN and no game-end
//!   rules), so each game contributes its start position, by validation's rule
//!   ([`start_positions`]: the `FEN` tag, else the standard position, Chess960 by the
//!   `Variant` tag; games without one are skipped) and those positions run as above.
//!
//! PGN files are read through [`crate::io::input`], as `sqlchess validate` reads them: zstd,
//! gzip and bzip2 files are decompressed (recognised by their first bytes).
//!
//! The default workload is the first [`DEFAULT_POSITIONS`] FENs of `data/positions.fen`
//! (288 real-game positions, cycled; compiled into the library): the `fen` column of
//! `tests/data/oracle_positions.csv`, whose README says where they come from.

use std::path::{Path, PathBuf};

use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::io::input::{ByteCounter, Input};
use crate::pgn::{PgnReader, RawGame};
use crate::seed::SeedPipeline;
use crate::validate::{start_position, validate_games};

/// Positions in the default workload.
pub const DEFAULT_POSITIONS: usize = 1000;

/// Positions per pipeline batch when a workload of positions runs.
pub const POSITION_BATCH: usize = 1000;

/// Games per pipeline batch when a workload of PGN files runs on our pipeline (the default
/// of `sqlchess validate --batch`).
pub const GAME_BATCH: usize = 2000;

/// `data/positions.fen`, the source of the default workload.
const DEFAULT_FENS: &str = include_str!("../../data/positions.fen");

/// What a profile (or `explain --analyze`) runs.
#[derive(Debug, Clone)]
pub enum Workload {
    /// Positions: legal move generation.
    Positions {
        /// The positions.
        setups: Vec<Setup>,
        /// Where they come from (for the report's heading).
        source: String,
    },
    /// PGN files: game validation on our pipeline, the games' start positions on the seed's.
    Games(Vec<PathBuf>),
}

impl Workload {
    /// The default workload: the first `n` FENs of `data/positions.fen`, cycled.
    pub fn default_positions(n: usize) -> Workload {
        let all = parse_fens(DEFAULT_FENS, "data/positions.fen").unwrap_or_default();
        let setups: Vec<Setup> = all.iter().copied().cycle().take(n).collect();
        let source = format!(
            "{n} positions: data/positions.fen ({} real-game positions, cycled)",
            all.len()
        );
        Workload::Positions { setups, source }
    }

    /// The positions of a FEN file (see [`parse_fens`]).
    ///
    /// Errors: [`Error::Io`], [`Error::Fen`] for a line that is not a FEN.
    pub fn fen_file(path: &Path) -> Result<Workload> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            source: e,
        })?;
        let setups = parse_fens(&text, &path.display().to_string())?;
        let source = format!("{} positions: {}", setups.len(), path.display());
        Ok(Workload::Positions { setups, source })
    }

    /// One line describing the workload.
    pub fn describe(&self) -> String {
        match self {
            Workload::Positions { source, .. } => source.clone(),
            Workload::Games(paths) => {
                let names: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
                format!("games of {}", names.join(", "))
            }
        }
    }
}

/// FENs from text: either one FEN per line (empty lines skipped), or CSV whose header line
/// has a column named `fen` (that column is read; FENs contain no commas).
///
/// Errors: [`Error::Fen`] for the first value that is not a FEN (the message names `source`
/// and the line).
pub fn parse_fens(text: &str, source: &str) -> Result<Vec<Setup>> {
    let mut lines = text.lines().enumerate().peekable();
    let column = lines.peek().and_then(|(_, header)| {
        header
            .split(',')
            .position(|f| f.trim().eq_ignore_ascii_case("fen"))
    });
    if column.is_some() {
        lines.next();
    }
    let mut out = vec![];
    for (i, line) in lines {
        let fen = match column {
            Some(c) => line.split(',').nth(c).unwrap_or(""),
            None => line,
        }
        .trim();
        if fen.is_empty() {
            continue;
        }
        let setup = Setup::from_fen(fen).map_err(|e| Error::Fen {
            fen: format!("{source} line {}: {fen}", i + 1),
            source: e,
        })?;
        out.push(setup);
    }
    Ok(out)
}

/// The games of a PGN file, read through [`crate::io::input`] (plain text or zstd, gzip,
/// bzip2, recognised by the first bytes); a read error names the file as [`Error::Io`].
///
/// Errors: as [`Input::open`].
fn games(path: &Path) -> Result<impl Iterator<Item = Result<RawGame>>> {
    let name = path.display().to_string();
    let reader = Input::file(path.to_path_buf()).open(&ByteCounter::new())?;
    Ok(PgnReader::new(reader).map(move |game| {
        game.map_err(|e| Error::Io {
            path: name.clone(),
            source: std::io::Error::other(e),
        })
    }))
}

/// Streams the games of PGN files in batches of `batch` and calls `f` on each batch (with
/// each game's file name).
async fn for_game_batches<F, Fut>(paths: &[PathBuf], batch: usize, mut f: F) -> Result<()>
where
    F: FnMut(Vec<(String, RawGame)>) -> Fut,
    Fut: std::future::Future<Output = Result<()>>,
{
    let mut batch_games: Vec<(String, RawGame)> = vec![];
    for path in paths {
        let name = path.display().to_string();
        for game in games(path)? {
            batch_games.push((name.clone(), game?));
            if batch_games.len() == batch {
                f(std::mem::take(&mut batch_games)).await?;
            }
        }
    }
    if !batch_games.is_empty() {
        f(batch_games).await?;
    }
    Ok(())
}

/// Runs a workload on our pipeline (see the module documentation).
pub(super) async fn run_fide(engine: &Engine, workload: &Workload) -> Result<()> {
    match workload {
        Workload::Positions { setups, .. } => {
            for chunk in setups.chunks(POSITION_BATCH) {
                engine.legal_moves(chunk).await?;
            }
        }
        Workload::Games(paths) => {
            for_game_batches(paths, GAME_BATCH, |games| async move {
                let (names, games): (Vec<String>, Vec<RawGame>) = games.into_iter().unzip();
                let refs: Vec<(&str, RawGame)> =
                    names.iter().map(String::as_str).zip(games).collect();
                validate_games(engine, &refs).await.map(|_| ())
            })
            .await?;
        }
    }
    Ok(())
}

/// The start positions of the games of PGN files, by the rule validation plays them from
/// ([`start_position`]: the `FEN` tag, else the standard position; Chess960 by the `Variant`
/// tag or the FEN's castling rights); games without one (a `Variant` tag naming other rules,
/// a `FEN` tag that does not parse) are left out.
///
/// Errors: as [`Input::open`], and [`Error::Io`] naming the file for a read error later on.
pub fn start_positions(paths: &[PathBuf]) -> Result<Vec<Setup>> {
    let mut out = vec![];
    for path in paths {
        for game in games(path)? {
            if let Ok(s) = start_position(&game?) {
                out.push(s);
            }
        }
    }
    Ok(out)
}

/// The positions the seed runs for a workload.
pub(super) fn seed_positions(workload: &Workload) -> Result<Vec<Setup>> {
    match workload {
        Workload::Positions { setups, .. } => Ok(setups.clone()),
        Workload::Games(paths) => start_positions(paths),
    }
}

/// Runs a workload on the seed pipeline: `load_fens` + `all_moves` per batch.
pub(super) async fn run_seed(seed: &mut SeedPipeline, setups: &[Setup]) -> Result<()> {
    for chunk in setups.chunks(POSITION_BATCH) {
        seed.load_fens(chunk).await?;
        seed.all_moves().await?;
    }
    Ok(())
}
