//! Replay's one-move check: for each game of a batch, whether its move token stands for
//! exactly one legal move, checked on that move alone instead of generating every legal
//! move and picking the token's among them. Per ply, the replay stages find the moves the
//! token can stand for (`replay_moves`: the token's kind of piece reaching the target along
//! a free ray, or castling, each with an attack test on its king's square afterwards), count
//! the legal ones (`replay_verdicts`) and apply the move of every game whose token stands for
//! exactly one legal move (`replay_next`).
//!
//! Each game in play is one row of `replay_states` (the position with its board as 64-bit
//! square sets, see [`crate::stages::tables`]). The game loop over plies is
//! [`crate::validate`]'s; [`super::tokens`] uses the same check for one move per position.

use datafusion::arrow::array::RecordBatch;

use crate::chess::san::SanToken;
use crate::error::Result;
use crate::stages::rows::replay_verdicts;
use crate::stages::{InputTable, Pipeline, Stage, tables};

/// One ply of replay: `states` (`replay_states` rows) and one SAN or castling token per
/// position; gives, per position whose token stands for exactly one legal move (in no
/// particular order), its position_id and whether the position has a legal en passant
/// capture, and the `replay_states` rows after those moves (stage `replay_next`; whether each
/// move was zeroing: [`crate::stages::rows::after_moves`] of them).
///
/// Errors: pipeline failures only.
pub(crate) async fn step(
    p: &Pipeline,
    states: Vec<RecordBatch>,
    tokens: &[(u64, &SanToken)],
) -> Result<(Vec<(u64, bool)>, Vec<RecordBatch>)> {
    p.set_table(
        InputTable::ReplayTokens,
        vec![tables::replay_tokens_batch(&states, tokens)?],
    )
    .await?;
    p.set_table(InputTable::ReplayStates, states).await?;
    p.run(Stage::ReplayMoves).await?;
    let ep_legal = replay_verdicts(&p.run(Stage::ReplayVerdicts).await?)?;
    let next = p.run(Stage::ReplayNext).await?;
    Ok((ep_legal, next))
}

/// Whether replay checks this token itself (SAN moves, castling and moves naming their
/// origin square, UCI); the full legal-move stages resolve null moves, and every token
/// replay does not accept.
pub(crate) fn replayable(token: &SanToken) -> bool {
    !matches!(token, SanToken::Null)
}
