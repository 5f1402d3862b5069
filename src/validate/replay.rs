//! Replay, the game loop: a batch of games advanced one ply per pipeline run by checking
//! only the move each game's token gives ([`crate::engine::replay::step`]), instead of
//! generating every legal move and picking the token's among them, for as long as each
//! game's tokens stand for exactly one legal move each.
//!
//! A game stops at the first ply whose token is anything else: the end of its movetext, a
//! null move, castling written as a king's move (UCI `e1g1`), an en passant mark, a token
//! that is not a move, or a move that is illegal or ambiguous.
//! The full stages ([`super::full`]) resolve that ply, classify the errors and give the final
//! status; replay only ever accepts a move those stages accept.
//!
//! For the per-ply table, each accepted move also gets a row, written once into its game's
//! rows ([`PlySink`]): the position before it (as bitboards) and, unless only positions are
//! asked for ([`PlyRows`]), its notation and flags (stage `replay_plies`: UCI, SAN, whether
//! it gives check). A check is `+` once the next move is accepted; the last row's suffix is
//! left to the caller ([`ReplayedPly`]).

use std::collections::BTreeMap;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::datatypes::UInt64Type;

use crate::chess::bitboards::Bitboards;
use crate::chess::outcome::History;
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::engine::replay::{replayable, step};
use crate::error::{Error, Result};
use crate::session::read::{self, Row};
use crate::stages::rows::{AfterMove, ReplayPly, after_moves, repetition_keys};
use crate::stages::{Pipeline, Stage, tables};

use super::PlyRow;

/// What replay gives of each ply it accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PlyRows {
    /// Nothing (validation alone).
    No,
    /// The position before the move ([`super::ValidateOptions::positions_only`]).
    Positions,
    /// The position before the move and the move's notation and flags (stage
    /// `replay_plies`).
    Named,
}

/// Where replay left a game.
#[derive(Debug, Clone)]
pub(crate) struct Replayed {
    /// Plies accepted and applied.
    pub plies: usize,
    /// The history given, then the positions before each accepted ply and their
    /// irreversibility (repetition counting).
    pub history: History,
    /// The position reached.
    pub setup: Setup,
}

/// Where [`replay`] writes the rows of one game's accepted plies (with plies asked for, its
/// [`PlyRows`]): the game's rows so far, its `game_index` and the plies it played before.
/// Each row is written once, where it stays: a ply row is large.
pub(crate) struct PlySink<'a> {
    /// The game's rows; replay appends one per accepted ply, in order, each with its SAN
    /// suffix except the last one's (whether that check is mate is known only from the
    /// next ply: the caller's full stages tell).
    pub rows: &'a mut Vec<PlyRow>,
    /// The game's `game_index`.
    pub game_index: u64,
    /// Plies the game played before this replay.
    pub played: usize,
}

/// An accepted move for the per-ply table: its row without game, ply and SAN suffix
/// (`is_check` false, `san` without `+`/`#`; without notation for [`PlyRows::Positions`]),
/// and whether it gives check. Whether that check is mate is known only from the next ply:
/// a move followed by an accepted move is not mate; after the last, the full stages tell.
#[derive(Debug, Clone)]
pub(crate) struct ReplayedPly {
    /// The row: FEN before, UCI, SAN without suffix, capture, castling, en passant,
    /// promotion.
    pub row: PlyRow,
    /// The move gives check.
    pub gives_check: bool,
}

/// The games still in play at or below which a replay pass ends while games it stopped with
/// tokens left wait for the full stages: each step costs about as much whatever its rows, so
/// a waiting game resumed only after the pass's longest game would run its remaining plies
/// in steps of its own; ended here, the full stages play one ply of every game in play and
/// the next pass takes the waiting games on beside the long ones.
const TAIL_ROWS: usize = 64;

