//! The columns of `read_plies`, one row per legal main-line ply of every game: its schema
//! ([`read_plies_schema`]) and the record batches of a chunk of games, from the plies of
//! [`crate::validate::validate_games_with`] (`ValidateOptions::with_plies(true)`, the path
//! `sqlchess validate --plies` takes). This module adds the columns the validation's
//! [`PlyRow`] does not carry: the FEN after the move, the piece, squares and
//! captured piece (read from the positions around the move and its UCI), mate, the comment
//! commands (`[%clk]`, `[%eval]`, `[%cal]`, `[%csl]`: [`crate::pgn::commands`]) and what
//! follows from them with the plies around (the time spent on the move, with the
//! `TimeControl` tag: [`crate::pgn::time_control`]; the winning chances and lichess's
//! judgement of the move), NAGs, the material after the move and its Polyglot key.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, ListBuilder, RecordBatch, RecordBatchOptions,
    StringArray, StringBuilder, UInt8Array, UInt8Builder, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use super::functions::{MATERIAL_ROLES, material_counts_of};
use crate::chess::bitboards::Bitboards;
use crate::chess::color::Color;
use crate::chess::mark::Mark;
use crate::chess::polyglot::polyglot_key_of;
use crate::chess::role::Role;
use crate::chess::setup::Setup;
use crate::chess::square::parse_square;
use crate::io::report::plies_schema;
use crate::pgn::commands::{Eval, clock_seconds, eval, mark_commands};
use crate::pgn::time_control::parse_time_control;
use crate::pgn::{PlyNotes, RawGame};
use crate::validate::{PlyRow, Validation};

