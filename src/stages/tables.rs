//! Arrow schemas of the input tables, and conversion between [`Setup`]s and record batches.
//!
//! `positions` — one row per position (FEN fields 2-6; seed DEMO_CHESS_GAME):
//! `position_id: UInt64, white_to_move: Boolean (White is to move, FIDE art. 1.2), castling: UInt64 (the rook squares
//! holding a castling right, bit n = square n: a1 | h1 | a8 | h8 in the initial position; any
//! back-rank rook in Chess960), chess960: Boolean (Chess960 mode: UCI castling as the king
//! taking its rook), ep_square: Int32 (nullable; square behind a pawn that just double-stepped),
//! halfmove_clock: Int32 (plies), fullmove_number: Int32`.
//!
//! `pieces` — one row per piece (FEN field 1; seed DEMO_CHESS_POS):
//! `position_id: UInt64, square: Int32 (0..63, a1 = 0, square = rank * 8 + file),
//! white: Boolean (a White piece), piece_code: Int32 (rule `role_code`: P 0, N 1, B 2, R 3,
//! Q 4, K 5)`. The seed's rows hold the letters; the stages write them only at the edges.
//!
//! `chosen_moves` — moves to apply (the columns of the `legal_moves` stage, its pieces as
//! integer codes, then `child_id: UInt64` (id of the resulting position) and `is_null:
//! Boolean`).
//!
//! `tokens` — one move token per position, lexed (see [`crate::chess::san`]), coded:
//! `position_id: UInt64`, then the token's columns [`TOKEN_FIELDS`] (all nullable).
//!
//! `perft_nodes` — the nodes of a perft level being expanded or counted: `position_id, root_id,
//! multiplicity: UInt64`. `perft_bucket` — one bucket of a perft level's nodes before
//! transpositions are merged: `root_id, multiplicity: UInt64, white_to_move: Boolean, castling:
//! UInt64, ep_square: Int32`, then the square sets of `replay_states` (the columns of stage
//! `position_keys` with root and multiplicity instead of position_id).
//!
//! `replay_states` — one row per game being replayed (see [`crate::engine::replay`]): the columns of
//! `positions`, then the board as 64-bit square sets (bit n = square n): `white, black,
//! pawns, knights, bishops, rooks, queens, kings: UInt64`.
//!
//! `replay_tokens` — one row per game of `replay_states` that has a token to replay (stage
//! `replay_moves` reads it, no join): the columns of `replay_states`, then the token with its
//! pieces as integer codes ([`replay_tokens_schema`], [`replay_tokens_batch`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, BooleanBuilder, Int32Array, Int32Builder, Int64Array,
    RecordBatch, StringArray, UInt64Array, UInt64Builder,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::chess::bitboards::Bitboards;
use crate::chess::castling::CastlingRights;
use crate::chess::color::Color;
use crate::chess::role::{Piece, Role};
use crate::chess::san::SanToken;
use crate::chess::setup::Setup;
use crate::error::{Error, Result};

fn schema(fields: &[(&str, DataType)]) -> SchemaRef {
    Arc::new(Schema::new(
        fields
            .iter()
            .map(|(n, t)| Field::new(*n, t.clone(), true))
            .collect::<Vec<_>>(),
    ))
}

/// Schema of `positions`.
pub fn positions_schema() -> SchemaRef {
    use DataType::*;
    schema(&[
        ("position_id", UInt64),
        ("white_to_move", Boolean),
        ("castling", UInt64),
        ("chess960", Boolean),
        ("ep_square", Int32),
        ("halfmove_clock", Int32),
        ("fullmove_number", Int32),
    ])
}

/// Schema of `pieces`.
pub fn pieces_schema() -> SchemaRef {
    use DataType::*;
    schema(&[
        ("position_id", UInt64),
        ("square", Int32),
        ("white", Boolean),
        ("piece_code", Int32),
    ])
}

