//! `sqlchess moves`: the legal moves (SAN and UCI) of a position, or of every FEN line of a
//! file, printed or written as rows.

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, UInt64Type};
use sqlchess::io::report::{Format, ReportWriter};
use sqlchess::{Engine, Error, Result, Setup};

/// Arguments of `sqlchess moves`.
#[derive(clap::Args)]
pub struct Args {
    /// A FEN.
    fen: Option<String>,
    /// A file with one FEN per line.
    #[arg(long)]
    fens: Option<PathBuf>,
    /// With --fens: write rows (position_index, fen, uci, san) here.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Chess960 castling rules and UCI (king takes rook, `e1h1`). Without it, Chess960 is
    /// chosen per position when its castling rights can only mean Chess960.
    #[arg(long)]
    chess960: bool,
}

/// Positions per chunk of `--fens`: read, checked, solved and written together, so memory
/// depends on this, not on the file's length.
const CHUNK: usize = 10_000;

/// Runs `sqlchess moves`. A FEN line that does not parse, or gives a position no legal game
/// reaches, is reported on stderr and skipped (exit status 1); the single FEN argument in
/// that case is an error (exit status 2). A `--fens` file is streamed [`CHUNK`] lines at a
/// time; `position_index` is the 0-based line number.
pub async fn run(engine: &Engine, args: Args) -> Result<ExitCode> {
    let failed = match (args.fen.as_deref(), args.fens.as_deref()) {
        (Some(fen), None) => {
            let setup = crate::parse_fen(fen, args.chess960)?;
            if let Some(Some(e)) = engine.check_setups(&[setup]).await?.pop() {
                return Err(Error::Fen {
                    fen: fen.to_string(),
                    source: e,
                });
            }
            let lines = vec![fen.to_string()];
            let rows = legal_moves(engine, &[(0, setup)], 0, &lines).await?;
            for i in 0..rows.len() {
                out!("{}\t{}\n", rows.san[i], rows.uci[i])?;
            }
            out!("legal moves: {}\n", rows.len())?;
            false
        }
        (None, Some(path)) => fens(engine, path, args.out.as_deref(), args.chess960).await?,
        _ => return Err(Error::Usage("give a FEN or --fens FILE".into())),
    };
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `moves --fens PATH [--out OUT]`: the file in chunks of [`CHUNK`] lines, each chunk's rows
/// printed or appended to OUT. Returns whether a line was rejected.
async fn fens(engine: &Engine, path: &Path, out: Option<&Path>, chess960: bool) -> Result<bool> {
    let io_error = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        source: e,
    };
    let file = std::fs::File::open(path).map_err(io_error)?;
    let mut writer = match out {
        Some(o) => Some(ReportWriter::create(
            o,
            Format::from_path(o)?,
            rows_schema(),
        )?),
        None => None,
    };
    let mut lines = std::io::BufReader::new(file).lines();
    let (mut first, mut failed) = (0u64, false);
    loop {
        let chunk: Vec<String> = lines
            .by_ref()
            .take(CHUNK)
            .collect::<std::io::Result<_>>()
            .map_err(io_error)?;
        if chunk.is_empty() {
            break;
        }
        let (setups, bad) = positions(engine, first, &chunk, chess960).await?;
        failed |= bad;
        let rows = legal_moves(engine, &setups, first, &chunk).await?;
        match writer.as_mut() {
            Some(w) => w.write(&rows.batch()?)?,
            None => {
                for i in 0..rows.len() {
                    out!("{}\t{}\t{}\n", rows.index[i], rows.san[i], rows.uci[i])?;
                }
            }
        }
        first += chunk.len() as u64;
    }
    if let Some(w) = writer {
        w.finish()?;
    }
    Ok(failed)
}

