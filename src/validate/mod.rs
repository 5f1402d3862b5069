//! Game validation: replays PGN games ply-synchronously through the pipeline.
//!
//! All games of a batch advance one ply per pipeline run. First [`replay`] checks each
//! game's given moves on their own for as long as each stands for exactly one legal move.
//! From where replay stops (usually the end of the movetext), the full stages take over:
//! each ply, the current positions of the live games get their legal moves (`legal_moves`), status (`position_status`) and the
//! lexed move token of the ply is resolved against them (`token_matches`,
//! `token_verdicts`, `token_moves`); the resolved moves are applied (`next_positions`,
//! `next_pieces`). A game the full stages moved on goes back to replay (their ply was a null
//! move, a castling written as a king's move, an en passant mark), so they play only the
//! plies replay leaves; with plies, after the status of the position reached gives the
//! move's SAN suffix. A game leaves the batch when its movetext ends or its token does not
//! resolve to exactly one legal move; its report then gives the first illegal ply, the error
//! kind (taxonomy of `shared/data/bad/README.md`), the final FEN (python-chess style: en
//! passant square only when an en passant capture is legal) and the final status.
//!
//! On request ([`ValidateOptions::plies`]) it also gives one [`PlyRow`] per legal ply played.
//! Where replay accepts the ply, stage `replay_plies` names the move and says whether it
//! gives check; the SAN suffix is `+` for a check followed by another accepted move (the
//! position has a legal reply). Where the full stages play the ply, stage `san` names the
//! chosen move; there, and for the last replayed move, the status of the position after the
//! move (its side to move in check, without legal moves) gives the suffix `+` / `#`. Both
//! paths give the same rows ([`validate_plies_on_full_stages`] takes only the second, for the
//! tests that compare them).
//!
//! Where only the plies of games from the standard position are wanted (the explorer),
//! [`replay_prefixes`] replays the games' move prefixes as a tree, the plies games share once,
//! and validates the games it cannot play to their end as above.

mod full;
mod prefixes;
mod replay;
mod report;
mod setup;
mod validator;

pub(crate) use prefixes::{PrefixPlies, replay_prefixes};
pub use report::{ErrorKind, GameReport, PlyRow};
pub(crate) use report::{NULL_UCI, fen_of};
pub use setup::{StartError, Variant, is_standard_start, start_position};
pub use validator::{Validator, Workers};

use crate::chess::outcome::History;
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::error::Result;
use crate::pgn::RawGame;
use crate::stages::{APPLY, InputTable, LEGAL, Stage, TOKENS, tables};

use replay::{PlyRows, PlySink, replay};

/// Options of [`validate_games_with`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValidateOptions {
    /// Also return one [`PlyRow`] per legal ply played: replay names its moves (stage
    /// `replay_plies`, a little slower than without plies), the full stages the plies where
    /// replay stops.
    pub plies: bool,
    /// With [`ValidateOptions::plies`]: the plies replay plays carry their position, not
    /// their notation (`uci`, `san` empty, the move's flags false, only `position_before`
    /// and `double_step_square` set): stage `replay_plies` is not run, nor the status stages
    /// that give a SAN suffix. For readers of the positions alone (`read_plies` when no
    /// notation column is projected). Plies the full stages play (a null move, castling
    /// written as a king's move, an en passant mark) keep their notation, not always with
    /// its suffix.
    pub positions_only: bool,
    /// Replay at most this many plies of each game (`None`: all): a game longer than that is
    /// played up to ply `max_plies` and reported as if its movetext ended there (its
    /// `plies`, final position and status those of the prefix; an illegal move or a
    /// reader fault after the cut is not looked at). The cost of a run then grows with
    /// `max_plies`, not with the games' length: `read_plies(…) WHERE ply <= N`, the
    /// opening classification of `read_pgn` and `explorer` use it.
    pub max_plies: Option<u32>,
}

impl ValidateOptions {
    /// The options with or without [`ValidateOptions::plies`], the rest default (no cut).
    #[must_use]
    pub fn with_plies(plies: bool) -> ValidateOptions {
        ValidateOptions {
            plies,
            ..Default::default()
        }
    }

    /// The stages a validation with these options runs on every collection, to plan ahead:
    /// [`validation_stages`], and with named plies the per-ply notation's (replay's
    /// `replay_plies`, the full stages' `san`).
    pub(crate) fn stages(self) -> Vec<Stage> {
        let mut stages = validation_stages();
        if self.ply_rows() == PlyRows::Named {
            stages.extend([Stage::ReplayPlies, Stage::San]);
        }
        stages
    }

    /// What these options ask replay to give of each ply it plays.
    fn ply_rows(self) -> PlyRows {
        match (self.plies, self.positions_only) {
            (false, _) => PlyRows::No,
            (true, true) => PlyRows::Positions,
            (true, false) => PlyRows::Named,
        }
    }
}

