//! Replay, the game loop: a batch of games advanced one ply per pipeline run by checking
//! only the move each game's token gives ([`crate::engine::replay::step`]), instead of
//! generating every legal move and picking the token's among them, for as long as each
//! game's tokens stand for exactly one legal move each.
//!
//! A game stops at the first ply whose token is anything else: the end of its movetext, a
//! UCI or null move, a token that is not a move, or a move that is illegal or ambiguous.
//! The full stages ([`super::full`]) resolve that ply, classify the errors and give the final
//! status; replay only ever accepts a move those stages accept.
//!
//! For the per-ply table, each accepted move also gets its notation and flags (stage
//! `replay_plies`: UCI, SAN without `+`/`#`, whether it gives check) and the FEN before it;
//! the SAN suffix is left to the caller ([`ReplayedPly`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::UInt64Type;

use crate::chess::outcome::History;
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::engine::replay::{replayable, step};
use crate::error::{Error, Result};
use crate::session::read::{self, Row};
use crate::stages::rows::{ReplayPly, repetition_keys};
use crate::stages::{Pipeline, Stage, tables};

use super::PlyRow;

/// Where replay left a game.
#[derive(Debug, Clone)]
pub(crate) struct Replayed {
    /// Plies accepted and applied.
    pub plies: usize,
    /// The positions before each of them and their irreversibility (repetition counting).
    pub history: History,
    /// The position reached.
    pub setup: Setup,
    /// With plies asked for ([`replay`]): one per ply accepted, in order; else empty.
    pub moves: Vec<ReplayedPly>,
}

/// An accepted move for the per-ply table: its row without game, ply and SAN suffix
/// (`is_check` false, `san` without `+`/`#`), and whether it gives check. Whether that check
/// is mate is known only from the next ply: a move followed by an accepted move is not mate;
/// after the last, the full stages tell.
#[derive(Debug, Clone)]
pub(crate) struct ReplayedPly {
    /// The row: FEN before, UCI, SAN without suffix, capture, castling, en passant,
    /// promotion.
    pub row: PlyRow,
    /// The move gives check.
    pub gives_check: bool,
}

/// Replays each game (id, start position, main-line move tokens) from its first ply for as
/// long as its tokens stand for exactly one legal move each; with `plies`, also gives each
/// accepted move's notation and FEN before ([`Replayed::moves`]).
///
/// Errors: pipeline failures only ([`crate::Error::DataFusion`], [`crate::Error::Schema`]).
pub(crate) async fn replay(
    p: &Pipeline,
    games: &[(u64, &Setup, &[String])],
    plies: bool,
) -> Result<BTreeMap<u64, Replayed>> {
    let mut out: BTreeMap<u64, Replayed> = BTreeMap::new();
    let moves: HashMap<u64, &[String]> = games.iter().map(|(id, _, m)| (*id, *m)).collect();
    let mut histories: HashMap<u64, History> = HashMap::new();
    let mut played: HashMap<u64, Vec<ReplayedPly>> = HashMap::new();
    let starts: Vec<(u64, &Setup)> = games.iter().map(|(id, s, _)| (*id, *s)).collect();
    let mut states = vec![tables::setups_to_states(&starts)?];
    let mut ply = 0;
    loop {
        let mut tokens: Vec<(u64, SanToken)> = vec![];
        for b in &states {
            for id in read::primitive::<UInt64Type>(b, "position_id")?.values() {
                let token = moves.get(id).and_then(|m| m.get(ply)).map(|t| parse_san(t));
                // an en passant mark is checked against the move by the full stages
                if let Some(Ok((t, suffix))) = token
                    && replayable(&t)
                    && !suffix.en_passant
                {
                    tokens.push((*id, t));
                }
            }
        }
        if tokens.is_empty() {
            break;
        }
        let pairs: Vec<(u64, &SanToken)> = tokens.iter().map(|(i, t)| (*i, t)).collect();
        let (accepted, next) = step(p, states.clone(), &pairs).await?;
        let mut named: HashMap<u64, ReplayPly> = if plies {
            ReplayPly::read_rows(&p.run(Stage::ReplayPlies).await?)?
                .into_iter()
                .map(|r| (r.position_id, r))
                .collect()
        } else {
            HashMap::new()
        };
        let mut stopped: HashSet<u64> = HashSet::new();
        for b in &states {
            let keys = repetition_keys(b)?;
            let ids = read::primitive::<UInt64Type>(b, "position_id")?;
            // the positions before the moves, row by row
            let before = if plies {
                tables::state_rows(b)?
            } else {
                vec![]
            };
            for (i, id) in ids.values().iter().enumerate() {
                match accepted.get(id) {
                    Some(&(zeroing, ep_legal)) => {
                        let h = histories.entry(*id).or_default();
                        h.push_position(keys(i, ep_legal));
                        h.push_move(zeroing, ep_legal);
                        if plies {
                            let ply = ply_of(named.remove(id), before.get(i), ep_legal)
                                .ok_or_else(|| {
                                    Error::Internal(format!("no notation of the move of game {id}"))
                                })?;
                            // room for every token: a ply row is large, growing moves it
                            played
                                .entry(*id)
                                .or_insert_with(|| {
                                    Vec::with_capacity(moves.get(id).map_or(0, |m| m.len()))
                                })
                                .push(ply);
                        }
                    }
                    None => {
                        stopped.insert(*id);
                    }
                }
            }
        }
        if !stopped.is_empty() {
            let rows = tables::filter_ids(&states, |id| stopped.contains(&id))?;
            finish(&mut out, &mut histories, &mut played, &rows, ply)?;
        }
        states = next;
        ply += 1;
    }
    finish(&mut out, &mut histories, &mut played, &states, ply)?;
    Ok(out)
}

/// The [`ReplayedPly`] of a `replay_plies` row and the position before the move (its en
/// passant square written only when an en passant capture is legal, `ep_legal`).
pub(super) fn ply_of(
    named: Option<ReplayPly>,
    before: Option<&Setup>,
    ep_legal: bool,
) -> Option<ReplayedPly> {
    let (n, before) = (named?, before?);
    let mut s = *before;
    if !ep_legal {
        s.ep_square = None;
    }
    Some(ReplayedPly {
        row: PlyRow {
            position_before: s,
            uci: n.ply_uci,
            san: n.ply_san,
            is_capture: n.ply_capture,
            is_castling: n.ply_castling,
            is_en_passant: n.ply_en_passant,
            promotion: n.ply_promotion.map(|p| p.to_ascii_uppercase()),
            ..Default::default()
        },
        gives_check: n.gives_check,
    })
}

/// Moves the games of these `replay_states` rows, stopped after `plies` plies, to `out`.
fn finish(
    out: &mut BTreeMap<u64, Replayed>,
    histories: &mut HashMap<u64, History>,
    played: &mut HashMap<u64, Vec<ReplayedPly>>,
    rows: &[RecordBatch],
    plies: usize,
) -> Result<()> {
    for (id, setup) in tables::states_to_setups(rows)? {
        let history = histories.remove(&id).unwrap_or_default();
        out.insert(
            id,
            Replayed {
                plies,
                history,
                setup,
                moves: played.remove(&id).unwrap_or_default(),
            },
        );
    }
    Ok(())
}