/// The Arrow schema of `read_plies(path)`, one row per legal main-line ply, in game order:
///
/// | column | type | |
/// |---|---|---|
/// | `file` | Utf8 | as `read_pgn` |
/// | `game_index` | UInt64 | as `read_pgn` (0-based in the file) |
/// | `ply` | UInt32 | 1-based |
/// | `color` | Utf8 | the mover: `white` or `black` (from the position, so right for games from a `FEN` tag with Black to move) |
/// | `move_number` | UInt32 | the fullmove number of the ply, as a PGN writes it (`12.` White's, `12...` Black's move 12) |
/// | `fen_before`, `fen_after` | Utf8 | the FEN before and after the move, python-chess style (en passant square only when an en passant capture is legal) |
/// | `uci`, `san` | Utf8 | as `validate --plies` writes them (`e7e8q`, castling `e1g1`; SAN with `+`/`#`; a null move `0000`, `--`) |
/// | `piece` | Utf8, nullable | the moving piece (NULL for a null move) |
/// | `from_square`, `to_square` | Utf8, nullable | `e2`, `e4` (the king's squares for castling) |
/// | `captured` | Utf8, nullable | the captured piece (`P` for en passant), NULL when none |
/// | `promotion` | Utf8, nullable | the piece promoted to |
/// | `is_capture`, `is_check`, `is_checkmate`, `is_castling`, `is_en_passant` | Boolean | |
/// | `clock_s` | Float64, nullable | seconds on the mover's clock from `[%clk h:mm:ss(.f)]` in the comment after the move |
/// | `eval_cp`, `eval_mate` | Int32, nullable | `[%eval 0.17]` as centipawns, `[%eval #-3]` as moves to mate, White's point of view |
/// | `comment` | Utf8, nullable | the comments after the move, commands included, as python-chess 1.11 `node.comment` joins them (each without the one space after `{` and before `}`, the non-empty ones joined by a space) |
/// | `nags` | List(UInt8) | NAGs after the move (`$n`) and its suffix glyphs as NAGs (`!` 1, `?` 2, `!!` 3, `??` 4, `!?` 5, `?!` 6) |
/// | `move_time_s` | Float64, nullable | seconds the mover spent on the move: their previous `clock_s` (two plies before, same game; for their first move, ply 1 or 2, the base time of the `TimeControl` tag) − this `clock_s` + the increment of `TimeControl` ([`crate::pgn::time_control`]: `180+2`, `600`, `10+0.05`), rounded to the millisecond; NULL when either clock is missing or the tag gives no time control (absent, `-`, `?`, `40/7200:3600`) |
/// | `winning_chances` | Float64, nullable | White's winning chances after the move, −1 … +1, from this ply's eval as lichess computes them: 2 / (1 + e^(−0.00368208 · cp)) − 1 with cp clamped to ±1000; a mate score +1 (White mates, `#3`) or −1 (`#-3`); `#0` (the mover has mated) +1 after White's move, −1 after Black's, as python-chess reads it; NULL without an eval |
/// | `judgement` | Utf8, nullable | lichess's judgement of the move: `inaccuracy`, `mistake`, `blunder` when the mover's winning chances drop by ≥ 0.1, ≥ 0.2, ≥ 0.3 from the previous ply's `winning_chances` (same game) to this ply's; NULL for a smaller drop, on ply 1 and when either eval is missing |
/// | `arrows` | List(Utf8) | the arrows and circled squares of the comment's `[%cal Ge2e4,Rd8d1]` and `[%csl Gd4]` commands in the order written, each as its token ([`Mark`]: `Ge2e4`, `Gd4`; tokens that are not marks left out); empty list when none |
/// | `white_pawns`, `white_knights`, `white_bishops`, `white_rooks`, `white_queens`, `black_pawns` … `black_queens` | UInt8 | material after the move |
/// | `position_key` | UInt64 | Polyglot Zobrist key of the position after the move ([`polyglot_key`](crate::chess::polyglot::polyglot_key)) |
///
/// Letter case: `piece`, `captured` and `promotion` are the upper-case letters SAN writes
/// (`K`, `Q`, `R`, `B`, `N`, `P`) whatever the piece's colour; the colour is the mover's
/// (`color`) for `piece` and `promotion`, the other side's for `captured`. `legal_moves`
/// and `validate --plies` follow the same rule.
///
/// Games that cannot be set up have no rows; a game with an illegal move has the rows of
/// its plies before it (its error is in `read_pgn`'s `error_kind`).
#[must_use]
pub fn read_plies_schema() -> SchemaRef {
    use DataType::*;
    let f = |n: &str, t: DataType, null: bool| Field::new(n, t, null);
    // the columns of `validate --plies` (their one definition), with read_plies' own between
    let core = plies_schema();
    let shared = |from: usize, to: usize| -> Vec<Field> {
        let fields = core.fields().get(from..to).unwrap_or_default();
        fields.iter().map(|f| f.as_ref().clone()).collect()
    };
    let mut fields = vec![f("file", Utf8, false)];
    fields.extend(shared(0, 5)); // game_index, ply, color, move_number, fen_before
    fields.push(f("fen_after", Utf8, true));
    fields.extend(shared(5, 7)); // uci, san
    fields.extend([
        f("piece", Utf8, true),
        f("from_square", Utf8, true),
        f("to_square", Utf8, true),
        f("captured", Utf8, true),
    ]);
    fields.extend(shared(7, 10)); // promotion, is_capture, is_check
    fields.push(f("is_checkmate", Boolean, false));
    fields.extend(shared(10, 12)); // is_castling, is_en_passant
    fields.extend([
        f("clock_s", Float64, true),
        f("eval_cp", Int32, true),
        f("eval_mate", Int32, true),
        f("comment", Utf8, true),
        f(
            "nags",
            List(Arc::new(Field::new("item", UInt8, true))),
            false,
        ),
        f("move_time_s", Float64, true),
        f("winning_chances", Float64, true),
        f("judgement", Utf8, true),
        f(
            "arrows",
            List(Arc::new(Field::new("item", Utf8, true))),
            false,
        ),
    ]);
    for (name, _, _) in material_columns() {
        fields.push(f(&name, UInt8, false));
    }
    fields.push(f("position_key", UInt64, false));
    Arc::new(Schema::new(fields))
}

/// The material columns of [`read_plies_schema`], `white_pawns` … `black_queens`: (name,
/// color: 0 white 1 black, index in [`MATERIAL_ROLES`]), in schema order.
fn material_columns() -> impl Iterator<Item = (String, usize, usize)> {
    ["white", "black"]
        .into_iter()
        .enumerate()
        .flat_map(|(color, color_name)| {
            MATERIAL_ROLES
                .iter()
                .enumerate()
                .filter(|(_, (role, _))| *role != Role::King)
                .map(move |(r, (_, name))| (format!("{color_name}_{name}"), color, r))
        })
}

