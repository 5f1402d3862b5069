//! The `sqlchess` binary: `validate` inputs (files, directories, compressed, stdin), report
//! formats, summary and exit status; `moves` and `perft` output as README.md describes.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use datafusion::arrow::array::RecordBatch;

const COLUMNS: [&str; 8] = [
    "file",
    "game_index",
    "plies",
    "first_illegal_ply",
    "error_kind",
    "error_message",
    "final_fen",
    "final_status",
];

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Two legal games (one ends in mate) and a Crazyhouse game (unsupported, not illegal).
const CLEAN: &str = "[Event \"clean\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n\
    1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0\n\n\
    [Event \"clean 2\"]\n[Result \"*\"]\n\n1. d4 d5 2. c4 *\n\n\
    [Event \"zh\"]\n[Variant \"Crazyhouse\"]\n[Result \"*\"]\n\n1. e4 *\n";

/// A legal game, then one with an illegal king move at ply 3.
const ILLEGAL: &str = "[Event \"ok\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n\
    [Event \"bad\"]\n[Result \"*\"]\n\n1. e4 e5 2. Ke3 Nc6 *\n";

fn sample() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data/sample.pgn")
}

/// A fresh, empty directory of its own under the system temp dir.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sqlchess-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Starts the binary in the crate root (stdin, stdout and stderr piped).
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn sqlchess")
}

/// Runs the binary in the crate root, with `stdin` on its standard input.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = spawn(args);
    let mut input = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let out = child.wait_with_output().expect("run sqlchess");
    writer.join().expect("stdin writer");
    out
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn show(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        text(&out.stdout),
        text(&out.stderr)
    )
}

fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// Header and rows of a CSV report.
fn read_csv(bytes: &[u8]) -> (Vec<String>, Vec<Vec<String>>) {
    let mut rdr = csv::Reader::from_reader(bytes);
    let headers = rdr
        .headers()
        .expect("header")
        .iter()
        .map(str::to_string)
        .collect();
    let rows = rdr
        .records()
        .map(|r| r.expect("row").iter().map(str::to_string).collect())
        .collect();
    (headers, rows)
}

fn assert_columns<'a>(names: impl IntoIterator<Item = &'a str>, what: &str) {
    let names: Vec<&str> = names.into_iter().collect();
    for c in COLUMNS {
        assert!(names.contains(&c), "{what}: no column {c} in {names:?}");
    }
}

fn batches_rows(batches: &[RecordBatch]) -> usize {
    batches.iter().map(RecordBatch::num_rows).sum()
}