/// Schema of `chosen_moves`: the columns of stage `legal_moves` (pieces as codes of rule
/// `role_code`: `piece_code`, `promotion_code`, `captured_code: Int32`), then `child_id` and
/// `is_null`.
pub fn chosen_moves_schema() -> SchemaRef {
    use DataType::*;
    schema(&[
        ("position_id", UInt64),
        ("move_code", Int32),
        ("piece_code", Int32),
        ("from_sq", Int32),
        ("to_sq", Int32),
        ("promotion_code", Int32),
        ("captured_code", Int32),
        ("is_capture", Boolean),
        ("is_en_passant", Boolean),
        ("is_castling", Boolean),
        ("cap_sq", Int32),
        ("rook_from", Int32),
        ("rook_to", Int32),
        ("child_id", UInt64),
        ("is_null", Boolean),
    ])
}

/// A lexed move token's columns, in `tokens` and `replay_tokens`: `piece_code: Int32` (the
/// piece it names, rule `role_code`: P 0, N 1, B 2, R 3, Q 4, K 5; a pawn's SAN is piece
/// code 0), `from_file, from_rank: Int32` (the origin's file and rank it names, 0-based, or
/// NULL), `to_sq: Int32` (its target), `promotion_code: Int32` (the promotion piece's code,
/// or NULL), `castle_long: Boolean` (castling: O-O-O true, O-O false; NULL otherwise). The
/// kinds of token (see [`crate::chess::san::SanToken`]): castling has `castle_long` and
/// nothing else; SAN has a piece code and a target; a token giving its full origin square
/// (UCI, long algebraic) has `from_file`, `from_rank` and a target and no piece code; a null
/// move (`--`, `Z0`) has none of the columns.
pub const TOKEN_FIELDS: [(&str, DataType); 6] = [
    ("piece_code", DataType::Int32),
    ("from_file", DataType::Int32),
    ("from_rank", DataType::Int32),
    ("to_sq", DataType::Int32),
    ("promotion_code", DataType::Int32),
    ("castle_long", DataType::Boolean),
];

/// Schema of `tokens`: `position_id: UInt64`, then [`TOKEN_FIELDS`].
pub fn tokens_schema() -> SchemaRef {
    let mut fields = vec![("position_id", DataType::UInt64)];
    fields.extend(TOKEN_FIELDS.iter().cloned());
    schema(&fields)
}

/// Schema of `perft_nodes`: `position_id: UInt64, root_id: UInt64, multiplicity: UInt64`
/// (how many move sequences from the root reach this node).
pub fn perft_nodes_schema() -> SchemaRef {
    use DataType::*;
    schema(&[
        ("position_id", UInt64),
        ("root_id", UInt64),
        ("multiplicity", UInt64),
    ])
}

/// Schema of `perft_bucket`: `root_id, multiplicity: UInt64, white_to_move: Boolean, castling:
/// UInt64, ep_square: Int32`, then the square sets [`SET_COLUMNS`] (UInt64).
pub fn perft_bucket_schema() -> SchemaRef {
    use DataType::*;
    let mut fields = vec![
        ("root_id", UInt64),
        ("multiplicity", UInt64),
        ("white_to_move", Boolean),
        ("castling", UInt64),
        ("ep_square", Int32),
    ];
    fields.extend(SET_COLUMNS.iter().map(|n| (*n, UInt64)));
    schema(&fields)
}

/// The `perft_bucket` rows of perft roots: root_id = index in `setups`, multiplicity 1.
pub fn roots_to_bucket(setups: &[Setup]) -> Result<RecordBatch> {
    let pairs: Vec<(u64, &Setup)> = setups
        .iter()
        .enumerate()
        .map(|(i, s)| (i as u64, s))
        .collect();
    let states = setups_to_states(&pairs)?;
    let ids = states.column_by_name("position_id").cloned();
    let ones: ArrayRef = Arc::new(UInt64Array::from(vec![1u64; setups.len()]));
    let schema = perft_bucket_schema();
    let columns = schema
        .fields()
        .iter()
        .map(|f| match f.name().as_str() {
            "root_id" => ids.clone(),
            "multiplicity" => Some(ones.clone()),
            name => states.column_by_name(name).cloned(),
        })
        .collect::<Option<Vec<ArrayRef>>>()
        .ok_or_else(|| Error::Schema("replay_states without a perft_bucket column".into()))?;
    Ok(RecordBatch::try_new(schema, columns)?)
}