/// The columns of [`read_plies_schema`] made from a move's notation (its UCI, SAN and
/// flags); the others need only the positions
/// ([`crate::validate::ValidateOptions::positions_only`]).
const NOTATION_COLUMNS: [&str; 12] = [
    "uci",
    "san",
    "piece",
    "from_square",
    "to_square",
    "captured",
    "promotion",
    "is_capture",
    "is_check",
    "is_checkmate",
    "is_castling",
    "is_en_passant",
];

/// The columns of [`read_plies_schema`] made from the comments after the moves; `nags` from
/// their NAGs.
const COMMENT_COLUMNS: [&str; 8] = [
    "clock_s",
    "eval_cp",
    "eval_mate",
    "comment",
    "move_time_s",
    "winning_chances",
    "judgement",
    "arrows",
];

/// Whether these columns of [`read_plies_schema`] (indices) read the moves' notation.
pub(crate) fn needs_notation(projection: &[usize]) -> bool {
    projects_any(projection, &NOTATION_COLUMNS)
}

/// Whether these columns of [`read_plies_schema`] (indices) read the comments or NAGs after
/// the moves ([`crate::pgn::PgnReader::with_notes`]).
pub(crate) fn needs_notes(projection: &[usize]) -> bool {
    projects_any(projection, &COMMENT_COLUMNS) || projects_any(projection, &["nags"])
}

/// Whether these columns of [`read_plies_schema`] (indices) include one of `names`.
fn projects_any(projection: &[usize], names: &[&str]) -> bool {
    let all = read_plies_schema();
    projection.iter().any(|&i| {
        all.fields()
            .get(i)
            .is_some_and(|f| names.contains(&f.name().as_str()))
    })
}

/// What one ply row adds to its [`PlyRow`].
struct Derived<'a> {
    piece: Option<char>,
    from: Option<&'a str>,
    to: Option<&'a str>,
    captured: Option<char>,
    material: [[u8; 6]; 2],
    key: u64,
}

