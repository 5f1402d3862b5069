//! The `sqlchess` binary: `validate` inputs (files, directories, compressed, stdin), report
//! formats, summary and exit status; `moves` and `perft` output as README.md describes.

use std::fs::File;
use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use datafusion::arrow::array::RecordBatch;

use crate::common::cli::{path, show};
use crate::common::scratch;

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
    let dir = scratch("cli-formats");
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
}

/// An output on an input, or two outputs on one file, are refused before anything is written
/// (exit 2, naming them): the report would replace the games, or one output the other.
#[test]
fn outputs_on_inputs_or_on_each_other_are_refused() {
    let dir = scratch("cli-same-file");
    let games = dir.join("games.pgn");
    std::fs::write(&games, ILLEGAL).expect("write");
    let report = dir.join("report.csv");
    for (args, says) in [
        (
            vec![
                "validate",
                path(&games),
                "--format",
                "csv",
                "--out",
                path(&games),
            ],
            "--out",
        ),
        (
            vec![
                "validate",
                path(&games),
                "--format",
                "csv",
                "--plies",
                path(&games),
                "--out",
                path(&report),
            ],
            "--plies",
        ),
        (
            vec![
                "validate",
                path(&games),
                "--out",
                path(&report),
                "--plies",
                path(&report),
            ],
            "--out and --plies are the same file",
        ),
    ] {
        let out = run(&args, b"");
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(says) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
        assert_eq!(
            std::fs::read_to_string(&games).expect("games"),
            ILLEGAL,
            "{args:?}: the input is kept"
        );
        assert!(!report.exists(), "{args:?}: nothing written");
    }
}

#[test]
fn directories_compressed_files_and_stdin_give_the_same_report() {
    let dir = scratch("cli-inputs");
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
}

