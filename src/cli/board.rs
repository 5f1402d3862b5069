//! `sqlchess board`: one position as a board diagram, SVG or PNG
//! ([`sqlchess::picture::board`]; the check marker from stage `checkers`).

use std::path::PathBuf;
use std::process::ExitCode;

use sqlchess::chess::mark::Mark;
use sqlchess::picture::board::{
    BoardOptions, DEFAULT_SIZE, Defs, board_svg, in_check, parse_last_move, parse_size,
};
use sqlchess::picture::raster;
use sqlchess::{Engine, Error, Result};

/// Arguments of `sqlchess board`.
#[derive(clap::Args)]
pub struct Args {
    /// The position, as a FEN (X-FEN or Shredder-FEN for Chess960).
    fen: String,
    /// Write the diagram here: .svg, or .png (drawn by resvg; no fonts needed). Default:
    /// the SVG on standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Black at the bottom.
    #[arg(long)]
    flip: bool,
    /// The last move, in UCI (e2e4, e7e8q; castling e1g1, or e1h1 in Chess960): its two
    /// squares are highlighted.
    #[arg(long, value_name = "UCI")]
    lastmove: Option<String>,
    /// Arrows and circled squares as lichess writes them in [%cal]/[%csl]: a colour letter
    /// (G, R, Y, B) and two squares for an arrow (Ge2e4) or one for a circle (Rd4),
    /// separated by spaces or commas.
    #[arg(long, value_name = "MARKS")]
    arrows: Option<String>,
    /// Width and height in pixels (32 to 4096).
    #[arg(long, default_value_t = DEFAULT_SIZE.to_string(), allow_negative_numbers = true)]
    size: String,
    /// Leave out the coordinates (a–h, 1–8).
    #[arg(long)]
    no_coordinates: bool,
}

/// Where the diagram goes.
enum Output {
    Stdout,
    Svg(PathBuf),
    Png(PathBuf),
}

/// Runs `sqlchess board`. Errors (exit status 2, nothing written): [`Error::Fen`] for a bad
/// FEN; [`Error::Usage`] for a bad `--lastmove`, `--arrows` token, `--size` or `--out`
/// extension; [`Error::Io`] naming `--out`; [`Error::Picture`] if the PNG cannot be drawn.
pub async fn run(engine: &Engine, args: Args) -> Result<ExitCode> {
    let output = match &args.out {
        None => Output::Stdout,
        Some(p) => match p
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
        {
            Some(e) if e == "svg" => Output::Svg(p.clone()),
            Some(e) if e == "png" => Output::Png(p.clone()),
            _ => {
                return Err(Error::Usage(format!(
                    "--out {}: the diagram is written as .svg or .png",
                    p.display()
                )));
            }
        },
    };
    let usage = |e: &dyn std::fmt::Display| Error::Usage(e.to_string());
    let options = BoardOptions {
        flipped: args.flip,
        last_move: args
            .lastmove
            .as_deref()
            .map(parse_last_move)
            .transpose()
            .map_err(|e| usage(&e))?,
        marks: args
            .arrows
            .as_deref()
            .map(Mark::parse_list)
            .transpose()
            .map_err(|e| usage(&e))?
            .unwrap_or_default(),
        size: parse_size(&args.size).map_err(|e| usage(&e))?,
        coordinates: !args.no_coordinates,
    };
    let setup = crate::parse_fen(&args.fen, false)?;
    let check = in_check(engine, &[setup]).await?;
    let svg = board_svg(&setup, &options, check[0], Defs::Own);
    match output {
        Output::Stdout => out!("{svg}\n")?,
        Output::Svg(path) => sqlchess::io::whole_file::write_whole(&path, svg.as_bytes())?,
        Output::Png(path) => sqlchess::io::whole_file::write_whole(&path, &raster::png(&svg)?)?,
    }
    Ok(ExitCode::SUCCESS)
}
