//! The rules over any table's move column: the scalar functions `plies_of` and
//! `validate_moves`, one game per row, from its movetext or its list of move tokens.
//!
//! | function | returns | NULL when |
//! |---|---|---|
//! | `plies_of(moves [, start_fen [, chess960 [, fields]]])` | List<Struct> of the game's legal main-line plies ([`plies_of_type`]: `ply`, `san`, `uci`, `fen_after`, `position_key`, `is_capture`, `is_check`, `is_checkmate`, `clock_s`, `eval_cp`, `eval_mate`, the values of those columns of `read_plies`; with `fields`, only those); a game with an illegal move: its plies before it | NULL `moves`; the game cannot be set up (bad `start_fen`, a `Variant` tag of other rules in the text) |
//! | `validate_moves(moves [, start_fen [, chess960]])` | Struct ([`validate_moves_type`]): `plies`, `first_illegal_ply`, `error_kind`, `error_message`, `final_fen`, `final_status`, `result_consistent`, the rules columns of `read_pgn` (`error_message` without its `game N: ` prefix) | NULL `moves` |
//!
//! Arguments: `moves` is PGN movetext (Utf8, Utf8View or LargeUtf8; read by our PGN reader
//! as one game, [`read_movetext`]: comments, NAGs, variations, a result marker, even a tag
//! section) or a list of move tokens (List, LargeList or FixedSizeList of strings; SAN,
//! UCI, castling and null moves as in movetext; a NULL item is an unreadable token);
//! `start_fen` (a string; NULL or absent: the standard position, or the text's `FEN` tag)
//! is the game's `FEN` tag; `chess960` (Boolean; NULL, absent or false: the rules the FEN
//! and the text's `Variant` tag give) true is a `Variant "Chess960"` tag (see
//! [`crate::validate::start_position`]); `fields` (`plies_of` only, a string literal) names
//! the item's fields to compute, comma-separated (`'ply,position_key'`; the struct holds
//! them in the order above). A query that reads only some fields of the unnested items
//! gets this argument from the optimizer rule [`super::plies_of_fields`], so that the
//! fields nobody reads (a FEN per ply, the SAN strings) are never written; `EXPLAIN` shows
//! it. A result marker at the end of the movetext is the
//! game's `Result` tag when the text has none (`result_consistent`).
//!
//! Errors are per row: text that is not PGN (an unreadable token, a structural fault of
//! the text, text after the end of the game) is a `syntax` error of `validate_moves` at its
//! ply, as `read_pgn` reports it; a bad `start_fen` in a column is a `setup` error at ply 0
//! (`plies_of`: NULL). Planning errors name the argument: a count other than 1 to 3 (1 to
//! 4 for `plies_of`), a type other than those above, a literal `start_fen` that breaks the
//! FEN rules, and `fields` that is not a literal or names no field or an unknown one.
//!
//! Columnar: the non-NULL rows of a batch are one batch of games through
//! [`validate_games_with`]. A batch of at least two parts' rows ([`MIN_PART`]) is sorted
//! by its games' lengths, longest first, and cut into as many parts of equal cost as the
//! pool has engines, each part on its own engine at once
//! ([`super::engines::with_engines`]), its values put back in row order. The rows are
//! built by `read_pgn`'s and `read_plies`' column builders ([`super::game_columns`],
//! [`super::ply_columns`]).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use datafusion::arrow::array::{
    Array, ArrayRef, BooleanArray, ListArray, RecordBatch, StringArray, StructArray, UInt32Array,
    new_null_array,
};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::{cast, interleave, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef, Schema, SchemaRef};
use datafusion::common::{DataFusionError, Result, ScalarValue, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};

use super::engines::{EnginePool, with_engines};
use super::functions::{is_text, shown};
use super::game_columns::{games_batch, needs_rules, read_pgn_schema};
use super::ply_columns::{plies_batches, read_plies_schema};
use crate::engine::Engine;
use crate::pgn::RawGame;
use crate::pgn::movetext::read_movetext;
use crate::validate::{StartError, ValidateOptions, start_position, validate_games_with};