/// The stages a validation of a collection runs, planned when a [`Validator`] is made (and
/// by the SQL engines' pool, [`ValidateOptions::stages`]) so that its twins share
/// their plans: replay's (without the per-ply notation), the final status's (legal moves,
/// repetition keys, status), the checks of a game's set-up position, and resolving a token
/// on the full stages, applying it and trying it for the other side (the games replay does
/// not decide). Any other stage is planned when first needed.
pub(crate) fn validation_stages() -> Vec<Stage> {
    [
        &[Stage::ReplayMoves, Stage::ReplayVerdicts, Stage::ReplayNext][..],
        LEGAL.stages,
        &[
            Stage::PositionKeys,
            Stage::PositionStatus,
            Stage::SetupChecks,
            Stage::FlippedPositions,
        ],
        TOKENS.stages,
        APPLY.stages,
    ]
    .concat()
}

/// What [`validate_games_with`] gives back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Validation {
    /// One report per game, in input order.
    pub reports: Vec<GameReport>,
    /// With [`ValidateOptions::plies`]: the legal plies of each game (input order, as
    /// `reports`), in ply order, each game's `reports[i].plies` of them; else empty. One
    /// vector per game: each row is written once, where it stays.
    pub plies: Vec<Vec<PlyRow>>,
}

impl Validation {
    /// The plies of each game, in input order (with [`ValidateOptions::plies`]). `None` when
    /// they do not match the reports' `plies` (a validation without plies).
    #[must_use]
    pub fn plies_by_game(&self) -> Option<Vec<&[PlyRow]>> {
        (self.plies.len() == self.reports.len()
            && self
                .reports
                .iter()
                .zip(&self.plies)
                .all(|(r, p)| r.plies as usize == p.len()))
        .then(|| self.plies.iter().map(Vec::as_slice).collect())
    }

    /// Every ply row: by game (input order), then ply.
    pub fn all_plies(&self) -> impl Iterator<Item = &PlyRow> {
        self.plies.iter().flatten()
    }

    /// The number of ply rows.
    #[must_use]
    pub fn ply_count(&self) -> usize {
        self.plies.iter().map(Vec::len).sum()
    }
}

/// Validates a batch of games (each with the name of its file) in one ply-synchronous
/// replay. Reports come back in input order.
///
/// Errors: only pipeline failures ([`crate::Error::DataFusion`]); every input fault is
/// reported in its game's row.
pub async fn validate_games(engine: &Engine, games: &[(&str, RawGame)]) -> Result<Vec<GameReport>> {
    Ok(
        validate_games_with(engine, games, ValidateOptions::default())
            .await?
            .reports,
    )
}

/// [`validate_games`] with options: with [`ValidateOptions::plies`], also the legal plies
/// played ([`PlyRow`], see [`crate::io::report::plies_to_batch`] for them as Arrow).
///
/// The steps: start positions from the tags ([`setup`]: `Variant`, `FEN`, set-up checks);
/// replay of the moves that stand for one legal move each ([`replay`]); then
/// the full stages, one ply of every live game at a time, until every game has ended
/// ([`full`]: error kinds, final status).
///
/// Errors: as [`validate_games`].
pub async fn validate_games_with(
    engine: &Engine,
    games: &[(&str, RawGame)],
    options: ValidateOptions,
) -> Result<Validation> {
    validate_run(engine, games, options, true).await
}

/// [`validate_games_with`] with plies, every ply played by the full stages (no replay): the
/// reference the tests hold the replayed plies against (`tests/batch.rs`). Much slower.
///
/// Errors: as [`validate_games`].
#[doc(hidden)]
pub async fn validate_plies_on_full_stages(
    engine: &Engine,
    games: &[(&str, RawGame)],
) -> Result<Validation> {
    validate_run(engine, games, ValidateOptions::with_plies(true), false).await
}

/// [`validate_games_with`], with or without replay.
async fn validate_run(
    engine: &Engine,
    games: &[(&str, RawGame)],
    options: ValidateOptions,
    with_replay: bool,
) -> Result<Validation> {
    let mut reports: Vec<GameReport> = games
        .iter()
        .map(|(file, g)| GameReport::new(file, g))
        .collect();
    let mut live = setup::start_games(games, &mut reports, options.max_plies);
    setup::reject_impossible_setups(engine, games, &mut live, &mut reports).await?;
    let mut run = Run {
        engine,
        options,
        reports,
        plies: vec![vec![]; if options.plies { games.len() } else { 0 }],
        live,
    };
    // moves checked one by one; the full stages take over where replay stops
    if with_replay {
        run.replay().await?;
    }
    run.load_live().await?;
    while !run.live.is_empty() {
        run.full_ply().await?;
        // a game the full stages moved on goes back to replay (with plies, once the status
        // of the position reached gives the move just played its SAN suffix)
        if with_replay && !run.live.is_empty() {
            if run.options.plies {
                run.complete_pending().await?;
            }
            run.resume_replay().await?;
        }
    }
    Ok(Validation {
        reports: run.reports,
        plies: run.plies,
    })
}

