//! The full stages: one ply of every live game resolved among all legal moves. This is where
//! a game's error is classified and its final status decided, so every game ends here, at the
//! ply replay stopped at (usually the end of its movetext).
//!
//! Per ply: the current positions get their legal moves (`LEGAL`), repetition keys
//! (`position_keys`) and status (`position_status`); each game's move token is lexed
//! ([`Run::lex_tokens`]) and resolved against its legal moves (`token_matches`,
//! `token_verdicts`, `token_moves`); the resolved moves are applied (`APPLY`:
//! `next_positions`, `next_pieces`). A game leaves when its movetext ends or its token does
//! not stand for exactly one legal move ([`Run::resolve_tokens`]).

use std::collections::{HashMap, HashSet};

use datafusion::arrow::array::{
    Array, BooleanArray, Int32Array, RecordBatch, StringArray, UInt64Array,
};

use crate::chess::bitboards::Bitboards;
use crate::chess::color::Color;
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::engine::tokens::{Resolution, resolve};
use crate::error::{Error, Result};
use crate::stages::rows::{AfterMove, PositionStatus, after_moves, read_status, token_verdicts};
use crate::stages::tables::{self, column};
use crate::stages::{APPLY, InputTable, LEGAL, Stage, Table};

use super::Run;
use super::report::{ErrorKind, PlyRow, as_written, short};

/// The move tokens of one ply ([`Run::lex_tokens`]).
struct Lexed {
    /// The lexed tokens by game id.
    tokens: Vec<(u64, SanToken)>,
    /// The games whose token carries the en passant mark (`exd6 e.p.`, FIDE Laws
    /// Appendix C.13): the move it resolves to must be an en passant capture.
    ep_marked: HashSet<u64>,
    /// The games that end here.
    finished: Vec<u64>,
}

/// The live games' current positions and what `position_status` says of them.
struct Current {
    status: HashMap<u64, PositionStatus>,
    positions: std::collections::BTreeMap<u64, Setup>,
}

impl Run<'_, '_> {
    /// Plays one ply of every live game with the full stages; the games that end leave
    /// [`Run::live`] and the tables `positions`, `pieces` hold the positions of those left.
    pub(super) async fn full_ply(&mut self) -> Result<()> {
        let p = self.engine.pipeline();
        let current = Current {
            status: self.status().await?,
            positions: tables::batches_to_setups(
                &p.table(InputTable::Positions).await?,
                &p.table(InputTable::Pieces).await?,
            )?,
        };
        let Lexed {
            tokens,
            ep_marked,
            mut finished,
        } = self.lex_tokens(&current);
        if tokens.is_empty() {
            self.drop_games(&finished);
            return self
                .keep_live(InputTable::Positions, InputTable::Pieces)
                .await;
        }
        self.resolve_tokens(&current, &tokens, &ep_marked, &mut finished)
            .await?;
        self.drop_games(&finished);
        self.keep_live(Stage::NextPositions, Stage::NextPieces)
            .await
    }

    /// What `position_status` says of the live games' current positions (tables
    /// `positions`, `pieces`), by game id, after their legal moves (`LEGAL`) and
    /// repetition keys (`position_keys`).
    async fn status(&self) -> Result<HashMap<u64, PositionStatus>> {
        let p = self.engine.pipeline();
        p.run_all(LEGAL).await?;
        p.run(Stage::PositionKeys).await?;
        read_status(&p.run(Stage::PositionStatus).await?)
    }

    /// With plies, after a ply the full stages played (a null move, castling written as a
    /// king's move, an en passant mark): completes each live game's pending ply row with
    /// the check suffix the status of the position reached gives, so that replay can take
    /// the games on ([`Run::resume_replay`]). The position goes into the game's repetition
    /// history where it is played from: replay records it with its first move, the next
    /// full ply ([`Run::lex_tokens`]) if replay plays none.
    pub(super) async fn complete_pending(&mut self) -> Result<()> {
        // without notation asked for, no suffix is looked for
        let status = if self.options.positions_only {
            HashMap::new()
        } else {
            self.status().await?
        };
        for l in self.live.iter_mut() {
            if let Some(mut row) = l.pending.take() {
                if let Some(st) = status.get(&l.id) {
                    row.add_check_suffix(st);
                }
                self.plies[l.id as usize].push(row);
            }
        }
        Ok(())
    }

