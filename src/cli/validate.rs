//! `sqlchess validate`: PGN games read, validated and written a chunk at a time (each chunk
//! on whichever pipeline is free), with a progress bar and a summary on stderr.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use datafusion::arrow::array::RecordBatch;
use indicatif::{HumanBytes, HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use sqlchess::chess::outcome::FinalStatus;
use sqlchess::io::input::{ByteCounter, Input, Source};
use sqlchess::io::report::{self, Format, ReportWriter};
use sqlchess::pgn::{PgnError, PgnReader, RawGame};
use sqlchess::picture::profile_chart::ChartFile as ProfileChart;
use sqlchess::picture::report_page::ReportPage;
use sqlchess::profile::ProfileReport;
use sqlchess::session::SessionError;
use sqlchess::validate::{ErrorKind, GameReport, ValidateOptions, Validation, Validator};
use sqlchess::{Error, PipelineConfig, Result};

use crate::{ERROR_EXIT, STDOUT};

/// Arguments of `sqlchess validate`.
#[derive(clap::Args)]
pub struct Args {
    /// PGN files, directories (searched recursively for *.pgn, *.pgn.zst, *.pgn.gz,
    /// *.pgn.bz2) or - for standard input; .zst/.gz/.bz2 are decompressed on the fly
    /// (default: the 20 games of data/sample.pgn, compiled into the program).
    files: Vec<PathBuf>,
    /// Write one row per game here (.csv, .json, .parquet or .arrow).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Report format, when the extension of --out does not say; without --out the report
    /// goes to standard output in this format.
    #[arg(long, value_parser = crate::names(format_help))]
    format: Option<Format>,
    /// Also write one row per legal ply played here (game_index, ply, color, move_number,
    /// fen_before, uci, san, promotion, is_capture, is_check, is_castling, is_en_passant:
    /// read_plies' columns of the same names), in the format its
    /// extension names (.csv, .json, .parquet or .arrow; else --format).
    #[arg(long)]
    plies: Option<PathBuf>,
    /// Games in play at once: read and validated in chunks of this many divided by
    /// --threads, each chunk on whichever pipeline is free, written in input order
    /// [default: 20000; 10000 with --plies]
    #[arg(long)]
    batch: Option<usize>,
    /// Print the per-stage profile (rows, time) of the whole run on stderr, after the
    /// summary.
    #[arg(long)]
    profile: bool,
    /// Also draw the per-stage profile here (implies --profile): time and rows per stage
    /// as bars, grouped by rule; .svg (the chart) or .html/.htm (the chart and the table,
    /// one page). Checked before the run, written whole after it.
    #[arg(long, value_name = "FILE")]
    profile_out: Option<PathBuf>,
    /// Also write a report page here (.html): counts by status and error kind, the inputs
    /// not read, and the first 100 games with an error, each with the board before the move
    /// (the move drawn, its token), the error and the tags. Written when the run ends (not
    /// after Ctrl-C).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

/// Games in play at once by default. A chunk's replay runs one step per ply of its longest
/// game, most of them over the few games still in play, at a cost per step that hardly
/// depends on the rows: twice as many games per chunk halve those steps per game. On 100 MB
/// of the bench file, 20,000 games in play take 0.85 of the time of 10,000 and peak at
/// 0.6 GB instead of 0.36 GB (BENCHMARKS.md).
const BATCH: usize = 20_000;

/// Games in play at once by default with `--plies`: their ply rows are held until their
/// chunk is written (0.9 GB peak at 10,000 on the bench file, 1.4 GB at 20,000).
const BATCH_WITH_PLIES: usize = 10_000;

/// The pipelines' Arrow batch size at most (rows): a chunk of up to this many games runs
/// each replay step as one batch, not two of DataFusion's default 8,192 rows (on 30 MB of
/// the bench file 0.976 of the time, BENCHMARKS.md).
const STEP_ROWS: usize = 16_384;

/// Refuses an output file that is another output's (one would replace the other) or an
/// input's (the report would replace the games): each is written under a temporary name and
/// renamed over its path at the end. Paths are compared once made absolute, with links
/// followed.
///
/// Errors: [`Error::Usage`] naming both.
fn check_outputs(outputs: &[(&str, Option<&Path>)], inputs: &[Input]) -> Result<()> {
    // a file that does not exist yet: its folder made absolute, and its name
    let absolute = |p: &Path| {
        std::fs::canonicalize(p).ok().or_else(|| {
            let folder = p.parent().filter(|d| !d.as_os_str().is_empty());
            Some(
                std::fs::canonicalize(folder.unwrap_or(Path::new(".")))
                    .ok()?
                    .join(p.file_name()?),
            )
        })
    };
    let outputs: Vec<(&str, &Path, PathBuf)> = outputs
        .iter()
        .filter_map(|&(flag, p)| {
            let p = p?;
            Some((flag, p, absolute(p)?))
        })
        .collect();
    for (i, (flag, path, at)) in outputs.iter().enumerate() {
        if let Some((other, _, _)) = outputs[..i].iter().find(|(_, _, a)| a == at) {
            return Err(Error::Usage(format!(
                "{other} and {flag} are the same file, {}: give each output its own",
                path.display()
            )));
        }
        let input = inputs.iter().find(|input| match &input.source {
            Source::File(p) => absolute(p).as_ref() == Some(at),
            _ => false,
        });
        if let Some(input) = input {
            return Err(Error::Usage(format!(
                "{flag} {}: that is an input, whose games it would replace",
                input.name
            )));
        }
    }
    Ok(())
}

/// The workers in `workers`, started by `start` the first time they are needed.
///
/// Errors: those of `start`.
fn started<W>(workers: &mut Option<W>, start: impl FnOnce() -> Result<W>) -> Result<&mut W> {
    let w = match workers.take() {
        Some(w) => w,
        None => start()?,
    };
    Ok(workers.insert(w))
}

/// What each report format writes (`--help`).
fn format_help(f: Format) -> &'static str {
    match f {
        Format::Csv => "Comma-separated values with a header line",
        Format::Json => "JSON lines: one object per row",
        Format::Parquet => "Apache Parquet (zstd-compressed)",
        Format::Arrow => "Arrow IPC file",
    }
}

/// Runs `sqlchess validate` on `config.target_partitions` pipelines. Exit status: 0 all
/// games legal, 1 some game illegal or malformed, 2 an input could not be read, 130 stopped
/// by Ctrl-C or SIGTERM ([`crate::interrupt`]).
pub async fn run(args: Args, config: PipelineConfig) -> Result<ExitCode> {
    // --profile-out: a bad extension or folder fails now, not after the run
    let profile_chart = match &args.profile_out {
        Some(path) => Some((ProfileChart::prepare(path)?, path)),
        None => None,
    };
    let batch = args
        .batch
        .unwrap_or(if args.plies.is_some() {
            BATCH_WITH_PLIES
        } else {
            BATCH
        })
        .max(1);
    // a batch is shared out between the pipelines as chunks, each validated by whichever
    // pipeline is free: none waits for the longest game of another's chunk
    let chunk = batch.div_ceil(config.target_partitions.max(1));
    // a replay step of a chunk in one Arrow batch (up to STEP_ROWS rows)
    let config = PipelineConfig {
        batch_size: config.batch_size.max(chunk.min(STEP_ROWS)),
        ..config
    };
    // the pipelines are planned on a thread of their own while the first chunk is read
    let pending = Validator::start(config.target_partitions, config)?;
    let format = match (&args.out, args.format) {
        (_, Some(f)) => Some(f),
        (Some(p), None) => Some(Format::from_path(p)?),
        (None, None) => None,
    };
    let plies_format = match &args.plies {
        Some(path) => Some(match Format::from_path(path) {
            Ok(f) => f,
            Err(e) => args.format.ok_or(e)?,
        }),
        None => None,
    };
    // no argument: the sample compiled into the program, from any folder
    let inputs = if args.files.is_empty() {
        vec![Input::sample()]
    } else {
        sqlchess::io::input::expand(&args.files)?
    };
    if inputs.is_empty() {
        note!("warning: no PGN files found");
    }
    if let Some(path) = &args.html
        && !path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("html") || e.eq_ignore_ascii_case("htm"))
    {
        return Err(Error::Usage(format!(
            "--html {}: the report page is written as .html",
            path.display()
        )));
    }
    check_outputs(
        &[
            ("--out", args.out.as_deref()),
            ("--plies", args.plies.as_deref()),
            ("--html", args.html.as_deref()),
            ("--profile-out", args.profile_out.as_deref()),
        ],
        &inputs,
    )?;
    let mut page = args.html.as_ref().map(|_| ReportPage::default());
    let mut sink = ReportSink::open(args.out.as_ref(), format)?;
    let mut plies = match (&args.plies, plies_format) {
        (Some(path), Some(f)) => Some(ReportWriter::create(path, f, report::plies_schema())?),
        _ => None,
    };
    let interrupt = crate::interrupt::Interrupt::install().unwrap_or_else(|e| {
        note!("warning: Ctrl-C will not stop cleanly: {e}");
        crate::interrupt::Interrupt::default()
    });
    let bytes = ByteCounter::new();
    let pb = progress_bar(inputs.iter().map(Input::size).sum());
    pb.set_message("0 games validated");
    let t0 = Instant::now();
    let mut summary = Summary::default();
    let mut io_errors = 0u64;
    let mut failure: Option<Error> = None;
    let options = ValidateOptions::with_plies(plies.is_some());
    let report_batches = sink.takes_batches();
    let with_page = page.is_some();
    // on a pipeline's thread: the chunk's record batches (and the tokens the page shows)
    let finish = |v: Validation, games: &[(&str, RawGame)]| -> Result<Written> {
        Ok(Written {
            rows: report_batches
                .then(|| report::reports_to_batch(&v.reports))
                .transpose()?,
            ply_rows: options
                .plies
                .then(|| report::plies_to_batch(v.all_plies()))
                .transpose()?,
            tokens: if with_page {
                first_illegal_tokens(&v.reports, games)
            } else {
                vec![]
            },
            reports: v.reports,
        })
    };
    // on this thread, in input order
    let mut consume = |w: Written| -> Result<()> {
        write_chunk(
            w,
            Outputs {
                sink: &mut sink,
                plies: &mut plies,
                page: page.as_mut(),
            },
            &mut summary,
            &pb,
            t0,
        )
    };
    // the inputs not read (or not to their end), for the report page
    let mut unread: Vec<(String, String)> = vec![];
    std::thread::scope(|scope| {
        // the workers, once the pipelines are made: when the first chunk is full or the
        // input ends
        let start = || pending.wait().map(|v| v.workers(scope, options, &finish));
        let mut workers = None;
        let mut games: Vec<(&str, RawGame)> = Vec::with_capacity(chunk);
        'inputs: for input in &inputs {
            let reader = match input.open(&bytes) {
                Ok(r) => r,
                Err(e) => {
                    pb.suspend(|| note!("error: {e}"));
                    unread.push((input.name.clone(), e.to_string()));
                    io_errors += 1;
                    continue;
                }
            };
            for game in PgnReader::new(reader) {
                match game {
                    Ok(g) => games.push((input.name.as_str(), g)),
                    Err(PgnError::Io(e)) => {
                        pb.suspend(|| {
                            note!(
                                "error: {}: {e} (the rest of this input is not read)",
                                input.name
                            )
                        });
                        unread.push((input.name.clone(), format!("{e} (the rest is not read)")));
                        io_errors += 1;
                        break;
                    }
                }
                pb.set_position(bytes.get());
                if interrupt.requested() {
                    break 'inputs;
                }
                if games.len() >= chunk {
                    // held back until the next chunk is read: the input's last chunk is
                    // shared out with the games after it
                    let full = std::mem::replace(&mut games, Vec::with_capacity(chunk));
                    if let Err(e) =
                        started(&mut workers, start).and_then(|w| w.submit_held(full, &mut consume))
                    {
                        failure = Some(e);
                        break 'inputs;
                    }
                }
            }
        }
        // the last chunk and the games after it, shared out between the pipelines (the games
        // read since the last chunk are not validated after Ctrl-C; `finish` shares out the
        // last chunk alone)
        if failure.is_none()
            && !interrupt.requested()
            && let Err(e) =
                started(&mut workers, start).and_then(|w| w.submit_shared(games, &mut consume))
        {
            failure = Some(e);
        }
        if let Some(workers) = workers {
            match failure {
                None => failure = workers.finish(&mut consume).err(),
                Some(_) => workers.stop(),
            }
        }
    });
    // made by now, unless making them failed or Ctrl-C came first
    let validator = match pending.wait() {
        Ok(v) => v,
        // the first error: making them, when it was found in the scope already
        Err(e) => return Err(failure.unwrap_or(e)),
    };
    if let Some(e) = failure {
        // stopped by the memory limit: what was written is kept, as after Ctrl-C
        if let Error::Session(SessionError::MemoryLimit { .. }) = &e {
            pb.finish_and_clear();
            let kept = keep_partial("stopped by the memory limit", summary.games, sink, plies)?;
            for line in kept {
                note!("{line}");
            }
        }
        return Err(e);
    }
    let interrupted = interrupt.requested();
    let mut stopped = vec![];
    if interrupted {
        // the games read since the last batch are not validated
        stopped = keep_partial("interrupted", summary.games, sink, plies)?;
    } else {
        sink.finish()?;
        if let Some(w) = plies {
            w.finish()?;
        }
        if let (Some(mut page), Some(path), Some(engine)) =
            (page, &args.html, validator.engines().first())
        {
            for (input, message) in &unread {
                page.add_input_error(input, message);
            }
            let html = page.finish(engine).await?;
            sqlchess::io::whole_file::write_whole(path, html.as_bytes())?;
        }
    }
    pb.finish_and_clear();
    summary.print(
        t0.elapsed().as_secs_f64(),
        bytes.get(),
        inputs.len(),
        io_errors,
    );
    for line in stopped {
        note!("{line}");
    }
    if args.profile || profile_chart.is_some() {
        // on stderr with the summary: standard output may be the report
        let report = ProfileReport::of_engines(validator.engines());
        note!("{}", report.to_table().trim_end());
        let runs: u64 = report.rows.iter().map(|r| r.runs).sum();
        let games = summary.games.max(1) as f64;
        note!(
            "stage runs: {runs} ({:.1} per 1,000 games)",
            runs as f64 * 1000.0 / games
        );
        if let Some((chart, path)) = profile_chart {
            chart.write(path, &report)?;
        }
    }
    Ok(if interrupted {
        ExitCode::from(crate::interrupt::EXIT_INTERRUPTED)
    } else if io_errors > 0 {
        ExitCode::from(ERROR_EXIT)
    } else if summary.bad() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Ends a run that stops early (Ctrl-C, the memory limit): keeps what was written as
/// `NAME.partial` and returns the lines that say where, the first starting with `why`.
fn keep_partial(
    why: &str,
    games: u64,
    sink: ReportSink,
    plies: Option<ReportWriter>,
) -> Result<Vec<String>> {
    let mut lines = vec![format!(
        "{why}: {games} games validated and written to {}",
        sink.finish_partial()?
    )];
    if let Some(w) = plies {
        let rows = w.rows();
        if let Some(path) = w.finish_partial()? {
            lines.push(format!("{rows} plies written to {}", path.display()));
        }
    }
    Ok(lines)
}

/// Where `validate` writes its per-game rows.
enum ReportSink {
    /// A report file (or standard output) in one of the report formats.
    Report(Box<ReportWriter>),
    /// One human-readable line per game on standard output.
    Lines(std::io::BufWriter<std::io::Stdout>),
}

impl ReportSink {
    /// `--out` in `format`; without `--out`, standard output in `format`, or lines without
    /// a format.
    fn open(out: Option<&PathBuf>, format: Option<Format>) -> Result<ReportSink> {
        Ok(match (out, format) {
            (Some(path), Some(f)) => ReportSink::Report(Box::new(ReportWriter::create(
                path,
                f,
                report::report_schema(),
            )?)),
            (None, Some(f)) => ReportSink::Report(Box::new(ReportWriter::new(
                Box::new(std::io::stdout()),
                STDOUT,
                f,
                report::report_schema(),
            )?)),
            _ => ReportSink::Lines(std::io::BufWriter::new(std::io::stdout())),
        })
    }

    /// Whether the rows go out as a record batch ([`report::reports_to_batch`]).
    fn takes_batches(&self) -> bool {
        matches!(self, ReportSink::Report(_))
    }

    /// Writes a share's rows: its record batch when [`ReportSink::takes_batches`], else its
    /// reports as lines.
    fn write(
        &mut self,
        reports: &[GameReport],
        batch: Option<&RecordBatch>,
        pb: &ProgressBar,
    ) -> Result<()> {
        match self {
            ReportSink::Report(w) => match batch {
                Some(b) => w.write(b),
                None => w.write(&report::reports_to_batch(reports)?),
            },
            ReportSink::Lines(w) => pb
                .suspend(|| {
                    for r in reports {
                        writeln!(
                            w,
                            "{} #{}: {} plies, {}{}",
                            r.file,
                            r.game_index,
                            r.plies,
                            r.final_status.map_or("-", FinalStatus::as_str),
                            match (&r.error_kind, &r.error_message) {
                                (Some(k), Some(m)) => format!(", {k}: {m}"),
                                _ => String::new(),
                            }
                        )?;
                    }
                    w.flush()
                })
                .map_err(|e| Error::Io {
                    path: STDOUT.into(),
                    source: e,
                }),
        }
    }

    /// Ends an interrupted run: keeps the rows written so far (a file as NAME.partial) and
    /// returns where they are.
    fn finish_partial(self) -> Result<String> {
        match self {
            ReportSink::Report(w) => Ok(match w.finish_partial()? {
                Some(path) => path.display().to_string(),
                None => STDOUT.into(),
            }),
            lines => lines.finish().map(|()| STDOUT.into()),
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            ReportSink::Report(w) => w.finish(),
            ReportSink::Lines(mut w) => w.flush().map_err(|e| Error::Io {
                path: STDOUT.into(),
                source: e,
            }),
        }
    }
}

/// Where a chunk's results go: the report, the ply rows, the report page.
struct Outputs<'a> {
    sink: &'a mut ReportSink,
    plies: &'a mut Option<ReportWriter>,
    page: Option<&'a mut ReportPage>,
}

