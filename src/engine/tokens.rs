//! Move tokens (SAN, UCI, null moves, as python-chess `parse_san` reads them) played on
//! positions: checked on their own by replay first, resolved among all legal moves else.

use std::collections::HashSet;

use super::{Engine, replay};
use crate::chess::san::{SanToken, parse_san};
use crate::chess::setup::Setup;
use crate::error::{Error, Result, TokenError};
use crate::session::read::Row;
use crate::stages::{InputTable, LEGAL, Stage, tables};

crate::table_row! {
    /// A row of stage `token_verdicts`: how many legal moves a position's token matches.
    pub(crate) struct TokenVerdict {
        pub(crate) position_id: u64,
        pub(crate) n_matches: i64,
    }
}

crate::table_row! {
    /// Of a row of stage `token_moves`: whether the chosen move is an en passant capture.
    struct ChosenEnPassant {
        position_id: u64,
        is_en_passant: bool,
    }
}

impl Engine {
    /// The seed's use case: validates one move token (SAN, UCI or null move, as python-chess
    /// `parse_san` reads them) per position and returns, per position, the position after it,
    /// or why the token was refused (not a move, no legal move matches, or several do).
    ///
    /// SAN moves and castling are checked on their own first (stages `replay_moves`,
    /// `replay_verdicts`, `replay_next`: the token's piece reaching its target, one attack
    /// test on the king's square after the move); the other tokens, and those that do not
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
        p.set_table(InputTable::Tokens, vec![tables::tokens_to_batch(&pairs)?])
            .await?;
        p.run(Stage::TokenMatches).await?;
        let verdicts = TokenVerdict::read_rows(&p.run(Stage::TokenVerdicts).await?)?;
        for v in verdicts {
            let (pos, n) = (v.position_id as usize, v.n_matches);
            if n != 1
                && !matches!(
                    lexed.iter().find(|(j, _)| *j as usize == pos),
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
        let mut moves = p.run(Stage::TokenMoves).await?;
        let refused: HashSet<u64> = ChosenEnPassant::read_rows(&moves)?
            .into_iter()
            .filter(|m| ep_marked.contains(&m.position_id) && !m.is_en_passant)
            .map(|m| m.position_id)
            .collect();
        if !refused.is_empty() {
            for id in &refused {
                if let Some(slot) = out.get_mut(*id as usize) {
                    *slot = Err(TokenError::NotEnPassant);
                }
            }
            moves = tables::filter_ids(&moves, |id| !refused.contains(&id))?;
        }
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
