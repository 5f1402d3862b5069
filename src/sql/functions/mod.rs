//! The chess scalar functions of the SQL layer, one [`ChessFunction`] per function name:
//!
//! | function | returns | NULL when |
//! |---|---|---|
//! | `fen_after(fen, move)` | Utf8: the FEN after the move (SAN, UCI or castling as python-chess `parse_san` reads them), python-chess style (en passant square only when an en passant capture is legal) | bad FEN, a move that is not exactly one legal move (illegal, ambiguous, unreadable, a null move), NULL input |
//! | `is_legal(fen, move)` | Boolean: the move stands for exactly one legal move | bad FEN, NULL input (an unreadable move is `false`) |
//! | `position_status(fen)` | Utf8: `checkmate`, `insufficient_material`, `stalemate`, `seventyfive_moves`, `fifty_moves`, `ongoing` (the `final_status` strings of `read_pgn`, for a position without history) | bad FEN |
//! | `position_key(fen)` | UInt64: the Polyglot Zobrist key ([`crate::chess::polyglot::polyglot_key`]) | FEN rules broken (see below) |
//! | `epd(fen)` | Utf8: the first four FEN fields (placement, side to move, castling, en passant square), python-chess `board.epd()`: the en passant square only when an en passant capture is legal (stage `position_status`) | bad FEN |
//! | `material(fen)` | Struct: `white_pawns`, `white_knights`, `white_bishops`, `white_rooks`, `white_queens`, `white_kings`, `black_pawns` … `black_kings` (UInt8), `signature` (Utf8, e.g. `KRPPvKR`: white's then black's pieces, K Q R B N P) | FEN rules broken |
//! | `fen_error(fen)` | Utf8: why the FEN is bad, `field: message` (e.g. `castling: …`, `position: …`) | a good FEN, NULL input |
//! | `legal_moves_list(fen)` | List<Struct> of the legal moves, columns of [`crate::Engine::legal_moves`] without `position_id` ([`legal_move_fields`]), ordered by `uci`; `unnest` it for one row per move | bad FEN |
//! | `attacks(fen)` | List<Struct>: `attacker_square`, `attacker`, `attacked_square`, `attacked` (Utf8: square names, FEN piece letters): every square every piece of both sides attacks (python-chess `board.attacks`), stage `piece_attacks` ([`relations`]) | FEN rules broken |
//! | `pins(fen)` | List<Struct>: `pinned_square`, `pinned`, `pinner_square`, `pinner`, `king_square` (Utf8): the absolutely pinned pieces of both sides (FIDE art. 3.9), stage `pins` | FEN rules broken |
//! | `checkers(fen)` | List<Struct>: `square`, `piece` (Utf8): the pieces checking the side to move, stage `checkers` | FEN rules broken |
//! | `hanging(fen)` | List<Struct>: `square`, `piece` (Utf8), `attackers` (UInt8): pieces but kings attacked by the other side and defended by none, stage `hanging` | FEN rules broken |
//! | `matches_subfen(fen, pattern [, side])` | Boolean: the position holds every piece of the board pattern (or of any pattern of a list), with the side to move if given, stage `subfen_matches` ([`search`]) | FEN rules broken, a NULL or bad pattern, a bad side |
//! | `imbalance(fen)` | Utf8: Scoutfish's material imbalance (`PPvN`), stages `material_counts`, `imbalances` | FEN rules broken |
//! | `material_matches(fen, pattern)` | Boolean: the material fits pgn-extract's material description either way round (`-z`), stages `material_counts`, `material_matches` | FEN rules broken, a NULL or bad pattern |
//! | `opening(fen)` | Utf8: the name of the named opening ([`crate::sql::openings`], the `openings` table) whose position is exactly this one, compared as EPDs (`epd(fen)`'s rules: the en passant square only when an en passant capture is legal; the clocks are not compared) | bad FEN, a position no opening names |
//! | `board_svg(fen [, options])` | Utf8: an SVG board diagram ([`crate::picture::board`]; options as `'flip lastmove=e2e4 arrows=Ge2e4,Gd4 size=300 coordinates=no'`), a check marker from stage `checkers` ([`board`]) | FEN rules broken (bad options: an error naming the row) |
//! | `plies_of(moves [, start_fen [, chess960]])` | List<Struct> of a game's legal plies (`read_plies`' `ply`, `san`, `uci`, `fen_after`, `position_key`, `is_capture`, `is_check`, `is_checkmate`, `clock_s`, `eval_cp`, `eval_mate`) from its movetext or move list ([`crate::sql::MoveFunction`], `src/sql/move_functions.rs`) | NULL moves, a game that cannot be set up |
//! | `validate_moves(moves [, start_fen [, chess960]])` | Struct of `read_pgn`'s rules columns (`plies` … `result_consistent`) of the game ([`crate::sql::MoveFunction`]) | NULL moves |
//!
//! A bad FEN is one [`fen_error`](Kind::FenError) reports: one that breaks the FEN rules
//! ([`Setup::from_fen`]: syntax, kings, pawns, castling rights, en passant square) or
//! describes a position no game reaches (the attack rules of stage `setup_checks`,
//! [`crate::Engine::check_setups`]). `position_key`, `material` and the position queries
//! (`attacks` … `material_matches`) read the board only and check only the FEN rules; a
//! bad pattern or side given as a literal is a planning error naming the argument. A bad
//! FEN in a column gives NULL for its row and never fails the query; a bad FEN given as a
//! literal (`position_status('…')`) is a planning error naming the argument and the FEN
//! field.
//!
//! Columnar: each call gets a whole batch; its distinct FENs (or FEN and move pairs) go
//! through the pipeline's stages together, once per batch, on an engine of the pool (see
//! [`super::engines`] for how the synchronous call reaches the asynchronous pipeline).
//! Arguments may be Utf8, Utf8View or LargeUtf8.

