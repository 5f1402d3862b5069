//! `plies_of` and `validate_moves` over a Parquet movetext column against `read_plies` and
//! `read_pgn` over the PGN files the movetexts come from: the same rows for every game.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::{BooleanArray, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::prelude::SessionContext;
use sqlchess::pgn::movetext::read_movetext;
use sqlchess::pgn::{PgnFaultKind, PgnReader};
use sqlchess::validate::Variant;

use super::query;
pub use super::split_games::movetexts;

/// What [`functions_agree`] compared.
#[derive(Debug, Default)]
pub struct Compared {
    /// Games whose `validate_moves` row equals `read_pgn`'s.
    pub games: usize,
    /// Plies whose `plies_of` item equals `read_plies`' row.
    pub plies: usize,
    /// Games with a `Variant` tag of other rules (not expressible by `chess960`), left out.
    pub other_variants: usize,
    /// Games with a rules error (`first_illegal_ply` set).
    pub errors: usize,
    /// Games whose only fault is in their tag section (no error for their movetext).
    pub tag_faults: usize,
    /// Files whose games [`movetexts`] does not split as the reader does, and files that
    /// are not text (refused by `read_pgn`), left out.
    pub skipped: Vec<PathBuf>,
}

/// The text of a PGN file as the reader decodes it: UTF-8, else Windows-1252.
fn decoded(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(t) => t.to_string(),
        Err(_) => encoding_rs::WINDOWS_1252.decode(bytes).0.into_owned(),
    }
}

/// The text of every cell, row by row (NULL as "NULL").
pub fn cells(batches: &[RecordBatch]) -> Vec<Vec<String>> {
    use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
    let mut out = vec![];
    for b in batches {
        let options = FormatOptions::default().with_null("NULL");
        let cols: Vec<_> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).expect("formatter"))
            .collect();
        for i in 0..b.num_rows() {
            out.push(cols.iter().map(|c| c.value(i).to_string()).collect());
        }
    }
    out
}

/// Rows keyed by their first two cells (file, game index), the rest in order.
fn by_game(rows: Vec<Vec<String>>) -> BTreeMap<(String, String), Vec<Vec<String>>> {
    let mut out: BTreeMap<(String, String), Vec<Vec<String>>> = BTreeMap::new();
    for mut r in rows {
        let rest = r.split_off(2);
        out.entry((r[0].clone(), r[1].clone()))
            .or_default()
            .push(rest);
    }
    out
}

/// The rules columns of a `validate_moves` struct `v` and of `read_pgn` (its message
/// without the `game N: ` prefix): plies, first illegal ply, error kind and message, final
/// FEN and status.
const RULES: &str = "plies, first_illegal_ply, error_kind, error_message, final_fen, final_status";

/// The columns of a `plies_of` item, as `read_plies` names them.
pub const PLY_COLUMNS: &str = "ply, san, uci, fen_after, position_key, is_capture, is_check, \
     is_checkmate, clock_s, eval_cp, eval_mate";