    /// For each live game: completes the ply row of its last move (the check suffix), records
    /// its position for repetitions, and lexes the token of its next ply. Returns the lexed
    /// tokens by game id, those with an en passant mark, and the games that end here: no
    /// status (not in the tables), no token left (then a PGN fault ends it as `syntax`), or
    /// a token that is not a move (`syntax`); those get their final position and status.
    fn lex_tokens(&mut self, current: &Current) -> Lexed {
        let mut tokens: Vec<(u64, SanToken)> = vec![];
        let mut ep_marked = HashSet::new();
        let mut finished: Vec<u64> = vec![];
        for l in self.live.iter_mut() {
            let Some(st) = current.status.get(&l.id) else {
                if let Some(row) = l.pending.take() {
                    self.plies[l.id as usize].push(row);
                }
                finished.push(l.id);
                continue;
            };
            if let Some(mut row) = l.pending.take() {
                row.add_check_suffix(st);
                self.plies[l.id as usize].push(row);
            }
            l.history.push_position(st.key.clone());
            let r = &mut self.reports[l.id as usize];
            let ply = l.ply as u32 + 1;
            let Some(token) = l.tokens.get(l.ply) else {
                if let Some(msg) = &l.fault {
                    r.set_error(ply, ErrorKind::Syntax, &format!("ply {ply}: {msg}"));
                }
                r.finish(current.positions.get(&l.id), st, l.history.repetitions());
                finished.push(l.id);
                continue;
            };
            match parse_san(token) {
                Ok((t, suffix)) => {
                    if suffix.en_passant {
                        ep_marked.insert(l.id);
                    }
                    tokens.push((l.id, t));
                }
                Err(e) => {
                    r.set_error(
                        ply,
                        ErrorKind::Syntax,
                        &format!("ply {ply}: token {:?}: {e}", short(token)),
                    );
                    r.finish(current.positions.get(&l.id), st, l.history.repetitions());
                    finished.push(l.id);
                }
            }
        }
        Lexed {
            tokens,
            ep_marked,
            finished,
        }
    }

    /// Resolves the lexed tokens among the legal moves and applies the resolved moves
    /// (tables `next_positions`, `next_pieces`). A token that stands for exactly one legal
    /// move (or a null move) advances its game one ply; any other ends the game with its
    /// error (`ambiguous_move`, `illegal_move`, `no_such_piece`, or `wrong_side` when the
    /// side not to move has exactly that move; `syntax` for an en passant mark on a move
    /// that is not an en passant capture) and is added to `finished`.
    async fn resolve_tokens(
        &mut self,
        current: &Current,
        tokens: &[(u64, SanToken)],
        ep_marked: &HashSet<u64>,
        finished: &mut Vec<u64>,
    ) -> Result<()> {
        let p = self.engine.pipeline();
        let pairs: Vec<(u64, &SanToken)> = tokens.iter().map(|(i, t)| (*i, t)).collect();
        let Resolution {
            verdicts,
            not_en_passant,
            moves,
        } = resolve(p, &pairs, ep_marked).await?;
        let named = if self.options.plies {
            chosen_notation(self.engine, &moves).await?
        } else {
            HashMap::new()
        };
        p.set_table(InputTable::ChosenMoves, moves).await?;
        p.run_all(APPLY).await?;
        // whether each move reset the halfmove clock, its double step: the position after it
        // says
        let after_of: HashMap<u64, AfterMove> = after_moves(&p.table(Stage::NextPositions).await?)?
            .into_iter()
            .collect();
        let index: HashMap<u64, usize> = self
            .live
            .iter()
            .enumerate()
            .map(|(i, l)| (l.id, i))
            .collect();
        let mut unmatched: Vec<u64> = vec![];
        for (id, t) in tokens {
            let l = index
                .get(id)
                .and_then(|&i| self.live.get_mut(i))
                .ok_or_else(|| Error::Internal(format!("token of game {id}, not live")))?;
            let r = &mut self.reports[*id as usize];
            let st = current
                .status
                .get(id)
                .ok_or_else(|| Error::Internal(format!("no status of live game {id}")))?;
            let (n, has_piece) = verdicts.get(id).copied().unwrap_or((0, false));
            let ply = l.ply as u32 + 1;
            let token = &l.tokens[l.ply];
            let position = current.positions.get(id);
            let after = after_of.get(id).copied().unwrap_or_default();
            if not_en_passant.contains(id) {
                r.set_error(
                    ply,
                    ErrorKind::Syntax,
                    &format!(
                        "ply {ply}: token {:?}: en passant mark on a move that is not an en \
                         passant capture",
                        short(token)
                    ),
                );
                r.finish(position, st, l.history.repetitions());
                finished.push(*id);
                continue;
            }
            if matches!(t, SanToken::Null) || n == 1 {
                l.history.push_move(after.zeroing, st.ep_legal_sq.is_some());
                if self.options.plies {
                    let mut row = match named.get(id) {
                        Some(row) => row.clone(),
                        None if matches!(t, SanToken::Null) => PlyRow::null_move(),
                        None => {
                            return Err(Error::Internal(format!(
                                "no notation of the move of game {id}"
                            )));
                        }
                    };
                    row.game_index = r.game_index;
                    row.ply = ply;
                    row.double_step_square = after.double_step_square;
                    row.position_before = position
                        .map(|s| Bitboards::from(&as_written(s, st)))
                        .ok_or_else(|| Error::Internal(format!("no position of live game {id}")))?;
                    l.pending = Some(row);
                }
                l.ply += 1;
                r.plies = l.ply as u32;
                continue;
            }
            let (kind, why, other_side) = refusal(t, n, has_piece);
            if other_side {
                unmatched.push(*id);
            }
            let side = if position.map(|s| s.side_to_move) == Some(Color::Black) {
                "black"
            } else {
                "white"
            };
            r.set_error(
                ply,
                kind,
                &format!("ply {ply} ({side}): {:?}: {why}", short(token)),
            );
            r.finish(position, st, l.history.repetitions());
            finished.push(*id);
        }
        if !unmatched.is_empty() {
            self.relabel_wrong_side(&unmatched).await?;
        }
        Ok(())
    }

