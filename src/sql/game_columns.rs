//! The columns of `read_pgn`, one row per game: its schema ([`read_pgn_schema`]) and the
//! record batch of a chunk of games ([`games_batch`]), from the games' tags and moves and,
//! for the rules columns, their validation reports.

use std::sync::Arc;

use datafusion::arrow::array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, ListBuilder, MapBuilder, RecordBatch,
    RecordBatchOptions, StringArray, StringBuilder, UInt32Array, UInt64Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::DataFusionError;

use crate::chess::outcome::FinalStatus;
use crate::pgn::RawGame;
use crate::pgn::time_control::{Speed, parse_time_control, speed};
use crate::sql::openings::{Book, CLASSIFY_PLIES, Opening};
use crate::validate::{ErrorKind, GameReport, ValidateOptions, Validation};

/// What a column of `read_pgn` is made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Col {
    File,
    GameIndex,
    /// A tag's value (NULL when the game has no such tag).
    Tag(&'static str),
    /// An Elo tag as an integer (NULL when absent or not an integer).
    Elo(&'static str),
    /// `base_time_s`: the `TimeControl` tag's base, seconds.
    BaseTime,
    /// `increment_s`: the `TimeControl` tag's increment, seconds.
    Increment,
    /// `speed`: lichess's category of the `TimeControl` tag.
    Speed,
    Tags,
    Moves,
    /// `pgn`: the game's text as read ([`RawGame::text`]).
    Pgn,
    Plies,
    FirstIllegalPly,
    ErrorKind,
    ErrorMessage,
    FinalFen,
    FinalStatus,
    ResultConsistent,
    /// The classification by the named openings ([`Book::classify`]).
    ClassifiedEco,
    ClassifiedOpening,
    ClassifiedPly,
}

impl Col {
    /// Whether the column needs the rules (a validation of the game).
    fn needs_rules(self) -> bool {
        matches!(
            self,
            Col::Plies
                | Col::FirstIllegalPly
                | Col::ErrorKind
                | Col::ErrorMessage
                | Col::FinalFen
                | Col::FinalStatus
                | Col::ResultConsistent
        )
    }

    /// Whether the column is the openings classification (the rules up to
    /// [`CLASSIFY_PLIES`] and the plies' positions).
    fn needs_openings(self) -> bool {
        matches!(
            self,
            Col::ClassifiedEco | Col::ClassifiedOpening | Col::ClassifiedPly
        )
    }
}

/// The columns of `read_pgn`, in order.
const COLUMNS: &[(&str, Col)] = &[
    ("file", Col::File),
    ("game_index", Col::GameIndex),
    ("event", Col::Tag("Event")),
    ("site", Col::Tag("Site")),
    ("date", Col::Tag("Date")),
    ("round", Col::Tag("Round")),
    ("white", Col::Tag("White")),
    ("black", Col::Tag("Black")),
    ("result", Col::Tag("Result")),
    ("white_elo", Col::Elo("WhiteElo")),
    ("black_elo", Col::Elo("BlackElo")),
    ("time_control", Col::Tag("TimeControl")),
    ("base_time_s", Col::BaseTime),
    ("increment_s", Col::Increment),
    ("speed", Col::Speed),
    ("termination", Col::Tag("Termination")),
    ("eco", Col::Tag("ECO")),
    ("opening", Col::Tag("Opening")),
    ("utc_date", Col::Tag("UTCDate")),
    ("utc_time", Col::Tag("UTCTime")),
    ("start_fen", Col::Tag("FEN")),
    ("tags", Col::Tags),
    ("moves", Col::Moves),
    ("pgn", Col::Pgn),
    ("plies", Col::Plies),
    ("first_illegal_ply", Col::FirstIllegalPly),
    ("error_kind", Col::ErrorKind),
    ("error_message", Col::ErrorMessage),
    ("final_fen", Col::FinalFen),
    ("final_status", Col::FinalStatus),
    ("result_consistent", Col::ResultConsistent),
    ("classified_eco", Col::ClassifiedEco),
    ("classified_opening", Col::ClassifiedOpening),
    ("classified_ply", Col::ClassifiedPly),
];

fn tags_type() -> DataType {
    DataType::Map(
        Arc::new(Field::new(
            "entries",
            DataType::Struct(
                vec![
                    Field::new("keys", DataType::Utf8, false),
                    Field::new("values", DataType::Utf8, true),
                ]
                .into(),
            ),
            false,
        )),
        false,
    )
}

fn moves_type() -> DataType {
    DataType::List(Arc::new(Field::new("item", DataType::Utf8, true)))
}

fn field(name: &str, col: Col) -> Field {
    use DataType::*;
    let (t, nullable) = match col {
        Col::File | Col::Pgn => (Utf8, false),
        Col::GameIndex => (UInt64, false),
        Col::Tag(_)
        | Col::Speed
        | Col::ErrorKind
        | Col::ErrorMessage
        | Col::FinalFen
        | Col::FinalStatus
        | Col::ClassifiedEco
        | Col::ClassifiedOpening => (Utf8, true),
        Col::ClassifiedPly => (UInt32, true),
        Col::BaseTime | Col::Increment => (Float64, true),
        Col::Elo(_) => (Int32, true),
        Col::Tags => (tags_type(), false),
        Col::Moves => (moves_type(), false),
        Col::Plies | Col::FirstIllegalPly => (UInt32, col == Col::FirstIllegalPly),
        Col::ResultConsistent => (Boolean, false),
    };
    Field::new(name, t, nullable)
}

/// The Arrow schema of `read_pgn(path)`, one row per game, in this order:
///
/// | column | type | |
/// |---|---|---|
/// | `file` | Utf8 | the file as found (the path given, or below the directory / glob) |
/// | `game_index` | UInt64 | 0-based index of the game in its file |
/// | `event`, `site`, `date`, `round`, `white`, `black`, `result` | Utf8, nullable | the seven-tag roster (NULL when the tag is absent) |
/// | `white_elo`, `black_elo` | Int32, nullable | `WhiteElo` / `BlackElo` (NULL when absent or not an integer) |
/// | `time_control` | Utf8, nullable | the `TimeControl` tag |
/// | `base_time_s`, `increment_s` | Float64, nullable | the `TimeControl` tag's base time and increment, seconds ([`crate::pgn::time_control::parse_time_control`]: `180+2` is 180 and 2, `600` is 600 and 0; NULL when the tag is absent, `-`, `?`, of several periods or unreadable) |
/// | `speed` | Utf8, nullable | lichess's speed of the `TimeControl` tag ([`crate::pgn::time_control::speed`]): `ultraBullet`, `bullet`, `blitz`, `rapid`, `classical` by base + 40 × increment seconds (under 30, 180, 480, 1500), `correspondence` for `-`; NULL when absent or unreadable |
/// | `termination`, `eco`, `opening`, `utc_date`, `utc_time` | Utf8, nullable | tags `Termination`, `ECO`, `Opening`, `UTCDate`, `UTCTime` |
/// | `start_fen` | Utf8, nullable | the `FEN` tag (set-up position) |
/// | `tags` | Map<Utf8, Utf8> | every tag pair in file order (`tags['WhiteElo']`) |
/// | `moves` | List<Utf8> | the main line's move tokens as written (SAN, check marks kept, glyphs removed) |
/// | `pgn` | Utf8 | the game's text as it stands in the file, from its first tag pair through its termination marker, decoded as the reader decoded the game ([`RawGame::text`]); kept only when projected; what `sqlchess sql --format pgn` and `COPY … TO 'x.pgn'` write |
/// | `plies` | UInt32 | legal main-line plies applied (rules) |
/// | `first_illegal_ply` | UInt32, nullable | 1-based ply of the first illegal or unreadable move; 0 = the game could not be set up (rules) |
/// | `error_kind` | Utf8, nullable | see [`crate::validate::kind`] (rules) |
/// | `error_message` | Utf8, nullable | what is wrong, naming the game, ply and token (rules) |
/// | `final_fen` | Utf8, nullable | FEN of the last position reached (rules) |
/// | `final_status` | Utf8, nullable | `checkmate`, `stalemate`, `insufficient_material`, `seventyfive_moves`, `fivefold_repetition`, `fifty_moves`, `threefold_repetition`, `ongoing` (rules) |
/// | `result_consistent` | Boolean | false when the Result tag contradicts a checkmate or stalemate on the board (rules) |
/// | `classified_eco`, `classified_opening` | Utf8, nullable | the ECO code and name of the named opening ([`crate::sql::openings`], the `openings` table) at the deepest of the game's first 40 legal plies whose position (as an EPD, en passant square only when an en passant capture is legal) is a named one; transpositions count; NULL for a game with a `FEN` tag or when no position is named (openings) |
/// | `classified_ply` | UInt32, nullable | that ply (openings) |
///
/// The rules columns hold the values of `sqlchess validate`'s report
/// ([`crate::validate::GameReport`]); they are computed only when projected. The openings
/// columns replay each game up to ply 40 only (unless a rules column is projected too):
/// a named position reached after ply 40 is not looked for.
#[must_use]
pub fn read_pgn_schema() -> SchemaRef {
    Arc::new(Schema::new(
        COLUMNS
            .iter()
            .map(|(n, c)| field(n, *c))
            .collect::<Vec<_>>(),
    ))
}

/// Whether these columns of [`read_pgn_schema`] (indices) include `pgn`: the reader must
/// keep the games' text ([`crate::pgn::PgnReader::with_text`]).
pub(crate) fn needs_text(projection: &[usize]) -> bool {
    projection
        .iter()
        .any(|&i| COLUMNS.get(i).is_some_and(|(_, c)| *c == Col::Pgn))
}

/// Whether any of these columns of [`read_pgn_schema`] (indices) is a rules column (the
/// validation report's).
pub(crate) fn needs_rules(projection: &[usize]) -> bool {
    projection
        .iter()
        .any(|&i| COLUMNS.get(i).is_some_and(|(_, c)| c.needs_rules()))
}

/// The validation these columns of [`read_pgn_schema`] (indices) need: `None` without a
/// rules or openings column; with an openings column, the plies' positions (not their
/// notation), up to [`CLASSIFY_PLIES`] when no rules column is projected.
pub(crate) fn validation_for(projection: &[usize]) -> Option<ValidateOptions> {
    let rules = needs_rules(projection);
    let openings = needs_openings(projection);
    (rules || openings).then_some(ValidateOptions {
        plies: openings,
        // the classification reads the positions alone
        positions_only: true,
        max_plies: (openings && !rules).then_some(CLASSIFY_PLIES),
    })
}

/// Whether these columns of [`read_pgn_schema`] (indices) need the named openings.
pub(crate) fn needs_openings(projection: &[usize]) -> bool {
    projection
        .iter()
        .any(|&i| COLUMNS.get(i).is_some_and(|(_, c)| c.needs_openings()))
}

/// One record batch of the columns `projection` of [`read_pgn_schema`] (`schema`: the
/// projected schema) for a chunk of games, each with its file; `validation`, the games'
/// validation ([`validation_for`]), is needed when a rules or openings column is
/// projected, and `book` for an openings column.
///
/// Errors: [`DataFusionError::Internal`] for a rules column without validation, an
/// openings column without the book, or `pgn` for games read without their text; Arrow
/// errors.
pub(crate) fn games_batch(
    projection: &[usize],
    schema: &SchemaRef,
    games: &[(&str, RawGame)],
    validation: Option<&Validation>,
    book: Option<&Book>,
) -> datafusion::common::Result<RecordBatch> {
    let cols: Vec<Col> = projection
        .iter()
        .filter_map(|&i| COLUMNS.get(i).map(|c| c.1))
        .collect();
    let classified = match (cols.iter().any(|c| c.needs_openings()), validation, book) {
        (false, _, _) => vec![],
        (true, Some(v), Some(b)) => classifications(games, v, b)?,
        _ => {
            return Err(DataFusionError::Internal(
                "read_pgn: openings columns without validation or book".into(),
            ));
        }
    };
    let reports = validation.map(|v| v.reports.as_slice());
    let columns = cols
        .into_iter()
        .map(|c| match c {
            Col::ClassifiedEco => text_of(&classified, |o| o.eco.as_str()),
            Col::ClassifiedOpening => text_of(&classified, |o| o.name.as_str()),
            Col::ClassifiedPly => Ok(Arc::new(
                classified
                    .iter()
                    .map(|c| c.map(|(_, ply)| ply))
                    .collect::<UInt32Array>(),
            ) as ArrayRef),
            c => column(c, games, reports),
        })
        .collect::<datafusion::common::Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(games.len())),
    )?)
}