/// For every game of `files` (split by [`movetexts`], files it splits otherwise left out):
/// the movetext, start FEN (the `FEN` tag) and `chess960` (the `Variant` tag) in a Parquet
/// file in `dir`, then `validate_moves` and `plies_of` over it give `read_pgn`'s rules
/// columns and `read_plies`' rows of the same game (`result_consistent` where the `Result`
/// tag is the movetext's result marker, as then the same; no error where the game's fault
/// is in its tag section, not in the movetext), and `plies_of` is NULL exactly
/// for the games that cannot be set up. Panics naming the game at the first difference.
pub async fn functions_agree(ctx: &SessionContext, files: &[PathBuf], dir: &Path) -> Compared {
    let mut compared = Compared::default();
    let (mut file_col, mut index_col, mut text_col, mut fen_col, mut c960_col) =
        (vec![], vec![], vec![], vec![], vec![]);
    let mut want_games = vec![];
    let mut want_plies = vec![];
    for f in files {
        let path = f.display().to_string();
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{path}: {e}"));
        // a file that is not text at all is refused whole by read_pgn
        if sqlchess::io::input::not_text(&bytes[..bytes.len().min(64 * 1024)]).is_some() {
            compared.skipped.push(f.clone());
            continue;
        }
        let texts = movetexts(&decoded(&bytes));
        let q = format!(
            "SELECT file, game_index, {RULES}, result_consistent, result, start_fen, \
             tags['Variant'] FROM read_pgn('{path}') ORDER BY game_index"
        );
        let rows = cells(&query(ctx, &q).await);
        let read: Vec<_> = PgnReader::new(&bytes[..])
            .map(|g| g.expect("read"))
            .collect();
        if rows.len() != texts.len() || read.len() != texts.len() {
            compared.skipped.push(f.clone());
            continue;
        }
        let plies = format!(
            "SELECT file, game_index, {PLY_COLUMNS} FROM read_plies('{path}') \
             ORDER BY game_index, ply"
        );
        want_plies.extend(cells(&query(ctx, &plies).await));
        for ((row, text), game) in rows.into_iter().zip(texts).zip(read) {
            let variant = (row[11] != "NULL").then(|| Variant::of(&row[11]));
            if variant == Some(Variant::Unsupported) {
                assert_eq!(row[4], "unsupported_variant", "{path} #{}", row[1]);
                compared.other_variants += 1;
                continue;
            }
            // the rules columns; result_consistent when the Result tag is the marker's
            let marker = read_movetext(&text, false).result;
            let mut want = row[..9].to_vec();
            want[5] = want[5]
                .split_once(": ")
                .map_or(want[5].clone(), |(_, rest)| rest.to_string());
            let tag = (row[9] != "NULL").then_some(row[9].as_str());
            if marker.as_deref() != tag {
                want[8] = "-".into();
            }
            // a fault of the tag section is not in the movetext: no error there
            let fault = game.fault.map(|f| f.kind);
            if matches!(
                fault,
                Some(PgnFaultKind::BadTag | PgnFaultKind::TruncatedTag)
            ) && row[4] == "syntax"
                && row[3] == (game.moves.len() + 1).to_string()
            {
                want[3..6].fill("NULL".into());
                compared.tag_faults += 1;
            }
            compared.errors += usize::from(want[3] != "NULL");
            want.push((row[3] == "0").to_string());
            want_games.push(want);
            file_col.push(path.clone());
            index_col.push(row[1].parse::<u64>().expect("game index"));
            text_col.push(text);
            fen_col.push((row[10] != "NULL").then(|| row[10].clone()));
            c960_col.push(variant == Some(Variant::Chess960));
        }
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("file", DataType::Utf8, false),
        Field::new("game_index", DataType::UInt64, false),
        Field::new("movetext", DataType::Utf8, false),
        Field::new("start_fen", DataType::Utf8, true),
        Field::new("chess960", DataType::Boolean, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(StringArray::from(file_col)),
            Arc::new(UInt64Array::from(index_col)),
            Arc::new(StringArray::from(text_col)),
            Arc::new(StringArray::from(fen_col)),
            Arc::new(BooleanArray::from(c960_col)),
        ],
    )
    .expect("batch");
    let parquet = dir.join("games.parquet").display().to_string();
    ctx.read_batch(batch)
        .expect("frame")
        .write_parquet(&parquet, DataFrameWriteOptions::new(), None)
        .await
        .expect("write parquet");
    ctx.register_parquet("movetexts", &parquet, Default::default())
        .await
        .expect("register");
    let args = "movetext, start_fen, chess960";
    let v: Vec<String> = RULES.split(", ").map(|c| format!("v.{c}")).collect();
    let q = format!(
        "SELECT file, game_index, {}, v.result_consistent, p IS NULL \
         FROM (SELECT file, game_index, validate_moves({args}) AS v, plies_of({args}) AS p \
         FROM movetexts) ORDER BY file, game_index",
        v.join(", ")
    );
    let got = cells(&query(ctx, &q).await);
    assert_eq!(got.len(), want_games.len(), "games");
    // in the query's order
    want_games.sort_by_cached_key(|w| (w[0].clone(), w[1].parse::<u64>().unwrap_or(0)));
    for (mut got, want) in got.into_iter().zip(want_games) {
        if want[8] == "-" {
            got[8] = "-".into();
        }
        assert_eq!(got, want, "validate_moves against read_pgn");
        compared.games += 1;
    }
    let p: Vec<String> = PLY_COLUMNS.split(", ").map(|c| format!("p.{c}")).collect();
    let q = format!(
        "SELECT file, game_index, {} FROM (SELECT file, game_index, \
         unnest(plies_of({args})) AS p FROM movetexts) ORDER BY file, game_index, p.ply",
        p.join(", ")
    );
    let got = by_game(cells(&query(ctx, &q).await));
    let want = by_game(want_plies);
    for (game, rows) in &got {
        assert_eq!(
            Some(rows),
            want.get(game),
            "plies_of against read_plies: {game:?}"
        );
        compared.plies += rows.len();
    }
    assert_eq!(got.len(), want.len(), "games with plies");
    compared
}
