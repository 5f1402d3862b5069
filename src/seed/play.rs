//! The seed's statements: all moves of the loaded games, and the post's final `SELECT`
//! (validate a move, play it).

use datafusion::arrow::array::RecordBatch;
use datafusion::logical_expr::LogicalPlan;
use datafusion::scalar::ScalarValue;

use super::{BLACK, CastlingDone, SeedMove, SeedPipeline, SeedPosRow, WHITE, square_name};
use crate::error::{Error, Result};
use crate::session::read::Row;

/// The seed's final query.
const VALIDATE_MOVE: &str = "validate_move";
/// The seed's legal moves.
const STAGE13: &str = "stage13";

crate::table_row! {
    /// The columns of a `+stage13` row that name the move.
    struct SeedMoveRow {
        gameuuid: Option<String>,
        from_x: Option<i32>,
        from_y: Option<i32>,
        to_x: Option<i32>,
        to_y: Option<i32>,
        transform_pawn_flag: Option<bool>,
    }
}

crate::table_row! {
    /// The castling-done flags of a `validate_move` row (NULL when `+stage1` left them unset).
    struct CastlingFlags {
        castling_white_long: Option<bool>,
        castling_white_short: Option<bool>,
        castling_black_long: Option<bool>,
        castling_black_short: Option<bool>,
    }
}

impl SeedPipeline {
    /// Every legal move (by the seed's rules) of every loaded game: all `+stage13` rows.
    ///
    /// Schema: `gameuuid` Utf8, `movecnt` Int32, `color`, `chessman` Utf8 (the moving
    /// chessman), `from_x`, `from_y`, `to_x`, `to_y` Int32, `special_flag` Utf8 (`' '`,
    /// `'P'` pawn capture, `'E'` pawn push, `'C'` castling), `color_dep`, `chessman_dep`
    /// Utf8 (nullable; the castling rook or the en passant pawn), `from_x_dep`,
    /// `from_y_dep`, `to_x_dep`, `to_y_dep` Int32, `transform_pawn_flag` Boolean
    /// (promotion to a queen), `castling_black_long`, `castling_black_short`,
    /// `castling_white_long`, `castling_white_short` Boolean (nullable; the flags after the
    /// move), `is_castling_black_long`, `is_castling_black_short`,
    /// `is_castling_white_long`, `is_castling_white_short` Boolean.
    ///
    /// Errors: [`crate::Error::Session`].
    pub async fn all_moves(&self) -> Result<Vec<RecordBatch>> {
        self.run_to_stage13().await?;
        self.table(STAGE13).await
    }

    /// [`SeedPipeline::all_moves`] as sorted UCI strings per loaded game (index as in
    /// [`SeedPipeline::load_fens`]); a promoting move gets the suffix `q`.
    ///
    /// Errors: as [`SeedPipeline::all_moves`]; [`crate::Error::Session`] if a column is missing.
    pub async fn all_moves_uci(&self) -> Result<Vec<Vec<String>>> {
        let rows = SeedMoveRow::read_rows(&self.all_moves().await?)?;
        let mut out = vec![Vec::new(); self.games.len()];
        for r in rows {
            let Some(i) = r.gameuuid.as_deref().and_then(|g| self.game_index(g)) else {
                continue;
            };
            let get = |v: Option<i32>| v.unwrap_or(0);
            let mut uci = format!(
                "{}{}",
                square_name(get(r.from_x), get(r.from_y)),
                square_name(get(r.to_x), get(r.to_y))
            );
            if r.transform_pawn_flag == Some(true) {
                uci.push('q');
            }
            out[i].push(uci);
        }
        for moves in &mut out {
            moves.sort();
        }
        Ok(out)
    }

    /// The post's statement: runs the seed up to `+next` and its final `SELECT` for one
    /// requested move. Returns the position after the move — every chessman of the game
    /// with `movecnt` + 1, its new square and its before square, plus the castling-done
    /// flags after the move — or no row if the seed refuses the move.
    ///
    /// Schema: `gameuuid` Utf8, `movecnt` Int32, `chessman`, `color` Utf8, `x`, `y`,
    /// `before_x`, `before_y` Int32, `castling_black_long`, `castling_black_short`,
    /// `castling_white_long`, `castling_white_short` Boolean (nullable: the seed's
    /// `+stage1` leaves them NULL when they stay unset).
    ///
    /// Errors: [`crate::Error::Session`], [`crate::Error::DataFusion`] if
    /// binding the parameters fails.
    pub async fn validate_move(&self, mv: &SeedMove) -> Result<Vec<RecordBatch>> {
        self.run_to_stage13().await?;
        let plan = self.validate_move_plan(mv)?;
        Ok(self.session.run_query(VALIDATE_MOVE, &plan).await?)
    }

