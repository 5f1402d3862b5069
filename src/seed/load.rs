//! Loading the seed's game tables from FEN setups, and moves given in UCI.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, BooleanArray, Int32Array, RecordBatch, StringArray};

use super::{
    CastlingDone, GameRow, SeedMove, SeedPipeline, SeedPosRow, chessman_code, color_code,
    game_schema, game_uuid, pos_schema,
};
use crate::chess::color::Color;
use crate::chess::role::{Piece, Role};
use crate::chess::setup::Setup;
use crate::error::{Error, Result};

impl SeedPipeline {
    /// Replaces all games by one game per setup (game `i` gets [`game_uuid`]`(i)`,
    /// movecnt 0) and returns the game ids.
    ///
    /// * `demo_chess_game`: the side to move; a castling-done flag is set when the setup
    ///   lacks that castling right (`castling_white_short` = no `K`, `_long` = no `Q`, …).
    /// * `demo_chess_pos`: one row per chessman, before square = its own square, except
    ///   when the setup has an en passant square: the pawn that has just made the double
    ///   step (the enemy pawn in front of the ep square, seen from the side that may
    ///   capture) gets its start square (rank 7 for a black pawn on rank 5, rank 2 for a
    ///   white pawn on rank 4) as before square. That makes it the seed's "last move"
    ///   (`+positions.moved_flag`), which its en passant rule needs. Without such a pawn
    ///   the ep square is ignored.
    ///
    /// The setups are not validated (the seed checks nothing either).
    ///
    /// Errors: [`Error::Arrow`] if a batch cannot be built.
    pub async fn load_fens(&mut self, setups: &[Setup]) -> Result<Vec<String>> {
        let mut games = Vec::with_capacity(setups.len());
        let mut positions = Vec::new();
        for (i, setup) in setups.iter().enumerate() {
            let gameuuid = game_uuid(i);
            let c = setup.castling;
            games.push(GameRow {
                gameuuid: gameuuid.clone(),
                movecnt: 0,
                color: color_code(setup.side_to_move),
                castling: CastlingDone {
                    white_long: !c.has(0),
                    white_short: !c.has(7),
                    black_long: !c.has(56),
                    black_short: !c.has(63),
                },
            });
            // The pawn that made the double step, and where it started.
            let double_step: Option<(u8, i32)> = setup.ep_square.and_then(|ep| {
                let (pawn_sq, pawn_color, start_y) = match ep / 8 {
                    5 => (ep - 8, Color::Black, 7),
                    2 => (ep + 8, Color::White, 2),
                    _ => return None,
                };
                (setup.piece_at(pawn_sq)
                    == Some(Piece {
                        color: pawn_color,
                        role: Role::Pawn,
                    }))
                .then_some((pawn_sq, start_y))
            });
            for sq in 0..64u8 {
                let Some(piece) = setup.piece_at(sq) else {
                    continue;
                };
                let (x, y) = (i32::from(sq % 8) + 1, i32::from(sq / 8) + 1);
                let before_y = match double_step {
                    Some((pawn_sq, start_y)) if pawn_sq == sq => start_y,
                    _ => y,
                };
                positions.push(SeedPosRow {
                    gameuuid: gameuuid.clone(),
                    movecnt: 0,
                    chessman: chessman_code(piece.role).to_string(),
                    color: color_code(piece.color).to_string(),
                    x,
                    y,
                    before_x: x,
                    before_y,
                });
            }
        }
        self.games = games;
        self.positions = positions;
        self.upload().await?;
        Ok(self.games.iter().map(|g| g.gameuuid.clone()).collect())
    }