mod board;
mod moves;
mod position;
mod relations;
mod search;

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use datafusion::arrow::array::{Array, ArrayRef, ListArray, StringArray, UInt32Array};
use datafusion::arrow::buffer::{NullBuffer, OffsetBuffer};
use datafusion::arrow::compute::{cast, take};
use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{DataFusionError, Result, ScalarValue, plan_err};
use datafusion::logical_expr::{
    ColumnarValue, ReturnFieldArgs, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature,
    Volatility,
};

use super::engines::{EnginePool, with_engine};
use super::openings;
use crate::chess::fen::FenError;
use crate::chess::setup::Setup;
use crate::engine::Engine;
use crate::stages::rows::{PositionStatus, read_status};
use crate::stages::{LEGAL, Stage};

pub(crate) use moves::{legal_move_fields, legal_moves_of};
pub(crate) use position::{MATERIAL_ROLES, material_counts_of};

/// Which chess function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    FenAfter,
    IsLegal,
    PositionStatus,
    PositionKey,
    Epd,
    Material,
    FenError,
    LegalMovesList,
    Attacks,
    Pins,
    Checkers,
    Hanging,
    MatchesSubfen,
    Imbalance,
    MaterialMatches,
    BoardSvg,
    Opening,
}

impl Kind {
    const ALL: [Kind; 17] = [
        Kind::FenAfter,
        Kind::IsLegal,
        Kind::PositionStatus,
        Kind::PositionKey,
        Kind::Epd,
        Kind::Material,
        Kind::FenError,
        Kind::LegalMovesList,
        Kind::Attacks,
        Kind::Pins,
        Kind::Checkers,
        Kind::Hanging,
        Kind::MatchesSubfen,
        Kind::Imbalance,
        Kind::MaterialMatches,
        Kind::BoardSvg,
        Kind::Opening,
    ];

