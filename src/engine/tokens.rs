//! Move tokens (SAN, UCI, null moves, as python-chess `parse_san` reads them) played on
//! positions: checked on their own by replay first, resolved among all legal moves else.

use std::collections::{BTreeMap, HashSet};

use datafusion::arrow::array::RecordBatch;

use super::{Engine, replay};
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::error::{Error, Result, TokenError};
use crate::session::read::Row;
use crate::stages::rows::token_verdicts;
use crate::stages::{InputTable, LEGAL, Pipeline, Stage, tables};

crate::table_row! {
    /// Of a row of stage `token_moves`: whether the chosen move is an en passant capture.
    struct ChosenEnPassant {
        position_id: u64,
        is_en_passant: bool,
    }
}

/// What the full legal-move stages made of move tokens ([`resolve`]).
pub(crate) struct Resolution {
    /// Per position id: how many legal moves its token matches, and whether the side to move
    /// has a piece of the token's kind where it says (stage `token_verdicts`).
    pub(crate) verdicts: BTreeMap<u64, (i64, bool)>,
    /// The positions whose token carries an en passant mark (`exd6 e.p.`) but stands for a
    /// move that is no en passant capture: refused, as python-chess `parse_san` refuses it.
    pub(crate) not_en_passant: HashSet<u64>,
    /// The moves the tokens stand for (stage `token_moves`: exactly one legal move, or a null
    /// move), those of `not_en_passant` left out: what `chosen_moves` takes.
    pub(crate) moves: Vec<RecordBatch>,
}

/// Resolves `tokens` (position id, lexed token) among all legal moves of the positions loaded
/// in `p` (workflow `LEGAL` run): stages `token_matches`, `token_verdicts` and `token_moves`,
/// and the en passant mark of the tokens in `ep_marked` checked against the move found. The
/// one place tokens are resolved: [`Engine::play_tokens`] and `validate` call it.
///
/// Errors: pipeline failures.
pub(crate) async fn resolve(
    p: &Pipeline,
    tokens: &[(u64, &SanToken)],
    ep_marked: &HashSet<u64>,
) -> Result<Resolution> {
    p.set_table(InputTable::Tokens, vec![tables::tokens_to_batch(tokens)?])
        .await?;
    p.run(Stage::TokenMatches).await?;
    let verdicts = token_verdicts(&p.run(Stage::TokenVerdicts).await?)?;
    let mut moves = p.run(Stage::TokenMoves).await?;
    let not_en_passant: HashSet<u64> = ChosenEnPassant::read_rows(&moves)?
        .into_iter()
        .filter(|m| ep_marked.contains(&m.position_id) && !m.is_en_passant)
        .map(|m| m.position_id)
        .collect();
    if !not_en_passant.is_empty() {
        moves = tables::filter_ids(&moves, |id| !not_en_passant.contains(&id))?;
    }
    Ok(Resolution {
        verdicts,
        not_en_passant,
        moves,
    })
}

impl Engine {
    /// The seed's use case: validates one move token (SAN, UCI or null move, as python-chess
    /// `parse_san` reads them) per position and returns, per position, the position after it,
    /// or why the token was refused (not a move, no legal move matches, or several do).
    ///
    /// SAN moves, castling and UCI moves are checked on their own first (stages
    /// `replay_moves`, `replay_verdicts`, `replay_next`: the token's piece reaching its
    /// target, one attack test on the king's square after the move); null moves, castling
    /// written as a king's move, and the tokens that do not
    /// stand for exactly one legal move, are resolved among all legal moves (`LEGAL`,
    /// `token_matches`, `token_verdicts`, `token_moves`, `APPLY`), which also says why a
    /// token is refused.
    ///
    /// Errors: [`Error::Usage`] when the two slices differ in length; pipeline failures. A
    /// refused token is not an error of the call: its position's entry is the
    /// [`TokenError`].
    pub async fn play_tokens(
        &self,
        setups: &[Setup],
        tokens: &[&str],
    ) -> Result<Vec<std::result::Result<Setup, TokenError>>> {
        if setups.len() != tokens.len() {
            return Err(Error::Usage(format!(
                "{} positions but {} tokens",
                setups.len(),
                tokens.len()
            )));
        }
        let mut out: Vec<std::result::Result<Setup, TokenError>> =
            vec![Err(TokenError::NoLegalMove); setups.len()];
        let mut lexed = vec![];
        // tokens with an en passant mark (`exd6 e.p.`): checked against the move they resolve
        // to by the full stages
        let mut ep_marked = HashSet::new();
        for (i, t) in tokens.iter().enumerate() {
            match parse_san(t) {
                Ok((tok, suffix)) => {
                    if suffix.en_passant {
                        ep_marked.insert(i as u64);
                    }
                    lexed.push((i as u64, tok));
                }
                Err(e) => out[i] = Err(TokenError::Syntax(e)),
            }
        }
        let quick: Vec<(u64, &SanToken)> = lexed
            .iter()
            .filter(|(i, t)| replay::replayable(t) && !ep_marked.contains(i))
            .map(|(i, t)| (*i, t))
            .collect();
        if !quick.is_empty() {
            let starts: Vec<(u64, &Setup)> = quick
                .iter()
                .map(|(i, _)| (*i, &setups[*i as usize]))
                .collect();
            let states = vec![tables::setups_to_states(&starts)?];
            let (_, next) = replay::step(self.pipeline(), states, &quick).await?;
            for (id, s) in tables::states_to_setups(&next)? {
                if let Some(slot) = out.get_mut(id as usize) {
                    *slot = Ok(s);
                }
            }
        }
        lexed.retain(|(i, _)| out[*i as usize].is_err());
        if !lexed.is_empty() {
            self.resolve_tokens(setups, &lexed, &ep_marked, &mut out)
                .await?;
        }
        Ok(out)
    }

    /// [`Engine::play_tokens`] for the lexed tokens (position index, token) among all legal
    /// moves; a token in `ep_marked` must resolve to an en passant capture.
    async fn resolve_tokens(
        &self,
        setups: &[Setup],
        lexed: &[(u64, SanToken)],
        ep_marked: &HashSet<u64>,
        out: &mut [std::result::Result<Setup, TokenError>],
    ) -> Result<()> {
        let p = self.pipeline();
        let pairs: Vec<(u64, &Setup)> = lexed
            .iter()
            .map(|(i, _)| (*i, &setups[*i as usize]))
            .collect();
        self.load_pairs(&pairs).await?;
        p.run_all(LEGAL).await?;
        let pairs: Vec<(u64, &SanToken)> = lexed.iter().map(|(i, t)| (*i, t)).collect();
        let resolution = resolve(p, &pairs, ep_marked).await?;
        for (&id, &(n, _)) in &resolution.verdicts {
            let pos = id as usize;
            if n != 1
                && !matches!(
                    lexed.iter().find(|(j, _)| *j == id),
                    Some((_, SanToken::Null))
                )
                && let Some(slot) = out.get_mut(pos)
            {
                *slot = Err(if n == 0 {
                    TokenError::NoLegalMove
                } else {
                    TokenError::Ambiguous(n as u64)
                });
            }
        }
        for id in &resolution.not_en_passant {
            if let Some(slot) = out.get_mut(*id as usize) {
                *slot = Err(TokenError::NotEnPassant);
            }
        }
        let moves = resolution.moves;
        p.set_table(InputTable::ChosenMoves, moves).await?;
        self.advance().await?;
        for (id, s) in self.loaded_setups().await? {
            if let Some(slot) = out.get_mut(id as usize) {
                *slot = Ok(s);
            }
        }
        Ok(())
    }
}
