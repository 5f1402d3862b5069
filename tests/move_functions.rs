//! `plies_of` and `validate_moves`, the rules over any table's move column: over a Parquet
//! movetext column (the text after each game's tag section of every `tests/data/pgn` file,
//! malformed ones included) they give `read_plies`' and `read_pgn`'s rows of the same
//! games; SAN and UCI lists; text that is not PGN, bad FENs, NULLs, the empty string and
//! the planning errors.

use crate::common;

use common::movetext::{Compared, cells, functions_agree};
use common::{data, pgn_files, query, rt, scratch};
use sqlchess::sql;

/// The files of `tests/data/pgn` the test's splitter cuts otherwise than the reader: their
/// games are not compared (the reader's own tests pin them).
const NOT_SPLIT_ALIKE: [&str; 1] = [
    // a run of binary bytes between games is a game of its own for the reader
    "binary_between_games.pgn",
];

#[test]
fn functions_over_a_parquet_movetext_column_give_read_plies_and_read_pgn_rows() {
    let dir = scratch("movetext");
    let files = pgn_files(&data("pgn"));
    let started = std::time::Instant::now();
    let c: Compared = rt().block_on(async {
        let ctx = sql::context();
        functions_agree(&ctx, &files, &dir).await
    });
    eprintln!("{c:?} in {:?}", started.elapsed());
    let skipped: Vec<String> = c
        .skipped
        .iter()
        .filter_map(|f| f.file_name().map(|n| n.to_string_lossy().into_owned()))
        .collect();
    assert_eq!(skipped, NOT_SPLIT_ALIKE, "files split otherwise");
    // every game of the other files: illegal moves, syntax errors, reader faults and bad
    // FEN tags among them
    assert_eq!(
        (c.games, c.plies, c.errors, c.tag_faults, c.other_variants),
        (249, 13_246, 26, 3, 0),
        "{c:?}"
    );
}

/// The text of the one row of `q` on a fresh session, cell by cell.
fn row(q: &str) -> Vec<String> {
    rt().block_on(async {
        let ctx = sql::context();
        let mut rows = cells(&query(&ctx, q).await);
        assert_eq!(rows.len(), 1, "{q}");
        rows.remove(0)
    })
}

/// The planning error of `q`.
fn plan_error(q: &str) -> String {
    rt().block_on(async {
        let ctx = sql::context();
        match ctx.sql(q).await {
            Ok(df) => match df.collect().await {
                Ok(_) => panic!("{q}: no error"),
                Err(e) => e.to_string(),
            },
            Err(e) => e.to_string(),
        }
    })
}

#[test]
fn san_and_uci_lists_give_the_rows_of_the_movetext() {
    rt().block_on(async {
        let ctx = sql::context();
        for f in ["sample.pgn", "queries.pgn", "illegal_moves.pgn"] {
            let path = data(&format!("pgn/{f}")).display().to_string();
            let chess960 =
                "coalesce(lower(tags['Variant']) IN ('chess960', 'fischerandom'), false)";
            // read_pgn's SAN tokens: its own rules columns (result_consistent aside: a list
            // has no result marker)
            let got = format!(
                "SELECT game_index, v.plies, v.first_illegal_ply, v.error_kind, \
                 v.error_message, v.final_fen, v.final_status FROM \
                 (SELECT game_index, validate_moves(moves, start_fen, {chess960}) AS v \
                 FROM read_pgn('{path}')) ORDER BY game_index"
            );
            let want = format!(
                "SELECT game_index, plies, first_illegal_ply, error_kind, \
                 regexp_replace(error_message, '^game [0-9]+: ', ''), final_fen, \
                 final_status FROM read_pgn('{path}') ORDER BY game_index"
            );
            let (got, want) = (
                cells(&query(&ctx, &got).await),
                cells(&query(&ctx, &want).await),
            );
            assert!(!want.is_empty());
            assert_eq!(got, want, "{f}: validate_moves(moves)");
            // read_plies' UCI, game by game: its plies again (no comments: no clock, eval)
            let columns = "ply, san, uci, fen_after, position_key, is_capture, is_check, \
                 is_checkmate";
            let p: Vec<String> = columns.split(", ").map(|c| format!("p.{c}")).collect();
            let got = format!(
                "WITH u AS (SELECT game_index, array_agg(uci ORDER BY ply) AS ucis \
                 FROM read_plies('{path}') GROUP BY game_index), \
                 g AS (SELECT game_index, start_fen, {chess960} AS c FROM read_pgn('{path}')) \
                 SELECT game_index, {} FROM (SELECT game_index, \
                 unnest(plies_of(u.ucis, g.start_fen, g.c)) AS p FROM u JOIN g USING \
                 (game_index)) ORDER BY game_index, p.ply",
                p.join(", ")
            );
            let want = format!(
                "SELECT game_index, {columns} FROM read_plies('{path}') ORDER BY game_index, ply"
            );
            let (got, want) = (
                cells(&query(&ctx, &got).await),
                cells(&query(&ctx, &want).await),
            );
            assert!(!want.is_empty());
            assert_eq!(got, want, "{f}: plies_of(UCI list)");
        }
    });
}