#[test]
fn validate_writes_every_report_format() {
    let dir = temp_dir("formats");
    let exts = ["csv", "json", "parquet", "arrow"];
    // the four runs at once (each is mostly per-ply latency)
    let children: Vec<Child> = exts
        .iter()
        .map(|ext| {
            spawn(&[
                "validate",
                path(&sample()),
                "--out",
                path(&dir.join(format!("report.{ext}"))),
            ])
        })
        .collect();
    for (ext, child) in exts.into_iter().zip(children) {
        let out_path = dir.join(format!("report.{ext}"));
        let out = child.wait_with_output().expect("run sqlchess");
        // every game legal, the Chess960 game included
        assert_eq!(out.status.code(), Some(0), "{ext}: {}", show(&out));
        assert!(
            out.stdout.is_empty(),
            "{ext}: report rows go to the file: {}",
            show(&out)
        );
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("games: 20, ") && stderr.contains("legal games: 20"),
            "{ext}: summary: {}",
            show(&out)
        );
        assert!(
            stderr.contains("games per error kind: none\n") && !stderr.contains("not checked"),
            "{ext}: summary: {}",
            show(&out)
        );
        assert!(
            stderr.contains("games/s: ")
                && stderr.contains("plies/s: ")
                && stderr.contains("wall time: "),
            "{stderr}"
        );
        match ext {
            "csv" => {
                let (headers, rows) = read_csv(&std::fs::read(&out_path).expect("csv"));
                assert_columns(headers.iter().map(String::as_str), ext);
                assert_eq!(rows.len(), 20);
                let idx = headers
                    .iter()
                    .position(|h| h == "game_index")
                    .expect("game_index");
                let order: Vec<&str> = rows.iter().map(|r| r[idx].as_str()).collect();
                assert_eq!(order, (0..20).map(|i| i.to_string()).collect::<Vec<_>>());
            }
            "json" => {
                let body = std::fs::read_to_string(&out_path).expect("json");
                assert_eq!(body.lines().count(), 20);
                for line in body.lines() {
                    // nulls are written: every row has every column
                    for c in COLUMNS {
                        assert!(line.contains(&format!("\"{c}\":")), "no {c} in {line}");
                    }
                }
                let rdr = datafusion::arrow::json::ReaderBuilder::new(
                    sqlchess::io::report::report_schema(),
                )
                .build(BufReader::new(File::open(&out_path).expect("json")))
                .expect("json reader");
                let batches: Vec<RecordBatch> = rdr.map(|b| b.expect("json batch")).collect();
                assert_eq!(batches_rows(&batches), 20);
            }
            "parquet" => {
                let builder =
                    parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                        File::open(&out_path).expect("parquet"),
                    )
                    .expect("parquet reader");
                let schema = builder.schema().clone();
                assert_columns(schema.fields().iter().map(|f| f.name().as_str()), ext);
                let batches: Vec<RecordBatch> = builder
                    .build()
                    .expect("build")
                    .map(|b| b.expect("batch"))
                    .collect();
                assert_eq!(batches_rows(&batches), 20);
            }
            _ => {
                let rdr = datafusion::arrow::ipc::reader::FileReader::try_new(
                    File::open(&out_path).expect("arrow"),
                    None,
                )
                .expect("arrow reader");
                let schema = rdr.schema();
                assert_columns(schema.fields().iter().map(|f| f.name().as_str()), ext);
                let batches: Vec<RecordBatch> = rdr.map(|b| b.expect("batch")).collect();
                assert_eq!(batches_rows(&batches), 20);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn directories_compressed_files_and_stdin_give_the_same_report() {
    let dir = temp_dir("inputs");
    let pgn = std::fs::read(sample()).expect("sample.pgn");
    let sub = dir.join("sub");
    std::fs::create_dir_all(&sub).expect("sub");
    std::fs::write(dir.join("a.pgn"), &pgn).expect("write");
    std::fs::write(dir.join("notes.txt"), "not a PGN file").expect("write");
    let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::default());
    gz.write_all(&pgn).expect("gzip");
    std::fs::write(sub.join("b.pgn.gz"), gz.finish().expect("gzip")).expect("write");
    std::fs::write(
        sub.join("c.pgn.zst"),
        zstd::encode_all(&pgn[..], 3).expect("zstd"),
    )
    .expect("write");
    let mut bz = bzip2::write::BzEncoder::new(vec![], bzip2::Compression::default());
    bz.write_all(&pgn).expect("bzip2");
    std::fs::write(sub.join("d.pgn.bz2"), bz.finish().expect("bzip2")).expect("write");

    // a directory and stdin at once
    let report = dir.join("all.csv");
    let out = run(&["validate", path(&dir), "-", "--out", path(&report)], &pgn);
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out.stderr).contains("games: 100, "), "{}", show(&out));
    let (headers, rows) = read_csv(&std::fs::read(&report).expect("report"));
    assert_eq!(rows.len(), 100);
    let file_col = headers
        .iter()
        .position(|h| h == "file")
        .expect("file column");
    let rel = |f: &str| {
        f.strip_prefix(path(&dir))
            .unwrap_or(f)
            .trim_start_matches(['/', '\\'])
            .replace('\\', "/")
    };
    let mut files: Vec<String> = rows.iter().map(|r| rel(&r[file_col])).collect();
    files.dedup();
    assert_eq!(
        files,
        [
            "a.pgn",
            "sub/b.pgn.gz",
            "sub/c.pgn.zst",
            "sub/d.pgn.bz2",
            "-"
        ]
    );

    // every copy reports as the plain file (all but the file column)
    let strip = |r: &Vec<String>| {
        let mut r = r.clone();
        r.remove(file_col);
        r
    };
    let want: Vec<Vec<String>> = rows[..20].iter().map(strip).collect();
    for (i, chunk) in rows.chunks(20).enumerate().skip(1) {
        let have: Vec<Vec<String>> = chunk.iter().map(strip).collect();
        assert_eq!(
            have, want,
            "input {} ({}) differs from the plain file",
            i, files[i]
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn stdin_lines_format_flag_and_exit_status() {
    let dir = temp_dir("status");
    let clean = dir.join("clean.pgn");
    std::fs::write(&clean, CLEAN).expect("write");
    let illegal = dir.join("illegal.pgn");
    std::fs::write(&illegal, ILLEGAL).expect("write");

    // 0: all games legal (a Crazyhouse game is unsupported, not illegal); one line per game on
    // stdout, the summary on stderr
    let out = run(&["validate", "-"], CLEAN.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", show(&out));
    assert!(
        lines[0].starts_with("- #0: 7 plies, checkmate"),
        "{}",
        show(&out)
    );
    assert!(lines[2].contains("unsupported_variant"), "{}", show(&out));
    assert!(
        !stdout.contains("games/s"),
        "summary belongs on stderr: {}",
        show(&out)
    );
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("games: 3, plies: 10, legal games: 2"),
        "{}",
        show(&out)
    );
    assert!(stderr.contains("unsupported_variant 1"), "{}", show(&out));
    // games left unchecked are counted on a line of their own
    assert!(
        stderr.contains("\ngames not checked (unsupported variant): 1\n"),
        "{}",
        show(&out)
    );

    // 1: an illegal move; still one row per game, in input order, batches of 2 games cutting
    // across the files (--format without --out: the report on stdout)
    let out = run(
        &[
            "validate",
            path(&clean),
            path(&illegal),
            "--batch",
            "2",
            "--format",
            "csv",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let (headers, rows) = read_csv(&out.stdout);
    assert_eq!(rows.len(), 5, "{}", show(&out));
    let col = |n: &str| headers.iter().position(|h| h == n).expect(n);
    let order: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| (r[col("file")].as_str(), r[col("game_index")].as_str()))
        .collect();
    let (c, i) = (path(&clean), path(&illegal));
    assert_eq!(order, [(c, "0"), (c, "1"), (c, "2"), (i, "0"), (i, "1")]);
    let bad = &rows[4];
    assert_eq!(bad[col("file")], path(&illegal));
    assert_eq!(bad[col("game_index")], "1");
    assert_eq!(bad[col("plies")], "2");
    assert_eq!(bad[col("first_illegal_ply")], "3");
    assert_eq!(bad[col("error_kind")], "illegal_move");
    assert!(
        text(&out.stderr).contains("illegal_move 1"),
        "{}",
        show(&out)
    );

    // 2: a missing input (nothing is written), an unknown report extension
    let report = dir.join("r.csv");
    let out = run(
        &[
            "validate",
            path(&clean),
            path(&dir.join("missing.pgn")),
            "--out",
            path(&report),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("missing.pgn"), "{}", show(&out));
    assert!(!report.exists());
    let report = dir.join("r.xlsx");
    let out = run(&["validate", path(&clean), "--out", path(&report)], b"");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("unknown report format"),
        "{}",
        show(&out)
    );
    assert!(!report.exists());
    // 2: a corrupt compressed input; the games of the other inputs are still reported
    let corrupt = dir.join("corrupt.pgn.gz");
    std::fs::write(&corrupt, b"\x1f\x8b\x08\x00 this is not deflate data").expect("write");
    let report = dir.join("r2.csv");
    let out = run(
        &[
            "validate",
            path(&corrupt),
            path(&clean),
            "--out",
            path(&report),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("corrupt.pgn.gz"),
        "{}",
        show(&out)
    );
    assert_eq!(
        read_csv(&std::fs::read(&report).expect("report")).1.len(),
        3
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn moves_and_perft_print_what_the_readme_says() {
    let out = run(&["moves", START], b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.last(), Some(&"legal moves: 20"), "{stdout}");
    assert_eq!(lines.len(), 21, "{stdout}");
    for want in ["Nf3\tg1f3", "e4\te2e4", "a3\ta2a3"] {
        assert!(lines.contains(&want), "no {want:?} in {stdout}");
    }

    let out = run(&["perft", START, "3"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        text(&out.stdout).lines().last(),
        Some("nodes: 8902"),
        "{}",
        show(&out)
    );
}

#[test]
fn positions_no_game_reaches_are_refused() {
    // the side not to move is in check: moves and perft refuse it (exit 2), as validate does
    for args in [
        vec!["moves", "7k/8/8/8/8/8/8/K6R w - - 0 1"],
        vec!["perft", "7k/8/8/8/8/8/8/K6R w - - 0 1", "2"],
        vec!["moves", ""],
    ] {
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
        assert!(
            text(&out.stderr).contains("invalid FEN") || text(&out.stderr).contains("cannot occur"),
            "{}",
            show(&out)
        );
    }
}
