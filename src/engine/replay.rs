//! Replay: games advanced one ply per pipeline run by checking only the move each game's
//! token gives, instead of generating every legal move and picking the token's among them.
//!
//! Each game in play is one row of `replay_states` (the position with its board as 64-bit
//! square sets, see [`crate::stages::tables`]). Per ply, the replay stages find the moves the
//! token can stand for (`replay_moves`: the token's kind of piece reaching the target along a
//! free ray, or castling, each with an attack test on its king's square afterwards), count
//! the legal ones (`replay_verdicts`) and apply the move of every game whose token stands for
//! exactly one legal move (`replay_next`).
//!
//! A game stops at the first ply whose token is anything else: the end of its movetext, a
//! UCI or null move, a token that is not a move, or a move that is illegal or ambiguous.
//! [`crate::validate`] resolves that ply with the full legal-move stages, which classify the
//! errors and give the final status; replay only ever accepts a move those stages accept.
//!
//! For the per-ply table, each accepted move also gets its notation and flags (stage
//! `replay_plies`: UCI, SAN without `+`/`#`, whether it gives check) and the FEN before it;
//! the SAN suffix is left to the caller ([`ReplayedPly`]).

use std::collections::{BTreeMap, HashMap, HashSet};

use datafusion::arrow::array::{Array, RecordBatch};
use datafusion::arrow::datatypes::{Int32Type, UInt64Type};

use crate::chess::outcome::{History, Key};
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::error::{Error, Result};
use crate::session::read::{self, Row};
use crate::stages::{InputTable, Pipeline, Stage, tables};
use crate::validate::PlyRow;

crate::table_row! {
    /// A row of stage `replay_verdicts`: whether a game's token stands for exactly one legal
    /// move, whether that move is zeroing, and whether the position has a legal en passant
    /// capture.
    struct ReplayVerdict {
        position_id: u64,
        accepted: Option<bool>,
        zeroing: Option<bool>,
        ep_legal: Option<bool>,
    }
}

crate::table_row! {
    /// A row of stage `replay_plies`: the notation and flags of an accepted move.
    struct ReplayPly {
        position_id: u64,
        ply_uci: String,
        ply_san: String,
        ply_capture: bool,
        ply_castling: bool,
        ply_en_passant: bool,
        ply_promotion: Option<String>,
        gives_check: bool,
    }
}

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
                        h.push_move(zeroing || ep_legal);
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
fn ply_of(named: Option<ReplayPly>, before: Option<&Setup>, ep_legal: bool) -> Option<ReplayedPly> {
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

/// One ply of replay: `states` (`replay_states` rows) and one SAN or castling token per
/// position; gives, per position whose token stands for exactly one legal move, whether that
/// move is zeroing and whether the position has a legal en passant capture, and the
/// `replay_states` rows after those moves (stage `replay_next`).
///
/// Errors: pipeline failures only.
pub(crate) async fn step(
    p: &Pipeline,
    states: Vec<RecordBatch>,
    tokens: &[(u64, &SanToken)],
) -> Result<(HashMap<u64, (bool, bool)>, Vec<RecordBatch>)> {
    p.set_table(InputTable::Tokens, vec![tables::tokens_to_batch(tokens)?])
        .await?;
    p.set_table(InputTable::ReplayStates, states).await?;
    p.run(Stage::ReplayMoves).await?;
    let accepted = read_verdicts(&p.run(Stage::ReplayVerdicts).await?)?;
    Ok((accepted, p.run(Stage::ReplayNext).await?))
}

/// Whether replay checks this token itself (SAN moves and castling); the full legal-move
/// stages resolve the others.
pub(crate) fn replayable(token: &SanToken) -> bool {
    matches!(token, SanToken::Normal { .. } | SanToken::Castle { .. })
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

/// Per game whose move was accepted: (zeroing, ep_legal).
fn read_verdicts(batches: &[RecordBatch]) -> Result<HashMap<u64, (bool, bool)>> {
    Ok(ReplayVerdict::read_rows(batches)?
        .into_iter()
        .filter(|v| v.accepted == Some(true))
        .map(|v| {
            (
                v.position_id,
                (v.zeroing == Some(true), v.ep_legal == Some(true)),
            )
        })
        .collect())
}

/// The repetition keys of the rows of a batch holding the columns of stage `position_keys`
/// (`replay_states` rows, `position_status` rows): the one place where a key is read. The
/// returned function gives row `i`'s key, given whether an en passant capture is legal there
/// (only then does the en passant square count, FIDE art. 9.2.3).
///
/// Errors: [`crate::Error::Session`] when a column is missing.
pub(crate) fn repetition_keys(b: &RecordBatch) -> Result<impl Fn(usize, bool) -> Key + '_> {
    let sets = tables::SET_COLUMNS
        .iter()
        .map(|n| read::primitive::<UInt64Type>(b, n))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    let side = read::strings(b, "side_to_move")?;
    let rights = tables::castling_column(b)?;
    let ep = read::primitive::<Int32Type>(b, "ep_square")?;
    Ok(move |i: usize, ep_legal: bool| Key {
        sets: std::array::from_fn(|k| sets[k].value(i)),
        side_to_move: tables::color_of(side.value(i)),
        castling: rights.value(i),
        ep_square: if ep_legal && ep.is_valid(i) {
            ep.value(i)
        } else {
            -1
        },
    })
}