#[test]
fn stdin_lines_format_flag_and_exit_status() {
    let dir = scratch("cli-status");
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

/// Standard output closed before anything is written (`sqlchess moves FEN | head -0`, a
/// broken pipe): every printing command ends with exit 2 and the error on `<stdout>`,
/// never a panic; `--threads` above 256 is refused (exit 2).
/// A closed standard output (`sqlchess sql … | head -1`) stops the command quietly with
/// status 0, as command-line tools do (issue 31), after the reader took what it wanted.
#[test]
fn a_closed_standard_output_stops_quietly_and_too_many_threads_are_errors() {
    let fens = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/positions.fen");
    let sample = sample();
    let sample_plies = format!("SELECT * FROM read_plies('{}')", path(&sample));
    for args in [
        vec!["moves", START],
        vec!["moves", "--fens", path(&fens)],
        vec!["perft", START, "2", "--divide"],
        vec!["explain", "legal_moves"],
        vec!["validate", path(&sample)],
        vec!["validate", path(&sample), "--format", "csv"],
        vec!["sql", "SELECT 1 AS one"],
        vec!["sql", &sample_plies],
        vec!["sql", &sample_plies, "--format", "csv"],
    ] {
        // the reader takes one line, then goes away (`| head -1`)
        let mut child = spawn(&args);
        drop(child.stdin.take());
        let mut stdout = child.stdout.take().expect("stdout");
        let mut first = [0u8; 1];
        let _ = std::io::Read::read(&mut stdout, &mut first);
        drop(stdout);
        let out = child.wait_with_output().expect("run sqlchess");
        // (stderr may hold a summary: what fits in the pipe is written before it closes)
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", show(&out));
        // (validate's summary names "games per error kind": only an `error:` line counts)
        assert!(
            !err.lines().any(|l| l.starts_with("error")) && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
    // a closed standard error (`2>&1 | head -1`) neither: the messages are dropped, the
    // exit status stays (2: the first input is not a PGN file)
    let blob =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pgn/malformed/binary_blob.bin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(["validate", path(&blob), path(&sample)])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stderr.take());
    assert_eq!(child.wait().expect("wait").code(), Some(2));
    // more threads than the bound is a usage error before any work (memory grows faster
    // than the thread count)
    let out = run(&["moves", START, "--threads", "257"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("257"), "{}", show(&out));
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

/// Every cell of Arrow record batches as text (nulls empty, as the CSV writes them).
fn cells(batches: &[RecordBatch]) -> (Vec<String>, Vec<Vec<String>>) {
    use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
    let names = batches
        .first()
        .map(|b| {
            b.schema()
                .fields()
                .iter()
                .map(|f| f.name().clone())
                .collect()
        })
        .unwrap_or_default();
    let mut rows = vec![];
    for b in batches {
        let opts = FormatOptions::default();
        let fmts: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &opts).expect("formatter"))
            .collect();
        for i in 0..b.num_rows() {
            rows.push(fmts.iter().map(|f| f.value(i).to_string()).collect());
        }
    }
    (names, rows)
}

/// A report file (or standard output's bytes) of `format` read back as cells.
fn read_report(bytes: &[u8], format: &str, dir: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    match format {
        "csv" => read_csv(bytes),
        "json" => {
            let rdr =
                datafusion::arrow::json::ReaderBuilder::new(sqlchess::io::report::report_schema())
                    .build(bytes)
                    .expect("json reader");
            let batches: Vec<RecordBatch> = rdr.map(|b| b.expect("json batch")).collect();
            (
                sqlchess::io::report::report_schema()
                    .fields()
                    .iter()
                    .map(|f| f.name().clone())
                    .collect(),
                cells(&batches).1,
            )
        }
        "parquet" => {
            let tmp = dir.join("read-back.parquet");
            std::fs::write(&tmp, bytes).expect("write");
            let builder = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                File::open(&tmp).expect("parquet"),
            )
            .expect("parquet reader");
            let batches: Vec<RecordBatch> = builder
                .build()
                .expect("build")
                .map(|b| b.expect("batch"))
                .collect();
            cells(&batches)
        }
        "arrow" => {
            let rdr = datafusion::arrow::ipc::reader::FileReader::try_new(
                std::io::Cursor::new(bytes.to_vec()),
                None,
            )
            .expect("arrow reader");
            let batches: Vec<RecordBatch> = rdr.map(|b| b.expect("batch")).collect();
            cells(&batches)
        }
        other => panic!("no reader for {other}"),
    }
}

/// Reports in every format (by extension, aliases included, and `--format` to standard
/// output), written in batches of 3 games, read back: every cell equals the CSV report's, and
/// the CSV in batches of 3 equals the CSV in one batch.
#[test]
fn report_formats_read_back_equal_the_csv_cell_by_cell() {
    let dir = scratch("cli-read-back");
    let files = [
        ("csv", "csv"),
        ("json", "json"),
        ("jsonl", "json"),
        ("ndjson", "json"),
        ("parquet", "parquet"),
        ("arrow", "arrow"),
        ("ipc", "arrow"),
        ("feather", "arrow"),
    ];
    let sample = sample();
    let batches_of_3 = |to: [&str; 2]| {
        spawn(&[
            "validate",
            path(&sample),
            "--batch",
            "3",
            "--threads",
            "1",
            to[0],
            to[1],
        ])
    };
    let mut children = vec![];
    for (ext, _) in files {
        let out = dir.join(format!("report.{ext}"));
        children.push(batches_of_3(["--out", path(&out)]));
    }
    for format in ["csv", "json", "parquet", "arrow"] {
        children.push(batches_of_3(["--format", format]));
    }
    children.push(spawn(&["validate", path(&sample), "--format", "csv"]));
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| c.wait_with_output().expect("run"))
        .collect();
    for o in &outs {
        assert_eq!(o.status.code(), Some(0), "{}", show(o));
    }
    let (want_head, want) = read_csv(&std::fs::read(dir.join("report.csv")).expect("csv"));
    assert_eq!(want.len(), 20);
    assert_eq!(
        want_head,
        sqlchess::io::report::report_schema()
            .fields()
            .iter()
            .map(|f| f.name().clone())
            .collect::<Vec<_>>()
    );
    // one batch or batches of 3: the same CSV
    let (_, one_batch) = read_csv(&outs[12].stdout);
    assert_eq!(one_batch, want, "--batch 3 differs from one batch");
    let mut checked = 0;
    for (i, (ext, format)) in files.iter().enumerate() {
        let bytes = std::fs::read(dir.join(format!("report.{ext}"))).expect("report");
        assert!(outs[i].stdout.is_empty(), "{ext}: {}", show(&outs[i]));
        let (head, rows) = read_report(&bytes, format, &dir);
        assert_eq!(head, want_head, "{ext}: columns");
        assert_eq!(rows.len(), want.len(), "{ext}: rows");
        for (r, (have, want)) in rows.iter().zip(&want).enumerate() {
            for (c, name) in want_head.iter().enumerate() {
                assert_eq!(have[c], want[c], "{ext}: row {r} column {name}");
                checked += 1;
            }
        }
    }
    for (i, format) in ["csv", "json", "parquet", "arrow"].iter().enumerate() {
        let o = &outs[files.len() + i];
        let (head, rows) = read_report(&o.stdout, format, &dir);
        assert_eq!(head, want_head, "--format {format}: columns");
        assert_eq!(rows, want, "--format {format} to stdout");
    }
    assert_eq!(checked, 8 * 20 * want_head.len());
}