    fn name(self) -> &'static str {
        match self {
            Kind::FenAfter => "fen_after",
            Kind::IsLegal => "is_legal",
            Kind::PositionStatus => "position_status",
            Kind::PositionKey => "position_key",
            Kind::Epd => "epd",
            Kind::Material => "material",
            Kind::FenError => "fen_error",
            Kind::LegalMovesList => "legal_moves_list",
            Kind::Attacks => "attacks",
            Kind::Pins => "pins",
            Kind::Checkers => "checkers",
            Kind::Hanging => "hanging",
            Kind::MatchesSubfen => "matches_subfen",
            Kind::Imbalance => "imbalance",
            Kind::MaterialMatches => "material_matches",
            Kind::BoardSvg => "board_svg",
            Kind::Opening => "opening",
        }
    }

    /// Its arguments as the docs write them, for error messages (`fen, move`).
    fn arguments(self) -> &'static str {
        match self {
            Kind::FenAfter | Kind::IsLegal => "fen, move",
            Kind::MatchesSubfen => "fen, pattern [, side]",
            Kind::MaterialMatches => "fen, pattern",
            Kind::BoardSvg => "fen [, options]",
            _ => "fen",
        }
    }

    /// The argument types it takes: strings (Utf8, Utf8View, LargeUtf8), except the pattern
    /// of `matches_subfen` and `material_matches`, which may be a list of strings
    /// ([`ChessFunction::pattern_argument_types`]).
    fn signature(self) -> Signature {
        match self {
            Kind::FenAfter | Kind::IsLegal => Signature::string(2, Volatility::Immutable),
            // a string or a list of strings: checked and cast by `coerce_types`
            Kind::MatchesSubfen | Kind::MaterialMatches => {
                Signature::user_defined(Volatility::Immutable)
            }
            // one or two strings: checked and cast by `coerce_types`
            Kind::BoardSvg => Signature::user_defined(Volatility::Immutable),
            _ => Signature::string(1, Volatility::Immutable),
        }
    }

    /// The relation a list function returns.
    fn relation(self) -> Option<&'static relations::Relation> {
        match self {
            Kind::Attacks => Some(&relations::ATTACKS),
            Kind::Pins => Some(&relations::PINS),
            Kind::Checkers => Some(&relations::CHECKERS),
            Kind::Hanging => Some(&relations::HANGING),
            _ => None,
        }
    }

    fn return_type(self) -> DataType {
        match self {
            Kind::FenAfter
            | Kind::PositionStatus
            | Kind::Epd
            | Kind::FenError
            | Kind::Imbalance
            | Kind::BoardSvg
            | Kind::Opening => DataType::Utf8,
            Kind::IsLegal | Kind::MatchesSubfen | Kind::MaterialMatches => DataType::Boolean,
            Kind::Attacks => relations::ATTACKS.list_type(),
            Kind::Pins => relations::PINS.list_type(),
            Kind::Checkers => relations::CHECKERS.list_type(),
            Kind::Hanging => relations::HANGING.list_type(),
            Kind::PositionKey => DataType::UInt64,
            Kind::Material => position::material_type(),
            Kind::LegalMovesList => moves::legal_moves_list_type(),
        }
    }
}

/// One chess scalar function (see the module docs for each).
#[derive(Debug)]
pub struct ChessFunction {
    kind: Kind,
    signature: Signature,
    pool: Arc<EnginePool>,
    /// Literal FENs already checked at planning: the error message, if bad.
    literals: Arc<Mutex<HashMap<String, Option<String>>>>,
    /// Patterns of `matches_subfen` and `material_matches`, parsed once per text.
    patterns: Arc<search::Patterns>,
}

impl PartialEq for ChessFunction {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

impl Eq for ChessFunction {}

impl Hash for ChessFunction {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.kind.hash(state);
    }
}

/// Every chess scalar function, sharing `pool`.
pub(crate) fn all(pool: &Arc<EnginePool>) -> Vec<ScalarUDF> {
    let literals = Arc::new(Mutex::new(HashMap::new()));
    let patterns = Arc::new(search::Patterns::default());
    Kind::ALL
        .iter()
        .map(|&kind| {
            ScalarUDF::new_from_impl(ChessFunction {
                kind,
                signature: kind.signature(),
                pool: pool.clone(),
                literals: literals.clone(),
                patterns: patterns.clone(),
            })
        })
        .collect()
}

