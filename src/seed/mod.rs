//! The seed replica: the SAP blog's "SQL chess" engine (the ABAP SQL `WITH` statement of
//! "The longest ABAP statement on earth OR playing chess with SQL", demo package
//! `SABAP_DEMOS_SQL_CHESS`) run as it is, defects included, on DataFusion.
//!
//! Every CTE of the seed is one file of `plans/seed/` under the CTE's name (`+stage1` is
//! `stage1.sql`, the baby-monster `+moves` is `moves.sql`, the final `SELECT` is
//! `validate_move.sql`); `plans/seed/README.md` lists every translation decision. Each file
//! is planned once by [`SeedPipeline::new`] and registered under its name, as a view (a
//! stage read by one later stage: DataFusion inlines it into its reader) or as an in-memory
//! table that is filled when the stage runs (a stage read by several later stages, so it
//! is computed once), on the same stage session as our pipeline ([`crate::session`]): a
//! run executes the table stages in order (each stage's physical plan created on its first
//! run, re-executed after) and stores each result under the stage's name; the final
//! `SELECT` is planned with its parameters bound on every call.
//!
//! # Tables (Arrow schemas)
//!
//! The seed's database tables, without the ABAP `CLIENT` column; the chessman, colour and
//! flag codes are those of `CL_DEMO_SQL_CHESS` (see [`WHITE`], [`KING`], …), except that the
//! pawn is `'P'` (SAP uses a space), and ABAP booleans (`'X'` / `' '`) are Arrow `Boolean`.
//!
//! * `demo_chess_game` ([`game_schema`]): one row per game — `gameuuid` Utf8, `movecnt`
//!   Int32, `color` Utf8 (side to move), `castling_white_long`, `castling_white_short`,
//!   `castling_black_long`, `castling_black_short` Boolean (true = that castling is no
//!   longer possible: "castling done").
//! * `demo_chess_pos` ([`pos_schema`]): one row per chessman — `gameuuid` Utf8, `movecnt`
//!   Int32, `chessman` Utf8, `color` Utf8, `x`, `y`, `before_x`, `before_y` Int32 (files and
//!   ranks 1..=8; the before square is where the chessman stood one half-move earlier; a
//!   chessman whose before square is a real square other than its own made the last move).
//! * `moves` = `demo_chess_moves` ([`moves_schema`]): the baby monster, 7,620 rows, built
//!   once by `moves.sql`.
//!
//! # Entry points
//!
//! * [`SeedPipeline::load_fens`] fills `demo_chess_game` / `demo_chess_pos` from FEN setups.
//! * [`SeedPipeline::validate_move`] is the post's statement: the next position, or no
//!   row for a move the seed refuses; [`SeedPipeline::play`] stores that position as the
//!   game's new state, as `CL_DEMO_SQL_CHESS->MOVE` does.
//! * [`SeedPipeline::all_moves`] is the "similar WITH statement which generates all
//!   possible moves" the post mentions: every `+stage13` row.
//!
//! Per-stage figures (runs, rows, planning and execution time, DataFusion's compute time
//! and peak memory) are in [`SeedPipeline::profile`]; `sqlchess profile --pipeline seed`
//! prints them ([`crate::profile`]).

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};

use crate::chess::color::Color;
use crate::chess::role::Role;
use crate::session::{StageKind, StageSql};

mod load;
mod pipeline;
mod play;

pub use pipeline::SeedPipeline;
pub use play::read_positions;

/// `CL_DEMO_SQL_CHESS=>C_COLOR_WHITE`.
pub const WHITE: &str = "W";
/// `CL_DEMO_SQL_CHESS=>C_COLOR_BLACK`.
pub const BLACK: &str = "B";
/// `CL_DEMO_SQL_CHESS=>C_CHESSMAN_KING`.
pub const KING: &str = "K";
/// `CL_DEMO_SQL_CHESS=>C_CHESSMAN_QUEEN`.
pub const QUEEN: &str = "Q";
/// `CL_DEMO_SQL_CHESS=>C_CHESSMAN_ROOK`.
pub const ROOK: &str = "R";
/// `CL_DEMO_SQL_CHESS=>C_CHESSMAN_KNIGHT`.
pub const KNIGHT: &str = "N";
/// `CL_DEMO_SQL_CHESS=>C_CHESSMAN_BISHOP`.
pub const BISHOP: &str = "B";
/// `CL_DEMO_SQL_CHESS=>C_CHESSMAN_PAWN` (a space in SAP; `'P'` here).
pub const PAWN: &str = "P";