/// What a chunk of games gives to write ([`write_chunk`]).
struct Written {
    reports: Vec<GameReport>,
    /// The reports as a record batch, when the sink takes batches.
    rows: Option<RecordBatch>,
    /// With `--plies`: the ply rows.
    ply_rows: Option<RecordBatch>,
    /// With `--html`: per report, the token of its first illegal ply; else empty.
    tokens: Vec<Option<String>>,
}

/// Per report, the move token of its game at its first illegal ply, if any.
fn first_illegal_tokens(reports: &[GameReport], games: &[(&str, RawGame)]) -> Vec<Option<String>> {
    reports
        .iter()
        .zip(games)
        .map(|(r, (_, g))| {
            let ply = r.first_illegal_ply.and_then(|p| p.checked_sub(1))?;
            g.moves.get(ply as usize).cloned()
        })
        .collect()
}

/// Writes a chunk's rows (and its ply rows, and adds its games to the report page) and
/// counts them.
fn write_chunk(
    w: Written,
    outputs: Outputs<'_>,
    summary: &mut Summary,
    pb: &ProgressBar,
    t0: Instant,
) -> Result<()> {
    let Outputs { sink, plies, page } = outputs;
    sink.write(&w.reports, w.rows.as_ref(), pb)?;
    if let (Some(out), Some(b)) = (plies.as_mut(), w.ply_rows) {
        out.write(&b)?;
    }
    if let Some(page) = page {
        for (k, r) in w.reports.iter().enumerate() {
            page.add(r, w.tokens.get(k).and_then(Option::as_deref));
        }
    }
    summary.add(&w.reports);
    let secs = t0.elapsed().as_secs_f64().max(1e-9);
    pb.set_message(format!(
        "{} games validated, {:.0} games/s",
        HumanCount(summary.games),
        summary.games as f64 / secs
    ));
    Ok(())
}