/// A crate error as a DataFusion error.
fn df(e: crate::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

impl ChessFunction {
    /// Checks a literal FEN argument (first argument) at planning: the FEN rules and the
    /// attack rules. Results are remembered per text.
    fn check_literal(&self, fen: &str) -> Result<()> {
        let known = self.literals.lock().ok().and_then(|m| m.get(fen).cloned());
        let verdict = match known {
            Some(v) => v,
            None => {
                let v = with_engine(&self.pool, |engine, rt| {
                    rt.block_on(check_fens(engine, &[fen]))
                })
                .map_err(df)?
                .pop()
                .and_then(|r| r.err())
                .map(|e| e.to_string());
                if let Ok(mut m) = self.literals.lock() {
                    if m.len() > 1024 {
                        m.clear();
                    }
                    m.insert(fen.to_string(), v.clone());
                }
                v
            }
        };
        match verdict {
            Some(e) => plan_err!(
                "{}({}): argument 1, the FEN {}, is not a valid position: field {e}",
                self.kind.name(),
                self.kind.arguments(),
                shown(fen)
            ),
            None => Ok(()),
        }
    }
}

impl ScalarUDFImpl for ChessFunction {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(self.kind.return_type())
    }

    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        if self.kind == Kind::BoardSvg {
            return board_svg_argument_types(arg_types);
        }
        self.pattern_argument_types(arg_types)
    }

    fn return_field_from_args(&self, args: ReturnFieldArgs) -> Result<FieldRef> {
        if !matches!(self.kind, Kind::FenError | Kind::BoardSvg)
            && let Some(Some(
                ScalarValue::Utf8(Some(fen))
                | ScalarValue::Utf8View(Some(fen))
                | ScalarValue::LargeUtf8(Some(fen)),
            )) = args.scalar_arguments.first()
        {
            self.check_literal(fen)?;
        }
        if matches!(self.kind, Kind::MatchesSubfen | Kind::MaterialMatches) {
            self.check_pattern_arguments(&args)?;
        }
        if self.kind == Kind::BoardSvg {
            board::check_literals(&args)?;
        }
        Ok(Arc::new(Field::new(
            self.kind.name(),
            self.kind.return_type(),
            true,
        )))
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        // each argument as one string per row; the pattern of `matches_subfen` and
        // `material_matches` stays as given (a literal is not copied once per row)
        let text = |i: usize| -> Result<StringArray> {
            args.args
                .get(i)
                .map(|a| a.to_array(rows))
                .transpose()?
                .map(|a| cast(&a, &DataType::Utf8))
                .transpose()?
                .and_then(|a| a.as_any().downcast_ref::<StringArray>().cloned())
                .ok_or_else(|| {
                    DataFusionError::Internal(format!("{}: argument {}", self.kind.name(), i + 1))
                })
        };
        let fens = text(0)?;
        let fens = &fens;
        let out: ArrayRef = match self.kind {
            Kind::PositionKey => position::position_keys(fens),
            Kind::Material => position::materials(fens)?,
            Kind::Opening => {
                // the named openings first (replayed on first use on an engine of the pool)
                let book = openings::book(&self.pool).map_err(df)?;
                let epds = with_engine(&self.pool, |engine, rt| {
                    rt.block_on(position::epds(engine, fens))
                })
                .map_err(df)?;
                position::openings_of(&book, &epds)
            }
            kind => {
                let second = match kind {
                    Kind::FenAfter | Kind::IsLegal => Some(text(1)?),
                    Kind::BoardSvg if args.args.len() > 1 => Some(text(1)?),
                    _ => None,
                };
                let side = if args.args.len() > 2 {
                    Some(text(2)?)
                } else {
                    None
                };
                let pattern = args.args.get(1).cloned();
                let patterns = &self.patterns;
                with_engine(&self.pool, |engine, rt| {
                    rt.block_on(async {
                        if let Some(relation) = kind.relation() {
                            return relation.lists(engine, fens).await;
                        }
                        match (kind, &second, &pattern) {
                            (Kind::BoardSvg, options, _) => {
                                return board::board_svgs(engine, fens, options.as_ref()).await;
                            }
                            (Kind::FenAfter, Some(m), _) => moves::fen_after(engine, fens, m).await,
                            (Kind::IsLegal, Some(m), _) => moves::is_legal(engine, fens, m).await,
                            (Kind::PositionStatus, _, _) => position::statuses(engine, fens).await,
                            (Kind::Epd, _, _) => position::epds(engine, fens).await,
                            (Kind::FenError, _, _) => position::fen_errors(engine, fens).await,
                            (Kind::Imbalance, _, _) => search::imbalances(engine, fens).await,
                            (Kind::MatchesSubfen, _, Some(p)) => {
                                search::matches_subfen(engine, patterns, fens, p, side.as_ref())
                                    .await
                            }
                            (Kind::MaterialMatches, _, Some(p)) => {
                                search::material_matches(engine, patterns, fens, p).await
                            }
                            _ => moves::legal_moves_lists(engine, fens).await,
                        }
                    })
                })
                .map_err(df)?
            }
        };
        Ok(ColumnarValue::Array(out))
    }
}