/// Rows (games) a part of a batch holds at least when the batch is shared among the pool's
/// engines ([`with_engines`]): below that, one engine's fixed cost per ply dominates.
const MIN_PART: usize = 256;

/// The cost of one replay step in plies, for cutting a batch into parts of equal cost
/// ([`with_engines`]): calibrated on the shared standard games (5,528 in one batch, 2
/// engines), where it makes the two parts' times equal within 5 % (128: the part of the
/// longest games 17 % slower; 600: 20 % faster). The steps of a part's longest games run
/// over few rows, each at the fixed cost of its stages' operators.
const STEP_PLIES: usize = 400;

/// The `read_plies` columns a `plies_of` item holds, in order.
pub(super) const PLY_FIELDS: [&str; 11] = [
    "ply",
    "san",
    "uci",
    "fen_after",
    "position_key",
    "is_capture",
    "is_check",
    "is_checkmate",
    "clock_s",
    "eval_cp",
    "eval_mate",
];

/// The item fields read from the move's comment (`[%clk …]`, `[%eval …]`).
const NOTE_FIELDS: [&str; 3] = ["clock_s", "eval_cp", "eval_mate"];

/// Which function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    PliesOf,
    ValidateMoves,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::PliesOf => "plies_of",
            Kind::ValidateMoves => "validate_moves",
        }
    }

    /// The indices of its columns in its table's schema (`read_plies`, `read_pgn`).
    fn projection(self) -> Vec<usize> {
        match self {
            Kind::PliesOf => {
                let schema = read_plies_schema();
                PLY_FIELDS
                    .iter()
                    .filter_map(|n| schema.index_of(n).ok())
                    .collect()
            }
            Kind::ValidateMoves => (0..read_pgn_schema().fields().len())
                .filter(|&i| needs_rules(&[i]))
                .collect(),
        }
    }

    /// The schema of its table, whose columns its values hold: `read_plies`' (an item of
    /// `plies_of`), `read_pgn`'s (`validate_moves`).
    fn table(self) -> SchemaRef {
        match self {
            Kind::PliesOf => read_plies_schema(),
            Kind::ValidateMoves => read_pgn_schema(),
        }
    }

    /// Its columns' schema: the projection of its table's.
    fn schema(self) -> SchemaRef {
        let table = self.table();
        let fields: Vec<Field> = self
            .projection()
            .iter()
            .map(|&i| table.field(i).clone())
            .collect();
        Arc::new(Schema::new(fields))
    }

    fn return_type(self) -> DataType {
        match self {
            Kind::PliesOf => plies_of_type(),
            Kind::ValidateMoves => validate_moves_type(),
        }
    }
}

/// The type `plies_of` returns: List<Struct> of `ply` UInt32, `san`, `uci`, `fen_after`
/// Utf8, `position_key` UInt64, `is_capture`, `is_check`, `is_checkmate` Boolean,
/// `clock_s` Float64 (nullable), `eval_cp`, `eval_mate` Int32 (nullable): the fields of
/// those columns of [`read_plies_schema`] (their definitions there).
#[must_use]
pub fn plies_of_type() -> DataType {
    plies_of_fields_type(&PLY_FIELDS)
}

/// The type `plies_of(moves, start_fen, chess960, fields)` returns: [`plies_of_type`] with
/// only the item fields named in `fields`, in their order there.
fn plies_of_fields_type(fields: &[&str]) -> DataType {
    let all = Kind::PliesOf.schema();
    let item: Vec<Field> = all
        .fields()
        .iter()
        .filter(|f| fields.contains(&f.name().as_str()))
        .map(|f| f.as_ref().clone())
        .collect();
    DataType::List(Arc::new(Field::new(
        "item",
        DataType::Struct(item.into()),
        true,
    )))
}

