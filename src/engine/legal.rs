//! Legal moves with notation (FIDE Laws art. 3; SAN with check and mate) and the attack
//! checks of set-up positions.

use datafusion::arrow::array::RecordBatch;

use super::Engine;
use crate::chess::fen::{FenError, FenField};
use crate::chess::setup::Setup;
use crate::error::{Error, Result};
use crate::session::read::Row;
use crate::stages::{InputTable, LEGAL, Stage, Table};

crate::table_row! {
    /// A row of stage `setup_checks`: why a set-up position cannot occur in a game.
    struct SetupCheck {
        position_id: u64,
        kind: String,
        message: String,
    }
}

impl Engine {
    /// All legal moves of each position (FIDE Laws art. 3), with notation.
    ///
    /// Returns the batches of stage `san`: `position_id: UInt64` (index into `setups`),
    /// `move_code: Int32`, `color: Utf8`, `piece: Utf8`, `from_sq: Int32`, `to_sq: Int32`
    /// (0..63, a1 = 0), `promotion: Utf8` (nullable), `captured: Utf8` (nullable),
    /// `is_capture`, `is_en_passant`, `is_castling: Boolean`, `cap_sq`, `rook_from`,
    /// `rook_to: Int32` (nullable), `from_name`, `to_name`, `uci`, `san: Utf8`,
    /// `is_check`, `is_mate: Boolean`.
    ///
    /// Checkmate ('#') is found by running the legal-move stages once more on the positions
    /// after the checking moves. Errors: [`crate::Error::Session`].
    pub async fn legal_moves(&self, setups: &[Setup]) -> Result<Vec<RecordBatch>> {
        self.load(setups).await?;
        self.legal_moves_loaded().await
    }

    /// [`Engine::legal_moves`] for the positions already loaded.
    pub async fn legal_moves_loaded(&self) -> Result<Vec<RecordBatch>> {
        let p = self.pipeline();
        p.run_all(LEGAL).await?;
        p.run(Stage::MoveChecks).await?;
        let mut saved: Vec<(Table, Vec<RecordBatch>)> = vec![];
        let kept: [Table; 4] = [
            InputTable::Positions.into(),
            InputTable::Pieces.into(),
            Stage::LegalMoves.into(),
            Stage::MoveChecks.into(),
        ];
        for table in kept {
            saved.push((table, p.table(table).await?));
        }
        // replies to the checking moves: none = checkmate
        let checking = p.run(Stage::CheckingMoves).await?;
        p.set_table(InputTable::ChosenMoves, checking).await?;
        self.advance().await?;
        p.run_all(LEGAL).await?;
        p.run(Stage::ReplyCounts).await?;
        for (table, batches) in saved {
            p.set_table(table, batches).await?;
        }
        p.run(Stage::MoveFlags).await?;
        p.run(Stage::San).await
    }

    /// Checks set-up positions with the attack rules (stage `setup_checks`): for each setup,
    /// `None` if it is a position a game can be in, else why not: a [`FenError`] of field
    /// `position` and kind `kings_adjacent`, `opposite_check`, `too_many_checkers` or
    /// `impossible_check`. The static FEN rules are checked by [`Setup::from_fen`].
    ///
    /// Errors: pipeline failures; [`Error::Internal`] for a kind the stage should not give.
    pub async fn check_setups(&self, setups: &[Setup]) -> Result<Vec<Option<FenError>>> {
        self.load(setups).await?;
        self.pipeline().run_all(LEGAL).await?;
        let mut out = vec![None; setups.len()];
        let checks = self.pipeline().run(Stage::SetupChecks).await?;
        for c in SetupCheck::read_rows(&checks)? {
            if let Some(slot) = out.get_mut(c.position_id as usize)
                && slot.is_none()
            {
                *slot = Some(FenError {
                    field: FenField::Position,
                    kind: c
                        .kind
                        .parse()
                        .map_err(|_| Error::Internal(format!("setup_checks kind {:?}", c.kind)))?,
                    message: c.message,
                });
            }
        }
        Ok(out)
    }
}