/// `--threads` 1 and 3 give the default's output (validate, moves, perft); with stderr not a
/// terminal the progress bar is hidden: stderr holds exactly the three summary lines.
#[test]
fn threads_give_the_same_output_and_no_progress_bar_without_a_terminal() {
    let sample = sample();
    let runs: Vec<Output> = [
        vec!["validate", path(&sample), "--format", "csv"],
        vec![
            "validate",
            path(&sample),
            "--format",
            "csv",
            "--threads",
            "1",
        ],
        vec![
            "validate",
            path(&sample),
            "--format",
            "csv",
            "--threads",
            "3",
        ],
    ]
    .iter()
    .map(|args| run(args, b""))
    .collect();
    for o in &runs {
        assert_eq!(o.status.code(), Some(0), "{}", show(o));
        let stderr = text(&o.stderr);
        assert!(
            !stderr.contains('\r') && !stderr.contains('\x1b'),
            "no progress bar drawing: {stderr:?}"
        );
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 3, "{stderr}");
        assert!(lines[0].starts_with("games: 20, plies: "), "{stderr}");
        assert!(lines[1].starts_with("games per error kind: "), "{stderr}");
        assert!(lines[2].starts_with("games/s: "), "{stderr}");
    }
    assert_eq!(read_csv(&runs[1].stdout).1.len(), 20);
    assert_eq!(runs[1].stdout, runs[0].stdout, "--threads 1");
    assert_eq!(runs[2].stdout, runs[0].stdout, "--threads 3");

    let moves: Vec<Output> = [
        vec!["moves", START],
        vec!["moves", START, "--threads", "1"],
        vec!["perft", START, "3", "--threads", "1"],
        vec!["perft", START, "3", "--threads", "3"],
    ]
    .iter()
    .map(|args| run(args, b""))
    .collect();
    for o in &moves {
        assert_eq!(o.status.code(), Some(0), "{}", show(o));
    }
    assert_eq!(moves[1].stdout, moves[0].stdout);
    assert_eq!(text(&moves[2].stdout).lines().last(), Some("nodes: 8902"));
    assert_eq!(text(&moves[3].stdout).lines().last(), Some("nodes: 8902"));
}

/// `perft --divide`: one line per legal move with shakmaty's count below it, summing to the
/// total.
#[test]
fn perft_divide_lines_sum_to_the_count() {
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess, Position};
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let out = run(&["perft", kiwipete, "3", "--divide"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.last(), Some(&"nodes: 97862"), "{stdout}");
    let pos: Chess = kiwipete
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("position");
    let mut want: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            format!(
                "{}: {}",
                m.to_uci(CastlingMode::Standard),
                shakmaty::perft(&after, 2)
            )
        })
        .collect();
    want.sort();
    assert_eq!(lines[..lines.len() - 1], want[..], "{stdout}");
    let sum: u64 = lines[..lines.len() - 1]
        .iter()
        .map(|l| {
            l.rsplit(' ')
                .next()
                .expect("count")
                .parse::<u64>()
                .expect("count")
        })
        .sum();
    assert_eq!(sum, 97_862);
    assert_eq!(lines.len(), 49);
}

