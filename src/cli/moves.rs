//! `sqlchess moves`: the legal moves (SAN and UCI) of a position, or of every FEN line of a
//! file, printed or written as rows.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, AsArray, RecordBatch, StringArray, UInt64Array};
use datafusion::arrow::datatypes::{DataType, Field, Schema, UInt64Type};
use sqlchess::io::report::{self, Format};
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

/// Runs `sqlchess moves`. A FEN line that does not parse, or gives a position no legal game
/// reaches, is reported on stderr and skipped (exit status 1); the single FEN argument in
/// that case is an error (exit status 2).
pub async fn run(engine: &Engine, args: Args) -> Result<ExitCode> {
    let lines = read_lines(args.fen.as_deref(), args.fens.as_deref(), args.chess960)?;
    let (setups, failed) = positions(engine, &lines, args.chess960).await?;
    if args.fen.is_some() && failed {
        return Err(Error::Usage("the position cannot occur in a game".into()));
    }
    let rows = legal_moves(engine, &setups, &lines).await?;
    match (args.out, args.fen) {
        (Some(path), _) => rows.write(&path)?,
        (None, Some(_)) => {
            for i in 0..rows.len() {
                println!("{}\t{}", rows.san[i], rows.uci[i]);
            }
            println!("legal moves: {}", rows.len());
        }
        (None, None) => {
            for i in 0..rows.len() {
                println!("{}\t{}\t{}", rows.index[i], rows.san[i], rows.uci[i]);
            }
        }
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The FEN argument (which must parse), or the lines of the `--fens` file.
fn read_lines(fen: Option<&str>, fens: Option<&Path>, chess960: bool) -> Result<Vec<String>> {
    match (fen, fens) {
        (Some(f), None) => {
            crate::parse_fen(f, chess960)?;
            Ok(vec![f.to_string()])
        }
        (None, Some(path)) => {
            let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
                path: path.display().to_string(),
                source: e,
            })?;
            Ok(text.lines().map(str::to_string).collect())
        }
        _ => Err(Error::Usage("give a FEN or --fens FILE".into())),
    }
}

/// The positions of the non-empty lines, by line index, and whether a line was rejected:
/// a FEN that does not parse, or a position no game reaches (side not to move in check,
/// ...: [`Engine::check_setups`]). Each rejected line is reported on stderr.
async fn positions(
    engine: &Engine,
    lines: &[String],
    chess960: bool,
) -> Result<(Vec<(u64, Setup)>, bool)> {
    let mut setups: Vec<(u64, Setup)> = vec![];
    let mut failed = false;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match crate::read_fen(line, chess960) {
            Ok(s) => setups.push((i as u64, s)),
            Err(e) => {
                eprintln!(
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
                eprintln!(
                    "line {} (position_index {i}): invalid FEN {:?}: {e}",
                    i + 1,
                    lines[i as usize]
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

/// The legal moves of `setups` (by line index into `lines`), with SAN.
async fn legal_moves(
    engine: &Engine,
    setups: &[(u64, Setup)],
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
            rows.fen.push(lines[pid as usize].clone());
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

    /// Writes the rows (`position_index: UInt64, fen, uci, san: Utf8`) to `path` in the
    /// format its extension names.
    fn write(&self, path: &Path) -> Result<()> {
        let schema = Arc::new(Schema::new(vec![
            Field::new("position_index", DataType::UInt64, false),
            Field::new("fen", DataType::Utf8, false),
            Field::new("uci", DataType::Utf8, false),
            Field::new("san", DataType::Utf8, false),
        ]));
        let text = |v: &[String]| Arc::new(StringArray::from_iter_values(v)) as ArrayRef;
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(UInt64Array::from_iter_values(self.index.iter().copied())),
                text(&self.fen),
                text(&self.uci),
                text(&self.san),
            ],
        )?;
        report::write_batches(path, Format::from_path(path)?, schema, &[batch])
    }
}