/// The item fields a `fields` argument names (comma-separated, spaces around a name
/// ignored), checked. Errors: a plan error naming the argument, for an empty name, a name
/// that is no field, or a field named twice.
fn parse_fields(text: &str) -> Result<Vec<&str>> {
    let names: Vec<&str> = text.split(',').map(str::trim).collect();
    for (i, name) in names.iter().enumerate() {
        let wrong = if name.is_empty() {
            "an empty field name".to_string()
        } else if !PLY_FIELDS.contains(name) {
            format!("{}, not a field of the items", shown(name))
        } else if names[..i].contains(name) {
            format!("{} twice", shown(name))
        } else {
            continue;
        };
        return plan_err!(
            "plies_of: argument 4 (fields) names {wrong} ({})",
            PLY_FIELDS.join(", ")
        );
    }
    Ok(names)
}

/// The type `validate_moves` returns: Struct of `plies` UInt32, `first_illegal_ply`
/// UInt32 (nullable), `error_kind`, `error_message`, `final_fen`, `final_status` Utf8
/// (nullable), `result_consistent` Boolean: the rules columns of [`read_pgn_schema`] (their
/// definitions there).
#[must_use]
pub fn validate_moves_type() -> DataType {
    DataType::Struct(Kind::ValidateMoves.schema().fields().clone())
}

/// `plies_of` or `validate_moves` (see the module docs).
#[derive(Debug)]
pub struct MoveFunction {
    kind: Kind,
    signature: Signature,
    pool: Arc<EnginePool>,
}

impl PartialEq for MoveFunction {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

impl Eq for MoveFunction {}

impl Hash for MoveFunction {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.kind.hash(state);
    }
}

/// `plies_of` and `validate_moves`, sharing `pool`.
pub(crate) fn all(pool: &Arc<EnginePool>) -> Vec<ScalarUDF> {
    [Kind::PliesOf, Kind::ValidateMoves]
        .into_iter()
        .map(|kind| {
            ScalarUDF::new_from_impl(MoveFunction {
                kind,
                signature: Signature::user_defined(Volatility::Immutable),
                pool: pool.clone(),
            })
        })
        .collect()
}

