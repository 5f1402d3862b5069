//! The position functions of issue 34 against python-chess: `attacks`, `pins`, `checkers`,
//! `hanging` on every position of `tests/data/position_queries_oracle.tsv.gz` (the 20,000
//! oracle positions of the shared data and the shared standard games every tenth ply,
//! 58,178 positions; python-chess's rows per position as a count and an FNV-1a hash of the
//! sorted rows, made by `tests/data/make_position_queries_oracle.py`); `matches_subfen`,
//! `imbalance` and `material_matches` on every position of that file against the same
//! rules computed here from the FEN's board (a few lines each, independent of the stages),
//! with pgn-extract's manual examples; bad arguments.

use crate::common;

use std::io::Read;
use std::sync::Arc;

use common::{data, query, rt};
use datafusion::arrow::array::{Array, AsArray, RecordBatch, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::MemTable;
use datafusion::prelude::SessionContext;
use sqlchess::sql;

/// One oracle line: the FEN and per function (attacks, pins, checkers, hanging) the row
/// count and hash.
struct Expected {
    fen: String,
    counts: [usize; 4],
    hashes: [String; 4],
}

fn oracle() -> Vec<Expected> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(data("position_queries_oracle.tsv.gz")).expect("oracle file"),
    )
    .read_to_string(&mut text)
    .expect("gzip");
    text.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 10, "{l}");
            Expected {
                fen: f[0].to_string(),
                counts: [2, 4, 6, 8].map(|i| f[i].parse().expect("count")),
                hashes: [3, 5, 7, 9].map(|i| f[i].to_string()),
            }
        })
        .collect()
}

