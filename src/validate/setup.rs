//! The first step of validation: each game's start position, from its tags. A game whose
//! `Variant` tag names other rules, whose `FEN` tag does not parse, or whose set-up position
//! no legal game reaches (stage `setup_checks`) is reported at ply 0 and not played.

use std::collections::HashSet;

use crate::chess::fen::Setup;
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

/// The games that can be played, each from its start position (the `FEN` tag, else the
/// standard position; Chess960 rules when the `Variant` tag says so or, without it, when the
/// FEN's castling rights can only mean Chess960). The others get their error in `reports`:
/// `unsupported_variant` for a `Variant` tag other than standard chess and Chess960,
/// `setup` for a `FEN` tag that does not parse.
pub(super) fn start_games(games: &[(&str, RawGame)], reports: &mut [GameReport]) -> Vec<Live> {
    let mut live = vec![];
    for (i, (_, g)) in games.iter().enumerate() {
        let r = &mut reports[i];
        let chess960 = match g.tag("Variant").map(Variant::of) {
            None | Some(Variant::Standard) => false,
            Some(Variant::Chess960) => true,
            Some(Variant::Unsupported) => {
                r.set_error(
                    0,
                    ErrorKind::UnsupportedVariant,
                    &format!(
                        "Variant tag {:?}: only standard chess and Chess960 are supported",
                        g.tag("Variant").unwrap_or_default()
                    ),
                );
                continue;
            }
        };
        let read = if chess960 {
            Setup::from_fen_chess960
        } else {
            Setup::from_fen_auto
        };
        let setup = match g.tag("FEN") {
            Some(fen) => match read(fen) {
                Ok(s) => s,
                Err(e) => {
                    r.set_error(
                        0,
                        ErrorKind::Setup,
                        &format!("FEN tag {}: {e}", e.field.as_str()),
                    );
                    continue;
                }
            },
            None => Setup {
                chess960,
                ..Setup::standard()
            },
        };
        live.push(Live {
            id: i as u64,
            tokens: g.moves.clone(),
            ply: 0,
            position: setup,
            history: Default::default(),
            fault: g.fault.as_ref().map(|f| format!("{}", f.message)),
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
    live: &mut Vec<Live>,
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
