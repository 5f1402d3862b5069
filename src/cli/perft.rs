//! `sqlchess perft`: the leaf nodes of the legal move tree of a position, optionally per
//! first move (`--divide`).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use indicatif::{HumanCount, ProgressBar, ProgressDrawTarget, ProgressStyle};
use sqlchess::engine::{PerftOptions, PerftProgress};
use sqlchess::session::memory::human;
use sqlchess::{Engine, Error, Result};

/// Arguments of `sqlchess perft`.
#[derive(clap::Args)]
pub struct Args {
    /// A FEN.
    fen: String,
    /// Depth in plies.
    depth: u32,
    /// Also print the count below each legal move.
    #[arg(long)]
    divide: bool,
    /// Chess960 castling rules and UCI (king takes rook, `e1h1`). Without it, Chess960 is
    /// chosen when the castling rights can only mean Chess960.
    #[arg(long)]
    chess960: bool,
}

/// Runs `sqlchess perft`: the counts on stdout; the time, the memory limit with the most of
/// it in use at once, and the process's peak resident memory on stderr, and
/// while it runs a progress line (ply, positions done, nodes merged, elapsed), hidden when
/// stderr is not a terminal. A FEN no legal game reaches is an error ([`Error::Fen`]).
pub async fn run(engine: &Engine, args: Args) -> Result<ExitCode> {
    let setup = crate::parse_fen(&args.fen, args.chess960)?;
    if let Some(Some(e)) = engine.check_setups(&[setup]).await?.first() {
        return Err(Error::Fen {
            fen: args.fen,
            source: e.clone(),
        });
    }
    let t0 = Instant::now();
    let pb = progress_bar();
    let shown = pb.clone();
    let options = PerftOptions {
        progress: Some(Arc::new(move |p: &PerftProgress| show(&shown, p))),
        ..PerftOptions::default()
    };
    let nodes = if args.divide {
        let rows = engine.perft_divide_with(&setup, args.depth, &options).await;
        pb.finish_and_clear();
        let rows = rows?;
        for (uci, n) in &rows {
            out!("{uci}: {n}\n")?;
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        let counts = engine.perft_with(&[setup], args.depth, &options).await;
        pb.finish_and_clear();
        counts?.first().copied().unwrap_or(0)
    };
    note!("time: {:.3} s", t0.elapsed().as_secs_f64());
    // what the limit bounds (the memory pool: stage tables, levels, operators), then the
    // whole process, which also holds the program, the plans and the allocator's reserve
    let memory = engine.pipeline().session().memory().budget();
    note!(
        "memory limit: {} (peak reserved under it: {})",
        human(memory.run_limit()),
        human(memory.peak())
    );
    if let Some(peak) = peak_rss() {
        note!("peak RSS of the process (not bounded by the limit): {peak}");
    }
    out!("nodes: {nodes}\n")?;
    Ok(ExitCode::SUCCESS)
}

/// A progress line on stderr, hidden when stderr is not a terminal.
fn progress_bar() -> ProgressBar {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::with_draw_target(Some(1), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{spinner} {elapsed_precise} [{wide_bar}] {msg}")
    {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.enable_steady_tick(std::time::Duration::from_millis(200));
    pb
}

/// The bar: nodes of the level merged so far (of all its nodes); the message: ply, distinct
/// positions done.
fn show(pb: &ProgressBar, p: &PerftProgress) {
    pb.set_length(p.nodes.max(1));
    pb.set_position(p.nodes_merged);
    pb.set_message(format!(
        "ply {}/{}: {} positions done, {}/{} nodes merged{}",
        p.ply,
        p.depth,
        HumanCount(p.positions),
        HumanCount(p.nodes_merged),
        HumanCount(p.nodes),
        if p.spilled { " (level on disk)" } else { "" }
    ));
}

/// The process's peak resident memory (`VmHWM` of `/proc/self/status`, Linux), as `1.2 GiB`.
fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(human(kib * 1024))
}
