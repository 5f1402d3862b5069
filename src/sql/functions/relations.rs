//! A position's relations as lists of structs: `attacks`, `pins`, `checkers`, `hanging`
//! (stages `piece_attacks`, `pins`, `checkers`, `hanging` of `plans/position/`, after
//! `placed` and `boards`). Squares become their names and pieces their FEN letters here, at
//! the edge; the stages work on square numbers and `'w'`/`'b'`, `K Q R B N P`.

use std::collections::HashMap;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, Int64Array, ListArray, StringArray, StructArray, UInt8Array, UInt32Array,
    UInt64Array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::{cast, concat_batches, take};
use datafusion::arrow::datatypes::{DataType, Field, Fields};

use super::distinct;
use crate::chess::setup::Setup;
use crate::chess::square::square_name;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::stages::Stage;

/// One field of a relation's struct and the stage columns it is made of.
#[derive(Clone, Copy)]
enum Cell {
    /// A square's name (`e4`) from a square-number column.
    Square(&'static str),
    /// A FEN piece letter (`N`, `n`) from a colour and a piece column (NULL when the piece is).
    Piece(&'static str, &'static str),
    /// A count (UInt8).
    Count(&'static str),
}

/// A relation function: its stage, its struct's fields, and the stage columns its rows are
/// ordered by within a position.
pub(super) struct Relation {
    stage: Stage,
    fields: &'static [(&'static str, Cell)],
    order: &'static [&'static str],
}

/// `attacks(fen)`: every square every piece of both sides attacks (python-chess
/// `board.attacks`), ordered by the attacker's square, then the attacked one (a1 = 0 …).
pub(super) const ATTACKS: Relation = Relation {
    stage: Stage::PieceAttacks,
    fields: &[
        ("attacker_square", Cell::Square("square")),
        ("attacker", Cell::Piece("color", "piece")),
        ("attacked_square", Cell::Square("target_sq")),
        ("attacked", Cell::Piece("target_color", "target_piece")),
    ],
    order: &["square", "target_sq"],
};

/// `pins(fen)`: every absolutely pinned piece of both sides (python-chess `board.is_pinned`),
/// ordered by the pinned piece's square.
pub(super) const PINS: Relation = Relation {
    stage: Stage::Pins,
    fields: &[
        ("pinned_square", Cell::Square("pinned_sq")),
        ("pinned", Cell::Piece("pinned_color", "pinned_piece")),
        ("pinner_square", Cell::Square("pinner_sq")),
        ("pinner", Cell::Piece("pinner_color", "pinner_piece")),
        ("king_square", Cell::Square("king_sq")),
    ],
    order: &["pinned_sq"],
};

/// `checkers(fen)`: the pieces giving check to the side to move (python-chess
/// `board.checkers()`), ordered by square.
pub(super) const CHECKERS: Relation = Relation {
    stage: Stage::Checkers,
    fields: &[
        ("square", Cell::Square("checker_sq")),
        ("piece", Cell::Piece("checker_color", "checker_piece")),
    ],
    order: &["checker_sq"],
};

/// `hanging(fen)`: every piece but a king attacked by the other side and defended by none
/// of its own, with its number of attackers, ordered by square.
pub(super) const HANGING: Relation = Relation {
    stage: Stage::Hanging,
    fields: &[
        ("square", Cell::Square("hanging_sq")),
        ("piece", Cell::Piece("hanging_color", "hanging_piece")),
        ("attackers", Cell::Count("attackers")),
    ],
    order: &["hanging_sq"],
};

impl Relation {
    /// The struct's fields: squares and pieces Utf8, counts UInt8; all nullable.
    fn struct_fields(&self) -> Fields {
        self.fields
            .iter()
            .map(|(name, cell)| {
                let t = match cell {
                    Cell::Count(_) => DataType::UInt8,
                    _ => DataType::Utf8,
                };
                Field::new(*name, t, true)
            })
            .collect()
    }

    /// The function's type: `List<Struct<…>>` (see each relation's fields).
    pub(super) fn list_type(&self) -> DataType {
        DataType::List(Arc::new(Field::new(
            "item",
            DataType::Struct(self.struct_fields()),
            true,
        )))
    }

    /// The stages to run after loading: `placed`, `boards`, `piece_attacks` and this one.
    fn stages(&self) -> Vec<Stage> {
        let mut s = vec![Stage::Placed, Stage::Boards, Stage::PieceAttacks];
        if self.stage != Stage::PieceAttacks {
            s.push(self.stage);
        }
        s
    }