    /// Among the games whose token matched no legal move, those whose token is exactly one
    /// legal move of the other side become `wrong_side` ([`wrong_side`]).
    async fn relabel_wrong_side(&mut self, unmatched: &[u64]) -> Result<()> {
        for id in wrong_side(self.engine, unmatched).await? {
            let r = &mut self.reports[id as usize];
            r.error_kind = Some(ErrorKind::WrongSide);
            if let Some(m) = &mut r.error_message {
                *m = m
                    .replace(
                        "the side to move has no such piece there",
                        "only the side not to move has this move",
                    )
                    .replace(
                        "no legal move matches it",
                        "only the side not to move has this move",
                    );
            }
        }
        Ok(())
    }

    /// Removes the `finished` games from [`Run::live`].
    fn drop_games(&mut self, finished: &[u64]) {
        let finished: HashSet<u64> = finished.iter().copied().collect();
        self.live.retain(|l| !finished.contains(&l.id));
    }

    /// Sets `positions` and `pieces` to the rows of the live games in the tables `positions`
    /// and `pieces` name.
    async fn keep_live(&self, positions: impl Into<Table>, pieces: impl Into<Table>) -> Result<()> {
        let p = self.engine.pipeline();
        let keep: HashSet<u64> = self.live.iter().map(|l| l.id).collect();
        for (from, to) in [
            (positions.into(), InputTable::Positions),
            (pieces.into(), InputTable::Pieces),
        ] {
            let kept = tables::filter_ids(&p.table(from).await?, |id| keep.contains(&id))?;
            p.set_table(to, kept).await?;
        }
        Ok(())
    }
}

/// Why a token that does not stand for exactly one legal move (`n` match; `has_piece`: the
/// side to move has a piece of its kind where it says) is refused, and whether the other
/// side might have the move ([`wrong_side`] checks those: all but ambiguous and castling
/// tokens).
fn refusal(token: &SanToken, n: i64, has_piece: bool) -> (ErrorKind, String, bool) {
    if n > 1 {
        (
            ErrorKind::AmbiguousMove,
            format!("{n} legal moves match it"),
            false,
        )
    } else if matches!(token, SanToken::Castle { .. }) {
        (
            ErrorKind::IllegalMove,
            "castling is not legal here".to_string(),
            false,
        )
    } else if has_piece {
        (
            ErrorKind::IllegalMove,
            "no legal move matches it".to_string(),
            true,
        )
    } else {
        (
            ErrorKind::NoSuchPiece,
            "the side to move has no such piece there".to_string(),
            true,
        )
    }
}