impl ChessFunction {
    /// The argument types of `matches_subfen` (`fen, pattern [, side]`) and
    /// `material_matches` (`fen, pattern`), to which DataFusion casts the arguments: Utf8 for
    /// a string (any string type, a dictionary of strings, NULL), `List(Utf8)` for a list of
    /// strings (List, LargeList, FixedSizeList). Errors: a plan error naming the function and
    /// the argument (count or type).
    fn pattern_argument_types(&self, types: &[DataType]) -> Result<Vec<DataType>> {
        let name = self.kind.name();
        let (usage, max) = match self.kind {
            Kind::MatchesSubfen => ("matches_subfen(fen, pattern [, side])", 3),
            _ => ("material_matches(fen, pattern)", 2),
        };
        if types.len() < 2 || types.len() > max {
            return plan_err!(
                "{usage} takes {}, not {}",
                if max == 3 {
                    "2 or 3 arguments"
                } else {
                    "2 arguments"
                },
                types.len()
            );
        }
        let utf8_list = DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)));
        types
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let what = ["fen", "pattern", "side"][i];
                match t {
                    t if is_text(t) => Ok(DataType::Utf8),
                    DataType::List(item)
                    | DataType::LargeList(item)
                    | DataType::FixedSizeList(item, _)
                        if i == 1 && is_text(item.data_type()) =>
                    {
                        Ok(utf8_list.clone())
                    }
                    t => plan_err!(
                        "{name}: argument {} ({what}) must be a string{}, not {t}",
                        i + 1,
                        if i == 1 { " or a list of strings" } else { "" }
                    ),
                }
            })
            .collect()
    }

    /// Checks the literal pattern (argument 2) and side (argument 3) of `matches_subfen` and
    /// `material_matches` when planned: a pattern must parse (each item of a list) and a side
    /// be `w` or `b`. Errors name the function, the argument, the list item and what is wrong.
    fn check_pattern_arguments(&self, args: &ReturnFieldArgs) -> Result<()> {
        let name = self.kind.name();
        if let Some(Some(pattern)) = args.scalar_arguments.get(1) {
            let is_list = !matches!(
                pattern,
                ScalarValue::Utf8(_) | ScalarValue::Utf8View(_) | ScalarValue::LargeUtf8(_)
            );
            for (i, text) in literal_texts(pattern).iter().enumerate() {
                let parsed = match self.kind {
                    Kind::MatchesSubfen => self.patterns.subfen(text).map(|_| ()),
                    _ => self.patterns.material(text).map(|_| ()),
                };
                if let Err(e) = parsed {
                    let item = if is_list {
                        format!(", item {} of the list", i + 1)
                    } else {
                        String::new()
                    };
                    return plan_err!("{name}: argument 2{item}, the pattern {}: {e}", shown(text));
                }
            }
        }
        if let Some(Some(side)) = args.scalar_arguments.get(2)
            && let Some(text) = literal_texts(side).pop()
            && search::side_argument(&text).is_none()
        {
            return plan_err!(
                "{name}: argument 3, the side to move {}: not 'w' or 'b'",
                shown(&text)
            );
        }
        Ok(())
    }
}

/// The argument types of `board_svg(fen [, options])`, to which DataFusion casts the
/// arguments: Utf8 for each (any string type, a dictionary of strings, NULL). Errors: a
/// plan error naming the function and the argument (count or type).
fn board_svg_argument_types(types: &[DataType]) -> Result<Vec<DataType>> {
    if types.is_empty() || types.len() > 2 {
        return plan_err!(
            "board_svg(fen [, options]) takes 1 or 2 arguments, not {}",
            types.len()
        );
    }
    types
        .iter()
        .enumerate()
        .map(|(i, t)| {
            if is_text(t) {
                Ok(DataType::Utf8)
            } else {
                plan_err!(
                    "board_svg: argument {} ({}) must be a string, not {t}",
                    i + 1,
                    ["fen", "options"][i]
                )
            }
        })
        .collect()
}

/// A text as an error message quotes it ([`crate::error::quoted`]).
pub(crate) use crate::error::quoted as shown;

/// Whether a type is a string type.
pub(crate) fn is_text(t: &DataType) -> bool {
    match t {
        DataType::Utf8 | DataType::Utf8View | DataType::LargeUtf8 | DataType::Null => true,
        DataType::Dictionary(_, value) => is_text(value),
        _ => false,
    }
}

/// The non-NULL strings of a literal: a string, or the items of a list of strings.
fn literal_texts(v: &ScalarValue) -> Vec<String> {
    match v {
        ScalarValue::Utf8(Some(t))
        | ScalarValue::Utf8View(Some(t))
        | ScalarValue::LargeUtf8(Some(t)) => {
            vec![t.clone()]
        }
        ScalarValue::List(list) => list
            .iter()
            .flatten()
            .flat_map(|items| {
                (0..items.len())
                    .filter_map(|i| ScalarValue::try_from_array(&items, i).ok())
                    .flat_map(|v| literal_texts(&v))
                    .collect::<Vec<_>>()
            })
            .collect(),
        _ => vec![],
    }
}