#[test]
fn text_that_is_not_pgn_is_the_syntax_error_read_pgn_reports() {
    let dir = scratch("not-pgn");
    let texts = [
        "hello world",
        "1. e4 e5 2. Nf3 {unterminated",
        "1. e4 (1. d4 d5 2. c4",
        "1. e4 e5 ) 2. Nf3",
        "1. e4 } e5",
        "1. e4 e5 2. Ke3 1-0",
        "1. e4 e5\n2. Nf3 \u{1} Nc6",
        "1. e4 e5 1-0 2. Nf3 Nc6",
        "1. e4 e5 [Event \"next\"] 2. Nf3",
    ];
    rt().block_on(async {
        let ctx = sql::context();
        for (i, text) in texts.iter().enumerate() {
            let got = format!(
                "SELECT v.plies, v.first_illegal_ply, v.error_kind, v.error_message, \
                 v.final_fen, v.final_status FROM (SELECT validate_moves(m) AS v FROM \
                 (VALUES ('{}')) AS t(m))",
                text.replace('\'', "''")
            );
            let got = cells(&query(&ctx, &got).await);
            let ctx_text = format!("{text:?}: {got:?}");
            if i < 7 {
                // a PGN file of the text alone: read_pgn's one game
                let file = dir.join(format!("{i}.pgn"));
                std::fs::write(&file, text).expect("write");
                let want = format!(
                    "SELECT plies, first_illegal_ply, error_kind, \
                     regexp_replace(error_message, '^game [0-9]+: ', ''), final_fen, \
                     final_status FROM read_pgn('{}')",
                    file.display()
                );
                let want = cells(&query(&ctx, &want).await);
                assert_eq!(got, want, "{ctx_text}");
                if i != 5 {
                    assert_eq!(got[0][2], "syntax", "{ctx_text}");
                }
            } else {
                // text after the end of the game: a syntax error after its 2 plies
                assert_eq!(got[0][..3], ["2", "3", "syntax"], "{ctx_text}");
                assert!(
                    got[0][3].contains("after the end of the game"),
                    "{ctx_text}"
                );
            }
        }
    });
    // plies_of gives the plies before the fault
    let r = row("SELECT cardinality(plies_of('1. e4 e5 1-0 2. Nf3')), \
                 cardinality(plies_of('hello'))");
    assert_eq!(r, ["2", "0"]);
}