/// The `positions`, `pieces` and `perft_nodes` batches of merged perft nodes (rows with the
/// columns of `perft_bucket`, as stage `perft_merge` gives them), numbered 0, 1, … in row
/// order; `chess960(root_id)` gives each root's mode. The clocks, which no move generation
/// reads, are 0 and 1.
pub fn nodes_to_batches(
    nodes: &RecordBatch,
    chess960: impl Fn(u64) -> bool,
) -> Result<(RecordBatch, RecordBatch, RecordBatch)> {
    let n = nodes.num_rows();
    let roots: &UInt64Array = column(nodes, "root_id")?;
    let ids: ArrayRef = Arc::new(UInt64Array::from_iter_values(0..n as u64));
    let sets: Vec<&UInt64Array> = SET_COLUMNS
        .iter()
        .map(|c| column::<UInt64Array>(nodes, c))
        .collect::<Result<_>>()?;
    let mut pieces = PieceColumns::with_capacity(n * 32);
    for i in 0..n {
        let white = sets[0].value(i);
        let mut occupied = white | sets[1].value(i);
        while occupied != 0 {
            let sq = occupied.trailing_zeros();
            let bit = 1u64 << sq;
            occupied &= occupied - 1;
            let Some(role) = (0..6).find(|r| sets[2 + r].value(i) & bit != 0) else {
                continue;
            };
            pieces.push(i as u64, sq as i32, white & bit != 0, role as i32);
        }
    }
    let chess: BooleanArray = roots.iter().map(|r| r.map(&chess960)).collect();
    let half: ArrayRef = Arc::new(Int32Array::from(vec![0; n]));
    let full: ArrayRef = Arc::new(Int32Array::from(vec![1; n]));
    let take = |name: &str| {
        nodes
            .column_by_name(name)
            .cloned()
            .ok_or_else(|| Error::Schema(format!("perft nodes without column {name}")))
    };
    // columns by name: the session's tables cast them to their types (`set_table`)
    let positions = RecordBatch::try_from_iter([
        ("position_id", ids.clone()),
        ("white_to_move", take("white_to_move")?),
        ("castling", take("castling")?),
        ("chess960", Arc::new(chess) as ArrayRef),
        ("ep_square", take("ep_square")?),
        ("halfmove_clock", half),
        ("fullmove_number", full),
    ])?;
    let pieces = pieces.finish()?;
    let perft_nodes = RecordBatch::try_from_iter([
        ("position_id", ids),
        ("root_id", take("root_id")?),
        ("multiplicity", take("multiplicity")?),
    ])?;
    Ok((positions, pieces, perft_nodes))
}

/// Schema of `replay_states`: the columns of `positions`, then `white, black, pawns,
/// knights, bishops, rooks, queens, kings: UInt64` (square sets, bit n = square n).
pub fn replay_states_schema() -> SchemaRef {
    let mut fields: Vec<Field> = positions_schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    for name in SET_COLUMNS {
        fields.push(Field::new(name, DataType::UInt64, true));
    }
    Arc::new(Schema::new(fields))
}

/// Schema of `replay_tokens`: the columns of `replay_states`, then the token's columns
/// [`TOKEN_FIELDS`].
pub fn replay_tokens_schema() -> SchemaRef {
    let mut fields: Vec<Field> = replay_states_schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    for (name, data_type) in TOKEN_FIELDS {
        fields.push(Field::new(name, data_type, true));
    }
    Arc::new(Schema::new(fields))
}