/// Replays each game (id, position, the main-line move tokens from there) for as long as its
/// tokens stand for exactly one legal move each, continuing each game's repetition history
/// (`histories`, one per game: the positions before the position given); writes each
/// accepted move's row as `rows` asks to the game's sink (`sinks`, one per game; none for
/// [`PlyRows::No`]).
///
/// Errors: pipeline failures ([`crate::Error::DataFusion`], [`crate::Error::Schema`]);
/// [`Error::Internal`] when `histories` or `sinks` and `games` differ in length.
pub(crate) async fn replay(
    p: &Pipeline,
    games: &[(u64, &Setup, &[String])],
    histories: Vec<History>,
    rows: PlyRows,
    sinks: &mut [PlySink<'_>],
) -> Result<BTreeMap<u64, Replayed>> {
    let plies = rows != PlyRows::No;
    // each row's position_id is its game's place in `games` (its slot): what replay keeps
    // per game is a vector indexed by slot
    let n = games.len();
    if histories.len() != n || sinks.len() != if plies { n } else { 0 } {
        return Err(Error::Internal(format!(
            "replay: {} histories and {} row sinks for {n} games",
            histories.len(),
            sinks.len()
        )));
    }
    let mut out: BTreeMap<u64, Replayed> = BTreeMap::new();
    let mut histories = histories;
    // per slot: its last row's move gives check, its suffix waiting for the next ply
    let mut check_waits: Vec<bool> = vec![false; sinks.len()];
    // per slot whose move was accepted this step: whether its position has a legal en
    // passant capture, and what the position after says of the move
    let mut accepted: Vec<Option<(bool, AfterMove)>> = vec![None; n];
    let mut stopped: Vec<bool> = vec![false; n];
    // with named plies, each accepted move's `replay_plies` row
    let mut named: Vec<Option<ReplayPly>> = std::iter::repeat_with(|| None)
        .take(if rows == PlyRows::Named { n } else { 0 })
        .collect();
    let starts: Vec<(u64, &Setup)> = games
        .iter()
        .enumerate()
        .map(|(slot, (_, s, _))| (slot as u64, *s))
        .collect();
    // each game's tokens lexed once, in one array, up to the first one replay does not
    // check (an en passant mark is checked against the move by the full stages)
    let mut lexed: Vec<SanToken> = vec![];
    let mut bounds: Vec<(usize, usize)> = Vec::with_capacity(n);
    for (_, _, tokens) in games {
        let start = lexed.len();
        lexed.extend(tokens.iter().map_while(|t| match parse_san(t) {
            Ok((t, suffix)) if replayable(&t) && !suffix.en_passant => Some(t),
            _ => None,
        }));
        bounds.push((start, lexed.len() - start));
    }
    let token_of = |slot: u64, ply: usize| {
        let &(start, len) = bounds.get(slot as usize)?;
        (ply < len).then(|| &lexed[start + ply])
    };
    let mut states = vec![tables::setups_to_states(&starts)?];
    let mut ply = 0;
    // games stopped with tokens left (a null move, castling written as a king's move, an
    // illegal move…): the full stages play their next ply after this pass
    let mut waiting = 0;
    loop {
        // a pass down to its last few games ends for all of them while some wait, so that
        // the waiting games go on beside its long games, not alone after them
        let in_play: usize = states.iter().map(RecordBatch::num_rows).sum();
        if waiting > 0 && in_play <= TAIL_ROWS {
            break;
        }
        let mut pairs: Vec<(u64, &SanToken)> = vec![];
        for b in &states {
            for &slot in read::primitive::<UInt64Type>(b, "position_id")?.values() {
                if let Some(t) = token_of(slot, ply) {
                    pairs.push((slot, t));
                }
            }
        }
        if pairs.is_empty() {
            break;
        }
        let (verdicts, next) = step(p, states.clone(), &pairs).await?;
        for (slot, ep_legal) in verdicts {
            if let Some(a) = accepted.get_mut(slot as usize) {
                *a = Some((ep_legal, AfterMove::default()));
            }
        }
        for (slot, after) in after_moves(&next)? {
            if let Some(Some(a)) = accepted.get_mut(slot as usize) {
                a.1 = after;
            }
        }
        if rows == PlyRows::Named {
            for r in ReplayPly::read_rows(&p.run(Stage::ReplayPlies).await?)? {
                if let Some(slot) = named.get_mut(r.position_id as usize) {
                    *slot = Some(r);
                }
            }
        }
        let mut any_stopped = false;
        for b in &states {
            let keys = repetition_keys(b)?;
            let slots = read::primitive::<UInt64Type>(b, "position_id")?;
            // the positions before the moves, row by row
            let before = if plies {
                tables::state_bitboards(b)?
            } else {
                vec![]
            };
            for (i, slot) in slots.values().iter().enumerate() {
                let at = *slot as usize;
                match accepted.get_mut(at).and_then(Option::take) {
                    Some((ep_legal, after)) => {
                        let h = &mut histories[at];
                        h.push_position(keys(i, ep_legal));
                        h.push_move(after.zeroing, ep_legal);
                        if plies {
                            let missing = || {
                                Error::Internal(format!(
                                    "no notation of the move of game {}",
                                    games[at].0
                                ))
                            };
                            let name = match rows {
                                PlyRows::Named => Some(named[at].take().ok_or_else(missing)?),
                                _ => None,
                            };
                            let position = before.get(i).ok_or_else(missing)?;
                            let sink = &mut sinks[at];
                            // a move followed by an accepted move is not mate
                            if std::mem::take(&mut check_waits[at])
                                && let Some(last) = sink.rows.last_mut()
                            {
                                last.mark_check(false);
                            }
                            // the row written where it stays, then filled in
                            sink.rows.push(position_row(position, ep_legal, after));
                            let row = sink.rows.last_mut().ok_or_else(missing)?;
                            row.game_index = sink.game_index;
                            row.ply = u32::try_from(sink.played + ply + 1).unwrap_or(u32::MAX);
                            if let Some(n) = name {
                                check_waits[at] = name_row(row, n);
                            }
                        }
                    }
                    None => {
                        if let Some(s) = stopped.get_mut(at) {
                            *s = true;
                            any_stopped = true;
                            if ply < games[at].2.len() {
                                waiting += 1;
                            }
                        }
                    }
                }
            }
        }
        if any_stopped {
            let rows = tables::filter_ids(&states, |slot| {
                stopped.get(slot as usize).copied().unwrap_or(false)
            })?;
            finish(&mut out, games, &mut histories, &rows, ply)?;
        }
        states = next;
        ply += 1;
    }
    finish(&mut out, games, &mut histories, &states, ply)?;
    Ok(out)
}

/// The [`ReplayedPly`] of an accepted move: its row ([`position_row`]) with its notation
/// from its `replay_plies` row (`named`; none: a row without).
pub(super) fn ply_of(
    named: Option<ReplayPly>,
    before: &Bitboards,
    ep_legal: bool,
    after: AfterMove,
) -> ReplayedPly {
    let mut row = position_row(before, ep_legal, after);
    let gives_check = named.is_some_and(|n| name_row(&mut row, n));
    ReplayedPly { row, gives_check }
}

/// The row of an accepted move without its notation: the position before it (its en passant
/// square kept only when an en passant capture is legal, `ep_legal`) and what the position
/// after says of it.
fn position_row(before: &Bitboards, ep_legal: bool, after: AfterMove) -> PlyRow {
    let mut position_before = *before;
    if !ep_legal {
        position_before.ep_square = None;
    }
    PlyRow {
        double_step_square: after.double_step_square,
        ..PlyRow::from_position(position_before)
    }
}

/// Writes a move's notation from its `replay_plies` row into its row (in place: a ply row is
/// large); whether the move gives check.
fn name_row(row: &mut PlyRow, n: ReplayPly) -> bool {
    row.uci = n.ply_uci;
    row.san = n.ply_san;
    row.is_capture = n.ply_capture;
    row.is_castling = n.ply_castling;
    row.is_en_passant = n.ply_en_passant;
    row.promotion = n.ply_promotion.map(|p| p.to_ascii_uppercase());
    n.gives_check
}

/// Moves the games of these `replay_states` rows (position_id: the game's slot in
/// `games`), stopped after `plies` plies, to `out` under their game ids.
fn finish(
    out: &mut BTreeMap<u64, Replayed>,
    games: &[(u64, &Setup, &[String])],
    histories: &mut [History],
    rows: &[RecordBatch],
    plies: usize,
) -> Result<()> {
    for (slot, setup) in tables::states_to_setups(rows)? {
        let at = slot as usize;
        let Some(&(id, _, _)) = games.get(at) else {
            return Err(Error::Internal(format!("replay: no game in slot {slot}")));
        };
        out.insert(
            id,
            Replayed {
                plies,
                history: std::mem::take(&mut histories[at]),
                setup,
            },
        );
    }
    Ok(())
}