/// A progress bar on stderr (by bytes read when the total size is known), hidden when
/// stderr is not a terminal.
fn progress_bar(total_bytes: Option<u64>) -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (pb, template) = match total_bytes {
        Some(n) => (
            ProgressBar::with_draw_target(Some(n), ProgressDrawTarget::stderr()),
            "{spinner} {elapsed_precise} [{wide_bar}] {bytes}/{total_bytes} read, {msg}",
        ),
        None => (
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
            "{spinner} {elapsed_precise} {bytes} read, {msg}",
        ),
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    pb
}

/// Counts of a validation run.
#[derive(Default)]
struct Summary {
    games: u64,
    plies: u64,
    legal: u64,
    /// Games per error kind, by name.
    kinds: BTreeMap<&'static str, u64>,
}

impl Summary {
    fn add(&mut self, reports: &[GameReport]) {
        for r in reports {
            self.games += 1;
            self.plies += u64::from(r.plies);
            match r.error_kind {
                None => self.legal += 1,
                Some(k) => *self.kinds.entry(k.as_str()).or_default() += 1,
            }
        }
    }

    /// Games illegal or malformed (every error kind but `unsupported_variant`).
    fn bad(&self) -> u64 {
        self.kinds
            .iter()
            .filter(|(k, _)| **k != ErrorKind::UnsupportedVariant.as_str())
            .map(|(_, n)| n)
            .sum()
    }

    /// The summary, on stderr.
    fn print(&self, secs: f64, bytes: u64, inputs: usize, io_errors: u64) {
        let rate = |n: u64| n as f64 / secs.max(1e-9);
        let kinds = if self.kinds.is_empty() {
            "none".to_string()
        } else {
            self.kinds
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        note!(
            "games: {}, plies: {}, legal games: {}",
            self.games,
            self.plies,
            self.legal
        );
        note!("games per error kind: {kinds}");
        if let Some(n) = self.kinds.get(ErrorKind::UnsupportedVariant.as_str()) {
            note!("games not checked (unsupported variant): {n}");
        }
        note!(
            "games/s: {:.0}, plies/s: {:.0}, wall time: {secs:.2} s, read: {} from {inputs} input(s)",
            rate(self.games),
            rate(self.plies),
            HumanBytes(bytes)
        );
        if io_errors > 0 {
            note!("I/O errors: {io_errors} (see above)");
        }
    }
}
