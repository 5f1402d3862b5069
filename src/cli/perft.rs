//! `sqlchess perft`: the leaf nodes of the legal move tree of a position, optionally per
//! first move (`--divide`).

use std::process::ExitCode;
use std::time::Instant;

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

/// Runs `sqlchess perft`: the counts on stdout, the time on stderr. A FEN no legal game
/// reaches is an error ([`Error::Fen`]).
pub async fn run(engine: &Engine, args: Args) -> Result<ExitCode> {
    let setup = crate::parse_fen(&args.fen, args.chess960)?;
    if let Some(Some(e)) = engine.check_setups(&[setup]).await?.first() {
        return Err(Error::Fen {
            fen: args.fen,
            source: e.clone(),
        });
    }
    let t0 = Instant::now();
    let nodes = if args.divide {
        let rows = engine.perft_divide(&setup, args.depth).await?;
        for (uci, n) in &rows {
            out!("{uci}: {n}\n")?;
        }
        rows.iter().map(|(_, n)| n).sum()
    } else {
        engine
            .perft(&[setup], args.depth)
            .await?
            .first()
            .copied()
            .unwrap_or(0)
    };
    eprintln!("time: {:.3} s", t0.elapsed().as_secs_f64());
    out!("nodes: {nodes}\n")?;
    Ok(ExitCode::SUCCESS)
}