impl ScalarUDFImpl for MoveFunction {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.kind.return_type())
    }

    /// `moves` to Utf8 or List<Utf8>, `start_fen` to Utf8, `chess960` to Boolean. Errors: a
    /// plan error naming the function and the argument (count or type).
    fn coerce_types(&self, types: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.kind.name();
        let (most, fields) = match self.kind {
            Kind::PliesOf => (4, " [, fields]"),
            Kind::ValidateMoves => (3, ""),
        };
        if types.is_empty() || types.len() > most {
            return plan_err!(
                "{name}(moves [, start_fen [, chess960{fields}]]) takes 1 to {most} arguments, \
                 not {}",
                types.len()
            );
        }
        let utf8_list = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
        types
            .iter()
            .enumerate()
            .map(|(i, t)| match (i, t) {
                (0 | 1 | 3, t) if is_text(t) => Ok(DataType::Utf8),
                (
                    0,
                    DataType::List(item)
                    | DataType::LargeList(item)
                    | DataType::FixedSizeList(item, _),
                ) if is_text(item.data_type()) => Ok(utf8_list.clone()),
                (2, DataType::Boolean | DataType::Null) => Ok(DataType::Boolean),
                (i, t) => plan_err!(
                    "{name}: argument {} ({}) must be {}, not {t}",
                    i + 1,
                    ["moves", "start_fen", "chess960", "fields"][i],
                    [
                        "a string (movetext) or a list of strings (move tokens)",
                        "a string (a FEN)",
                        "a Boolean",
                        "a string (field names)"
                    ][i]
                ),
            })
            .collect()
    }

    /// Checks a literal `start_fen` (with a literal `chess960`) by the rules games start by
    /// ([`start_position`]); `plies_of`'s item holds the fields `fields` names. Errors: a
    /// plan error naming the argument and the FEN field, or the `fields` that is wrong.
    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        if let Some(Some(
            ScalarValue::Utf8(Some(fen))
            | ScalarValue::Utf8View(Some(fen))
            | ScalarValue::LargeUtf8(Some(fen)),
        )) = args.scalar_arguments.get(1)
        {
            let chess960 = matches!(
                args.scalar_arguments.get(2),
                Some(Some(ScalarValue::Boolean(Some(true))))
            );
            let game = with_tags(empty_game(), Some(fen), chess960);
            if let Err(StartError::Fen(e)) = start_position(&game) {
                return plan_err!(
                    "{}: argument 2, the start FEN {}, is not a valid position: field {e}",
                    self.kind.name(),
                    shown(fen)
                );
            }
        }
        let data_type = match args.scalar_arguments.get(3) {
            None => self.kind.return_type(),
            Some(Some(
                ScalarValue::Utf8(Some(text))
                | ScalarValue::Utf8View(Some(text))
                | ScalarValue::LargeUtf8(Some(text)),
            )) => plies_of_fields_type(&parse_fields(text)?),
            Some(_) => {
                return plan_err!(
                    "plies_of: argument 4 (fields) must be a string literal naming the \
                     item's fields, as 'ply,san'"
                );
            }
        };
        Ok(Arc::new(Field::new(self.kind.name(), data_type, true)))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let name = self.kind.name();
        let internal = |i: usize| DataFusionError::Internal(format!("{name}: argument {}", i + 1));
        let array = |i: usize| -> Result<Option<ArrayRef>> {
            args.args.get(i).map(|a| a.to_array(rows)).transpose()
        };
        let moves = array(0)?.ok_or_else(|| internal(0))?;
        // the columns its values hold: plies_of's item fields are those of its return type
        let schema = match (self.kind, args.return_field.data_type()) {
            (Kind::PliesOf, DataType::List(item)) => match item.data_type() {
                DataType::Struct(fields) => Arc::new(Schema::new(fields.clone())),
                _ => return Err(internal(3)),
            },
            _ => self.kind.schema(),
        };
        let table = self.kind.table();
        let projection = schema
            .fields()
            .iter()
            .map(|f| table.index_of(f.name()))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let columns = (
            projection.as_slice(),
            &schema,
            args.return_field.data_type(),
        );
        let fens = array(1)?
            .map(|a| cast(&a, &DataType::Utf8))
            .transpose()?
            .map(|a| {
                a.as_any()
                    .downcast_ref::<StringArray>()
                    .cloned()
                    .ok_or_else(|| internal(1))
            })
            .transpose()?;
        let chess960 = array(2)?
            .map(|a| {
                a.as_any()
                    .downcast_ref::<BooleanArray>()
                    .cloned()
                    .ok_or_else(|| internal(2))
            })
            .transpose()?;
        // the batch's rows, longest games first, cut into parts of equal cost
        // (`with_engines`), each part on an engine of its own: the games read, validated
        // and written as the function's values in the part, then put back in row order
        let sorted = self.pool.parts(rows, MIN_PART) > 1;
        let plies: Vec<usize> = match sorted {
            true => (0..rows).map(|row| plies_in(&moves, row)).collect(),
            false => vec![],
        };
        let mut order: Vec<usize> = (0..rows).collect();
        if sorted {
            order.sort_by_key(|&row| std::cmp::Reverse(plies[row]));
        }
        let weight = (|&row: &usize| plies[row], STEP_PLIES);
        let parts = with_engines(&self.pool, &order, MIN_PART, weight, |part, engine, rt| {
            let slice = match part {
                [first, ..] if part.windows(2).all(|w| w[1] == w[0] + 1) => Arguments {
                    moves: moves.slice(*first, part.len()),
                    fens: fens.as_ref().map(|f| f.slice(*first, part.len())),
                    chess960: chess960.as_ref().map(|c| c.slice(*first, part.len())),
                },
                _ => {
                    let picked = UInt32Array::from_iter_values(part.iter().map(|&r| r as u32));
                    Arguments {
                        moves: take(&moves, &picked, None)?,
                        fens: (fens.as_ref().map(|f| take_rows(f, &picked))).transpose()?,
                        chess960: (chess960.as_ref().map(|c| take_rows(c, &picked))).transpose()?,
                    }
                }
            };
            self.values(&slice, columns, engine, rt)
                .map_err(crate::Error::from)
        })
        .map_err(|e| match e {
            crate::Error::DataFusion(e) => e,
            e => DataFusionError::External(Box::new(e)),
        })?;
        let out = match parts.as_slice() {
            [one] if !sorted => one.clone(),
            _ => {
                // each row's value from its part, back in row order
                let mut at = vec![(0, 0); rows];
                let mut dealt = order.iter();
                for (k, values) in parts.iter().enumerate() {
                    for (i, &row) in dealt.by_ref().take(values.len()).enumerate() {
                        at[row] = (k, i);
                    }
                }
                let arrays: Vec<&dyn Array> = parts.iter().map(|a| a.as_ref()).collect();
                interleave(&arrays, &at)?
            }
        };
        Ok(ColumnarValue::Array(out))
    }
}

