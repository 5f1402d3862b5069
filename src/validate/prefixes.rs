//! Replay of a tree of move prefixes: games that begin with the same moves share those
//! plies, and each shared ply is checked, applied and named once. This is how `explorer`
//! replays a collection's first plies, where most games share their first moves.
//!
//! The tree: its root is the standard start position; a node is a move token written after
//! its parent's (the same text: `Nf3` and `Ng1f3` are two nodes of one position). The replay
//! goes one depth at a time through replay's stages ([`crate::engine::replay::step`], then
//! `replay_plies` for the notation): each node of the frontier is copied once per child (its
//! `replay_states` row under the child's id) and each child's token checked and applied. A
//! move that gives check gets `+` when a move after it was accepted (the position has a
//! legal reply), else `position_status` of the position after it tells `+` from `#`.
//!
//! A game the tree cannot play to its end (a token replay does not check, an illegal or
//! ambiguous move) is validated on its own by [`super::validate_games_with`] with the same
//! cut, which plays and classifies what replay cannot: every game from the standard position
//! gets the plies `read_plies` gives it. Games from another position (a `FEN` tag, Chess960,
//! another variant: those the explorer leaves out) get none.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, RecordBatch, UInt32Array, UInt64Array};
use datafusion::arrow::compute::{concat_batches, take_record_batch};
use datafusion::arrow::datatypes::UInt64Type;

use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::engine::replay::{replayable, step};
use crate::error::{Error, Result};
use crate::pgn::RawGame;
use crate::session::read::{self, Row};
use crate::stages::rows::{AfterMove, ReplayPly, after_moves, read_status};
use crate::stages::tables::{self, replay_states_schema};
use crate::stages::{LEGAL, Stage};

use super::replay::ply_of;
use super::{PlyRow, ValidateOptions, is_standard_start, validate_games_with};

/// The legal main-line plies of a batch of games, each distinct prefix played once
/// ([`replay_prefixes`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct PrefixPlies {
    /// The distinct plies. A ply of the tree is shared by the games that begin with its
    /// moves: its `ply` is its depth and its `game_index` 0.
    pub plies: Vec<PlyRow>,
    /// For each game, in input order, its plies as indices into `plies`, in order.
    pub games: Vec<Vec<u32>>,
}

/// A node of the tree: a move token after its parent's.
struct Node<'a> {
    token: &'a str,
    children: Vec<u32>,
    /// Its ply once replay accepted it.
    ply: Option<PlyRow>,
    gives_check: bool,
    /// A move after it was accepted.
    answered: bool,
}