fn column(
    col: Col,
    games: &[(&str, RawGame)],
    reports: Option<&[GameReport]>,
) -> datafusion::common::Result<ArrayRef> {
    if col.needs_rules() {
        let Some(r) = reports else {
            return Err(DataFusionError::Internal(format!(
                "read_pgn: rules column {col:?} without validation"
            )));
        };
        return Ok(report_column(col, r));
    }
    Ok(match col {
        Col::File => Arc::new(StringArray::from_iter_values(games.iter().map(|(f, _)| *f))),
        Col::GameIndex => Arc::new(UInt64Array::from_iter_values(
            games.iter().map(|(_, g)| g.index as u64),
        )),
        Col::Elo(name) => Arc::new(
            games
                .iter()
                .map(|(_, g)| g.tag(name).and_then(|v| v.trim().parse::<i32>().ok()))
                .collect::<Int32Array>(),
        ),
        Col::BaseTime | Col::Increment => Arc::new(
            games
                .iter()
                .map(|(_, g)| {
                    let tc = g.tag("TimeControl").and_then(parse_time_control)?;
                    Some(if col == Col::BaseTime {
                        tc.base_s
                    } else {
                        tc.increment_s
                    })
                })
                .collect::<Float64Array>(),
        ),
        Col::Speed => Arc::new(
            games
                .iter()
                .map(|(_, g)| g.tag("TimeControl").and_then(speed).map(Speed::as_str))
                .collect::<StringArray>(),
        ),
        Col::Pgn => {
            let texts = games
                .iter()
                .map(|(file, g)| {
                    g.text.as_deref().ok_or_else(|| {
                        DataFusionError::Internal(format!(
                            "read_pgn: column pgn of game {} of {file} read without its text",
                            g.index
                        ))
                    })
                })
                .collect::<datafusion::common::Result<Vec<&str>>>()?;
            Arc::new(StringArray::from_iter_values(texts))
        }
        Col::Tags => {
            let mut b = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
            for (_, g) in games {
                for (k, v) in &g.tags {
                    b.keys().append_value(k);
                    b.values().append_value(v);
                }
                b.append(true)?;
            }
            Arc::new(b.finish())
        }
        Col::Moves => {
            let mut b = ListBuilder::new(StringBuilder::new());
            for (_, g) in games {
                for m in &g.moves {
                    b.values().append_value(m);
                }
                b.append(true);
            }
            Arc::new(b.finish())
        }
        // tags; the rules columns returned above
        _ => {
            let name = match col {
                Col::Tag(name) => name,
                _ => "",
            };
            Arc::new(
                games
                    .iter()
                    .map(|(_, g)| g.tag(name))
                    .collect::<StringArray>(),
            )
        }
    })
}

