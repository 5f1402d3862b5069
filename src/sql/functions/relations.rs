//! A position's relations as lists of structs: `attacks`, `pins`, `checkers`, `hanging`
//! (stages `piece_attacks`, `pins`, `checkers`, `hanging` of `plans/position/`, after
//! `placed` and `boards`). Squares become their names and pieces their FEN letters here, at
//! the edge; the stages work on square numbers and `'w'`/`'b'`, `K Q R B N P`.

use std::sync::Arc;

use datafusion::arrow::array::{Array, ArrayRef, Int32Array, StringArray, StructArray, UInt8Array};
use datafusion::arrow::compute::concat_batches;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Int32Type, UInt64Type};

use super::{distinct, good_positions, list_column};
use crate::chess::role::Role;
use crate::chess::setup::Setup;
use crate::chess::square::square_name;
use crate::engine::Engine;
use crate::error::Result;
use crate::session::read;
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

    /// The relation of each row's FEN: a list per row, NULL for a NULL FEN or one breaking
    /// the FEN rules ([`Setup::from_fen_auto`]). Each distinct FEN is loaded once.
    ///
    /// Errors: pipeline failures, a stage's columns not as documented
    /// ([`crate::session::SessionError::Column`]).
    pub(super) async fn lists(&self, engine: &Engine, fens: &StringArray) -> Result<ArrayRef> {
        let (rows, unique) = distinct(fens);
        let (rank, good) = good_positions(unique.iter().map(|f| Setup::from_fen_auto(f).ok()));
        let (values, ranges) = self.values(engine, &good).await?;
        list_column(
            &values,
            DataType::Struct(self.struct_fields()),
            rows.iter()
                .map(|r| r.and_then(|i| rank[i]).map(|p| ranges[p].0..ranges[p].1)),
        )
    }

    /// The stage's rows of `setups` (position id = index) as the struct, in list order (by
    /// position, then by the `order` squares), and per position its range of rows.
    async fn values(
        &self,
        engine: &Engine,
        setups: &[Setup],
    ) -> Result<(ArrayRef, Vec<(u32, u32)>)> {
        let mut ranges = vec![(0u32, 0u32); setups.len()];
        let fields = self.struct_fields();
        let empty = |ranges| {
            let values: ArrayRef = Arc::new(StructArray::new_null(fields.clone(), 0));
            Ok((values, ranges))
        };
        if setups.is_empty() {
            return empty(ranges);
        }
        engine.load(setups).await?;
        let p = engine.pipeline();
        // the board as `placed` pieces and `boards` square sets, then the relation's stage
        p.run_stages(&[Stage::Placed, Stage::Boards]).await?;
        let batches = p.run(self.stage).await?;
        let Some(first) = batches.first() else {
            return empty(ranges);
        };
        let batch = concat_batches(&first.schema(), &batches)?;
        // squares and counts as Int32 (the stages' squares are: no copy)
        let ints = |name: &str| read::primitive::<Int32Type>(&batch, name);
        let texts = |name: &str| read::strings(&batch, name);
        // the list order: the rows bucketed by position (a counting sort), each position's
        // rows sorted by the `order` squares
        let ids = read::primitive::<UInt64Type>(&batch, "position_id")?;
        let squares: Vec<Int32Array> = self
            .order
            .iter()
            .map(|c| ints(c))
            .collect::<std::result::Result<_, _>>()?;
        let position = |r: usize| {
            usize::try_from(ids.value(r))
                .ok()
                .filter(|p| *p < setups.len())
        };
        for r in 0..batch.num_rows() {
            if let Some(p) = position(r) {
                ranges[p].1 += 1;
            }
        }
        let mut start = 0u32;
        for range in &mut ranges {
            let n = range.1;
            *range = (start, start);
            start += n;
        }
        let mut order = vec![0u32; start as usize];
        for r in 0..batch.num_rows() {
            if let Some(p) = position(r) {
                order[ranges[p].1 as usize] = r as u32;
                ranges[p].1 += 1;
            }
        }
        let key = |r: &u32| {
            squares
                .iter()
                .fold(0u64, |k, sq| (k << 6) | (sq.value(*r as usize) as u64 & 63))
        };
        for &(from, to) in &ranges {
            order[from as usize..to as usize].sort_unstable_by_key(key);
        }
        let mut columns: Vec<ArrayRef> = vec![];
        for (_, cell) in self.fields {
            columns.push(match cell {
                Cell::Square(c) => {
                    let sq = ints(c)?;
                    Arc::new(
                        order
                            .iter()
                            .map(|&r| {
                                let v = sq.is_valid(r as usize).then(|| sq.value(r as usize))?;
                                SQUARE_NAMES.get(usize::try_from(v).ok()?).copied()
                            })
                            .collect::<StringArray>(),
                    )
                }
                Cell::Piece(color, piece) => {
                    let (colors, pieces) = (texts(color)?, texts(piece)?);
                    Arc::new(
                        order
                            .iter()
                            .map(|&r| {
                                let r = r as usize;
                                if pieces.is_null(r) || colors.is_null(r) {
                                    return None;
                                }
                                fen_letter(colors.value(r), pieces.value(r))
                            })
                            .collect::<StringArray>(),
                    )
                }
                Cell::Count(c) => {
                    let n = ints(c)?;
                    Arc::new(
                        order
                            .iter()
                            .map(|&r| u8::try_from(n.value(r as usize)).ok())
                            .collect::<UInt8Array>(),
                    )
                }
            });
        }
        let values: ArrayRef = Arc::new(StructArray::try_new(fields, columns, None)?);
        Ok((values, ranges))
    }
}

/// The names of the squares, a1 = 0 … h8 = 63.
static SQUARE_NAMES: std::sync::LazyLock<Vec<&'static str>> = std::sync::LazyLock::new(|| {
    (0..64u8)
        .map(|sq| &*Box::leak(square_name(sq).into_boxed_str()))
        .collect()
});

/// The FEN letter of a piece of the stages (`'w'`/`'b'`, `K Q R B N P`, read by
/// [`Role::from_char`]): upper case for White, as [`crate::chess::role::Piece::fen_char`].
fn fen_letter(color: &str, piece: &str) -> Option<&'static str> {
    const LETTERS: [&str; 12] = ["P", "N", "B", "R", "Q", "K", "p", "n", "b", "r", "q", "k"];
    let role = Role::from_char(char::from(*piece.as_bytes().first()?))?;
    Some(LETTERS[usize::from(color == "b") * 6 + role as usize])
}
