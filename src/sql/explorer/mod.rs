//! `explorer(path, max_ply)`: an opening explorer of one's own games, as the lichess opening
//! explorer shows one: for every position of the first `max_ply` plies of each standard
//! game's legal main line, the moves played from it, with their games and results, by the
//! explorer's filters (speed, rating band, month). A view: the aggregate of the explorer's
//! plies ([`plies::explorer_plies_schema`]), which the PGN scan gives with each game
//! replayed up to `max_ply` only.

pub mod plies;

use std::sync::Arc;

use datafusion::catalog::view::ViewTable;
use datafusion::catalog::{TableFunctionArgs, TableFunctionImpl, TableProvider};
use datafusion::common::{ScalarValue, plan_err};
use datafusion::datasource::provider_as_source;
use datafusion::functions_aggregate::expr_fn::{count, max, sum};
use datafusion::logical_expr::{Expr, LogicalPlanBuilder, col, lit};

use super::ChessOptions;
use super::arguments::inputs_of;
use super::engines::EnginePool;
use super::options::split_bytes_of;
use super::scan::{PgnTable, Rows};

/// The `explorer(path, max_ply)` table function: `path` a string literal as `read_pgn`'s
/// (a file, a directory, a glob; compressed files), `max_ply` an integer literal from 1 to
/// 4,294,967,295.
/// One row per (position, move, `speed`, `rating_band`, `month`), Arrow schema:
///
/// | column | type | |
/// |---|---|---|
/// | `position_key` | UInt64 | Polyglot key of the position the move is played from |
/// | `epd` | Utf8 | that position as an EPD (`epd(fen)`'s rules) |
/// | `uci`, `san` | Utf8 | the move |
/// | `speed` | Utf8, nullable | the games' speed by their `TimeControl` (lichess's categories, `read_pgn`'s `speed`) |
/// | `rating_band` | UInt16, nullable | the lichess explorer's band of the two players' mean rating: 0, 1000, 1200, 1400, 1600, 1800, 2000, 2200, 2500 (the band's lower bound); NULL without both Elo tags |
/// | `month` | Utf8, nullable | `YYYY-MM` of the `UTCDate` tag, else `Date`; NULL when unknown |
/// | `games` | Int64 | games in which the move was played from the position (once per game, however often the game repeats it) |
/// | `white_wins`, `draws`, `black_wins` | Int64 | of those, by the `Result` tag (`*` and no result count in `games` only) |
/// | `mover_elo_sum` | Int64, nullable | the sum of the mover's Elo over the games with one (NULL when none has) |
/// | `mover_elo_games` | Int64 | the games with the mover's Elo (average: sum / games; trees of several files merge by summing) |
/// | `last_date` | Utf8, nullable | the latest date (`UTCDate`, else `Date`, as written: `2025.01.31`) |
///
/// Positions reached by transposition are one position. Games with a `FEN` tag or a
/// `Variant` other than standard chess are left out; a game with an illegal move counts
/// its plies before it. Each game is replayed up to `max_ply` only, and the plies the games
/// of a chunk share (the same first moves) once.
///
/// Errors (planning): the path's, as `read_pgn`'s; a `max_ply` that is not an integer
/// literal of at least 1 (naming the argument).
#[derive(Debug, Default)]
pub struct Explorer {
    pool: Arc<EnginePool>,
    /// The settings used when the calling session has none.
    defaults: ChessOptions,
}

impl Explorer {
    /// `explorer` with engines from `pool`, and `defaults` where the calling session has no
    /// [`ChessOptions`].
    pub(crate) fn new(pool: Arc<EnginePool>, defaults: ChessOptions) -> Explorer {
        Explorer { pool, defaults }
    }
}

/// The usage named in argument errors.
const USAGE: &str = "explorer(path, max_ply)";

impl TableFunctionImpl for Explorer {
    fn call_with_args(
        &self,
        args: TableFunctionArgs,
    ) -> datafusion::common::Result<Arc<dyn TableProvider>> {
        let [path, max_ply] = args.exprs() else {
            return plan_err!(
                "{USAGE}: expects 2 arguments (a path string literal and an integer), got {}",
                args.exprs().len()
            );
        };
        let path = match path {
            Expr::Literal(
                ScalarValue::Utf8(Some(s))
                | ScalarValue::Utf8View(Some(s))
                | ScalarValue::LargeUtf8(Some(s)),
                _,
            ) => s.clone(),
            other => {
                return plan_err!(
                    "{USAGE}: argument 1 (path) must be a string literal (a file, a directory \
                     or a glob), not {other}"
                );
            }
        };
        let max_ply = match max_ply {
            Expr::Literal(v, _) if v.data_type().is_integer() && !v.is_null() => v
                .cast_to(&datafusion::arrow::datatypes::DataType::Int64)
                .ok()
                .and_then(|v| match v {
                    ScalarValue::Int64(Some(i)) => u32::try_from(i).ok(),
                    _ => None,
                })
                .filter(|&m| m >= 1),
            _ => None,
        };
        let Some(max_ply) = max_ply else {
            return plan_err!(
                "{USAGE}: argument 2 (max_ply) must be an integer literal of at least 1 and at \
                 most 4294967295, not {}",
                args.exprs()[1]
            );
        };
        let split_bytes = split_bytes_of(&args, &self.defaults);
        let plies = PgnTable::new(
            inputs_of("explorer", &path)?,
            self.pool.clone(),
            Rows::ExplorerPlies,
            split_bytes,
        )
        .with_max_ply(max_ply);
        let groups = [
            "position_key",
            "epd",
            "uci",
            "san",
            "speed",
            "rating_band",
            "month",
        ];
        let plan =
            LogicalPlanBuilder::scan("explorer_plies", provider_as_source(Arc::new(plies)), None)?
                .aggregate(
                    groups.map(col),
                    [
                        count(lit(1)).alias("games"),
                        sum(col("white_win")).alias("white_wins"),
                        sum(col("draw")).alias("draws"),
                        sum(col("black_win")).alias("black_wins"),
                        sum(col("mover_elo")).alias("mover_elo_sum"),
                        count(col("mover_elo")).alias("mover_elo_games"),
                        max(col("date")).alias("last_date"),
                    ],
                )?
                .build()?;
        Ok(Arc::new(ViewTable::new(plan, None)))
    }
}
