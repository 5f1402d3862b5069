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
//! is computed once). A run creates physical plans from the cached optimised logical plans
//! of the table stages, in order, and stores each result under the stage's name.
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

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use datafusion::arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Int32Array, RecordBatch, StringArray,
};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Int32Type, Schema, SchemaRef};
use datafusion::datasource::MemTable;
use datafusion::logical_expr::LogicalPlan;
use datafusion::physical_plan::{ExecutionPlan, collect};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion::scalar::ScalarValue;

use crate::chess::fen::{Color, Piece, Role, Setup};
use crate::error::{Error, Result};
use crate::session::{StageProfile, plan_metrics};

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

/// How a seed stage is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeedStageKind {
    /// An in-memory table of the stage's name, filled when the stage runs (stages read by
    /// several later stages).
    Table,
    /// A view: DataFusion inlines its plan into the one stage that reads it.
    View,
    /// The final query (`validate_move`), not registered; run with bound parameters.
    Query,
}

/// One file of `plans/seed/`.
#[derive(Clone, Copy, Debug)]
pub struct SeedStage {
    /// The seed CTE's name without `+`, and the file name without `.sql`.
    pub name: &'static str,
    /// The SQL text.
    pub sql: &'static str,
    /// How it is registered.
    pub kind: SeedStageKind,
}

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

/// One chessman of a position: a row of `demo_chess_pos` or of
/// [`SeedPipeline::validate_move`]'s result.
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
struct GameRow {
    gameuuid: String,
    movecnt: i32,
    color: &'static str,
    castling: CastlingDone,
}

/// The seed engine on one DataFusion session: every file of `plans/seed/` planned once,
/// the game tables, and the per-stage figures.
pub struct SeedPipeline {
    ctx: SessionContext,
    partitions: usize,
    tables: HashMap<&'static str, (Arc<MemTable>, SchemaRef)>,
    plans: HashMap<&'static str, LogicalPlan>,
    games: Vec<GameRow>,
    positions: Vec<SeedPosRow>,
    profile: Mutex<HashMap<&'static str, StageProfile>>,
    keep_plans: AtomicBool,
    last_plans: Mutex<HashMap<&'static str, Arc<dyn ExecutionPlan>>>,
}