impl MoveFunction {
    /// The function's values for these rows, their games validated on `engine`: the
    /// columns `projection` of its table (`schema`), of the type `return_type`.
    fn values(
        &self,
        args: &Arguments,
        (projection, schema, return_type): (&[usize], &SchemaRef, &DataType),
        engine: &Engine,
        rt: &tokio::runtime::Runtime,
    ) -> Result<ArrayRef> {
        let name = self.kind.name();
        let internal = |i: usize| DataFusionError::Internal(format!("{name}: argument {}", i + 1));
        // the games of the non-NULL rows, and each row's game; the comments kept only for
        // the fields read from them
        let plies = self.kind == Kind::PliesOf;
        let notes =
            plies && (schema.fields().iter()).any(|f| NOTE_FIELDS.contains(&f.name().as_str()));
        let read = read_games(&args.moves, notes).ok_or_else(|| internal(0))?;
        let mut games: Vec<(&str, RawGame)> = vec![];
        let mut game_of: Vec<Option<u32>> = Vec::with_capacity(args.moves.len());
        for (row, game) in read.into_iter().enumerate() {
            game_of.push(game.map(|game| {
                let fen = args
                    .fens
                    .as_ref()
                    .filter(|f| f.is_valid(row))
                    .map(|f| f.value(row));
                let chess960 = args
                    .chess960
                    .as_ref()
                    .is_some_and(|c| c.is_valid(row) && c.value(row));
                games.push(("", with_tags(game, fen, chess960)));
                u32::try_from(games.len() - 1).unwrap_or(u32::MAX)
            }));
        }
        let out = if games.is_empty() {
            new_null_array(return_type, game_of.len())
        } else {
            let options = ValidateOptions::with_plies(plies);
            let mut validation = rt
                .block_on(validate_games_with(engine, &games, options))
                .map_err(|e| DataFusionError::External(Box::new(e)))?;
            let per_game: ArrayRef = match self.kind {
                Kind::ValidateMoves => {
                    for r in &mut validation.reports {
                        r.error_message = r.error_detail().map(str::to_string);
                    }
                    let batch = games_batch(projection, schema, &games, Some(&validation), None)?;
                    Arc::new(StructArray::from(batch))
                }
                Kind::PliesOf => {
                    let mut batches = vec![];
                    let n = validation.ply_count().max(1);
                    plies_batches(&games, &validation, (projection, schema), n, |b| {
                        batches.push(b);
                        Ok(true)
                    })?;
                    let items = match batches.pop() {
                        Some(b) => StructArray::from(b),
                        None => StructArray::from(RecordBatch::new_empty(schema.clone())),
                    };
                    // one list per game: its plies; NULL when it could not be set up
                    let mut offsets = vec![0i32];
                    for r in &validation.reports {
                        let end = offsets[offsets.len() - 1] as usize + r.plies as usize;
                        offsets.push(i32::try_from(end).map_err(|_| {
                            DataFusionError::Execution(format!(
                                "{name}: over 2^31 plies in one batch"
                            ))
                        })?);
                    }
                    let valid = validation
                        .reports
                        .iter()
                        .map(|r| r.first_illegal_ply != Some(0));
                    let item = match return_type {
                        DataType::List(item) => item.clone(),
                        _ => return Err(internal(0)),
                    };
                    Arc::new(ListArray::try_new(
                        item,
                        OffsetBuffer::new(offsets.into()),
                        Arc::new(items),
                        Some(NullBuffer::from_iter(valid)),
                    )?)
                }
            };
            // each row its game's value: the values as they are when no row is NULL
            if game_of
                .iter()
                .enumerate()
                .all(|(row, g)| *g == Some(row as u32))
            {
                per_game
            } else {
                take(&per_game, &UInt32Array::from(game_of), None)?
            }
        };
        Ok(out)
    }
}