#[test]
fn bad_fens_nulls_and_the_empty_string() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    // a bad start FEN in a column: NULL plies, a setup error at ply 0 as for a FEN tag
    let r = row(
        "SELECT plies_of(m, f) IS NULL, v.plies, v.first_illegal_ply, v.error_kind, \
         v.error_message, v.final_fen FROM (SELECT m, f, validate_moves(m, f) AS v FROM \
         (VALUES ('1. e4', 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1')) \
         AS t(m, f))",
    );
    assert_eq!(r[..4], ["true", "0", "0", "setup"]);
    // the field named once: "FEN tag placement: …", never "placement: placement: …"
    assert!(r[4].starts_with("FEN tag placement: "), "{r:?}");
    assert!(!r[4].contains("placement: placement"), "{r:?}");
    assert_eq!(r[5], "NULL");
    // a position no game reaches (the side not to move in check): the engine's set-up check
    let r = row(
        "SELECT plies_of(m, f) IS NULL, validate_moves(m, f)['error_kind'] FROM \
         (VALUES ('Kh1', 'r3k3/8/8/8/8/8/8/4R1K1 w - - 0 1')) AS t(m, f)",
    );
    assert_eq!(r, ["true", "setup"]);
    // NULL moves: NULL; NULL start FEN and chess960: the standard game
    let r = row("SELECT plies_of(m) IS NULL, validate_moves(m) IS NULL, \
         validate_moves('1. e4', f, c)['final_fen'], cardinality(plies_of('1. e4 e5', f, c)) \
         FROM (VALUES (CAST(NULL AS VARCHAR), CAST(NULL AS VARCHAR), CAST(NULL AS BOOLEAN))) \
         AS t(m, f, c)");
    assert_eq!(
        r,
        [
            "true",
            "true",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "2"
        ]
    );
    // the empty string (and text without moves): a game of no moves, from the start FEN
    for text in ["", "{a comment only}", "1-0"] {
        let r = row(&format!(
            "SELECT cardinality(plies_of('{text}')), validate_moves('{text}')['plies'], \
             validate_moves('{text}')['error_kind'], validate_moves('{text}')['final_fen'], \
             validate_moves('{text}')['final_status']"
        ));
        assert_eq!(r, ["0", "0", "NULL", start, "ongoing"], "{text:?}");
    }
    // a list with a NULL token: an unreadable token at its ply
    let r = row("SELECT validate_moves(['e4', NULL])['first_illegal_ply'], \
         validate_moves(['e4', NULL])['error_kind'], cardinality(plies_of(['e2e4', NULL]))");
    assert_eq!(r, ["2", "syntax", "1"]);
    // Utf8View and LargeUtf8 arguments; chess960 true is a Variant tag
    let r = row(&format!(
        "SELECT cardinality(plies_of(arrow_cast('1. e4 e5', 'Utf8View'), \
         arrow_cast('{start}', 'LargeUtf8'), true)), \
         validate_moves(arrow_cast('1. e4 e5 2. Qh5', 'LargeUtf8'))['plies']"
    ));
    assert_eq!(r, ["2", "3"]);
    // a Chess960 start position with castling rights of the h- and b-files
    let r = row("SELECT validate_moves('1. O-O', \
         'rk5r/8/8/8/8/8/8/RK5R w KQkq - 0 1', true)['final_fen']");
    assert_eq!(r, ["rk5r/8/8/8/8/8/8/R4RK1 b kq - 1 1"]);
}

#[test]
fn bad_literal_arguments_are_planning_errors_naming_them() {
    for (q, want) in [
        (
            "SELECT plies_of('1. e4', 'not a fen')",
            "plies_of: argument 2, the start FEN \"not a fen\", is not a valid position",
        ),
        (
            "SELECT validate_moves('1. e4', NULL, 'yes')",
            "validate_moves: argument 3 (chess960) must be a Boolean, not Utf8",
        ),
        (
            "SELECT plies_of(42)",
            "plies_of: argument 1 (moves) must be a string (movetext) or a list of strings",
        ),
        (
            "SELECT validate_moves('e4', NULL, false, 1)",
            "validate_moves(moves [, start_fen [, chess960]]) takes 1 to 3 arguments, not 4",
        ),
        ("SELECT plies_of()", "takes 1 to 4 arguments, not 0"),
        (
            "SELECT plies_of('1. e4', NULL, false, 'ply', 1)",
            "plies_of(moves [, start_fen [, chess960 [, fields]]]) takes 1 to 4 arguments, not 5",
        ),
        (
            "SELECT plies_of('1. e4', NULL, NULL, 'ply, colour')",
            "plies_of: argument 4 (fields) names \"colour\", not a field of the items (ply, san,",
        ),
        (
            "SELECT plies_of('1. e4', NULL, NULL, '')",
            "plies_of: argument 4 (fields) names an empty field name (ply, san,",
        ),
        (
            "SELECT plies_of('1. e4', NULL, NULL, 'ply,,san')",
            "plies_of: argument 4 (fields) names an empty field name",
        ),
        (
            "SELECT plies_of('1. e4', NULL, NULL, 'ply, san ,ply')",
            "plies_of: argument 4 (fields) names \"ply\" twice",
        ),
        (
            "SELECT plies_of(m, NULL, NULL, m) FROM (VALUES ('1. e4')) t(m)",
            "plies_of: argument 4 (fields) must be a string literal naming the item's fields",
        ),
        (
            "SELECT plies_of('1. e4', NULL, NULL, 4)",
            "plies_of: argument 4 (fields) must be a string (field names), not Int64",
        ),
    ] {
        let e = plan_error(q);
        assert!(e.contains(want), "{q}: {e}");
    }
}

/// The movetexts of a game with clocks and evals, a checkmate, an illegal move and a
/// Chess960-free standard game, as a table `t(m)`.
const GAMES: &str = "(VALUES \
     ('1. e4 {[%clk 0:03:00] [%eval 0.3]} e5 {[%clk 0:02:58] [%eval #-4]} 2. Qh5 Nc6 \
       3. Bc4 Nf6 4. Qxf7# 1-0'), \
     ('1. d4 d5 2. c4 {[%eval -0.12]} dxc4 3. Nf3 Nf6 4. e3 Bg4 5. Bxc4 e6 *'), \
     ('1. e4 e5 2. Ke3 Nc6 3. Kf5 *')) t(m)";