/// Builds the `replay_tokens` batch: each token's row of `states` (`replay_states` rows)
/// with the token's columns beside it. The tokens come in the order of their positions' rows
/// (at most one per row; rows without a token are left out).
///
/// Errors: [`Error::Schema`] when a batch of `states` lacks a column of `replay_states`;
/// [`Error::Internal`] when a token's position is not among the rows after the previous
/// token's; Arrow errors.
pub fn replay_tokens_batch(
    states: &[RecordBatch],
    tokens: &[(u64, &SanToken)],
) -> Result<RecordBatch> {
    use datafusion::arrow::compute::{concat_batches, take};
    let states_schema = replay_states_schema();
    let states = concat_batches(&states_schema, states)?;
    let ids = column::<UInt64Array>(&states, "position_id")?.values();
    // one pass over both: the row of each token's position
    let mut rows = ids.iter().enumerate();
    let state_rows = tokens
        .iter()
        .map(|(id, _)| {
            rows.find(|(_, r)| *r == id)
                .map(|(row, _)| row as u32)
                .ok_or_else(|| {
                    Error::Internal(format!("replay tokens: position {id} out of row order"))
                })
        })
        .collect::<Result<Vec<u32>>>()?;
    // every row has a token: the states' columns as they are
    let mut columns = if state_rows.len() == states.num_rows() {
        states.columns().to_vec()
    } else {
        let state_rows = datafusion::arrow::array::UInt32Array::from(state_rows);
        states
            .columns()
            .iter()
            .map(|c| take(c, &state_rows, None))
            .collect::<std::result::Result<Vec<_>, _>>()?
    };
    columns.extend(token_columns(tokens));
    Ok(RecordBatch::try_new(replay_tokens_schema(), columns)?)
}

/// The columns [`TOKEN_FIELDS`] of the tokens, in their order (replay gives a null move,
/// whose columns are all NULL, no rows).
fn token_columns(tokens: &[(u64, &SanToken)]) -> Vec<ArrayRef> {
    let mut piece = Int32Builder::with_capacity(tokens.len());
    let mut ff = Int32Builder::with_capacity(tokens.len());
    let mut fr = Int32Builder::with_capacity(tokens.len());
    let mut to = Int32Builder::with_capacity(tokens.len());
    let mut promo = Int32Builder::with_capacity(tokens.len());
    let mut long = BooleanBuilder::with_capacity(tokens.len());
    for (_, t) in tokens {
        let (p, f, r, sq, pr, l) = match **t {
            SanToken::Normal {
                role,
                from_file,
                from_rank,
                to,
                promotion,
                ..
            } => (Some(role), from_file, from_rank, Some(to), promotion, None),
            SanToken::FromTo {
                from,
                to,
                promotion,
                ..
            } => (
                None,
                Some(from % 8),
                Some(from / 8),
                Some(to),
                promotion,
                None,
            ),
            SanToken::Castle { long } => (None, None, None, None, None, Some(long)),
            SanToken::Null => (None, None, None, None, None, None),
        };
        piece.append_option(p.map(Role::code));
        ff.append_option(f.map(i32::from));
        fr.append_option(r.map(i32::from));
        to.append_option(sq.map(i32::from));
        promo.append_option(pr.map(Role::code));
        long.append_option(l);
    }
    vec![
        Arc::new(piece.finish()),
        Arc::new(ff.finish()),
        Arc::new(fr.finish()),
        Arc::new(to.finish()),
        Arc::new(promo.finish()),
        Arc::new(long.finish()),
    ]
}

/// Schema of `subfen_patterns`: `position_id: UInt64` (the position of `replay_states` the
/// pattern is tested on; a position may have several), `white_to_move: Boolean` (NULL for
/// either side), then the square sets [`SET_COLUMNS`] (UInt64) the pattern requires
/// ([`crate::chess::subfen::SubfenPattern`]).
pub fn subfen_patterns_schema() -> SchemaRef {
    let mut fields = vec![
        Field::new("position_id", DataType::UInt64, true),
        Field::new("white_to_move", DataType::Boolean, true),
    ];
    for name in SET_COLUMNS {
        fields.push(Field::new(name, DataType::UInt64, true));
    }
    Arc::new(Schema::new(fields))
}