/// The arguments of a call, for some of its rows.
struct Arguments {
    moves: ArrayRef,
    fens: Option<StringArray>,
    chess960: Option<BooleanArray>,
}

/// Each row's game: `None` for a NULL row. `None` when `moves` is neither Utf8 nor a list
/// of Utf8 (the types [`MoveFunction::coerce_types`] casts to).
fn read_games(moves: &ArrayRef, notes: bool) -> Option<Vec<Option<RawGame>>> {
    if let Some(texts) = moves.as_any().downcast_ref::<StringArray>() {
        return Some(
            texts
                .iter()
                .map(|t| t.map(|t| read_movetext(t, notes)))
                .collect(),
        );
    }
    let lists = moves.as_any().downcast_ref::<ListArray>()?;
    (0..lists.len())
        .map(|row| {
            if lists.is_null(row) {
                return Some(None);
            }
            let items = lists.value(row);
            let tokens = items.as_any().downcast_ref::<StringArray>()?;
            Some(Some(RawGame {
                moves: tokens
                    .iter()
                    .map(|t| t.unwrap_or_default().to_string())
                    .collect(),
                ..empty_game()
            }))
        })
        .collect()
}

/// About how many plies the game of `row` has: the words of its movetext outside `{…}`
/// comments that begin with a letter (SAN and UCI moves begin with a file or a piece
/// letter, castling with `O`; move numbers, NAGs and results do not), or its move tokens
/// (a list); 0 for NULL.
fn plies_in(moves: &ArrayRef, row: usize) -> usize {
    if moves.is_null(row) {
        return 0;
    }
    if let Some(texts) = moves.as_any().downcast_ref::<StringArray>() {
        let (mut in_comment, mut previous, mut plies) = (false, b' ', 0);
        for b in texts.value(row).bytes() {
            in_comment = (in_comment || b == b'{') && b != b'}';
            if !in_comment
                && b.is_ascii_alphabetic()
                && (previous.is_ascii_whitespace() || previous == b'.')
            {
                plies += 1;
            }
            previous = b;
        }
        return plies;
    }
    moves
        .as_any()
        .downcast_ref::<ListArray>()
        .map_or(0, |l| l.value_length(row).unsigned_abs() as usize)
}

/// The rows `rows` of a column of arrays of type `A`. Errors: internal, when the rows
/// taken are not of that type.
fn take_rows<A: Array + Clone + 'static>(column: &A, rows: &UInt32Array) -> Result<A> {
    let taken = take(column, rows, None)?;
    (taken.as_any().downcast_ref::<A>().cloned())
        .ok_or_else(|| DataFusionError::Internal("take changed a column's type".into()))
}

/// A game with no tags and no moves.
fn empty_game() -> RawGame {
    read_movetext("", false)
}

/// `game` with the tags of the arguments: `FEN` from `start_fen`, `Variant "Chess960"` when
/// `chess960`, each replacing the text's; `Result` from the result marker when the text
/// has no `Result` tag.
fn with_tags(mut game: RawGame, start_fen: Option<&str>, chess960: bool) -> RawGame {
    let mut set = |name: &str, value: &str| {
        game.tags.retain(|(n, _)| n != name);
        game.tags.push((name.to_string(), value.to_string()));
    };
    if let Some(fen) = start_fen {
        set("FEN", fen);
    }
    if chess960 {
        set("Variant", "Chess960");
    }
    if game.tag("Result").is_none()
        && let Some(result) = game.result.clone()
    {
        game.tags.push(("Result".to_string(), result));
    }
    game
}