    /// The optimised logical plan of the final `SELECT` (`validate_move`) with the
    /// parameters of `mv` bound, as [`SeedPipeline::validate_move`] runs it.
    ///
    /// Errors: [`Error::DataFusion`] if binding the parameters fails.
    pub fn validate_move_plan(&self, mv: &SeedMove) -> Result<LogicalPlan> {
        let params: Vec<(&str, ScalarValue)> = vec![
            ("uuid", ScalarValue::Utf8(Some(mv.gameuuid.clone()))),
            ("movecnt", ScalarValue::Int32(Some(mv.movecnt))),
            ("color", ScalarValue::Utf8(Some(mv.color.clone()))),
            ("chessman", ScalarValue::Utf8(Some(mv.chessman.clone()))),
            ("from_x", ScalarValue::Int32(Some(mv.from_x))),
            ("from_y", ScalarValue::Int32(Some(mv.from_y))),
            ("to_x", ScalarValue::Int32(Some(mv.to_x))),
            ("to_y", ScalarValue::Int32(Some(mv.to_y))),
        ];
        let plan = self
            .plan(VALIDATE_MOVE)?
            .clone()
            .with_param_values(params)?;
        Ok(plan)
    }

    /// Plays a move as `CL_DEMO_SQL_CHESS->MOVE` does: [`SeedPipeline::validate_move`];
    /// if it returns rows, they become the game's position (movecnt + 1), the side to move
    /// becomes the other colour than the mover's, and the castling-done flags are taken
    /// from the first row (NULL read as false, as ABAP's `INTO TABLE` does). Only the new
    /// movecnt is kept (the class keeps older rows too; the seed never joins two movecnts,
    /// so its results are the same). Returns whether the move was played.
    ///
    /// Errors: as [`SeedPipeline::validate_move`]; [`Error::Usage`] for an unknown game;
    /// [`crate::Error::Session`] if a result column is missing.
    pub async fn play(&mut self, mv: &SeedMove) -> Result<bool> {
        let gi = self
            .game_index(&mv.gameuuid)
            .ok_or_else(|| Error::Usage(format!("no game {:?} is loaded", mv.gameuuid)))?;
        let batches = self.validate_move(mv).await?;
        let rows = read_positions(&batches)?;
        let Some(first) = rows.first() else {
            return Ok(false);
        };
        let flags = CastlingFlags::read_rows(&batches)?;
        let flags = flags
            .first()
            .ok_or_else(|| Error::Schema("validate_move rows vanished".to_string()))?;
        let flag = |v: Option<bool>| v.unwrap_or(false);
        let castling = CastlingDone {
            white_long: flag(flags.castling_white_long),
            white_short: flag(flags.castling_white_short),
            black_long: flag(flags.castling_black_long),
            black_short: flag(flags.castling_black_short),
        };
        let game = &mut self.games[gi];
        game.movecnt = first.movecnt;
        game.color = if mv.color == BLACK { WHITE } else { BLACK };
        game.castling = castling;
        self.positions.retain(|p| p.gameuuid != mv.gameuuid);
        self.positions.extend(rows);
        self.upload().await?;
        Ok(true)
    }
}

/// Reads position rows (`gameuuid`, `movecnt`, `chessman`, `color`, `x`, `y`, `before_x`,
/// `before_y`, found by name) from `demo_chess_pos` or from
/// [`SeedPipeline::validate_move`]'s result, sorted.
///
/// Errors: [`crate::Error::Session`] if a column is missing, NULL or cannot be cast to its
/// type.
pub fn read_positions(batches: &[RecordBatch]) -> Result<Vec<SeedPosRow>> {
    let mut out = SeedPosRow::read_rows(batches)?;
    out.sort();
    Ok(out)
}