/// A game in play.
struct Live<'g> {
    /// Index of the game in the batch.
    id: u64,
    /// Its main-line move tokens (the game's own, not copied).
    tokens: &'g [String],
    /// Plies played.
    ply: usize,
    /// The position after `ply` plies, until the full stages load it.
    position: Setup,
    /// Its positions so far, for repetitions.
    history: History,
    /// The PGN reader's fault message, reported when the tokens run out.
    fault: Option<String>,
    /// The row of the move just applied, waiting for the status of the position after it
    /// (the SAN suffix).
    pending: Option<PlyRow>,
}

/// The state of one [`validate_games_with`] call.
struct Run<'a, 'g> {
    engine: &'a Engine,
    options: ValidateOptions,
    /// One per game, in input order.
    reports: Vec<GameReport>,
    /// With [`ValidateOptions::plies`]: the plies of each game; else empty.
    plies: Vec<Vec<PlyRow>>,
    /// The games still in play.
    live: Vec<Live<'g>>,
}

impl Run<'_, '_> {
    /// Replays the live games for as long as each token stands for exactly one legal move
    /// ([`replay`]) and records where each got to; with plies, the rows of
    /// the replayed plies, the last one pending when named (its suffix comes from the full
    /// stages' status of the position after it, as for a move they play).
    async fn replay(&mut self) -> Result<()> {
        let histories: Vec<History> = self
            .live
            .iter_mut()
            .map(|l| std::mem::take(&mut l.history))
            .collect();
        let starts: Vec<(u64, &Setup, &[String])> = self
            .live
            .iter()
            .map(|l| (l.id, &l.position, l.tokens.get(l.ply..).unwrap_or_default()))
            .collect();
        let rows = self.options.ply_rows();
        // each live game's rows, written by replay where they stay
        let mut by_id: Vec<Option<&mut Vec<PlyRow>>> = self.plies.iter_mut().map(Some).collect();
        let mut sinks = vec![];
        if rows != PlyRows::No {
            for l in &self.live {
                let rows = by_id
                    .get_mut(l.id as usize)
                    .and_then(Option::take)
                    .ok_or_else(|| crate::Error::Internal(format!("no rows of game {}", l.id)))?;
                // room for every token left: growing would move the rows
                rows.reserve(l.tokens.len().saturating_sub(l.ply));
                sinks.push(PlySink {
                    rows,
                    game_index: self.reports[l.id as usize].game_index,
                    played: l.ply,
                });
            }
        }
        let mut replayed =
            replay(self.engine.pipeline(), &starts, histories, rows, &mut sinks).await?;
        drop(sinks);
        for l in self.live.iter_mut() {
            if let Some(r) = replayed.remove(&l.id) {
                l.ply += r.plies;
                l.history = r.history;
                l.position = r.setup;
                self.reports[l.id as usize].plies = l.ply as u32;
                // the last named row waits for the SAN suffix the full stages give
                if rows == PlyRows::Named && r.plies > 0 {
                    l.pending = self.plies.get_mut(l.id as usize).and_then(Vec::pop);
                }
            }
        }
        Ok(())
    }

    /// Replays the live games again from the positions the full stages left in `positions`
    /// and `pieces` (after a ply they played: a null move, castling written as a king's move,
    /// an en passant mark), then loads the positions replay reached for the full stages.
    async fn resume_replay(&mut self) -> Result<()> {
        let p = self.engine.pipeline();
        let mut positions = tables::batches_to_setups(
            &p.table(InputTable::Positions).await?,
            &p.table(InputTable::Pieces).await?,
        )?;
        for l in self.live.iter_mut() {
            l.position = positions.remove(&l.id).ok_or_else(|| {
                crate::Error::Internal(format!("no position of live game {}", l.id))
            })?;
        }
        self.replay().await?;
        self.load_live().await
    }

    /// Loads the live games' positions into `positions` and `pieces` for the full stages.
    async fn load_live(&self) -> Result<()> {
        let p = self.engine.pipeline();
        let pairs: Vec<(u64, &Setup)> = self.live.iter().map(|l| (l.id, &l.position)).collect();
        let (positions, pieces) = tables::setups_to_batches(&pairs)?;
        p.set_table(InputTable::Positions, vec![positions]).await?;
        p.set_table(InputTable::Pieces, vec![pieces]).await?;
        Ok(())
    }
}
