//! The first step of validation: each game's start position, from its tags. A game whose
//! `Variant` tag names other rules, whose `FEN` tag does not parse, or whose set-up position
//! no legal game reaches (stage `setup_checks`) is reported at ply 0 and not played.

use std::collections::HashSet;

use crate::chess::fen::FenError;
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::error::Result;
use crate::pgn::RawGame;

use super::Live;
use super::report::{ErrorKind, GameReport};

/// The rules a PGN `Variant` tag names, as python-chess 1.11.2 reads it (`chess.Board`
/// aliases and `chess.pgn.Headers.is_chess960`), any case, surrounding spaces ignored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// Standard chess: `Standard`, `Chess`, `Classical`, `Normal`, `Illegal`, `From Position`
    /// (and an empty value). `From Position` is what a large online server writes on every
    /// standard game from a set-up position, `normal` what a popular engine-match GUI writes.
    Standard,
    /// Chess960: `Chess960`, `Chess 960`, `Fischerandom`, `FischerRandom`, `Fischer Random`.
    Chess960,
    /// Any other value (reported as `unsupported_variant`).
    Unsupported,
}

impl Variant {
    /// The rules a `Variant` tag value names.
    #[must_use]
    pub fn of(tag: &str) -> Variant {
        match tag.trim().to_lowercase().as_str() {
            "" | "standard" | "chess" | "classical" | "normal" | "illegal" | "from position" => {
                Variant::Standard
            }
            "chess960" | "chess 960" | "fischerandom" | "fischerrandom" | "fischer random" => {
                Variant::Chess960
            }
            _ => Variant::Unsupported,
        }
    }
}

/// Why a game has no start position to play from ([`start_position`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartError {
    /// The `Variant` tag (its value, as written) names rules other than standard chess and
    /// Chess960.
    UnsupportedVariant(String),
    /// The `FEN` tag does not parse by the rules of the game.
    Fen(FenError),
}

/// A game's start position, from its tags: the `FEN` tag, else the standard position;
/// Chess960 rules when the `Variant` tag says so or, without it, when the FEN's castling
/// rights can only mean Chess960. The one rule of the crate: validation plays each game from
/// it, and `profile` gives the seed pipeline these positions. The attack-based set-up checks
/// of the engine ([`Engine::check_setups`]) are not run here.
///
/// # Errors
///
/// [`StartError::UnsupportedVariant`] for a `Variant` tag other than standard chess and
/// Chess960, [`StartError::Fen`] for a `FEN` tag that does not parse.
pub fn start_position(game: &RawGame) -> std::result::Result<Setup, StartError> {
    let chess960 = match game.tag("Variant").map(Variant::of) {
        None | Some(Variant::Standard) => false,
        Some(Variant::Chess960) => true,
        Some(Variant::Unsupported) => {
            return Err(StartError::UnsupportedVariant(
                game.tag("Variant").unwrap_or_default().to_string(),
            ));
        }
    };
    let read = if chess960 {
        Setup::from_fen_chess960
    } else {
        Setup::from_fen_auto
    };
    match game.tag("FEN") {
        Some(fen) => read(fen).map_err(StartError::Fen),
        None => Ok(Setup {
            chess960,
            ..Setup::standard()
        }),
    }
}

/// Whether a game starts from the standard position under standard rules: no `FEN` tag, and
/// a `Variant` tag, if any, of standard chess ([`Variant::Standard`]). These are the games
/// the explorer reads.
#[must_use]
pub fn is_standard_start(game: &RawGame) -> bool {
    game.tag("FEN").is_none()
        && game
            .tag("Variant")
            .is_none_or(|v| Variant::of(v) == Variant::Standard)
}

/// The games that can be played, each from its start position ([`start_position`]). The
/// others get their error in `reports`: `unsupported_variant` for a `Variant` tag other than
/// standard chess and Chess960, `setup` for a `FEN` tag that does not parse. With
/// `max_plies`, each game's tokens end at that ply ([`super::ValidateOptions::max_plies`]).
pub(super) fn start_games<'g>(
    games: &'g [(&str, RawGame)],
    reports: &mut [GameReport],
    max_plies: Option<u32>,
) -> Vec<Live<'g>> {
    let cut = max_plies.map_or(usize::MAX, |m| usize::try_from(m).unwrap_or(usize::MAX));
    let mut live = vec![];
    for (i, (_, g)) in games.iter().enumerate() {
        let r = &mut reports[i];
        let setup = match start_position(g) {
            Ok(s) => s,
            Err(StartError::UnsupportedVariant(tag)) => {
                r.set_error(
                    0,
                    ErrorKind::UnsupportedVariant,
                    &format!("Variant tag {tag:?}: only standard chess and Chess960 are supported"),
                );
                continue;
            }
            Err(StartError::Fen(e)) => {
                r.set_error(0, ErrorKind::Setup, &format!("FEN tag {e}"));
                continue;
            }
        };
        live.push(Live {
            id: i as u64,
            tokens: &g.moves[..g.moves.len().min(cut)],
            ply: 0,
            position: setup,
            history: Default::default(),
            // a fault ends the tokens: after a cut, it lies beyond the plies played
            fault: g
                .fault
                .as_ref()
                .filter(|_| g.moves.len() <= cut)
                .map(|f| f.message.to_string()),
            pending: None,
        });
    }
    live
}

/// Drops from `live` the games whose `FEN` tag gives a position the engine rejects (side not
/// to move in check, impossible checks: [`Engine::check_setups`]) and reports them as
/// `setup` errors. Games without a FEN tag start from the standard position and are not
/// checked.
pub(super) async fn reject_impossible_setups(
    engine: &Engine,
    games: &[(&str, RawGame)],
    live: &mut Vec<Live<'_>>,
    reports: &mut [GameReport],
) -> Result<()> {
    let (ids, setups): (Vec<u64>, Vec<Setup>) = live
        .iter()
        .filter(|l| games[l.id as usize].1.tag("FEN").is_some())
        .map(|l| (l.id, l.position))
        .unzip();
    if setups.is_empty() {
        return Ok(());
    }
    let mut rejected = HashSet::new();
    for (id, verdict) in ids.into_iter().zip(engine.check_setups(&setups).await?) {
        if let Some(e) = verdict {
            reports[id as usize].set_error(0, ErrorKind::Setup, &format!("FEN tag {e}"));
            rejected.insert(id);
        }
    }
    live.retain(|l| !rejected.contains(&l.id));
    Ok(())
}