/// Builds the `subfen_patterns` batch: (position_id, side to move or either, pattern).
pub fn subfen_patterns_to_batch(
    patterns: &[(u64, Option<Color>, &crate::chess::subfen::SubfenPattern)],
) -> Result<RecordBatch> {
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(patterns.iter().map(|p| p.0).collect::<UInt64Array>()),
        Arc::new(
            patterns
                .iter()
                .map(|p| p.1.map(|c| c == Color::White))
                .collect::<BooleanArray>(),
        ),
    ];
    for i in 0..SET_COLUMNS.len() {
        columns.push(Arc::new(
            patterns
                .iter()
                .map(|p| p.2.sets[i])
                .collect::<UInt64Array>(),
        ));
    }
    Ok(RecordBatch::try_new(subfen_patterns_schema(), columns)?)
}

/// Schema of `material_patterns`, one row per term of a material description
/// ([`crate::chess::material_pattern::MaterialPattern`], pgn-extract's syntax) and way round:
/// `position_id: UInt64` (the position of `replay_states` it is tested on), `pattern_no:
/// UInt64` (which description: a position may have several, any matching), `orientation:
/// Int32` (0: the description's first side is White, 1: Black), `color: Utf8` (`'w'`/`'b'`,
/// whose pieces the term counts), `kind: Utf8` (`P N B R Q`, `L` for knights and bishops
/// together, `K` for the row every side has, which admits any count), `min_count`,
/// `max_count: Int64` (inclusive), `relation: Utf8` (to the other side's count of the kind:
/// `none`, `same`, `different`, `at_least_more`, `at_least_fewer`, `exactly_more`,
/// `exactly_fewer`), `by: Int64` (the difference of the last four).
pub fn material_patterns_schema() -> SchemaRef {
    use DataType::*;
    schema(&[
        ("position_id", UInt64),
        ("pattern_no", UInt64),
        ("orientation", Int32),
        ("color", Utf8),
        ("kind", Utf8),
        ("min_count", Int64),
        ("max_count", Int64),
        ("relation", Utf8),
        ("by", Int64),
    ])
}

/// Builds the `material_patterns` batch of (position_id, description) pairs: each
/// description both ways round (pgn-extract's `-z`), per side a `K` row that admits any
/// count, and a row for every other constraint that does not admit every count.
pub fn material_patterns_to_batch(
    patterns: &[(u64, &crate::chess::material_pattern::MaterialPattern)],
) -> Result<RecordBatch> {
    use crate::chess::material_pattern::{KIND_LETTERS, PieceConstraint};
    let mut rows: Vec<(u64, u64, i32, Color, char, PieceConstraint)> = vec![];
    for (no, (id, pattern)) in patterns.iter().enumerate() {
        let no = no as u64;
        for (orientation, way) in [(0, **pattern), (1, pattern.swapped())] {
            for (side, color) in way.sides.iter().zip([Color::White, Color::Black]) {
                rows.push((*id, no, orientation, color, 'K', PieceConstraint::ANY));
                let kinds = side.kinds.iter().zip(KIND_LETTERS).take(5);
                for (c, kind) in kinds.chain(side.minor.as_ref().map(|m| (m, 'L'))) {
                    if *c != PieceConstraint::ANY {
                        rows.push((*id, no, orientation, color, kind, *c));
                    }
                }
            }
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(rows.iter().map(|r| r.0).collect::<UInt64Array>()),
        Arc::new(rows.iter().map(|r| r.1).collect::<UInt64Array>()),
        Arc::new(rows.iter().map(|r| r.2).collect::<Int32Array>()),
        Arc::new(
            rows.iter()
                .map(|r| Some(color_str(r.3)))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.4.to_string()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| i64::from(r.5.range.min))
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| i64::from(r.5.range.max))
                .collect::<Int64Array>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| Some(r.5.relation.name()))
                .collect::<StringArray>(),
        ),
        Arc::new(
            rows.iter()
                .map(|r| i64::from(r.5.by))
                .collect::<Int64Array>(),
        ),
    ];
    Ok(RecordBatch::try_new(material_patterns_schema(), columns)?)
}