/// How a seed stage is registered: a table of the stage's name filled when it runs
/// (stages read by several later stages), a view (DataFusion inlines it into the one stage
/// that reads it) or the final query (`validate_move`, run with bound parameters).
pub type SeedStageKind = StageKind;

/// One file of `plans/seed/`: the seed CTE's name without `+` (the file name without
/// `.sql`), its SQL text and how it is registered.
pub type SeedStage = StageSql;

macro_rules! seed_stage {
    ($name:literal, $kind:ident) => {
        SeedStage {
            name: $name,
            sql: include_str!(concat!("../../plans/seed/", $name, ".sql")),
            kind: SeedStageKind::$kind,
        }
    };
}

/// The baby monster (`+moves`, DEMO_CHESS_MOVES), built once per pipeline into the table
/// `moves` (also registered as `demo_chess_moves`).
pub const SEED_MOVES: SeedStage = seed_stage!("moves", Table);

/// The seed's CTEs after `+moves`, in the seed's order, then its final `SELECT`.
pub const SEED_STAGES: &[SeedStage] = &[
    seed_stage!("positions", Table),
    seed_stage!("stage1", Table),
    seed_stage!("stage2", View),
    seed_stage!("stage3", View),
    seed_stage!("stage4", View),
    seed_stage!("stage5", View),
    seed_stage!("cstl_bl", View),
    seed_stage!("cstl_bs", View),
    seed_stage!("cstl_wl", View),
    seed_stage!("cstl_ws", View),
    seed_stage!("stage6", Table),
    seed_stage!("stage7", Table),
    seed_stage!("stage8", Table),
    seed_stage!("stage9", View),
    seed_stage!("stage10", View),
    seed_stage!("stage11", View),
    seed_stage!("stage12", View),
    seed_stage!("stage13", Table),
    seed_stage!("next", View),
    seed_stage!("validate_move", Query),
];

/// Arrow schema of `demo_chess_game`: `gameuuid` Utf8, `movecnt` Int32, `color` Utf8,
/// `castling_white_long`, `castling_white_short`, `castling_black_long`,
/// `castling_black_short` Boolean; no column is nullable.
pub fn game_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("gameuuid", DataType::Utf8, false),
        Field::new("movecnt", DataType::Int32, false),
        Field::new("color", DataType::Utf8, false),
        Field::new("castling_white_long", DataType::Boolean, false),
        Field::new("castling_white_short", DataType::Boolean, false),
        Field::new("castling_black_long", DataType::Boolean, false),
        Field::new("castling_black_short", DataType::Boolean, false),
    ]))
}

/// Arrow schema of `demo_chess_pos`: `gameuuid` Utf8, `movecnt` Int32, `chessman` Utf8,
/// `color` Utf8, `x`, `y`, `before_x`, `before_y` Int32; no column is nullable.
pub fn pos_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("gameuuid", DataType::Utf8, false),
        Field::new("movecnt", DataType::Int32, false),
        Field::new("chessman", DataType::Utf8, false),
        Field::new("color", DataType::Utf8, false),
        Field::new("x", DataType::Int32, false),
        Field::new("y", DataType::Int32, false),
        Field::new("before_x", DataType::Int32, false),
        Field::new("before_y", DataType::Int32, false),
    ]))
}