/// A query that reads some fields of the unnested items gets them from a `plies_of` that
/// computes only those (the optimizer rule gives it its `fields` argument, EXPLAIN shows
/// it), with the values of the call that computes them all; a query that reads the whole
/// item is left as it is.
#[test]
fn a_query_reading_some_fields_gets_the_values_of_the_whole_item() {
    rt().block_on(async {
        let ctx = sql::context();
        let all = "ply,san,uci,fen_after,position_key,is_capture,is_check,is_checkmate,\
                   clock_s,eval_cp,eval_mate";
        for (fields, narrowed) in [
            ("position_key", "position_key"),
            ("clock_s, eval_mate", "clock_s,eval_mate"),
            ("fen_after, san, ply", "ply,san,fen_after"),
            ("is_checkmate, eval_cp, uci", "uci,is_checkmate,eval_cp"),
        ] {
            let read: Vec<String> = fields.split(", ").map(|f| format!("p['{f}']")).collect();
            let q = |call: &str| {
                format!(
                    "SELECT {} FROM (SELECT unnest({call}) AS p FROM {GAMES})",
                    read.join(", ")
                )
            };
            let (got, want) = (
                q("plies_of(m)"),
                q(&format!("plies_of(m, NULL, NULL, '{all}')")),
            );
            let plan = cells(&query(&ctx, &format!("EXPLAIN {got}")).await);
            let plan: String = plan.iter().map(|r| r.join(" ")).collect();
            assert!(
                plan.contains(&format!(
                    "plies_of(t.m, Utf8(NULL), Boolean(NULL), Utf8(\"{narrowed}\"))"
                )),
                "{got}: {plan}"
            );
            let (got, want) = (
                cells(&query(&ctx, &got).await),
                cells(&query(&ctx, &want).await),
            );
            assert_eq!(got.len(), 19, "{fields}");
            assert_eq!(got, want, "{fields}");
        }
        // the whole item, and a field read besides it: all eleven fields, no fields argument
        let q = format!("SELECT p, p['san'] FROM (SELECT unnest(plies_of(m)) AS p FROM {GAMES})");
        let plan = cells(&query(&ctx, &format!("EXPLAIN {q}")).await);
        let plan: String = plan.iter().map(|r| r.join(" ")).collect();
        assert!(plan.contains("plies_of(t.m) AS"), "{plan}");
        let got = cells(&query(&ctx, &q).await);
        assert!(
            got[0][0].contains("eval_mate") && got[0][0].contains("fen_after"),
            "{got:?}"
        );
        assert_eq!(got[1][1], "e5");
    });
}

/// A batch of more games than a part holds (2 × 256) is cut into parts by its games'
/// lengths, longest first, one engine each, and its values come back in row order: equal to
/// a session with one engine, where the batch is one part in row order.
#[test]
fn a_batch_cut_into_parts_gives_each_row_its_own_game() {
    use datafusion::arrow::array::{RecordBatch, StringArray, UInt32Array};
    use datafusion::arrow::datatypes::{DataType, Field, Schema};
    use sqlchess::session::PipelineConfig;
    use std::sync::Arc;

    let mut texts = vec![];
    for f in pgn_files(&data("pgn")) {
        if let Ok(text) = std::fs::read_to_string(&f) {
            texts.extend(common::movetext::movetexts(&text));
        }
    }
    assert!(texts.len() > 100, "{}", texts.len());
    // 800 rows, the games in a scrambled order
    let rows: Vec<&str> = (0..800)
        .map(|i| texts[(i * 37) % texts.len()].as_str())
        .collect();
    let schema = Arc::new(Schema::new(vec![
        Field::new("row", DataType::UInt32, false),
        Field::new("m", DataType::Utf8, false),
    ]));
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(UInt32Array::from_iter_values(0..800)),
            Arc::new(StringArray::from(rows)),
        ],
    )
    .expect("batch");
    let q = "SELECT row, validate_moves(m), plies_of(m), cardinality(plies_of(m)) FROM t \
             ORDER BY row";
    let run = |engines: usize| {
        let batch = batch.clone();
        rt().block_on(async move {
            let ctx = sql::context_with(&PipelineConfig {
                target_partitions: engines,
                ..PipelineConfig::default()
            });
            ctx.register_batch("t", batch).expect("register");
            cells(&query(&ctx, q).await)
        })
    };
    let (two, one) = (run(2), run(1));
    assert_eq!(two.len(), 800);
    for (a, b) in two.iter().zip(&one) {
        assert_eq!(a, b, "row {}", a[0]);
    }
}