/// The positions of the non-empty lines, by line index, and whether a line was rejected:
/// a FEN that does not parse, or a position no game reaches (side not to move in check,
/// ...: [`Engine::check_setups`]). Each rejected line is reported on stderr.
async fn positions(
    engine: &Engine,
    first: u64,
    lines: &[String],
    chess960: bool,
) -> Result<(Vec<(u64, Setup)>, bool)> {
    let mut setups: Vec<(u64, Setup)> = vec![];
    let mut failed = false;
    for (i, line) in (first..).zip(lines) {
        if line.trim().is_empty() {
            continue;
        }
        match crate::read_fen(line, chess960) {
            Ok(s) => setups.push((i, s)),
            Err(e) => {
                note!(
                    "line {} (position_index {i}): invalid FEN {line:?}: {e}",
                    i + 1
                );
                failed = true;
            }
        }
    }
    let plain: Vec<Setup> = setups.iter().map(|(_, s)| *s).collect();
    let verdicts = engine.check_setups(&plain).await?;
    let mut kept = vec![];
    for ((i, s), verdict) in setups.into_iter().zip(verdicts) {
        match verdict {
            None => kept.push((i, s)),
            Some(e) => {
                note!(
                    "line {} (position_index {i}): invalid FEN {:?}: {e}",
                    i + 1,
                    lines[(i - first) as usize]
                );
                failed = true;
            }
        }
    }
    Ok((kept, failed))
}

/// The legal moves of the positions, one row each, in position order, then UCI.
struct MoveRows {
    /// The position's line index.
    index: Vec<u64>,
    /// The position's FEN line.
    fen: Vec<String>,
    uci: Vec<String>,
    san: Vec<String>,
}

/// The legal moves of `setups` (by line number; `lines` starts at line `first`), with SAN.
async fn legal_moves(
    engine: &Engine,
    setups: &[(u64, Setup)],
    first: u64,
    lines: &[String],
) -> Result<MoveRows> {
    let pairs: Vec<(u64, &Setup)> = setups.iter().map(|(i, s)| (*i, s)).collect();
    engine.load_pairs(&pairs).await?;
    let batches = engine.legal_moves_loaded().await?;
    let mut rows = MoveRows {
        index: vec![],
        fen: vec![],
        uci: vec![],
        san: vec![],
    };
    for b in &batches {
        let id = b.column(0).as_primitive::<UInt64Type>();
        let uci = b
            .column_by_name("uci")
            .ok_or_else(|| Error::Schema("uci".into()))?
            .as_string::<i32>();
        let san = b
            .column_by_name("san")
            .ok_or_else(|| Error::Schema("san".into()))?
            .as_string::<i32>();
        for i in 0..b.num_rows() {
            let pid = id.value(i);
            rows.index.push(pid);
            rows.fen.push(lines[(pid - first) as usize].clone());
            rows.uci.push(uci.value(i).to_string());
            rows.san.push(san.value(i).to_string());
        }
    }
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| (rows.index[a], &rows.uci[a]).cmp(&(rows.index[b], &rows.uci[b])));
    let pick = |v: &[String]| -> Vec<String> { order.iter().map(|&i| v[i].clone()).collect() };
    Ok(MoveRows {
        index: order.iter().map(|&i| rows.index[i]).collect(),
        fen: pick(&rows.fen),
        uci: pick(&rows.uci),
        san: pick(&rows.san),
    })
}

impl MoveRows {
    fn len(&self) -> usize {
        self.index.len()
    }

    /// The rows as one batch of [`rows_schema`].
    fn batch(&self) -> Result<RecordBatch> {
        let text = |v: &[String]| Arc::new(StringArray::from_iter_values(v)) as ArrayRef;
        Ok(RecordBatch::try_new(
            rows_schema(),
            vec![
                Arc::new(UInt64Array::from_iter_values(self.index.iter().copied())),
                text(&self.fen),
                text(&self.uci),
                text(&self.san),
            ],
        )?)
    }
}

/// The rows of `moves --fens --out`: `position_index: UInt64` (0-based line number),
/// `fen, uci, san: Utf8`.
fn rows_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("position_index", DataType::UInt64, false),
        Field::new("fen", DataType::Utf8, false),
        Field::new("uci", DataType::Utf8, false),
        Field::new("san", DataType::Utf8, false),
    ]))
}