/// `moves --fens FILE --out FILE`: rows (position_index, fen, uci, san) for every valid line,
/// shakmaty's moves and SAN; bad lines are named on stderr and make the exit status 1.
#[test]
fn moves_of_a_fen_file_written_to_a_report() {
    use shakmaty::fen::Fen;
    use shakmaty::san::SanPlus;
    use shakmaty::{CastlingMode, Chess, Position};
    let dir = scratch("cli-moves-fens");
    // 9,998 start positions first: the file is read 10,000 lines at a time, so the lines
    // below straddle two chunks (position_index counts on across chunks)
    let mut fens: Vec<&str> = vec![START; 9_998];
    fens.extend([
        START,
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "not a fen",
        "",
        "7k/8/8/8/8/8/8/K6R w - - 0 1",
        "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ]);
    let list = dir.join("fens.txt");
    std::fs::write(&list, fens.join("\n")).expect("write");
    let report = dir.join("moves.csv");
    let out = run(
        &["moves", "--fens", path(&list), "--out", path(&report)],
        b"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", show(&out));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("line 10001 (position_index 10000)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("line 10003 (position_index 10002)"),
        "{stderr}"
    );
    let (head, rows) = read_csv(&std::fs::read(&report).expect("report"));
    assert_eq!(head, ["position_index", "fen", "uci", "san"]);
    let mut want = vec![];
    for (i, fen) in fens.iter().enumerate() {
        let Ok(pos) = fen.parse::<Fen>().map_err(|_| ()).and_then(|f| {
            f.into_position::<Chess>(CastlingMode::Standard)
                .map_err(|_| ())
        }) else {
            continue;
        };
        let mut moves: Vec<Vec<String>> = pos
            .legal_moves()
            .iter()
            .map(|m| {
                vec![
                    i.to_string(),
                    fen.to_string(),
                    m.to_uci(CastlingMode::Standard).to_string(),
                    SanPlus::from_move(pos.clone(), *m).to_string(),
                ]
            })
            .collect();
        moves.sort_by(|a, b| a[2].cmp(&b[2]));
        want.extend(moves);
    }
    // 9,998 × 20, then 20 + 48 + 32 moves; the stalemate has none
    assert_eq!(want.len(), 9_998 * 20 + 100);
    assert_eq!(rows, want);
}

/// `validate --profile`: on stderr (standard output is the report alone), one row per stage
/// run (runs, rows, times), a total whose runs and rows are the stages' sums, and shares
/// that add up to 100%.
#[test]
fn validate_profile_prints_the_stage_table() {
    let out = run(
        &[
            "validate",
            "-",
            "--threads",
            "1",
            "--format",
            "csv",
            "--profile",
        ],
        CLEAN.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    // the report alone on standard output, the profile on stderr after the summary
    let report = text(&out.stdout);
    assert!(!report.contains("stage "), "{report}");
    assert_eq!(read_csv(report.as_bytes()).1.len(), 3);
    let stderr = text(&out.stderr);
    let start = stderr.find("stage ").expect("profile header");
    let table = &stderr[start..];
    let lines: Vec<&str> = table.lines().collect();
    let header: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "stage", "runs", "rows", "plan", "ms", "exec", "ms", "compute", "ms", "static", "ms",
            "share", "peak", "mem", "fused"
        ]
    );
    let total = lines
        .iter()
        .position(|l| l.starts_with("total "))
        .expect("total line");
    let (mut runs, mut rows, mut share) = (0u64, 0u64, 0f64);
    let mut stages = vec![];
    for l in &lines[1..total] {
        let f: Vec<&str> = l.split_whitespace().collect();
        stages.push(f[0]);
        let r: u64 = f[1].parse().expect("runs");
        assert!(r > 0, "{l}");
        runs += r;
        rows += f[2].parse::<u64>().expect("rows");
        share += f[7].trim_end_matches('%').parse::<f64>().expect("share");
    }
    let t: Vec<&str> = lines[total].split_whitespace().collect();
    assert_eq!(t[1].parse::<u64>().expect("runs"), runs, "{table}");
    assert_eq!(t[2].parse::<u64>().expect("rows"), rows, "{table}");
    assert!(
        (share - 100.0).abs() < 0.5,
        "shares add up to {share}: {table}"
    );
    // the two standard games' 10 plies are each checked once by replay (one row per ply),
    // and their 2 final positions get their status
    let rows_of = |stage: &str| -> u64 {
        lines[1..total]
            .iter()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|f| f[0] == stage)
            .unwrap_or_else(|| panic!("no row for {stage}: {table}"))[2]
            .parse()
            .expect("rows")
    };
    assert_eq!(rows_of("replay_moves"), 10, "{table}");
    assert_eq!(rows_of("position_status"), 2, "{table}");
    assert!(stages.contains(&"legal_moves"), "{table}");
    assert!(lines[total + 1].starts_with("planning "), "{table}");
    // the stage runs, all stages together, and per 1,000 games (3 games)
    assert_eq!(
        lines[total + 2],
        format!(
            "stage runs: {runs} ({:.1} per 1,000 games)",
            runs as f64 * 1000.0 / 3.0
        ),
        "{table}"
    );
}