/// The square-set columns of `replay_states` (and of stage `position_keys`), in order: the two
/// colours, then the six kinds of piece in [`Role`] order.
pub const SET_COLUMNS: [&str; 8] = [
    "white", "black", "pawns", "knights", "bishops", "rooks", "queens", "kings",
];

/// The input tables the pipeline registers, with their schemas.
pub fn input_schemas() -> Vec<(&'static str, SchemaRef)> {
    super::InputTable::ALL
        .iter()
        .map(|t| (t.name(), t.schema()))
        .collect()
}

fn color_str(c: Color) -> &'static str {
    match c {
        Color::White => "w",
        Color::Black => "b",
    }
}

/// The columns of a `pieces` batch, row by row.
struct PieceColumns {
    id: UInt64Builder,
    square: Int32Builder,
    white: BooleanBuilder,
    piece_code: Int32Builder,
}

impl PieceColumns {
    fn with_capacity(rows: usize) -> PieceColumns {
        PieceColumns {
            id: UInt64Builder::with_capacity(rows),
            square: Int32Builder::with_capacity(rows),
            white: BooleanBuilder::with_capacity(rows),
            piece_code: Int32Builder::with_capacity(rows),
        }
    }

    /// A piece: its position, square, whether it is White's and its code (rule `role_code`).
    fn push(&mut self, position_id: u64, square: i32, white: bool, piece_code: i32) {
        self.id.append_value(position_id);
        self.square.append_value(square);
        self.white.append_value(white);
        self.piece_code.append_value(piece_code);
    }

    fn finish(mut self) -> Result<RecordBatch> {
        Ok(RecordBatch::try_new(
            pieces_schema(),
            vec![
                Arc::new(self.id.finish()) as ArrayRef,
                Arc::new(self.square.finish()),
                Arc::new(self.white.finish()),
                Arc::new(self.piece_code.finish()),
            ],
        )?)
    }
}

/// Builds the `positions` and `pieces` batches of the given (position_id, setup) pairs.
pub fn setups_to_batches(setups: &[(u64, &Setup)]) -> Result<(RecordBatch, RecordBatch)> {
    let mut pieces = PieceColumns::with_capacity(setups.len() * 32);
    for (pid, s) in setups {
        for (sq, piece) in s.board.iter().enumerate() {
            if let Some(piece) = piece {
                pieces.push(
                    *pid,
                    sq as i32,
                    piece.color == Color::White,
                    piece.role.code(),
                );
            }
        }
    }
    let positions = RecordBatch::try_new(positions_schema(), position_columns(setups))?;
    let pieces = pieces.finish()?;
    Ok((positions, pieces))
}

/// Builds the `replay_states` batch of the given (position_id, setup) pairs.
pub fn setups_to_states(setups: &[(u64, &Setup)]) -> Result<RecordBatch> {
    let mut sets: [UInt64Builder; 8] = Default::default();
    for (_, s) in setups {
        let mut bits = [0u64; 8];
        for (sq, piece) in s.board.iter().enumerate() {
            if let Some(piece) = piece {
                bits[piece.color as usize] |= 1 << sq;
                bits[2 + piece.role as usize] |= 1 << sq;
            }
        }
        for (b, v) in sets.iter_mut().zip(bits) {
            b.append_value(v);
        }
    }
    let mut columns = position_columns(setups);
    columns.extend(sets.iter_mut().map(|b| Arc::new(b.finish()) as ArrayRef));
    Ok(RecordBatch::try_new(replay_states_schema(), columns)?)
}