/// The classification of each game of a validated chunk ([`Book::classify`]); `None` for a
/// game with a `FEN` tag.
///
/// Errors: [`DataFusionError::Internal`] when the plies do not add up to the reports'.
fn classifications<'b>(
    games: &[(&str, RawGame)],
    validation: &Validation,
    book: &'b Book,
) -> datafusion::common::Result<Vec<Option<(&'b Opening, u32)>>> {
    let Some(by_game) = validation.plies_by_game() else {
        return Err(DataFusionError::Internal(format!(
            "read_pgn: {} ply rows for the plies reported",
            validation.ply_count()
        )));
    };
    Ok(games
        .iter()
        .zip(&validation.reports)
        .zip(by_game)
        .map(|(((_, g), r), plies)| {
            let standard = g.tag("FEN").is_none() && r.first_illegal_ply != Some(0);
            standard
                .then(|| book.classify(plies, r.final_fen.as_deref()))
                .flatten()
        })
        .collect())
}

/// A text column of the classifications (NULL where a game has none).
fn text_of(
    classified: &[Option<(&Opening, u32)>],
    f: fn(&Opening) -> &str,
) -> datafusion::common::Result<ArrayRef> {
    Ok(Arc::new(
        classified
            .iter()
            .map(|c| c.map(|(o, _)| f(o)))
            .collect::<StringArray>(),
    ))
}

/// A rules column from the validation reports of a chunk.
fn report_column(col: Col, reports: &[GameReport]) -> ArrayRef {
    let text = |f: fn(&GameReport) -> Option<&str>| {
        Arc::new(reports.iter().map(f).collect::<StringArray>()) as ArrayRef
    };
    match col {
        Col::Plies => Arc::new(UInt32Array::from_iter_values(
            reports.iter().map(|r| r.plies),
        )),
        Col::FirstIllegalPly => Arc::new(
            reports
                .iter()
                .map(|r| r.first_illegal_ply)
                .collect::<UInt32Array>(),
        ),
        Col::ErrorKind => text(|r| r.error_kind.map(ErrorKind::as_str)),
        Col::ErrorMessage => text(|r| r.error_message.as_deref()),
        Col::FinalFen => text(|r| r.final_fen.as_deref()),
        Col::FinalStatus => text(|r| r.final_status.map(FinalStatus::as_str)),
        _ => Arc::new(
            reports
                .iter()
                .map(|r| Some(r.result_consistent))
                .collect::<BooleanArray>(),
        ),
    }
}