    /// The relation of each row's FEN: a list per row, NULL for a NULL FEN or one breaking
    /// the FEN rules ([`Setup::from_fen_auto`]). Each distinct FEN is loaded once.
    ///
    /// Errors: pipeline failures, a stage's columns not as documented ([`Error::Schema`]).
    pub(super) async fn lists(&self, engine: &Engine, fens: &StringArray) -> Result<ArrayRef> {
        let (rows, unique) = distinct(fens);
        let mut rank: Vec<Option<usize>> = vec![None; unique.len()];
        let mut good: Vec<Setup> = vec![];
        for (i, fen) in unique.iter().enumerate() {
            if let Ok(s) = Setup::from_fen_auto(fen) {
                rank[i] = Some(good.len());
                good.push(s);
            }
        }
        let (values, ranges) = self.values(engine, &good).await?;
        let mut indices: Vec<u32> = vec![];
        let mut offsets: Vec<i32> = vec![0];
        let mut valid: Vec<bool> = vec![];
        for r in &rows {
            let position = r.and_then(|i| rank[i]);
            if let Some(p) = position {
                indices.extend(ranges.get(p).into_iter().flatten().copied());
            }
            valid.push(position.is_some());
            offsets.push(
                i32::try_from(indices.len()).map_err(|_| {
                    Error::Usage("a relation list over 2^31 rows in one batch".into())
                })?,
            );
        }
        let values = take(&values, &UInt32Array::from(indices), None)?;
        Ok(Arc::new(ListArray::try_new(
            Arc::new(Field::new(
                "item",
                DataType::Struct(self.struct_fields()),
                true,
            )),
            OffsetBuffer::new(offsets.into()),
            values,
            Some(NullBuffer::from(valid)),
        )?))
    }

    /// The stage's rows of `setups` (position id = index) as the struct, and per position the
    /// indices of its rows in order.
    async fn values(&self, engine: &Engine, setups: &[Setup]) -> Result<(ArrayRef, Vec<Vec<u32>>)> {
        let mut ranges: Vec<Vec<u32>> = vec![vec![]; setups.len()];
        let fields = self.struct_fields();
        if setups.is_empty() {
            return Ok((Arc::new(StructArray::new_null(fields, 0)), ranges));
        }
        engine.load(setups).await?;
        let p = engine.pipeline();
        let stages = self.stages();
        p.run_stages(&stages[..stages.len() - 1]).await?;
        let batches = p.run(self.stage).await?;
        let Some(first) = batches.first() else {
            return Ok((Arc::new(StructArray::new_null(fields, 0)), ranges));
        };
        let batch = concat_batches(&first.schema(), &batches)?;
        let int = |name: &str| -> Result<Vec<Option<i64>>> {
            let c = batch
                .column_by_name(name)
                .ok_or_else(|| Error::Schema(format!("{}: no column {name}", self.stage)))?;
            let c = cast(c, &DataType::Int64)?;
            let c = c
                .as_any()
                .downcast_ref::<Int64Array>()
                .ok_or_else(|| Error::Schema(format!("{}: {name}", self.stage)))?;
            Ok(c.iter().collect())
        };
        let text = |name: &str| -> Result<StringArray> {
            let c = batch
                .column_by_name(name)
                .ok_or_else(|| Error::Schema(format!("{}: no column {name}", self.stage)))?;
            let c = cast(c, &DataType::Utf8)?;
            c.as_any()
                .downcast_ref::<StringArray>()
                .cloned()
                .ok_or_else(|| Error::Schema(format!("{}: {name}", self.stage)))
        };
        let mut columns: Vec<ArrayRef> = vec![];
        for (_, cell) in self.fields {
            columns.push(match cell {
                Cell::Square(c) => Arc::new(
                    int(c)?
                        .iter()
                        .map(|v| v.and_then(|v| u8::try_from(v).ok()).map(square_name))
                        .collect::<StringArray>(),
                ),
                Cell::Piece(color, piece) => {
                    let (colors, pieces) = (text(color)?, text(piece)?);
                    Arc::new(
                        (0..batch.num_rows())
                            .map(|i| fen_letter(&colors, &pieces, i))
                            .collect::<StringArray>(),
                    )
                }
                Cell::Count(c) => Arc::new(
                    int(c)?
                        .iter()
                        .map(|v| v.and_then(|v| u8::try_from(v).ok()))
                        .collect::<UInt8Array>(),
                ),
            });
        }
        let values: ArrayRef = Arc::new(StructArray::try_new(fields, columns, None)?);
        let ids = cast(
            batch
                .column_by_name("position_id")
                .ok_or_else(|| Error::Schema(format!("{}: no position_id", self.stage)))?,
            &DataType::UInt64,
        )?;
        let ids = ids
            .as_any()
            .downcast_ref::<UInt64Array>()
            .ok_or_else(|| Error::Schema(format!("{}: position_id", self.stage)))?;
        let keys: Vec<Vec<Option<i64>>> =
            self.order.iter().map(|c| int(c)).collect::<Result<_>>()?;
        let mut by_position: HashMap<u64, Vec<u32>> = HashMap::new();
        for (row, id) in ids.iter().enumerate() {
            if let Some(id) = id {
                by_position.entry(id).or_default().push(row as u32);
            }
        }
        for (id, mut list) in by_position {
            list.sort_by_key(|&r| keys.iter().map(|k| k[r as usize]).collect::<Vec<_>>());
            if let Some(slot) = ranges.get_mut(id as usize) {
                *slot = list;
            }
        }
        Ok((values, ranges))
    }
}

/// The FEN letter of row `i`'s piece (upper case for `'w'`), NULL when the piece is.
fn fen_letter(colors: &StringArray, pieces: &StringArray, i: usize) -> Option<String> {
    if pieces.is_null(i) {
        return None;
    }
    let piece = pieces.value(i);
    Some(if colors.is_valid(i) && colors.value(i) == "b" {
        piece.to_ascii_lowercase()
    } else {
        piece.to_string()
    })
}