/// The rows of [`read_plies_schema`], its columns `projection` (indices; `schema` is the
/// projected schema), for the plies of a chunk of games (each with its file), validated
/// with plies, as batches of at most `rows` rows, each handed to `emit` as soon as it is
/// built (so a chunk's batches are not all held at once); stops when `emit` returns `false`
/// and returns `false` then. The plies come game by game, as many per game as its report's
/// `plies`. Only the projected columns are built (`count(*)` reads no position).
///
/// Errors: [`DataFusionError::Internal`](datafusion::common::DataFusionError) when the
/// plies do not match the reports; those of `emit`.
pub(crate) fn plies_batches(
    games: &[(&str, RawGame)],
    validation: &Validation,
    (projection, schema): (&[usize], &SchemaRef),
    rows: usize,
    mut emit: impl FnMut(RecordBatch) -> datafusion::common::Result<bool>,
) -> datafusion::common::Result<bool> {
    // the game (index into `games`) of each ply row
    let owner: Vec<usize> = validation
        .reports
        .iter()
        .enumerate()
        .flat_map(|(g, r)| std::iter::repeat_n(g, r.plies as usize))
        .collect();
    // every ply row, by game then ply
    let all: Vec<&PlyRow> = validation.all_plies().collect();
    let n = all.len();
    if owner.len() != n || validation.reports.len() != games.len() {
        return Err(datafusion::common::DataFusionError::Internal(format!(
            "read_plies: {n} ply rows for {} plies reported",
            owner.len()
        )));
    }
    let columns = read_plies_schema();
    let names: Vec<&str> = projection
        .iter()
        .map(|&i| columns.fields().get(i).map_or("", |f| f.name().as_str()))
        .collect();
    for at in (0..n).step_by(rows.max(1)) {
        let range = at..(at + rows).min(n);
        let columns = plies_columns(games, validation, (&all, &owner), range.clone(), &names)?;
        let batch = RecordBatch::try_new_with_options(
            schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(range.len())),
        )?;
        if !emit(batch)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The columns `names` of [`read_plies_schema`] for the plies `range` of a validated chunk
/// of games (`all` its ply rows, by game then ply; `owner` the game of each, an index into
/// `games`).
///
/// Errors: [`DataFusionError::Internal`](datafusion::common::DataFusionError) for a name
/// that is not a column.
fn plies_columns(
    games: &[(&str, RawGame)],
    validation: &Validation,
    (all, owner): (&[&PlyRow], &[usize]),
    range: std::ops::Range<usize>,
    names: &[&str],
) -> datafusion::common::Result<Vec<ArrayRef>> {
    let wants = |cols: &[&str]| names.iter().any(|n| cols.contains(n));
    let material_names: Vec<(String, usize, usize)> = material_columns().collect();
    let wants_material = names
        .iter()
        .any(|n| material_names.iter().any(|(m, _, _)| m == n));
    let plies = &all[range.clone()];
    // the position after a ply is the one before the next ply of its game, else the
    // game's final position
    let next = |i: usize| (owner.get(i + 1) == Some(&owner[i])).then(|| all[i + 1]);
    let final_fen = |i: usize| validation.reports[owner[i]].final_fen.as_deref();
    // the positions after the plies are read only for the columns made from them
    let after_wanted = AfterWanted {
        material: wants_material,
        key: wants(&["position_key"]),
    };
    let positions = after_wanted.material || after_wanted.key;
    // the piece, squares and captured piece too: none when no column reads them
    let derives = positions || wants(&["piece", "from_square", "to_square", "captured"]);
    let derived: Vec<Derived> = if derives {
        range
            .clone()
            .map(|i| {
                let after = if !positions {
                    None
                } else if let Some(n) = next(i) {
                    Some(n.position_before)
                } else {
                    final_fen(i)
                        .and_then(|f| Setup::parse_unchecked(f).ok())
                        .map(|s| Bitboards::from(&s))
                };
                derive(all[i], after, after_wanted)
            })
            .collect()
    } else {
        vec![]
    };
    // each FEN written once: the FEN after a ply is the FEN before the next one
    let fens: Vec<String> = if wants(&["fen_before", "fen_after"]) {
        all[range.start..(range.end + 1).min(all.len())]
            .iter()
            .map(|p| p.fen_before())
            .collect()
    } else {
        vec![]
    };
    let fen_after = |k: usize| match next(range.start + k) {
        Some(_) => fens.get(k + 1).map(String::as_str),
        None => final_fen(range.start + k),
    };
    let owner = &owner[range.clone()];
    // the notes and comment of ply `ply` of the game of row `i` (any ply of that game: a
    // range may start inside a game, whose earlier plies' notes are still there)
    let notes_at = |i: usize, ply: u32| {
        let at = (ply as usize).checked_sub(1)?;
        games.get(owner[i]).and_then(|(_, g)| g.notes.get(at))
    };
    let comment_at = |i: usize, ply: u32| comment_of(notes_at(i, ply));
    let notes = |i: usize, p: &PlyRow| notes_at(i, p.ply);
    let comments: Vec<Option<&str>> = if wants(&COMMENT_COLUMNS) {
        plies
            .iter()
            .enumerate()
            .map(|(i, p)| comment_at(i, p.ply))
            .collect()
    } else {
        vec![]
    };
    // White's winning chances after each ply, from its eval
    let chances: Vec<Option<f64>> = if wants(&["winning_chances", "judgement"]) {
        plies
            .iter()
            .zip(&comments)
            .map(|(p, c)| Some(winning_chances(c.and_then(eval)?, p.color())))
            .collect()
    } else {
        vec![]
    };
    let judgements = || {
        plies.iter().enumerate().map(|(i, p)| {
            let previous = comment_at(i, p.ply.checked_sub(1)?).and_then(eval)?;
            let before = winning_chances(previous, p.color().other());
            judgement(p.color(), before, chances[i]?)
        })
    };
    let move_times = || {
        plies.iter().enumerate().map(|(i, p)| {
            let clock = comments[i].and_then(clock_seconds)?;
            let control = games.get(owner[i]).and_then(|(_, g)| g.tag("TimeControl"));
            let control = parse_time_control(control?)?;
            let previous = match p.ply.checked_sub(2).filter(|&q| q >= 1) {
                Some(q) => comment_at(i, q).and_then(clock_seconds)?,
                None => control.base_s,
            };
            Some(((previous - clock + control.increment_s) * 1000.0).round() / 1000.0)
        })
    };
    let evals: Vec<Option<Eval>> = if wants(&["eval_cp", "eval_mate"]) {
        comments.iter().map(|c| c.and_then(eval)).collect()
    } else {
        vec![]
    };
    let eval_column = |value: fn(&Eval) -> Option<i32>| {
        Arc::new(
            evals
                .iter()
                .map(|e| e.as_ref().and_then(value))
                .collect::<Int32Array>(),
        ) as ArrayRef
    };
    let text = |v: Vec<Option<String>>| Arc::new(StringArray::from(v)) as ArrayRef;
    let letter = |c: Option<char>| c.map(String::from);
    let flag = |g: &dyn Fn(&PlyRow) -> bool| {
        Arc::new(plies.iter().map(|p| Some(g(p))).collect::<BooleanArray>()) as ArrayRef
    };
    let column = |name: &str| -> datafusion::common::Result<ArrayRef> {
        Ok(match name {
            "file" => Arc::new(StringArray::from_iter_values(
                owner.iter().map(|&g| games[g].0),
            )),
            "game_index" => Arc::new(UInt64Array::from_iter_values(
                plies.iter().map(|p| p.game_index),
            )),
            "ply" => Arc::new(UInt32Array::from_iter_values(plies.iter().map(|p| p.ply))),
            "color" => Arc::new(StringArray::from_iter_values(
                plies.iter().map(|p| p.color().name()),
            )),
            "move_number" => Arc::new(UInt32Array::from_iter_values(
                plies.iter().map(|p| p.move_number()),
            )),
            "fen_before" => Arc::new(StringArray::from_iter_values(fens[..plies.len()].iter())),
            "fen_after" => Arc::new((0..plies.len()).map(fen_after).collect::<StringArray>()),
            "uci" => Arc::new(StringArray::from_iter_values(
                plies.iter().map(|p| p.uci.as_str()),
            )),
            "san" => Arc::new(StringArray::from_iter_values(
                plies.iter().map(|p| p.san.as_str()),
            )),
            "piece" => text(derived.iter().map(|d| letter(d.piece)).collect()),
            "from_square" => Arc::new(derived.iter().map(|d| d.from).collect::<StringArray>()),
            "to_square" => Arc::new(derived.iter().map(|d| d.to).collect::<StringArray>()),
            "captured" => text(derived.iter().map(|d| letter(d.captured)).collect()),
            "promotion" => Arc::new(
                plies
                    .iter()
                    .map(|p| p.promotion.as_deref())
                    .collect::<StringArray>(),
            ),
            "is_capture" => flag(&|p| p.is_capture),
            "is_check" => flag(&|p| p.is_check),
            "is_checkmate" => flag(&|p| p.san.ends_with('#')),
            "is_castling" => flag(&|p| p.is_castling),
            "is_en_passant" => flag(&|p| p.is_en_passant),
            "clock_s" => Arc::new(
                comments
                    .iter()
                    .map(|c| c.and_then(clock_seconds))
                    .collect::<Float64Array>(),
            ),
            "eval_cp" => eval_column(|e| match e {
                Eval::Centipawns(cp) => Some(*cp),
                Eval::Mate(_) => None,
            }),
            "eval_mate" => eval_column(|e| match e {
                Eval::Mate(m) => Some(*m),
                Eval::Centipawns(_) => None,
            }),
            "comment" => Arc::new(comments.iter().copied().collect::<StringArray>()),
            "move_time_s" => Arc::new(move_times().collect::<Float64Array>()),
            "winning_chances" => Arc::new(chances.iter().copied().collect::<Float64Array>()),
            "judgement" => Arc::new(judgements().collect::<StringArray>()),
            "arrows" => {
                let mut arrows = ListBuilder::new(StringBuilder::new());
                for c in &comments {
                    for mark in c.map(marks).unwrap_or_default() {
                        arrows.values().append_value(mark.to_string());
                    }
                    arrows.append(true);
                }
                Arc::new(arrows.finish())
            }
            "nags" => {
                let mut nags = ListBuilder::new(UInt8Builder::new());
                for (i, p) in plies.iter().enumerate() {
                    if let Some(n) = notes(i, p) {
                        nags.values().append_slice(&n.nags);
                    }
                    nags.append(true);
                }
                Arc::new(nags.finish())
            }
            "position_key" => {
                Arc::new(UInt64Array::from_iter_values(derived.iter().map(|d| d.key)))
            }
            other => {
                let &(_, color, role) = material_names
                    .iter()
                    .find(|(m, _, _)| m == other)
                    .ok_or_else(|| {
                        datafusion::common::DataFusionError::Internal(format!(
                            "read_plies: no column {other}"
                        ))
                    })?;
                Arc::new(UInt8Array::from_iter_values(
                    derived.iter().map(|d| d.material[color][role]),
                ))
            }
        })
    };
    names.iter().map(|n| column(n)).collect()
}

/// A ply's comment: `None` without a non-empty one.
fn comment_of(notes: Option<&PlyNotes>) -> Option<&str> {
    notes
        .and_then(|n| n.comment.as_deref())
        .filter(|c| !c.is_empty())
}

/// White's winning chances (−1 … +1) after a move of `mover` evaluated `eval` (White's
/// point of view), as lichess computes them (lila `WinPercent.winningChances`, the
/// multiplier of lila pull request 11148): 2 / (1 + e^(−0.00368208 · cp)) − 1, cp clamped to
/// ±1000; a mate +1 or −1 by its sign, mate 0 (the mover has mated) the mover's win.
fn winning_chances(eval: Eval, mover: Color) -> f64 {
    match eval {
        Eval::Centipawns(cp) => {
            let cp = f64::from(cp.clamp(-1000, 1000));
            2.0 / (1.0 + (-0.003_682_08 * cp).exp()) - 1.0
        }
        Eval::Mate(m) if m > 0 => 1.0,
        Eval::Mate(m) if m < 0 => -1.0,
        Eval::Mate(_) => match mover {
            Color::White => 1.0,
            Color::Black => -1.0,
        },
    }
}

/// lichess's judgement of a move of `mover` (lila `Advice`): how far the mover's winning
/// chances fell from `before` to `after` (White's point of view): `blunder` from 0.3,
/// `mistake` from 0.2, `inaccuracy` from 0.1, else none.
fn judgement(mover: Color, before: f64, after: f64) -> Option<&'static str> {
    let drop = match mover {
        Color::White => before - after,
        Color::Black => after - before,
    };
    [(0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy")]
        .into_iter()
        .find(|&(least, _)| drop >= least)
        .map(|(_, name)| name)
}

/// The marks of a comment's `[%csl]` and `[%cal]` commands in order (tokens that are not
/// marks left out).
fn marks(comment: &str) -> Vec<Mark> {
    mark_commands(comment)
        .into_iter()
        .flat_map(|args| args.split(','))
        .filter_map(|token| Mark::parse(token.trim()).ok())
        .collect()
}

/// Which columns of a [`Derived`] are read from the position after a ply.
#[derive(Clone, Copy)]
struct AfterWanted {
    /// The material counts.
    material: bool,
    /// The Polyglot key.
    key: bool,
}

/// The piece, squares, captured piece, material and key of a ply, read from the positions
/// before it (`p.position_before`) and after it (`after`, when asked for: the parts
/// `wanted`, the others left zero), its UCI and double step (no move is generated or applied
/// here: the pipeline did that).
fn derive(p: &PlyRow, mut after: Option<Bitboards>, wanted: AfterWanted) -> Derived<'_> {
    let before = &p.position_before;
    let squares = (p.uci.len() >= 4 && p.uci != crate::validate::NULL_UCI)
        .then(|| (&p.uci[0..2], &p.uci[2..4]));
    let (from, to) = match squares {
        Some((f, t)) => (Some(f), Some(t)),
        None => (None, None),
    };
    let at = |sq: Option<&str>| sq.and_then(parse_square).and_then(|q| before.piece_at(q));
    let piece = at(from).map(|p| p.role.char().to_ascii_uppercase());
    let captured = if p.is_en_passant {
        Some('P')
    } else if p.is_capture {
        at(to).map(|p| p.role.char().to_ascii_uppercase())
    } else {
        None
    };
    // the Polyglot key counts the en passant file after every double step (its own
    // pseudo-legal rule), while the FEN names the square only for a legal capture
    if let Some(a) = after.as_mut() {
        a.ep_square = p.double_step_square;
    }
    Derived {
        piece,
        from,
        to,
        captured,
        material: after
            .as_ref()
            .filter(|_| wanted.material)
            .map(material_counts_of)
            .unwrap_or_default(),
        key: after
            .as_ref()
            .filter(|_| wanted.key)
            .map_or(0, polyglot_key_of),
    }
}