/// Standard input compressed with gzip, zstd or bzip2 is decompressed (by its first bytes),
/// and files of several gzip members, bzip2 streams or zstd frames are read to their end:
/// every report equals the plain file's.
#[test]
fn compressed_stdin_and_multi_member_files() {
    let dir = scratch("cli-multi");
    let pgn = std::fs::read(sample()).expect("sample.pgn");
    let text = String::from_utf8(pgn.clone()).expect("UTF-8");
    // two parts cut at the start of the 11th game
    let cut = text
        .match_indices("\n[Event ")
        .nth(9)
        .map(|(i, _)| i + 1)
        .expect("11 games");
    let parts = [&pgn[..cut], &pgn[cut..]];
    let gz = |b: &[u8]| {
        let mut e = flate2::write::GzEncoder::new(vec![], flate2::Compression::default());
        e.write_all(b).expect("gzip");
        e.finish().expect("gzip")
    };
    let bz = |b: &[u8]| {
        let mut e = bzip2::write::BzEncoder::new(vec![], bzip2::Compression::default());
        e.write_all(b).expect("bzip2");
        e.finish().expect("bzip2")
    };
    let zst = |b: &[u8]| zstd::encode_all(b, 3).expect("zstd");
    let plain = run(&["validate", "-", "--format", "csv"], &pgn);
    assert_eq!(plain.status.code(), Some(0), "{}", show(&plain));
    let (head, want) = read_csv(&plain.stdout);
    assert_eq!(want.len(), 20);
    let file_col = head.iter().position(|h| h == "file").expect("file");
    let strip = |rows: Vec<Vec<String>>| -> Vec<Vec<String>> {
        rows.into_iter()
            .map(|mut r| {
                r.remove(file_col);
                r
            })
            .collect()
    };
    let want = strip(want);
    type Encoder<'a> = &'a dyn Fn(&[u8]) -> Vec<u8>;
    let codecs: [(&str, Encoder); 3] = [("gz", &gz), ("bz2", &bz), ("zst", &zst)];
    for (ext, enc) in codecs {
        let out = run(&["validate", "-", "--format", "csv"], &enc(&pgn));
        assert_eq!(out.status.code(), Some(0), "{ext} on stdin: {}", show(&out));
        assert_eq!(strip(read_csv(&out.stdout).1), want, "{ext} on stdin");
        let multi: Vec<u8> = parts.iter().flat_map(|p| enc(p)).collect();
        let file = dir.join(format!("two-members.pgn.{ext}"));
        std::fs::write(&file, &multi).expect("write");
        let out = run(&["validate", path(&file), "--format", "csv"], b"");
        assert_eq!(out.status.code(), Some(0), "{ext} members: {}", show(&out));
        assert_eq!(strip(read_csv(&out.stdout).1), want, "{ext}: two members");
    }
}

/// The legal moves of `fen` as shakmaty writes them in `mode`: `SAN<TAB>UCI` lines, sorted.
fn shakmaty_move_lines(fen: &str, mode: shakmaty::CastlingMode) -> Vec<String> {
    use shakmaty::fen::Fen;
    use shakmaty::san::SanPlus;
    use shakmaty::{Chess, Position};
    let pos: Chess = fen
        .parse::<Fen>()
        .expect("fen")
        .into_position(mode)
        .expect("position");
    let mut lines: Vec<String> = pos
        .legal_moves()
        .iter()
        .map(|m| {
            let san = SanPlus::from_move(pos.clone(), *m);
            format!("{san}\t{}", m.to_uci(mode))
        })
        .collect();
    lines.sort();
    lines
}