/// A list column of `values`' rows: per row the indices of its items in `values`, or `None`
/// for a NULL list; `values` itself when the lists take each of its rows once, in order.
/// Errors: a batch of lists over 2^31 items in all.
fn list_column<I: IntoIterator<Item = u32>>(
    values: &dyn Array,
    item: DataType,
    rows: impl IntoIterator<Item = Option<I>>,
) -> crate::Result<ArrayRef> {
    let mut indices: Vec<u32> = vec![];
    let mut offsets: Vec<i32> = vec![0];
    let mut valid: Vec<bool> = vec![];
    for row in rows {
        valid.push(row.is_some());
        indices.extend(row.into_iter().flatten());
        offsets.push(i32::try_from(indices.len()).map_err(|_| {
            crate::Error::Usage("over 2^31 list items in one batch of a chess function".into())
        })?);
    }
    let in_order =
        indices.len() == values.len() && indices.iter().enumerate().all(|(i, &x)| x as usize == i);
    let items = if in_order {
        datafusion::arrow::array::make_array(values.to_data())
    } else {
        take(values, &UInt32Array::from(indices), None)?
    };
    Ok(Arc::new(ListArray::try_new(
        Arc::new(Field::new("item", item, true)),
        OffsetBuffer::new(offsets.into()),
        items,
        Some(NullBuffer::from(valid)),
    )?))
}

/// Each row's position, when its FEN keeps the FEN rules ([`Setup::from_fen`]).
fn parsed(fens: &StringArray) -> Vec<Option<Setup>> {
    fens.iter()
        .map(|f| f.and_then(|f| Setup::from_fen_auto(f).ok()))
        .collect()
}

/// The distinct non-NULL values of a string column: per row the index of its value in the
/// distinct list (NULL rows: `None`), and the distinct values.
fn distinct(values: &StringArray) -> (Vec<Option<usize>>, Vec<&str>) {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut unique = vec![];
    let rows = values
        .iter()
        .map(|v| {
            v.map(|s| {
                *index.entry(s).or_insert_with(|| {
                    unique.push(s);
                    unique.len() - 1
                })
            })
        })
        .collect();
    (rows, unique)
}

/// The good positions among those of the distinct FENs (`None`: a bad FEN), in order, and
/// per distinct FEN its index among the good ones: the positions a stage runs on and how
/// each row finds its own.
fn good_positions(
    setups: impl IntoIterator<Item = Option<Setup>>,
) -> (Vec<Option<usize>>, Vec<Setup>) {
    let mut good = vec![];
    let rank = setups
        .into_iter()
        .map(|s| {
            s.map(|s| {
                good.push(s);
                good.len() - 1
            })
        })
        .collect();
    (rank, good)
}

/// FENs checked by the FEN rules ([`Setup::from_fen`]) and the attack rules
/// ([`Engine::check_setups`], stage `setup_checks`); the positions of the good ones stay
/// loaded in the engine (with the legal-move stages run) when any is good.
pub(crate) async fn check_fens(
    engine: &Engine,
    fens: &[&str],
) -> crate::Result<Vec<std::result::Result<Setup, FenError>>> {
    let mut out: Vec<std::result::Result<Setup, FenError>> =
        fens.iter().map(|f| Setup::from_fen_auto(f)).collect();
    let good: Vec<(usize, Setup)> = out
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.as_ref().ok().map(|s| (i, *s)))
        .collect();
    if good.is_empty() {
        return Ok(out);
    }
    let setups: Vec<Setup> = good.iter().map(|(_, s)| *s).collect();
    for ((i, _), verdict) in good.iter().zip(engine.check_setups(&setups).await?) {
        if let Some(e) = verdict {
            out[*i] = Err(e);
        }
    }
    Ok(out)
}

/// What stage `position_status` says of the positions now loaded (the legal-move stages
/// run), by position id.
async fn loaded_statuses(engine: &Engine) -> crate::Result<HashMap<u64, PositionStatus>> {
    let p = engine.pipeline();
    p.run(Stage::PositionKeys).await?;
    read_status(&p.run(Stage::PositionStatus).await?)
}

/// [`loaded_statuses`] of `setups` (position id = index).
async fn statuses_of(
    engine: &Engine,
    setups: &[Setup],
) -> crate::Result<HashMap<u64, PositionStatus>> {
    if setups.is_empty() {
        return Ok(HashMap::new());
    }
    engine.load(setups).await?;
    engine.pipeline().run_all(LEGAL).await?;
    loaded_statuses(engine).await
}
