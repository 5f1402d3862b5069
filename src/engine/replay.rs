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

use std::collections::{BTreeMap, HashMap, HashSet};

use datafusion::arrow::array::{
    Array, AsArray, BooleanArray, Int32Array, RecordBatch, StringArray, UInt64Array,
};
use datafusion::arrow::datatypes::UInt64Type;

use crate::session::Pipeline;
use crate::error::Result;
use crate::chess::fen::Setup;
use crate::chess::san::{SanToken, parse_san};
use crate::stages::tables::{self, column};
use crate::chess::outcome::{History, Key};

/// Where replay left a game.
#[derive(Debug, Clone)]
pub(crate) struct Replayed {
    /// Plies accepted and applied.
    pub plies: usize,
    /// The positions before each of them and their irreversibility (repetition counting).
    pub history: History,
    /// The position reached.
    pub setup: Setup,
}

/// Replays each game (id, start position, main-line move tokens) from its first ply for as
/// long as its tokens stand for exactly one legal move each.
///
/// Errors: pipeline failures only ([`crate::Error::DataFusion`], [`crate::Error::Schema`]).
pub(crate) async fn replay(
    p: &Pipeline,
    games: &[(u64, &Setup, &[String])],
) -> Result<BTreeMap<u64, Replayed>> {
    let mut out: BTreeMap<u64, Replayed> = BTreeMap::new();
    let moves: HashMap<u64, &[String]> = games.iter().map(|(id, _, m)| (*id, *m)).collect();
    let mut histories: HashMap<u64, History> = HashMap::new();
    let starts: Vec<(u64, &Setup)> = games.iter().map(|(id, s, _)| (*id, *s)).collect();
    let mut states = vec![tables::setups_to_states(&starts)?];
    let mut ply = 0;
    loop {
        let mut tokens: Vec<(u64, SanToken)> = vec![];
        for b in &states {
            for id in b.column(0).as_primitive::<UInt64Type>().values() {
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
        let mut stopped: HashSet<u64> = HashSet::new();
        for b in &states {
            let keys = state_keys(b)?;
            let ids = b.column(0).as_primitive::<UInt64Type>();
            for (i, id) in ids.values().iter().enumerate() {
                match accepted.get(id) {
                    Some(&(zeroing, ep_legal)) => {
                        let h = histories.entry(*id).or_default();
                        h.push_position(keys(i, ep_legal));
                        h.push_move(zeroing || ep_legal);
                    }
                    None => {
                        stopped.insert(*id);
                    }
                }
            }
        }
        if !stopped.is_empty() {
            let rows = tables::filter_ids(&states, |id| stopped.contains(&id))?;
            finish(&mut out, &mut histories, &rows, ply)?;
        }
        states = next;
        ply += 1;
    }
    finish(&mut out, &mut histories, &states, ply)?;
    Ok(out)
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
    p.set_table("tokens", vec![tables::tokens_to_batch(tokens)?])
        .await?;
    p.set_table("replay_states", states).await?;
    p.run("replay_moves").await?;
    let accepted = read_verdicts(&p.run("replay_verdicts").await?)?;
    Ok((accepted, p.run("replay_next").await?))
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
            },
        );
    }
    Ok(())
}

/// Per game whose move was accepted: (zeroing, ep_legal).
fn read_verdicts(batches: &[RecordBatch]) -> Result<HashMap<u64, (bool, bool)>> {
    let mut out = HashMap::new();
    for b in batches {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let accepted: &BooleanArray = column(b, "accepted")?;
        let zeroing: &BooleanArray = column(b, "zeroing")?;
        let ep: &BooleanArray = column(b, "ep_legal")?;
        for i in 0..b.num_rows() {
            if accepted.value(i) {
                let on = |a: &BooleanArray| a.is_valid(i) && a.value(i);
                out.insert(id.value(i), (on(zeroing), on(ep)));
            }
        }
    }
    Ok(out)
}

/// The repetition key of row `i` of a `replay_states` batch (the same key as stage
/// `position_status` gives), given whether an en passant capture is legal there.
fn state_keys(b: &RecordBatch) -> Result<impl Fn(usize, bool) -> Key + '_> {
    let set = |n: &str| column::<UInt64Array>(b, n);
    let (white, black) = (set("white")?, set("black")?);
    let (pawns, knights, bishops) = (set("pawns")?, set("knights")?, set("bishops")?);
    let (rooks, queens, kings) = (set("rooks")?, set("queens")?, set("kings")?);
    let side: &StringArray = column(b, "side_to_move")?;
    let rights = tables::castling_columns(b)?;
    let ep: &Int32Array = column(b, "ep_square")?;
    Ok(move |i: usize, ep_legal: bool| {
        let v = |a: &UInt64Array| a.value(i);
        (
            v(white) | v(black),
            v(white),
            v(pawns) | v(bishops) | v(queens),
            v(knights) | v(bishops) | v(kings),
            v(rooks) | v(queens) | v(kings),
            side.value(i).to_string(),
            rights.map(|r| r.value(i)),
            if ep_legal && ep.is_valid(i) {
                ep.value(i)
            } else {
                -1
            },
        )
    })
}