/// 64-bit FNV-1a, as the oracle script hashes.
fn fnv1a(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A context with the FENs as table `t(fen)`.
fn context_with_fens(fens: &[&str]) -> SessionContext {
    let ctx = sql::context();
    let schema = Arc::new(Schema::new(vec![Field::new("fen", DataType::Utf8, true)]));
    let batches: Vec<RecordBatch> = fens
        .chunks(4096)
        .map(|c| {
            RecordBatch::try_new(
                schema.clone(),
                vec![Arc::new(
                    c.iter().map(|f| Some(*f)).collect::<StringArray>(),
                )],
            )
            .expect("batch")
        })
        .collect();
    ctx.register_table(
        "t",
        Arc::new(MemTable::try_new(schema, vec![batches]).expect("table")),
    )
    .expect("register");
    ctx
}

/// The canonical lines of one list value (the oracle's row format: the struct's fields
/// separated by spaces, NULL as `-`), sorted.
fn canonical(list: &dyn Array) -> Vec<String> {
    let s = list.as_struct();
    let mut lines: Vec<String> = (0..s.len())
        .map(|i| {
            s.columns()
                .iter()
                .map(|c| {
                    if c.is_null(i) {
                        "-".to_string()
                    } else if let Some(t) = c.as_string_opt::<i32>() {
                        t.value(i).to_string()
                    } else {
                        c.as_primitive::<datafusion::arrow::datatypes::UInt8Type>()
                            .value(i)
                            .to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn attacks_pins_checkers_hanging_equal_python_chess() {
    let expected = oracle();
    assert_eq!(expected.len(), 58_178);
    let fens: Vec<&str> = expected.iter().map(|e| e.fen.as_str()).collect();
    let ctx = context_with_fens(&fens);
    let batches = rt().block_on(query(
        &ctx,
        "SELECT fen, attacks(fen), pins(fen), checkers(fen), hanging(fen) FROM t",
    ));
    let by_fen: std::collections::HashMap<&str, &Expected> =
        expected.iter().map(|e| (e.fen.as_str(), e)).collect();
    let names = ["attacks", "pins", "checkers", "hanging"];
    let (mut seen, mut failures, mut nonzero) = (0, vec![], [0usize; 4]);
    for b in &batches {
        let fens = b.column(0).as_string::<i32>();
        for row in 0..b.num_rows() {
            let e = by_fen[fens.value(row)];
            seen += 1;
            for k in 0..4 {
                let list = b.column(k + 1).as_list::<i32>();
                assert!(list.is_valid(row), "{}: {} NULL", e.fen, names[k]);
                let lines = canonical(list.value(row).as_ref());
                nonzero[k] += usize::from(!lines.is_empty());
                let hash = fnv1a(&lines.join("\n"));
                if lines.len() != e.counts[k] || hash != e.hashes[k] {
                    failures.push(format!(
                        "{} {}: {} rows (python-chess {}):\n  {}",
                        e.fen,
                        names[k],
                        lines.len(),
                        e.counts[k],
                        lines.join("\n  ")
                    ));
                }
            }
        }
    }
    assert_eq!(seen, expected.len());
    assert!(
        failures.is_empty(),
        "{} differences, first: {}",
        failures.len(),
        failures
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    // the file exercises every function (counts from the oracle script's run)
    assert_eq!(nonzero[0], expected.len());
    assert_eq!(nonzero[1], 8_806);
    assert_eq!(nonzero[2], 4_601);
    assert_eq!(nonzero[3], 21_573);
}

/// Pieces per colour (0 White, 1 Black) and kind (P N B R Q K) of a FEN's board.
fn counts(fen: &str) -> [[i64; 6]; 2] {
    let mut c = [[0i64; 6]; 2];
    for ch in board_of(fen).iter().flatten() {
        if let Some(k) = "PNBRQK".find(ch.to_ascii_uppercase()) {
            c[usize::from(ch.is_ascii_lowercase())][k] += 1;
        }
    }
    c
}

/// Scoutfish's imbalance, from the counts.
fn imbalance_of(c: &[[i64; 6]; 2]) -> String {
    let side = |a: usize, b: usize| -> String {
        [(4, 'Q'), (3, 'R'), (2, 'B'), (1, 'N'), (0, 'P')]
            .iter()
            .map(|(k, l)| l.to_string().repeat((c[a][*k] - c[b][*k]).max(0) as usize))
            .collect()
    };
    format!("{}v{}", side(0, 1), side(1, 0))
}

/// The FEN piece letter on each square (a1 = 0) of a FEN's board, as shakmaty reads it.
fn board_of(fen: &str) -> [Option<char>; 64] {
    let setup = shakmaty::fen::Fen::from_ascii(fen.as_bytes())
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .into_setup();
    let mut board = [None; 64];
    for (square, piece) in setup.board {
        board[u32::from(square) as usize] = Some(piece.char());
    }
    board
}

#[test]
fn imbalance_and_subfen_on_every_oracle_position() {
    let expected = oracle();
    let fens: Vec<&str> = expected.iter().map(|e| e.fen.as_str()).collect();
    let ctx = context_with_fens(&fens);
    // patterns: a white king on g1 with pawns f2 g2 h2 (castled short), Black to move; and a
    // black queen on d8 or a white queen on d1 (a list: any)
    let batches = rt().block_on(query(
        &ctx,
        "SELECT fen, imbalance(fen),
                matches_subfen(fen, '8/8/8/8/8/8/5PPP/6K1', 'b'),
                matches_subfen(fen, ['3q4/8/8/8/8/8/8/8', '8/8/8/8/8/8/8/3Q4'])
         FROM t",
    ));
    let (mut seen, mut castled, mut queens) = (0, 0, 0);
    for b in &batches {
        let fens = b.column(0).as_string::<i32>();
        let imb = b.column(1).as_string::<i32>();
        let short = b.column(2).as_boolean();
        let queen = b.column(3).as_boolean();
        for row in 0..b.num_rows() {
            let fen = fens.value(row);
            seen += 1;
            assert_eq!(imb.value(row), imbalance_of(&counts(fen)), "{fen}");
            let board = board_of(fen);
            let black = fen.split(' ').nth(1) == Some("b");
            let want_short = black
                && board[6] == Some('K')
                && board[13] == Some('P')
                && board[14] == Some('P')
                && board[15] == Some('P');
            assert_eq!(short.value(row), want_short, "{fen}");
            let want_queen = board[59] == Some('q') || board[3] == Some('Q');
            assert_eq!(queen.value(row), want_queen, "{fen}");
            castled += usize::from(want_short);
            queens += usize::from(want_queen);
        }
    }
    assert_eq!(seen, expected.len());
    assert!(castled > 100 && queens > 1000, "{castled} {queens}");
}

/// pgn-extract's manual examples on positions where each holds and a near miss.
#[test]
fn material_matches_the_manual_examples() {
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let cases: &[(&str, &str, bool)] = &[
        // a lone rook and pawn against a lone knight and bishop, either colour (-z)
        ("rp nb", "4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1", false),
        ("rp nb", "4k3/8/2nb4/8/8/8/4P3/R3K3 w - - 0 1", true),
        ("rp nb", "4k3/4p3/2r5/8/8/8/8/1NB1K3 w - - 0 1", true),
        ("bn pr", "4k3/4p3/2r5/8/8/8/8/1NB1K3 w - - 0 1", true),
        ("k p", "4k3/4p3/8/8/8/8/8/4K3 w - - 0 1", true),
        ("k p", "4k3/4p3/8/8/8/8/4P3/4K3 w - - 0 1", false),
        ("QR2B2N2P8 QR2B2N2P8", start, true),
        ("QR2B2N2P8 QR2B2N2P7", start, false),
        // rooks and pawns, an equal non-zero number of rooks, unbalanced pawns
        ("R+P+ R=P#", "r3k3/ppp5/8/8/8/8/PP6/R3K3 w - - 0 1", true),
        ("R+P+ R=P#", "r3k3/pp6/8/8/8/8/PP6/R3K3 w - - 0 1", false),
        // two rooks each, one side exactly one pawn more
        (
            "r2p* r=p1>=",
            "r2rk3/ppp5/8/8/8/8/PP6/R2RK3 w - - 0 1",
            true,
        ),
        (
            "r2p* r=p1>=",
            "r2rk3/pppp4/8/8/8/8/PP6/R2RK3 w - - 0 1",
            false,
        ),
        // a rook and pawn sacrificed for two minor pieces, queens balanced
        (
            "q*r+l*p+ q=r1<=l2>=p1<",
            "r3k3/pp6/8/8/8/2NB4/PPP5/R2RK3 w - - 0 1",
            false,
        ),
        (
            "q*r+l*p+ q=r1<=l2>=p1<",
            "r2rk3/ppp5/8/8/8/2NB4/PP6/R3K3 w - - 0 1",
            true,
        ),
        // bishop pair against two knights, either colour
        (
            "q*r*b2n0p* q=r=b0n2p=",
            "4k3/p7/2nn4/8/8/2BB4/P7/4K3 w - - 0 1",
            true,
        ),
        (
            "q*r*b2n0p* q=r=b0n2p=",
            "4k3/p7/2bb4/8/8/2NN4/P7/4K3 w - - 0 1",
            true,
        ),
        (
            "q*r*b2n0p* q=r=b0n2p=",
            "4k3/p7/2bn4/8/8/2NN4/P7/4K3 w - - 0 1",
            false,
        ),
        // the depth is ignored for one position
        ("10 R2P+ R=P*", "r2rk3/p7/8/8/8/8/PP6/R2RK3 w - - 0 1", true),
    ];
    let ctx = sql::context();
    rt().block_on(async {
        for (pattern, fen, want) in cases {
            let q = format!("SELECT material_matches('{fen}', '{pattern}')");
            let b = query(&ctx, &q).await;
            assert_eq!(
                b[0].column(0).as_boolean().value(0),
                *want,
                "{pattern} on {fen}"
            );
        }
    });
}

#[test]
fn bad_arguments_are_named_or_null() {
    let ctx = sql::context();
    let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 1";
    rt().block_on(async {
        for (q, says) in [
            (format!("SELECT matches_subfen('{fen}', 'ppppppppp/8/8/8/8/8/8/8')"), "argument 2, the pattern \"ppppppppp/8/8/8/8/8/8/8\": rank 8: 9 squares, not 8"),
            (format!("SELECT matches_subfen('{fen}', '8/8/8/8/8/8/8/7x')"), "argument 2, the pattern \"8/8/8/8/8/8/8/7x\": rank 1: 'x' is neither a piece letter"),
            (format!("SELECT matches_subfen('{fen}', '')"), "argument 2, the pattern \"\": the pattern is empty"),
            (format!("SELECT matches_subfen('{fen}', '8/8/8/8/8/8/8/8', 'white')"), "argument 3, the side to move \"white\": not 'w' or 'b'"),
            (format!("SELECT matches_subfen('{fen}', 7)"), "argument 2 (pattern) must be a string or a list of strings"),
            (format!("SELECT material_matches('{fen}', 'RR2 r')"), "material_matches: argument 2, the pattern \"RR2 r\""),
            (format!("SELECT material_matches('{fen}', 'x')"), "material_matches: argument 2, the pattern \"x\""),
            ("SELECT attacks('not a fen')".to_string(), "attacks(fen): argument 1, the FEN \"not a fen\""),
            ("SELECT opening('')".to_string(), "opening(fen): argument 1, the FEN \"\""),
            ("SELECT fen_after('x', 'e4')".to_string(), "fen_after(fen, move): argument 1, the FEN \"x\""),
        ] {
            let err = match ctx.sql(&q).await {
                Err(e) => e.to_string(),
                Ok(df) => df.collect().await.err().map(|e| e.to_string()).unwrap_or_default(),
            };
            assert!(err.contains(says), "{q}: {err}");
        }
        // in a column: NULL for a NULL or bad FEN, a NULL or bad pattern, a bad side
        let b = query(
            &ctx,
            &format!(
                "SELECT attacks(f) IS NULL, pins(f) IS NULL, checkers(f) IS NULL, hanging(f) IS NULL,
                        imbalance(f) IS NULL, matches_subfen(f, p, s) IS NULL, material_matches(f, m) IS NULL
                 FROM (VALUES (NULL, '8/8/8/8/8/8/8/8', 'w', 'k k'), ('bad', '8/8/8/8/8/8/8/8', 'w', 'k k'),
                              ('{fen}', '9/8', 'w', 'x y'), ('{fen}', NULL, 'x', NULL),
                              ('{fen}', '8/8/8/8/8/8/8/4K3', 'w', 'k k')) t(f, p, s, m)"
            ),
        )
        .await;
        let got: Vec<Vec<bool>> = (0..b[0].num_rows())
            .map(|r| (0..7).map(|c| b[0].column(c).as_boolean().value(r)).collect())
            .collect();
        assert_eq!(
            got,
            vec![
                vec![true; 7],
                vec![true; 7],
                vec![false, false, false, false, false, true, true],
                vec![false, false, false, false, false, true, true],
                vec![false; 7],
            ]
        );
    });
}

/// A list of patterns is `OR` over its items (a NULL or bad item: NULL unless another
/// matches), and a list longer than one run's share is tested in chunks with the same
/// answer: three positions with 30,000 patterns each (90,000 pattern rows), the only
/// matching one last.
#[test]
fn lists_of_patterns_are_or_and_long_ones_run_in_chunks() {
    use datafusion::arrow::array::{ListBuilder, StringBuilder};
    let fens = [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
    ];
    let mut lists = ListBuilder::new(StringBuilder::new());
    for _ in fens {
        for _ in 0..29_999 {
            lists.values().append_value("8/8/8/8/8/8/8/1q6");
        }
        lists.values().append_value("8/8/8/8/4P3/8/8/8");
        lists.append(true);
    }
    let lists = lists.finish();
    let schema = Arc::new(Schema::new(vec![
        Field::new("fen", DataType::Utf8, false),
        Field::new("patterns", lists.data_type().clone(), true),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(StringArray::from(fens.to_vec())), Arc::new(lists)],
    )
    .expect("batch");
    let ctx = sql::context();
    ctx.register_table(
        "t",
        Arc::new(MemTable::try_new(schema, vec![vec![batch]]).expect("table")),
    )
    .expect("register");
    rt().block_on(async {
        let b = query(&ctx, "SELECT matches_subfen(fen, patterns) FROM t").await;
        let got: Vec<bool> = b
            .iter()
            .flat_map(|b| b.column(0).as_boolean().iter().map(|v| v.expect("value")))
            .collect();
        assert_eq!(got, vec![false, true, false]);
        let start = fens[0];
        let b = query(
            &ctx,
            &format!(
                "SELECT matches_subfen('{start}', ['8/8/8/8/8/8/PPPPPPPP/8', NULL]),
                        matches_subfen('{start}', ['8/8/8/8/8/8/pPPPPPPP/8', NULL]),
                        matches_subfen('{start}', make_array()),
                        material_matches('{start}', ['k k', 'QR2B2N2P8 QR2B2N2P8']),
                        material_matches('{start}', ['k k', NULL])"
            ),
        )
        .await;
        let row: Vec<Option<bool>> = (0..5)
            .map(|c| {
                let col = b[0].column(c).as_boolean();
                col.is_valid(0).then(|| col.value(0))
            })
            .collect();
        assert_eq!(row, vec![Some(true), None, Some(false), Some(true), None]);
    });
}