impl SeedPipeline {
    /// [`SeedPipeline::with_partitions`] with one partition per core.
    ///
    /// Errors: as [`SeedPipeline::with_partitions`].
    pub async fn new() -> Result<SeedPipeline> {
        let cores = std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1);
        SeedPipeline::with_partitions(cores).await
    }

    /// Builds the baby-monster table `moves`, registers the empty `demo_chess_game` and
    /// `demo_chess_pos` tables and plans every file of [`SEED_STAGES`] once (DataFusion
    /// target partitions = `partitions`, at least 1).
    ///
    /// Errors: [`Error::Plan`] naming the file whose SQL does not plan,
    /// [`Error::DataFusion`] / [`Error::Arrow`] if building `moves` fails.
    pub async fn with_partitions(partitions: usize) -> Result<SeedPipeline> {
        let partitions = partitions.max(1);
        let config = SessionConfig::new()
            .with_target_partitions(partitions)
            .with_batch_size(8192);
        let ctx = SessionContext::new_with_config(config);
        let mut seed = SeedPipeline {
            ctx,
            partitions,
            tables: HashMap::new(),
            plans: HashMap::new(),
            games: Vec::new(),
            positions: Vec::new(),
            profile: Mutex::new(HashMap::new()),
            keep_plans: AtomicBool::new(false),
            last_plans: Mutex::new(HashMap::new()),
        };
        seed.register("demo_chess_game", game_schema())?;
        seed.register("demo_chess_pos", pos_schema())?;

        let plan_err = |stage: &str| {
            let stage = stage.to_string();
            move |source| Error::Plan { stage, source }
        };
        let df = seed
            .ctx
            .sql(SEED_MOVES.sql)
            .await
            .map_err(plan_err(SEED_MOVES.name))?;
        let batches = df.collect().await?;
        seed.register("moves", moves_schema())?;
        let table = seed.tables["moves"].0.clone();
        seed.ctx.register_table("demo_chess_moves", table)?;
        seed.set_table("moves", batches).await?;

        for st in SEED_STAGES {
            let df = seed.ctx.sql(st.sql).await.map_err(plan_err(st.name))?;
            match st.kind {
                SeedStageKind::View => {
                    seed.ctx.register_table(st.name, df.into_view())?;
                }
                SeedStageKind::Table | SeedStageKind::Query => {
                    let plan = seed
                        .ctx
                        .state()
                        .optimize(df.logical_plan())
                        .map_err(plan_err(st.name))?;
                    if st.kind == SeedStageKind::Table {
                        let schema: SchemaRef = Arc::new(plan.schema().as_arrow().clone());
                        seed.register(st.name, schema)?;
                    }
                    seed.plans.insert(st.name, plan);
                }
            }
        }
        Ok(seed)
    }

    fn register(&mut self, name: &'static str, schema: SchemaRef) -> Result<()> {
        let table = Arc::new(MemTable::try_new(
            schema.clone(),
            vec![vec![]; self.partitions],
        )?);
        self.ctx.register_table(name, table.clone())?;
        self.tables.insert(name, (table, schema));
        Ok(())
    }

    /// The DataFusion session: `demo_chess_game`, `demo_chess_pos`, `moves` /
    /// `demo_chess_moves` and every seed stage are registered in it under their names
    /// (table stages hold the last run's rows).
    pub fn context(&self) -> &SessionContext {
        &self.ctx
    }

    /// The cached optimised logical plan of a table stage or of `validate_move`.
    ///
    /// Errors: [`Error::UnknownStage`] for a view stage or an unknown name.
    pub fn plan(&self, stage: &str) -> Result<&LogicalPlan> {
        self.plans
            .get(stage)
            .ok_or_else(|| Error::UnknownStage(stage.to_string()))
    }

    /// The current rows of a table (`demo_chess_game`, `demo_chess_pos`, `moves`, or a
    /// table stage after a run), with the table's schema.
    ///
    /// Errors: [`Error::UnknownStage`] for a view stage or an unknown name.
    pub async fn table(&self, name: &str) -> Result<Vec<RecordBatch>> {
        let (table, _) = self
            .tables
            .get(name)
            .ok_or_else(|| Error::UnknownStage(name.to_string()))?;
        let mut out = vec![];
        for slot in &table.batches {
            out.extend(slot.read().await.iter().cloned());
        }
        Ok(out)
    }

    async fn set_table(&self, name: &str, batches: Vec<RecordBatch>) -> Result<()> {
        let (table, schema) = self
            .tables
            .get(name)
            .ok_or_else(|| Error::UnknownStage(name.to_string()))?;
        let mut parts: Vec<Vec<RecordBatch>> = vec![vec![]; self.partitions];
        for (i, batch) in batches.into_iter().filter(|b| b.num_rows() > 0).enumerate() {
            parts[i % self.partitions].push(crate::session::conform(batch, schema)?);
        }
        for (slot, part) in table.batches.iter().zip(parts) {
            *slot.write().await = part;
        }
        Ok(())
    }

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
    async fn upload(&self) -> Result<()> {
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
        self.set_table("demo_chess_game", vec![game]).await?;
        self.set_table("demo_chess_pos", vec![pos]).await?;
        Ok(())
    }

    /// The index of the game `gameuuid` among the loaded games.
    fn game_index(&self, gameuuid: &str) -> Option<usize> {
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

    /// Runs one stage (a table stage's cached plan, or the given plan for the query),
    /// records its figures and returns its rows.
    async fn run_plan(&self, name: &'static str, plan: &LogicalPlan) -> Result<Vec<RecordBatch>> {
        let t0 = Instant::now();
        let physical = self.physical_plan(plan).await?;
        let t1 = Instant::now();
        let batches = collect(physical.clone(), self.ctx.task_ctx()).await?;
        let t2 = Instant::now();
        let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
        {
            let mut profile = self.profile.lock().map_err(|_| Error::Poisoned)?;
            profile.entry(name).or_default().add_run(
                rows,
                t1 - t0,
                t2 - t1,
                &plan_metrics(physical.as_ref()),
            );
        }
        if self.keep_plans.load(Ordering::Relaxed) {
            self.last_plans
                .lock()
                .map_err(|_| Error::Poisoned)?
                .insert(name, physical);
        }
        Ok(batches)
    }

    async fn physical_plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        let state = self.ctx.state();
        Ok(state
            .query_planner()
            .create_physical_plan(plan, &state)
            .await?)
    }

    /// Runs every table stage, `positions` to `stage13`, on the current game tables.
    async fn run_to_stage13(&self) -> Result<()> {
        for st in SEED_STAGES
            .iter()
            .filter(|s| s.kind == SeedStageKind::Table)
        {
            let plan = self.plan(st.name)?;
            let batches = self.run_plan(st.name, plan).await?;
            self.set_table(st.name, batches).await?;
        }
        Ok(())
    }

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
    /// Errors: [`Error::DataFusion`], [`Error::Arrow`], [`Error::Poisoned`].
    pub async fn all_moves(&self) -> Result<Vec<RecordBatch>> {
        self.run_to_stage13().await?;
        self.table("stage13").await
    }

    /// [`SeedPipeline::all_moves`] as sorted UCI strings per loaded game (index as in
    /// [`SeedPipeline::load_fens`]); a promoting move gets the suffix `q`.
    ///
    /// Errors: as [`SeedPipeline::all_moves`]; [`Error::Schema`] if a column is missing.
    pub async fn all_moves_uci(&self) -> Result<Vec<Vec<String>>> {
        let batches = self.all_moves().await?;
        let mut out = vec![Vec::new(); self.games.len()];
        for batch in &batches {
            let game = strings(batch, "gameuuid")?;
            let (fx, fy) = (ints(batch, "from_x")?, ints(batch, "from_y")?);
            let (tx, ty) = (ints(batch, "to_x")?, ints(batch, "to_y")?);
            let promo = bools(batch, "transform_pawn_flag")?;
            for r in 0..batch.num_rows() {
                let Some(i) = game[r].as_deref().and_then(|g| self.game_index(g)) else {
                    continue;
                };
                let get = |v: &[Option<i32>]| v[r].unwrap_or(0);
                let mut uci = format!(
                    "{}{}",
                    square_name(get(&fx), get(&fy)),
                    square_name(get(&tx), get(&ty))
                );
                if promo[r] == Some(true) {
                    uci.push('q');
                }
                out[i].push(uci);
            }
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
    /// Errors: [`Error::DataFusion`] (also if binding the parameters fails),
    /// [`Error::Arrow`], [`Error::Poisoned`].
    pub async fn validate_move(&self, mv: &SeedMove) -> Result<Vec<RecordBatch>> {
        self.run_to_stage13().await?;
        let plan = self.validate_move_plan(mv)?;
        self.run_plan("validate_move", &plan).await
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
            .plan("validate_move")?
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
    /// [`Error::Schema`] if a result column is missing.
    pub async fn play(&mut self, mv: &SeedMove) -> Result<bool> {
        let gi = self
            .game_index(&mv.gameuuid)
            .ok_or_else(|| Error::Usage(format!("no game {:?} is loaded", mv.gameuuid)))?;
        let batches = self.validate_move(mv).await?;
        let rows = read_positions(&batches)?;
        let Some(first) = rows.first() else {
            return Ok(false);
        };
        let batch = batches
            .iter()
            .find(|b| b.num_rows() > 0)
            .ok_or_else(|| Error::Schema("validate_move rows vanished".to_string()))?;
        let flag = |name: &str| -> Result<bool> { Ok(bools(batch, name)?[0].unwrap_or(false)) };
        let castling = CastlingDone {
            white_long: flag("castling_white_long")?,
            white_short: flag("castling_white_short")?,
            black_long: flag("castling_black_long")?,
            black_short: flag("castling_black_short")?,
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

    /// Per-stage figures (table stages and `validate_move`, in run order) summed since the
    /// pipeline was made or [`SeedPipeline::reset_profile`]. View stages are inlined into
    /// the table stage that reads them, so their work is counted there.
    pub fn profile(&self) -> Vec<(String, StageProfile)> {
        let profile = self.profile.lock().map(|p| p.clone()).unwrap_or_default();
        SEED_STAGES
            .iter()
            .filter_map(|s| profile.get(s.name).map(|p| (s.name.to_string(), p.clone())))
            .collect()
    }

    /// Clears the per-stage figures.
    pub fn reset_profile(&self) {
        if let Ok(mut p) = self.profile.lock() {
            p.clear();
        }
    }

    /// Whether runs keep each table stage's (and `validate_move`'s) last executed physical
    /// plan, with its metrics, for [`SeedPipeline::last_plan`]. Off by default: an executed
    /// plan holds its input batches and hash tables until it is replaced. Turning it off
    /// drops the kept plans.
    pub fn keep_last_plans(&self, keep: bool) {
        self.keep_plans.store(keep, Ordering::Relaxed);
        if !keep && let Ok(mut plans) = self.last_plans.lock() {
            plans.clear();
        }
    }

    /// The last executed physical plan of a table stage or of `validate_move`, if
    /// [`SeedPipeline::keep_last_plans`] was on when it last ran.
    pub fn last_plan(&self, stage: &str) -> Option<Arc<dyn ExecutionPlan>> {
        self.last_plans
            .lock()
            .ok()
            .and_then(|p| p.get(stage).cloned())
    }

    /// Creates the physical plan of a logical plan on this pipeline's session (no
    /// re-optimisation), as a run does; for EXPLAIN.
    ///
    /// Errors: [`Error::DataFusion`].
    pub async fn create_physical_plan(&self, plan: &LogicalPlan) -> Result<Arc<dyn ExecutionPlan>> {
        self.physical_plan(plan).await
    }
}

/// Reads position rows (`gameuuid`, `movecnt`, `chessman`, `color`, `x`, `y`, `before_x`,
/// `before_y`, found by name) from `demo_chess_pos` or from
/// [`SeedPipeline::validate_move`]'s result, sorted.
///
/// Errors: [`Error::Schema`] if a column is missing or NULL, [`Error::Arrow`] if it cannot
/// be cast to its type.
pub fn read_positions(batches: &[RecordBatch]) -> Result<Vec<SeedPosRow>> {
    let mut out = Vec::new();
    for batch in batches {
        let text = |n: &str| strings(batch, n);
        let (game, chessman, color) = (text("gameuuid")?, text("chessman")?, text("color")?);
        let (movecnt, x, y) = (
            ints(batch, "movecnt")?,
            ints(batch, "x")?,
            ints(batch, "y")?,
        );
        let (bx, by) = (ints(batch, "before_x")?, ints(batch, "before_y")?);
        for r in 0..batch.num_rows() {
            let null = |n: &str| Error::Schema(format!("NULL in column {n}"));
            out.push(SeedPosRow {
                gameuuid: game[r].clone().ok_or_else(|| null("gameuuid"))?,
                movecnt: movecnt[r].ok_or_else(|| null("movecnt"))?,
                chessman: chessman[r].clone().ok_or_else(|| null("chessman"))?,
                color: color[r].clone().ok_or_else(|| null("color"))?,
                x: x[r].ok_or_else(|| null("x"))?,
                y: y[r].ok_or_else(|| null("y"))?,
                before_x: bx[r].ok_or_else(|| null("before_x"))?,
                before_y: by[r].ok_or_else(|| null("before_y"))?,
            });
        }
    }
    out.sort();
    Ok(out)
}

/// `a1` … `h8` for 1-based coordinates (`??` outside the board).
fn square_name(x: i32, y: i32) -> String {
    if (1..=8).contains(&x) && (1..=8).contains(&y) {
        format!("{}{}", char::from(b'a' + (x - 1) as u8), y)
    } else {
        "??".to_string()
    }
}

fn bool_array(values: impl Iterator<Item = bool>) -> ArrayRef {
    Arc::new(values.map(Some).collect::<BooleanArray>())
}

fn column(batch: &RecordBatch, name: &str, to: &DataType) -> Result<ArrayRef> {
    let c = batch
        .column_by_name(name)
        .ok_or_else(|| Error::Schema(format!("no column {name:?}")))?;
    Ok(if c.data_type() == to {
        c.clone()
    } else {
        cast(c, to)?
    })
}

fn strings(batch: &RecordBatch, name: &str) -> Result<Vec<Option<String>>> {
    let c = column(batch, name, &DataType::Utf8)?;
    Ok(c.as_string::<i32>()
        .iter()
        .map(|v| v.map(str::to_string))
        .collect())
}

fn ints(batch: &RecordBatch, name: &str) -> Result<Vec<Option<i32>>> {
    let c = column(batch, name, &DataType::Int32)?;
    Ok(c.as_primitive::<Int32Type>().iter().collect())
}

fn bools(batch: &RecordBatch, name: &str) -> Result<Vec<Option<bool>>> {
    let c = column(batch, name, &DataType::Boolean)?;
    Ok(c.as_boolean().iter().collect())
}