/// `moves` and `perft` in Chess960 mode: chosen by `--chess960`, or without it when the
/// castling rights can only mean Chess960 (an inner rook's right); castling in UCI is then the
/// king onto its rook. Moves and counts are shakmaty's in the same mode.
#[test]
fn moves_and_perft_choose_chess960_by_flag_or_by_the_castling_rights() {
    use shakmaty::CastlingMode::{Chess960, Standard};
    let moves = |args: &[&str]| -> Vec<String> {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let stdout = text(&out.stdout);
        let mut lines: Vec<String> = stdout
            .lines()
            .filter(|l| !l.starts_with("legal moves:"))
            .map(str::to_string)
            .collect();
        lines.sort();
        lines
    };
    // standard castling position: e1g1 by default, e1h1 with --chess960
    let corners = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let standard = moves(&["moves", corners]);
    assert!(standard.contains(&"O-O\te1g1".to_string()), "{standard:?}");
    assert_eq!(standard, shakmaty_move_lines(corners, Standard));
    let c960 = moves(&["moves", corners, "--chess960"]);
    assert!(c960.contains(&"O-O\te1h1".to_string()), "{c960:?}");
    assert!(c960.contains(&"O-O-O\te1a1".to_string()), "{c960:?}");
    assert_eq!(c960, shakmaty_move_lines(corners, Chess960));
    // Shredder letters of inner rooks (f1, b1) and the king on d1: Chess960 without the flag
    let inner = "1r1k1r2/pppppppp/8/8/8/8/PPPPPPPP/1R1K1R2 w FBfb - 0 1";
    let auto = moves(&["moves", inner]);
    assert!(auto.contains(&"O-O\td1f1".to_string()), "{auto:?}");
    assert_eq!(auto, shakmaty_move_lines(inner, Chess960));
    assert_eq!(auto, moves(&["moves", inner, "--chess960"]));
    // perft: 3 plies from a Chess960 start position, by the rights and by the flag
    let start960 = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 0 1";
    let pos: shakmaty::Chess = start960
        .parse::<shakmaty::fen::Fen>()
        .expect("fen")
        .into_position(Chess960)
        .expect("position");
    let want = format!("nodes: {}", shakmaty::perft(&pos, 3));
    for args in [
        vec!["perft", start960, "3"],
        vec!["perft", start960, "3", "--chess960"],
    ] {
        let out = run(&args, b"");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert_eq!(text(&out.stdout).lines().last(), Some(want.as_str()));
    }
    // a right no rook backs is a FEN error naming the castling field (exit 2)
    let out = run(
        &["moves", "4k3/8/8/8/8/8/8/RK6 w C - 0 1", "--chess960"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(text(&out.stderr).contains("castling"), "{}", show(&out));
}

/// `validate` plays a `Variant "Chess960"` game by Chess960 rules (both castlings with inner
/// rooks; final FEN from python-chess 1.11.2), counts a Crazyhouse game as not checked on a
/// line of its own, and exits 0 (no illegal game).
#[test]
fn validate_plays_chess960_games_and_counts_unchecked_variants() {
    let pgn = "[Event \"960\"]\n[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
        [FEN \"1r1k1r2/pppppppp/8/8/8/8/PPPPPPPP/1R1K1R2 w FBfb - 0 1\"]\n\
        [Result \"*\"]\n\n1. O-O O-O-O 2. e4 *\n\n\
        [Event \"zh\"]\n[Variant \"Crazyhouse\"]\n[Result \"*\"]\n\n1. e4 *\n";
    let out = run(&["validate", "-", "--format", "csv"], pgn.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    let (header, rows) = read_csv(&out.stdout);
    let col = |n: &str| header.iter().position(|h| h == n).expect(n);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0][col("plies")], "3", "{}", show(&out));
    assert_eq!(rows[0][col("error_kind")], "");
    // after O-O (king d1 to g1, rook f1 stays), O-O-O (king d8 to c8, rook b8 to d8), e4
    assert_eq!(
        rows[0][col("final_fen")],
        "2kr1r2/pppppppp/8/8/4P3/8/PPPP1PPP/1R3RK1 b - - 0 2"
    );
    assert_eq!(rows[1][col("error_kind")], "unsupported_variant");
    assert!(
        text(&out.stderr).contains("games not checked (unsupported variant): 1"),
        "{}",
        show(&out)
    );
}

/// Runs the binary in `dir` (no standard input).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run sqlchess")
}

/// Issue 31, 1 and 7: `sql` honours `--threads` (the session's target partitions) and refuses
/// a memory limit no run can work with, naming the smallest, as every command does; a
/// scheduler refuses both (it runs no query); `validate` without an argument reads the
/// sample compiled into the program, from any folder.
#[test]
fn sql_threads_limits_refused_up_front_and_the_bundled_sample() {
    let setting = "SELECT value FROM information_schema.df_settings \
                   WHERE name = 'datafusion.execution.target_partitions'";
    for threads in ["1", "3"] {
        let out = run(
            &["sql", "--threads", threads, "--format", "csv", setting],
            b"",
        );
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        assert_eq!(text(&out.stdout), format!("value\n{threads}\n"));
    }
    for limit in ["0", "1KiB", "16MiB"] {
        for args in [
            vec!["--memory-limit", limit, "sql", "SELECT 1"],
            // one pipeline: with more, what they need side by side is named (below)
            vec!["--threads", "1", "--memory-limit", limit, "validate"],
            vec!["--memory-limit", limit, "perft", START, "1"],
        ] {
            let out = run(&args, b"");
            assert_eq!(out.status.code(), Some(2), "{args:?}: {}", show(&out));
            assert!(
                text(&out.stderr).contains(
                    "is too small for a run: give at least 32.0 MiB (--memory-limit 32MiB)"
                ),
                "{args:?}: {}",
                show(&out)
            );
        }
    }
    // side by side, each pipeline of validate needs its share
    let out = run(
        &["--threads", "4", "--memory-limit", "48MiB", "validate"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        text(&out.stderr).contains(
            "memory limit of 48.0 MiB is too small for 4 pipelines side by side (--threads 4), \
             which need 24.0 MiB each: give at least 96.0 MiB (--memory-limit 96MiB)"
        ),
        "{}",
        show(&out)
    );
    // the larger of the two least limits is named, and it works: 20 pipelines of 24 MiB,
    // not the 36 MiB a run with 20 threads needs
    let out = run(
        &["--threads", "20", "--memory-limit", "32MiB", "validate"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        text(&out.stderr).contains(
            "memory limit of 32.0 MiB is too small for 20 pipelines side by side (--threads \
             20), which need 24.0 MiB each: give at least 480.0 MiB (--memory-limit 480MiB)"
        ),
        "{}",
        show(&out)
    );
    let out = run(
        &["--threads", "20", "--memory-limit", "480MiB", "validate"],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    for flag in [["--threads", "1"], ["--memory-limit", "1GiB"]] {
        let out = run(&[flag[0], flag[1], "cluster", "scheduler"], b"");
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        assert!(
            text(&out.stderr).contains("a scheduler runs none"),
            "{}",
            show(&out)
        );
    }
    // the README's Getting started: a table's columns
    let out = run(
        &[
            "sql",
            "DESCRIBE SELECT * FROM read_plies('data/sample.pgn')",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert!(text(&out.stdout).contains("move_number"), "{}", show(&out));
    // many threads need more: refused up front, naming the least, which works (the static
    // tables are one batch whatever the threads: 256 partitions made piece_rays 96 MiB)
    let out = run(
        &["--threads", "64", "--memory-limit", "32MiB", "moves", START],
        b"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        text(&out.stderr).contains(
            "memory limit of 32.0 MiB is too small for a run with --threads 64: give at \
             least 80.0 MiB (--memory-limit 80MiB)"
        ),
        "{}",
        show(&out)
    );
    for threads in ["64", "256"] {
        let least = if threads == "64" { "80MiB" } else { "272MiB" };
        for args in [vec!["moves", START], vec!["perft", START, "4"]] {
            let mut a = vec!["--threads", threads, "--memory-limit", least];
            a.extend(args);
            let out = run(&a, b"");
            assert_eq!(out.status.code(), Some(0), "{a:?}: {}", show(&out));
        }
    }
    let elsewhere = scratch("cli-elsewhere");
    let out = run_in(&elsewhere, &["validate", "--format", "csv"]);
    let (_, rows) = read_csv(&out.stdout);
    assert_eq!(rows.len(), 20, "{}", show(&out));
    assert!(rows.iter().all(|r| r[0] == "data/sample.pgn"));
    // the same rows and status as the file in the repository
    let repo = run(&["validate", "data/sample.pgn", "--format", "csv"], b"");
    assert_eq!(repo.stdout, out.stdout);
    assert_eq!(repo.status.code(), out.status.code(), "{}", show(&out));
}

/// Issue 31, 2: a gzip, a zstd and a bzip2 file named `.pgn` are validated as the same file
/// named right; a file that is not text is one error naming it (exit 2), the other inputs
/// still validated.
#[test]
fn validate_recognises_inputs_by_their_first_bytes() {
    let dir = scratch("cli-first-bytes");
    let plain = std::fs::read(sample()).expect("sample");
    let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::default());
    gz.write_all(&plain).expect("gzip");
    let mut bz = bzip2::write::BzEncoder::new(vec![], bzip2::Compression::default());
    bz.write_all(&plain).expect("bzip2");
    let want = run(&["validate", path(&sample()), "--format", "csv"], b"");
    let strip = |o: &Output| {
        let (h, rows) = read_csv(&o.stdout);
        let rest: Vec<Vec<String>> = rows.into_iter().map(|r| r[1..].to_vec()).collect();
        (h, rest)
    };
    for (name, bytes) in [
        ("gzip.pgn", gz.finish().expect("gzip")),
        (
            "zstd.pgn",
            zstd::encode_all(plain.as_slice(), 3).expect("zstd"),
        ),
        ("bzip2.pgn", bz.finish().expect("bzip2")),
    ] {
        let f = dir.join(name);
        std::fs::write(&f, bytes).expect("write");
        let got = run(&["validate", path(&f), "--format", "csv"], b"");
        assert_eq!(got.status.code(), want.status.code(), "{}", show(&got));
        assert_eq!(strip(&got), strip(&want), "{name}");
    }
    let blob =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/pgn/malformed/binary_blob.bin");
    let out = run(
        &["validate", path(&blob), path(&sample()), "--format", "csv"],
        b"",
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert_eq!(err.matches("error:").count(), 1, "{err}");
    assert!(
        err.contains("binary_blob.bin: not a PGN file: binary data"),
        "{err}"
    );
    assert_eq!(read_csv(&out.stdout).1.len(), 20, "{}", show(&out));
}

/// Issue 34: `explain` prints each stage of the position queries: its SQL's plans, the
/// static `piece_rays` probed as an index where the stage joins it.
#[test]
fn explain_prints_each_position_stage() {
    for stage in [
        "piece_attacks",
        "pins",
        "checkers",
        "hanging",
        "subfen_matches",
        "material_counts",
        "imbalances",
        "material_matches",
    ] {
        let out = run(&["explain", stage], b"");
        assert_eq!(out.status.code(), Some(0), "{}", show(&out));
        let plan = text(&out.stdout);
        assert!(
            plan.contains(&format!("== stage {stage}\n-- logical plan\n")),
            "{plan}"
        );
        assert!(plan.contains("-- physical plan"), "{plan}");
        let probes = matches!(stage, "piece_attacks" | "pins" | "checkers" | "hanging");
        assert_eq!(
            plan.contains("StaticLookupExec: static=piece_rays"),
            probes,
            "{plan}"
        );
    }
}

/// Issue 31, 9: `explain` of a stage that is not one lists the stages; `profile --json` into
/// a folder that does not exist fails before the profile runs; an empty query is an error;
/// a bad FEN argument of `moves` is named as an argument, not as a file's line.
#[test]
fn small_usage_errors_say_what_to_do() {
    let out = run(&["explain", "nosuchstage"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown stage \"nosuchstage\"; the stages: "),
        "{err}"
    );
    assert!(err.contains("legal_moves") && err.contains("san"), "{err}");
    let out = run(&["explain", "--pipeline", "seed", "nosuchstage"], b"");
    assert!(text(&out.stderr).contains("stage13"), "{}", show(&out));

    let out = run(&["profile", "--json", "/no/such/dir/p.json"], b"");
    assert_eq!(out.status.code(), Some(2), "{}", show(&out));
    assert!(
        text(&out.stderr).contains("/no/such/dir/p.json"),
        "{}",
        show(&out)
    );
    assert_eq!(text(&out.stdout), "", "the profile ran: {}", show(&out));

    for q in ["", "  ", "/* only a comment */"] {
        let out = run(&["sql", q], b"");
        assert_eq!(out.status.code(), Some(2), "{q:?}: {}", show(&out));
        assert!(
            text(&out.stderr).contains("no SQL statement"),
            "{}",
            show(&out)
        );
    }

    for fen in ["7k/8/8/8/8/8/8/K6R w - - 0 1", "8/8/8 w - - 0 1"] {
        let out = run(&["moves", fen], b"");
        assert_eq!(out.status.code(), Some(2), "{}", show(&out));
        let err = text(&out.stderr);
        assert!(err.contains(&format!("invalid FEN {fen:?}")), "{err}");
        assert!(
            !err.contains("line 1") && !err.contains("position_index"),
            "{err}"
        );
    }
}

/// A `UNION ALL` whose branches type a column otherwise (a signed and an unsigned count:
/// DataFusion passes each branch's batches through with their own names and types) is
/// written in every report format, each column under the query's name and type: the count
/// of plies against the sum of the games' plies.
#[test]
fn union_all_of_differently_typed_branches_is_written_in_every_format() {
    let query = "SELECT count(*) AS n FROM read_plies('data/sample.pgn') \
                 UNION ALL SELECT sum(plies) FROM read_pgn('data/sample.pgn')";
    let out = run(&["sql", "--format", "csv", query], b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(text(&out.stdout), "n\n1676\n1676\n");
    let out = run(&["sql", "--format", "json", query], b"");
    assert_eq!(out.status.code(), Some(0), "{}", show(&out));
    assert_eq!(
        text(&out.stdout).matches("1676").count(),
        2,
        "{}",
        show(&out)
    );
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["u.parquet", "u.arrow"] {
        let path = dir.path().join(name);
        let path = path.to_str().expect("utf-8 path");
        let out = run(&["sql", "--out", path, query], b"");
        assert_eq!(out.status.code(), Some(0), "{name}: {}", show(&out));
        let back = format!("SELECT sum(n) AS total FROM '{path}'");
        let out = run(&["sql", "--format", "csv", &back], b"");
        assert_eq!(text(&out.stdout), "total\n3352\n", "{name}: {}", show(&out));
    }
}