impl<'a> Node<'a> {
    /// A node of this token, not yet replayed.
    fn new(token: &'a str) -> Node<'a> {
        Node {
            token,
            children: vec![],
            ply: None,
            gives_check: false,
            answered: false,
        }
    }
}

/// The plies of each standard game's legal main line up to `max_plies` plies, as
/// [`super::validate_games_with`] with [`ValidateOptions::plies`] and that cut gives them
/// (the same rows, [`PlyRow::game_index`] aside), with the plies games share replayed once;
/// none for a game with a `FEN` tag or a `Variant` other than standard chess.
///
/// Errors: pipeline failures ([`crate::Error::DataFusion`], [`crate::Error::Session`]);
/// every input fault ends its game's plies, as in validation.
pub(crate) async fn replay_prefixes(
    engine: &Engine,
    games: &[(&str, RawGame)],
    max_plies: u32,
) -> Result<PrefixPlies> {
    let cut = usize::try_from(max_plies).unwrap_or(usize::MAX);
    let mut nodes = vec![Node::new("")];
    // each game's path in the tree (none for a game from another position)
    let mut paths: Vec<Vec<u32>> = Vec::with_capacity(games.len());
    let mut child_of: HashMap<(u32, &str), u32> = HashMap::new();
    for (_, g) in games {
        if !is_standard_start(g) {
            paths.push(vec![]);
            continue;
        }
        let mut at = 0u32;
        let mut path = Vec::with_capacity(g.moves.len().min(cut));
        for token in g.moves.iter().take(cut) {
            let next = nodes.len() as u32;
            at = *child_of.entry((at, token.as_str())).or_insert_with(|| {
                nodes[at as usize].children.push(next);
                nodes.push(Node::new(token));
                next
            });
            path.push(at);
        }
        paths.push(path);
    }
    drop(child_of);
    play_tree(engine, &mut nodes).await?;
    // the tree's plies, then those of the games it could not play
    let mut out = PrefixPlies::default();
    let mut index: Vec<u32> = vec![u32::MAX; nodes.len()];
    for (i, n) in nodes.iter_mut().enumerate() {
        if let Some(ply) = n.ply.take() {
            index[i] = out.plies.len() as u32;
            out.plies.push(ply);
        }
    }
    let mut alone: Vec<usize> = vec![];
    for (g, path) in paths.into_iter().enumerate() {
        // a game whose plies the tree did not all accept is played alone
        let plies: Option<Vec<u32>> = path
            .iter()
            .map(|&n| Some(index[n as usize]).filter(|&i| i != u32::MAX))
            .collect();
        if plies.is_none() {
            alone.push(g);
        }
        out.games.push(plies.unwrap_or_default());
    }
    if !alone.is_empty() {
        let subset: Vec<(&str, RawGame)> = alone.iter().map(|&g| games[g].clone()).collect();
        let options = ValidateOptions {
            plies: true,
            positions_only: false,
            max_plies: Some(max_plies),
        };
        let validation = validate_games_with(engine, &subset, options).await?;
        let by_game = validation
            .plies_by_game()
            .ok_or_else(|| Error::Internal("prefix replay: plies do not add up".into()))?;
        for (&g, plies) in alone.iter().zip(by_game) {
            for p in plies {
                out.games[g].push(out.plies.len() as u32);
                out.plies.push(p.clone());
            }
        }
    }
    Ok(out)
}

/// Replays the tree depth by depth from the standard position: each node whose token replay
/// accepts gets its ply (SAN suffix included); a node replay does not accept keeps none.
async fn play_tree(engine: &Engine, nodes: &mut [Node<'_>]) -> Result<()> {
    let p = engine.pipeline();
    let mut states = tables::setups_to_states(&[(0, &Setup::standard())])?;
    // the positions after the checking moves, for the suffix of those no move answers
    let mut checked: Vec<(u64, Setup)> = vec![];
    let mut depth = 1u32;
    while states.num_rows() > 0 {
        let before = tables::state_bitboards(&states)?;
        let ids = read::primitive::<UInt64Type>(&states, "position_id")?;
        let mut rows: Vec<u32> = vec![];
        let mut tokens: Vec<(u64, SanToken)> = vec![];
        for (row, id) in ids.values().iter().enumerate() {
            for &c in &nodes[*id as usize].children {
                // an en passant mark is checked against the move by the full stages
                if let Ok((t, suffix)) = parse_san(nodes[c as usize].token)
                    && replayable(&t)
                    && !suffix.en_passant
                {
                    rows.push(row as u32);
                    tokens.push((u64::from(c), t));
                }
            }
        }
        if tokens.is_empty() {
            break;
        }
        let pairs: Vec<(u64, &SanToken)> = tokens.iter().map(|(i, t)| (*i, t)).collect();
        let (accepted, next) = step(p, vec![fork(&states, &rows, &tokens)?], &pairs).await?;
        let accepted: HashMap<u64, bool> = accepted.into_iter().collect();
        let after_of: HashMap<u64, AfterMove> = after_moves(&next)?.into_iter().collect();
        let mut named: HashMap<u64, ReplayPly> =
            ReplayPly::read_rows(&p.run(Stage::ReplayPlies).await?)?
                .into_iter()
                .map(|r| (r.position_id, r))
                .collect();
        for ((c, _), &row) in tokens.iter().zip(&rows) {
            let Some(&ep_legal) = accepted.get(c) else {
                continue;
            };
            let missing = || Error::Internal(format!("no notation of tree move {c}"));
            let name = named.remove(c).ok_or_else(missing)?;
            let position = before.get(row as usize).ok_or_else(missing)?;
            let after = after_of.get(c).copied().unwrap_or_default();
            let replayed = ply_of(Some(name), position, ep_legal, after);
            let mut ply = replayed.row;
            ply.ply = depth;
            let parent = ids.value(row as usize) as usize;
            nodes[parent].answered = true;
            let node = &mut nodes[*c as usize];
            node.ply = Some(ply);
            node.gives_check = replayed.gives_check;
        }
        let checking = tables::filter_ids(&next, |id| nodes[id as usize].gives_check)?;
        checked.extend(tables::states_to_setups(&checking)?);
        let going_on = tables::filter_ids(&next, |id| !nodes[id as usize].children.is_empty())?;
        states = concat_batches(&replay_states_schema(), &going_on)?;
        depth += 1;
    }
    add_check_suffixes(engine, nodes, &checked).await
}

/// The `+` or `#` of the moves that give check: `+` where a move after it was accepted, else
/// what `position_status` says of the position after it (`#`: no legal move).
async fn add_check_suffixes(
    engine: &Engine,
    nodes: &mut [Node<'_>],
    checked: &[(u64, Setup)],
) -> Result<()> {
    let unanswered: Vec<(u64, &Setup)> = checked
        .iter()
        .filter(|(id, _)| !nodes[*id as usize].answered)
        .map(|(id, s)| (*id, s))
        .collect();
    let status = if unanswered.is_empty() {
        HashMap::new()
    } else {
        let p = engine.pipeline();
        engine.load_pairs(&unanswered).await?;
        p.run_all(LEGAL).await?;
        p.run(Stage::PositionKeys).await?;
        read_status(&p.run(Stage::PositionStatus).await?)?
    };
    for (id, _) in checked {
        let node = &mut nodes[*id as usize];
        let Some(ply) = node.ply.as_mut() else {
            continue;
        };
        if node.answered {
            ply.mark_check(false);
        } else if let Some(st) = status.get(id) {
            ply.add_check_suffix(st);
        }
    }
    Ok(())
}

/// The `replay_states` rows at `rows` of `states`, each under the id of its token.
fn fork(states: &RecordBatch, rows: &[u32], tokens: &[(u64, SanToken)]) -> Result<RecordBatch> {
    let taken = take_record_batch(states, &UInt32Array::from(rows.to_vec()))?;
    let i = taken.schema().index_of("position_id")?;
    let mut columns: Vec<ArrayRef> = taken.columns().to_vec();
    columns[i] = Arc::new(tokens.iter().map(|(id, _)| *id).collect::<UInt64Array>());
    Ok(RecordBatch::try_new(taken.schema(), columns)?)
}