    /// Writes the Rust-side game state into `demo_chess_game` and `demo_chess_pos`.
    pub(super) async fn upload(&self) -> Result<()> {
        let g = &self.games;
        let game = RecordBatch::try_new(
            game_schema(),
            vec![
                Arc::new(StringArray::from_iter_values(
                    g.iter().map(|r| r.gameuuid.as_str()),
                )),
                Arc::new(Int32Array::from_iter_values(g.iter().map(|r| r.movecnt))),
                Arc::new(StringArray::from_iter_values(g.iter().map(|r| r.color))),
                bool_array(g.iter().map(|r| r.castling.white_long)),
                bool_array(g.iter().map(|r| r.castling.white_short)),
                bool_array(g.iter().map(|r| r.castling.black_long)),
                bool_array(g.iter().map(|r| r.castling.black_short)),
            ],
        )?;
        let p = &self.positions;
        let int = |f: fn(&SeedPosRow) -> i32| -> ArrayRef {
            Arc::new(Int32Array::from_iter_values(p.iter().map(f)))
        };
        let pos = RecordBatch::try_new(
            pos_schema(),
            vec![
                Arc::new(StringArray::from_iter_values(
                    p.iter().map(|r| r.gameuuid.as_str()),
                )),
                int(|r| r.movecnt),
                Arc::new(StringArray::from_iter_values(
                    p.iter().map(|r| r.chessman.as_str()),
                )),
                Arc::new(StringArray::from_iter_values(
                    p.iter().map(|r| r.color.as_str()),
                )),
                int(|r| r.x),
                int(|r| r.y),
                int(|r| r.before_x),
                int(|r| r.before_y),
            ],
        )?;
        self.session
            .set_table("demo_chess_game", vec![game])
            .await?;
        self.session.set_table("demo_chess_pos", vec![pos]).await?;
        Ok(())
    }

    /// The index of the game `gameuuid` among the loaded games.
    pub(super) fn game_index(&self, gameuuid: &str) -> Option<usize> {
        self.games.iter().position(|g| g.gameuuid == gameuuid)
    }

    /// Builds the [`SeedMove`] for a UCI move (`e2e4`, `e7e8q`) in the current position of
    /// loaded game `game` (its current movecnt; colour and chessman of the chessman on the
    /// from square). A promotion letter must be `q` or absent: the seed only promotes to a
    /// queen and has no way to ask for another piece.
    ///
    /// Errors: [`Error::Usage`] for an unknown game, a malformed move, an empty from
    /// square or an underpromotion.
    pub fn move_from_uci(&self, game: usize, uci: &str) -> Result<SeedMove> {
        let g = self
            .games
            .get(game)
            .ok_or_else(|| Error::Usage(format!("no game {game} is loaded")))?;
        let bad = || Error::Usage(format!("{uci:?} is not a UCI move"));
        let b = uci.as_bytes();
        if !(b.len() == 4 || b.len() == 5) || !uci.is_ascii() {
            return Err(bad());
        }
        if b.len() == 5 && b[4] != b'q' {
            return Err(Error::Usage(format!(
                "{uci}: the seed only promotes to a queen"
            )));
        }
        let sq = |f: u8, r: u8| -> Option<(i32, i32)> {
            ((b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r))
                .then(|| (i32::from(f - b'a') + 1, i32::from(r - b'0')))
        };
        let (from_x, from_y) = sq(b[0], b[1]).ok_or_else(bad)?;
        let (to_x, to_y) = sq(b[2], b[3]).ok_or_else(bad)?;
        let piece = self
            .positions
            .iter()
            .find(|p| {
                p.gameuuid == g.gameuuid && p.movecnt == g.movecnt && p.x == from_x && p.y == from_y
            })
            .ok_or_else(|| Error::Usage(format!("{uci}: no chessman on the from square")))?;
        Ok(SeedMove {
            gameuuid: g.gameuuid.clone(),
            movecnt: g.movecnt,
            color: piece.color.clone(),
            chessman: piece.chessman.clone(),
            from_x,
            from_y,
            to_x,
            to_y,
        })
    }
}

fn bool_array(values: impl Iterator<Item = bool>) -> ArrayRef {
    Arc::new(values.map(Some).collect::<BooleanArray>())
}