/// The notation of the chosen moves (`token_moves`, null moves left out) by game id: stage
/// `san` over the legal moves of the chosen moves' piece to their target square (all it
/// needs to disambiguate them), without check suffixes (`move_flags` emptied; the
/// caller adds them from the status of the position after the move). Leaves `legal_moves`
/// as it was.
async fn chosen_notation(engine: &Engine, moves: &[RecordBatch]) -> Result<HashMap<u64, PlyRow>> {
    let p = engine.pipeline();
    let mut chosen: HashMap<u64, i32> = HashMap::new();
    // the chosen move's piece and target square: the legal moves `san` needs to
    // disambiguate it (the others of that piece to that square)
    let mut targets: HashSet<(u64, i32, i32)> = HashSet::new();
    for b in moves {
        let id: &UInt64Array = column(b, "position_id")?;
        let code: &Int32Array = column(b, "move_code")?;
        let null: &BooleanArray = column(b, "is_null")?;
        let piece: &Int32Array = column(b, "piece_code")?;
        let to: &Int32Array = column(b, "to_sq")?;
        for i in 0..b.num_rows() {
            if !null.value(i) {
                chosen.insert(id.value(i), code.value(i));
                targets.insert((id.value(i), piece.value(i), to.value(i)));
            }
        }
    }
    if chosen.is_empty() {
        return Ok(HashMap::new());
    }
    p.set_table(Stage::MoveFlags, vec![]).await?;
    let all = p.table(Stage::LegalMoves).await?;
    let mut rivals = Vec::with_capacity(all.len());
    for b in &all {
        let id: &UInt64Array = column(b, "position_id")?;
        let piece: &Int32Array = column(b, "piece_code")?;
        let to: &Int32Array = column(b, "to_sq")?;
        let keep: BooleanArray = (0..b.num_rows())
            .map(|i| Some(targets.contains(&(id.value(i), piece.value(i), to.value(i)))))
            .collect();
        rivals.push(datafusion::arrow::compute::filter_record_batch(b, &keep)?);
    }
    p.set_table(Stage::LegalMoves, rivals).await?;
    let named = p.run(Stage::San).await;
    p.set_table(Stage::LegalMoves, all).await?;
    let mut out = HashMap::with_capacity(chosen.len());
    for b in &named? {
        let id: &UInt64Array = column(b, "position_id")?;
        let code: &Int32Array = column(b, "move_code")?;
        let uci: &StringArray = column(b, "uci")?;
        let san: &StringArray = column(b, "san")?;
        let capture: &BooleanArray = column(b, "is_capture")?;
        let castling: &BooleanArray = column(b, "is_castling")?;
        let ep: &BooleanArray = column(b, "is_en_passant")?;
        let promotion: &StringArray = column(b, "promotion")?;
        for i in 0..b.num_rows() {
            if chosen.get(&id.value(i)) != Some(&code.value(i)) {
                continue;
            }
            out.insert(
                id.value(i),
                PlyRow {
                    uci: uci.value(i).to_string(),
                    san: san.value(i).to_string(),
                    is_capture: capture.value(i),
                    is_castling: castling.value(i),
                    is_en_passant: ep.value(i),
                    promotion: (!promotion.is_null(i))
                        .then(|| promotion.value(i).to_ascii_uppercase()),
                    ..Default::default()
                },
            );
        }
    }
    Ok(out)
}

/// The games among `ids` whose token is exactly one legal move of the other side
/// (en passant square cleared): stages `flipped_positions`, then the legal-move stages and
/// token resolution again. The tables `positions`/`pieces` are left as `flipped_*`.
async fn wrong_side(engine: &Engine, ids: &[u64]) -> Result<Vec<u64>> {
    let p = engine.pipeline();
    let tokens = tables::filter_ids(&p.table(InputTable::Tokens).await?, |id| ids.contains(&id))?;
    p.set_table(InputTable::Tokens, tokens).await?;
    let positions = p.run(Stage::FlippedPositions).await?;
    let pieces = tables::filter_ids(&p.table(InputTable::Pieces).await?, |id| ids.contains(&id))?;
    p.set_table(InputTable::Positions, positions).await?;
    p.set_table(InputTable::Pieces, pieces).await?;
    p.run_all(LEGAL).await?;
    p.run(Stage::TokenMatches).await?;
    let verdicts = token_verdicts(&p.run(Stage::TokenVerdicts).await?)?;
    Ok(verdicts
        .into_iter()
        .filter(|(_, (n, _))| *n == 1)
        .map(|(id, _)| id)
        .collect())
}