/// The `positions` columns of the given (position_id, setup) pairs.
fn position_columns(setups: &[(u64, &Setup)]) -> Vec<ArrayRef> {
    let mut id = UInt64Builder::new();
    let mut white_to_move = BooleanBuilder::new();
    let mut rights = UInt64Builder::new();
    let mut chess960 = BooleanBuilder::new();
    let mut ep = Int32Builder::new();
    let mut half = Int32Builder::new();
    let mut full = Int32Builder::new();
    for (pid, s) in setups {
        id.append_value(*pid);
        white_to_move.append_value(s.side_to_move == Color::White);
        rights.append_value(s.castling.rooks());
        chess960.append_value(s.chess960);
        ep.append_option(s.ep_square.map(i32::from));
        half.append_value(i32::try_from(s.halfmove_clock).unwrap_or(i32::MAX));
        full.append_value(i32::try_from(s.fullmove_number).unwrap_or(i32::MAX));
    }
    let mut columns = vec![
        Arc::new(id.finish()) as ArrayRef,
        Arc::new(white_to_move.finish()),
    ];
    columns.push(Arc::new(rights.finish()));
    columns.push(Arc::new(chess960.finish()));
    columns.push(Arc::new(ep.finish()));
    columns.push(Arc::new(half.finish()));
    columns.push(Arc::new(full.finish()));
    columns
}

/// A column of a batch by name, as a typed array (no cast: see
/// [`crate::session::read`] for reads that cast). Errors: [`Error::Schema`].
pub fn column<'a, T: 'static>(batch: &'a RecordBatch, name: &str) -> Result<&'a T> {
    batch
        .column_by_name(name)
        .and_then(|c| c.as_any().downcast_ref::<T>())
        .ok_or_else(|| Error::Schema(format!("column {name} missing or of another type")))
}

/// Reads `positions` + `pieces` batches back into setups, keyed by position_id.
pub fn batches_to_setups(
    positions: &[RecordBatch],
    pieces: &[RecordBatch],
) -> Result<BTreeMap<u64, Setup>> {
    let mut out = read_positions(positions)?;
    for b in pieces {
        let id: &UInt64Array = column(b, "position_id")?;
        let sq: &Int32Array = column(b, "square")?;
        let white: &BooleanArray = column(b, "white")?;
        let code: &Int32Array = column(b, "piece_code")?;
        for i in 0..b.num_rows() {
            let (Some(s), Some(role)) = (
                out.get_mut(&id.value(i)),
                usize::try_from(code.value(i))
                    .ok()
                    .and_then(|c| Role::ALL.get(c).copied()),
            ) else {
                continue;
            };
            let color = Color::of_white(white.value(i));
            if let Some(cell) = s.board.get_mut(sq.value(i) as usize) {
                *cell = Some(Piece { color, role });
            }
        }
    }
    Ok(out)
}

/// Reads `replay_states` batches back into setups, keyed by position_id.
pub fn states_to_setups(states: &[RecordBatch]) -> Result<BTreeMap<u64, Setup>> {
    let mut out = BTreeMap::new();
    for b in states {
        let id: &UInt64Array = column(b, "position_id")?;
        for (i, s) in state_rows(b)?.into_iter().enumerate() {
            out.insert(id.value(i), s);
        }
    }
    Ok(out)
}

/// Reads one `replay_states` batch back into setups, one per row, in row order.
pub fn state_rows(b: &RecordBatch) -> Result<Vec<Setup>> {
    Ok(state_bitboards(b)?
        .iter()
        .map(Bitboards::to_setup)
        .collect())
}

/// Reads one `replay_states` batch back into positions as bitboards (its square sets
/// [`SET_COLUMNS`] as they are), one per row, in row order.
pub fn state_bitboards(b: &RecordBatch) -> Result<Vec<Bitboards>> {
    let sets: Vec<&UInt64Array> = SET_COLUMNS
        .iter()
        .map(|n| column::<UInt64Array>(b, n))
        .collect::<Result<_>>()?;
    let fields = PositionColumns::of(b)?;
    Ok((0..b.num_rows())
        .map(|i| fields.bitboards(i, std::array::from_fn(|k| sets[k].value(i))))
        .collect())
}

/// The castling-rights column of a `positions`-like batch (the rook squares holding a right,
/// bit n = square n). Errors: [`Error::Schema`].
pub fn castling_column(b: &RecordBatch) -> Result<&UInt64Array> {
    column(b, "castling")
}

/// The setups of `positions` rows (or of rows with the same leading columns, as
/// `replay_states`), with empty boards, keyed by position_id.
fn read_positions(positions: &[RecordBatch]) -> Result<BTreeMap<u64, Setup>> {
    let mut out = BTreeMap::new();
    for b in positions {
        let id: &UInt64Array = column(b, "position_id")?;
        for (i, s) in position_rows(b)?.into_iter().enumerate() {
            out.insert(id.value(i), s);
        }
    }
    Ok(out)
}

/// The columns of a `positions` batch (or of a batch with the same leading columns, as
/// `replay_states`) but its position_id: a FEN's fields but the board.
struct PositionColumns<'a> {
    white_to_move: &'a BooleanArray,
    rights: &'a UInt64Array,
    chess960: &'a BooleanArray,
    ep: &'a Int32Array,
    half: &'a Int32Array,
    full: &'a Int32Array,
}