/// Arrow schema of `moves` / `demo_chess_moves` (the baby monster): `color`, `chessman`
/// Utf8, `from_x`, `from_y`, `to_x`, `to_y` Int32, `special_flag`, `color_dep`,
/// `chessman_dep` Utf8, `from_x_dep`, `from_y_dep`, `to_x_dep`, `to_y_dep` Int32,
/// `transform_pawn_flag` Boolean; no column is nullable (the seed writes `'-'` and `0` for
/// "no dependent move").
pub fn moves_schema() -> SchemaRef {
    let int = |n: &str| Field::new(n, DataType::Int32, false);
    let text = |n: &str| Field::new(n, DataType::Utf8, false);
    Arc::new(Schema::new(vec![
        text("color"),
        text("chessman"),
        int("from_x"),
        int("from_y"),
        int("to_x"),
        int("to_y"),
        text("special_flag"),
        text("color_dep"),
        text("chessman_dep"),
        int("from_x_dep"),
        int("from_y_dep"),
        int("to_x_dep"),
        int("to_y_dep"),
        Field::new("transform_pawn_flag", DataType::Boolean, false),
    ]))
}

/// The `gameuuid` (CHAR(32)) that [`SeedPipeline::load_fens`] gives the setup at `index`:
/// the index as 32 decimal digits.
pub fn game_uuid(index: usize) -> String {
    format!("{index:032}")
}

/// The seed's chessman code of a role.
pub fn chessman_code(role: Role) -> &'static str {
    match role {
        Role::King => KING,
        Role::Queen => QUEEN,
        Role::Rook => ROOK,
        Role::Knight => KNIGHT,
        Role::Bishop => BISHOP,
        Role::Pawn => PAWN,
    }
}

/// The seed's colour code of a side.
pub fn color_code(color: Color) -> &'static str {
    match color {
        Color::White => WHITE,
        Color::Black => BLACK,
    }
}

/// A requested move: the parameters of the post's final `SELECT` (`@uuid`, `@movecnt`,
/// `@color`, `@chessman`, `@from_x`, `@from_y`, `@to_x`, `@to_y`). Coordinates are 1..=8,
/// file then rank. There is no promotion piece: the seed always promotes to a queen.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SeedMove {
    /// Game.
    pub gameuuid: String,
    /// Half-move counter of the position the move is made in.
    pub movecnt: i32,
    /// Colour code of the moving chessman ([`WHITE`] / [`BLACK`]).
    pub color: String,
    /// Chessman code of the moving chessman ([`KING`] …).
    pub chessman: String,
    /// From file.
    pub from_x: i32,
    /// From rank.
    pub from_y: i32,
    /// To file.
    pub to_x: i32,
    /// To rank.
    pub to_y: i32,
}

impl SeedMove {
    /// The move in UCI notation without a promotion letter (`e7e8`).
    pub fn uci(&self) -> String {
        format!(
            "{}{}",
            square_name(self.from_x, self.from_y),
            square_name(self.to_x, self.to_y)
        )
    }
}

crate::table_row! {
/// One chessman of a position: a row of `demo_chess_pos` or of
/// [`SeedPipeline::validate_move`]'s result (columns read by name).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SeedPosRow {
    /// Game.
    pub gameuuid: String,
    /// Half-move counter.
    pub movecnt: i32,
    /// Chessman code.
    pub chessman: String,
    /// Colour code.
    pub color: String,
    /// File 1..=8.
    pub x: i32,
    /// Rank 1..=8.
    pub y: i32,
    /// File one half-move earlier.
    pub before_x: i32,
    /// Rank one half-move earlier.
    pub before_y: i32,
}
}

/// The castling-done flags of a game (true = that castling is no longer possible).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CastlingDone {
    /// `castling_white_long`.
    pub white_long: bool,
    /// `castling_white_short`.
    pub white_short: bool,
    /// `castling_black_long`.
    pub black_long: bool,
    /// `castling_black_short`.
    pub black_short: bool,
}

/// One row of `demo_chess_game`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GameRow {
    gameuuid: String,
    movecnt: i32,
    color: &'static str,
    castling: CastlingDone,
}

/// `a1` … `h8` for 1-based coordinates (`??` outside the board).
fn square_name(x: i32, y: i32) -> String {
    if (1..=8).contains(&x) && (1..=8).contains(&y) {
        format!("{}{}", char::from(b'a' + (x - 1) as u8), y)
    } else {
        "??".to_string()
    }
}