impl PositionColumns<'_> {
    /// The columns of `b`. Errors: [`Error::Schema`].
    fn of(b: &RecordBatch) -> Result<PositionColumns<'_>> {
        Ok(PositionColumns {
            white_to_move: column(b, "white_to_move")?,
            rights: castling_column(b)?,
            chess960: column(b, "chess960")?,
            ep: column(b, "ep_square")?,
            half: column(b, "halfmove_clock")?,
            full: column(b, "fullmove_number")?,
        })
    }

    /// Row `i`'s fields with the square sets `sets` ([`Bitboards::cut_to_colors`]).
    fn bitboards(&self, i: usize, sets: [u64; 8]) -> Bitboards {
        Bitboards {
            sets: Bitboards::cut_to_colors(sets),
            side_to_move: Color::of_white(self.white_to_move.value(i)),
            castling: CastlingRights::from_rooks(self.rights.value(i)),
            chess960: self.chess960.value(i),
            ep_square: (!self.ep.is_null(i)).then(|| self.ep.value(i) as u8),
            halfmove_clock: self.half.value(i).max(0) as u32,
            fullmove_number: self.full.value(i).max(0) as u32,
        }
    }

    /// Row `i`'s fields, on an empty board.
    fn setup(&self, i: usize) -> Setup {
        self.bitboards(i, [0; 8]).to_setup()
    }
}

/// The setups of one batch of `positions` rows (or of rows with the same leading columns,
/// as `replay_states`), with empty boards, in row order.
fn position_rows(b: &RecordBatch) -> Result<Vec<Setup>> {
    let c = PositionColumns::of(b)?;
    Ok((0..b.num_rows()).map(|i| c.setup(i)).collect())
}

/// Builds the `tokens` batch: one lexed move token per position ([`tokens_schema`]).
pub fn tokens_to_batch(tokens: &[(u64, &SanToken)]) -> Result<RecordBatch> {
    let ids: ArrayRef = Arc::new(tokens.iter().map(|(id, _)| *id).collect::<UInt64Array>());
    let mut columns = vec![ids];
    columns.extend(token_columns(tokens));
    Ok(RecordBatch::try_new(tokens_schema(), columns)?)
}

/// Keeps the rows whose `position_id` satisfies `keep`. Errors: [`Error::Schema`] if a
/// batch has no UInt64 column `position_id`.
pub fn filter_ids(batches: &[RecordBatch], keep: impl Fn(u64) -> bool) -> Result<Vec<RecordBatch>> {
    batches
        .iter()
        .map(|b| {
            let ids: &UInt64Array = column(b, "position_id")?;
            let mask: BooleanArray = ids.iter().map(|v| Some(v.is_some_and(&keep))).collect();
            Ok(datafusion::arrow::compute::filter_record_batch(b, &mask)?)
        })
        .collect()
}
