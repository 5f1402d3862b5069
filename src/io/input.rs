//! Inputs of batch validation: files, directories (searched recursively) and `-` for
//! standard input, with `.zst`, `.gz` and `.bz2` decompressed on the fly.
//!
//! [`expand`] turns command-line arguments into a list of [`Input`]s (checking that every
//! named file or directory exists); [`Input::open`] opens one as a buffered reader of PGN
//! text, counting the bytes read from the source (before decompression) in a shared
//! [`ByteCounter`] for progress reporting. Nothing is read into memory as a whole.
//!
//! Compression is chosen by the file name (`.zst`/`.zstd`, `.gz`, `.bz2`, case-insensitive).
//! Standard input and files whose name has none of the known extensions (not `.pgn` either)
//! are sniffed: a zstd, gzip or bzip2 magic number at the start selects the decoder, anything
//! else is read as plain text. Concatenated streams (several zstd frames, gzip members, bzip2
//! streams) are read to the end.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::{Error, Result};

/// Buffer size of the readers (source and decompressed text).
const BUF: usize = 256 * 1024;

/// Where an input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-` on the command line).
    Stdin,
    /// A file.
    File(PathBuf),
}

/// How an input is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Plain text.
    None,
    /// Zstandard (`.zst`).
    Zstd,
    /// gzip (`.gz`), all members.
    Gzip,
    /// bzip2 (`.bz2`), all streams.
    Bzip2,
    /// Unknown from the name: decided by the first bytes when opened.
    Sniff,
}

impl Compression {
    /// The compression a file name announces: by its last extension (`.zst`/`.zstd`, `.gz`,
    /// `.bz2`); `.pgn` is plain text; any other name is [`Compression::Sniff`].
    #[must_use]
    pub fn from_name(name: &str) -> Compression {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".zst") || lower.ends_with(".zstd") {
            Compression::Zstd
        } else if lower.ends_with(".gz") {
            Compression::Gzip
        } else if lower.ends_with(".bz2") {
            Compression::Bzip2
        } else if lower.ends_with(".pgn") {
            Compression::None
        } else {
            Compression::Sniff
        }
    }

    /// The compression whose magic number starts `head` (plain text if none does).
    #[must_use]
    pub fn sniff(head: &[u8]) -> Compression {
        match head {
            [0x28, 0xB5, 0x2F, 0xFD, ..] => Compression::Zstd,
            [0x1F, 0x8B, ..] => Compression::Gzip,
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
            _ => Compression::None,
        }
    }
}

/// One input of a validation run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// The name reports give it (`file` column): the path as given or found in a directory,
    /// `-` for standard input.
    pub name: String,
    /// Where it comes from.
    pub source: Source,
    /// How it is compressed.
    pub compression: Compression,
}

/// File names taken from directories: `*.pgn`, `*.pgn.zst`, `*.pgn.gz`, `*.pgn.bz2`
/// (case-insensitive).
#[must_use]
pub fn is_pgn_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".pgn", ".pgn.zst", ".pgn.zstd", ".pgn.gz", ".pgn.bz2"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// The inputs named by command-line arguments, in argument order: `-` is standard input, a
/// directory stands for every PGN file below it (see [`is_pgn_name`]; recursively, symbolic
/// links to directories not followed, sorted by path), anything else is a file (whatever its
/// name).
///
/// Errors: [`Error::Io`] naming the argument when it does not exist or a directory cannot be
/// listed; [`Error::Usage`] when `-` is given twice.
pub fn expand(args: &[PathBuf]) -> Result<Vec<Input>> {
    let mut out = vec![];
    let mut stdin_seen = false;
    for arg in args {
        if arg.as_os_str() == "-" {
            if stdin_seen {
                return Err(Error::Usage("standard input (-) given twice".into()));
            }
            stdin_seen = true;
            out.push(Input {
                name: "-".into(),
                source: Source::Stdin,
                compression: Compression::Sniff,
            });
            continue;
        }
        let meta = std::fs::metadata(arg).map_err(|e| io_error(arg, e))?;
        if meta.is_dir() {
            let mut found = vec![];
            walk(arg, &mut found)?;
            found.sort();
            out.extend(found.into_iter().map(file_input));
        } else {
            out.push(file_input(arg.clone()));
        }
    }
    Ok(out)
}

fn file_input(path: PathBuf) -> Input {
    let name = path.display().to_string();
    Input {
        compression: Compression::from_name(&name),
        source: Source::File(path),
        name,
    }
}

fn io_error(path: &Path, source: io::Error) -> Error {
    Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Collects the PGN files below `dir` (no recursion: an explicit stack of directories).
fn walk(dir: &Path, found: &mut Vec<PathBuf>) -> Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).map_err(|e| io_error(&dir, e))? {
            let entry = entry.map_err(|e| io_error(&dir, e))?;
            let path = entry.path();
            let ty = entry.file_type().map_err(|e| io_error(&path, e))?;
            if ty.is_dir() {
                stack.push(path);
                continue;
            }
            let is_file = ty.is_file()
                || (ty.is_symlink() && std::fs::metadata(&path).is_ok_and(|m| m.is_file()));
            if is_file && is_pgn_name(&entry.file_name().to_string_lossy()) {
                found.push(path);
            }
        }
    }
    Ok(())
}

/// Bytes read from the sources (compressed bytes for compressed inputs), shared between
/// the readers and whoever reports progress.
#[derive(Debug, Clone, Default)]
pub struct ByteCounter(Arc<AtomicU64>);

impl ByteCounter {
    /// A counter at 0.
    #[must_use]
    pub fn new() -> ByteCounter {
        ByteCounter::default()
    }

    /// Bytes counted so far.
    #[must_use]
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn add(&self, n: usize) {
        self.0.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// A reader that adds every byte it reads to a [`ByteCounter`].
#[derive(Debug)]
pub struct CountingReader<R> {
    inner: R,
    counter: ByteCounter,
}

impl<R> CountingReader<R> {
    /// Wraps `inner`.
    pub fn new(inner: R, counter: ByteCounter) -> Self {
        CountingReader { inner, counter }
    }
}

impl<R: Read> Read for CountingReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.counter.add(n);
        Ok(n)
    }
}

impl Input {
    /// The size of the source in bytes, if it is a regular file.
    #[must_use]
    pub fn size(&self) -> Option<u64> {
        match &self.source {
            Source::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            Source::Stdin => None,
        }
    }

    /// Opens the input as buffered PGN text (decompressed), counting source bytes in
    /// `counter`. Read errors later on (including corrupt compressed data) come from the
    /// reader as [`io::Error`]s.
    ///
    /// Errors: [`Error::Io`] naming the input when it cannot be opened or its compressed
    /// stream header is unreadable.
    pub fn open(&self, counter: &ByteCounter) -> Result<Box<dyn BufRead>> {
        let io = |e: io::Error| Error::Io {
            path: self.name.clone(),
            source: e,
        };
        let raw: Box<dyn Read> = match &self.source {
            Source::Stdin => Box::new(io::stdin().lock()),
            Source::File(p) => Box::new(File::open(p).map_err(io)?),
        };
        let mut src = BufReader::with_capacity(BUF, CountingReader::new(raw, counter.clone()));
        let compression = match self.compression {
            Compression::Sniff => Compression::sniff(src.fill_buf().map_err(io)?),
            c => c,
        };
        let reader: Box<dyn BufRead> = match compression {
            Compression::None | Compression::Sniff => Box::new(src),
            Compression::Zstd => Box::new(BufReader::with_capacity(
                BUF,
                zstd::stream::read::Decoder::with_buffer(src).map_err(io)?,
            )),
            Compression::Gzip => Box::new(BufReader::with_capacity(
                BUF,
                flate2::bufread::MultiGzDecoder::new(src),
            )),
            Compression::Bzip2 => Box::new(BufReader::with_capacity(
                BUF,
                bzip2::bufread::MultiBzDecoder::new(src),
            )),
        };
        Ok(reader)
    }
}

impl Input {
    /// Opens the bytes `start..end` (`end` `None`: to the end) of a plain-text file as
    /// buffered PGN text, counting them in `counter`; the whole input ([`Input::open`])
    /// for `0..None`. Ranges come from [`super::split::split`], which cuts only plain
    /// files at game boundaries.
    ///
    /// Errors: [`Error::Io`] naming the input when it cannot be opened or is not a file.
    pub fn open_range(
        &self,
        start: u64,
        end: Option<u64>,
        counter: &ByteCounter,
    ) -> Result<Box<dyn BufRead>> {
        if start == 0 && end.is_none() {
            return self.open(counter);
        }
        let io = |e: io::Error| Error::Io {
            path: self.name.clone(),
            source: e,
        };
        let Source::File(p) = &self.source else {
            return Err(io(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a byte range of standard input",
            )));
        };
        let mut file = File::open(p).map_err(io)?;
        file.seek(io::SeekFrom::Start(start)).map_err(io)?;
        let raw: Box<dyn Read> = match end {
            Some(e) => Box::new(file.take(e.saturating_sub(start))),
            None => Box::new(file),
        };
        Ok(Box::new(BufReader::with_capacity(
            BUF,
            CountingReader::new(raw, counter.clone()),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    const PGN: &str = "[Event \"t\"]\n\n1. e4 e5 2. Nf3 *\n";

    fn read_all(input: &Input) -> (String, u64) {
        let counter = ByteCounter::new();
        let mut text = String::new();
        input
            .open(&counter)
            .expect("open")
            .read_to_string(&mut text)
            .expect("read");
        (text, counter.get())
    }

    #[test]
    fn names_and_magic_numbers() {
        assert_eq!(Compression::from_name("a/b.PGN.ZST"), Compression::Zstd);
        assert_eq!(Compression::from_name("b.pgn.gz"), Compression::Gzip);
        assert_eq!(Compression::from_name("b.pgn.bz2"), Compression::Bzip2);
        assert_eq!(Compression::from_name("b.pgn"), Compression::None);
        assert_eq!(Compression::from_name("games.txt"), Compression::Sniff);
        assert_eq!(Compression::sniff(b"\x1f\x8b\x08"), Compression::Gzip);
        assert_eq!(Compression::sniff(b"BZh9"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"[Event"), Compression::None);
        assert_eq!(Compression::sniff(b""), Compression::None);
        assert!(is_pgn_name("x.Pgn.bz2") && !is_pgn_name("x.txt") && !is_pgn_name("x.pgn.xz"));
    }

    #[test]
    fn compressed_files_and_directories() {
        let dir = std::env::temp_dir().join(format!("sqlchess-input-{}", std::process::id()));
        let sub = dir.join("sub");
        std::fs::create_dir_all(&sub).expect("dir");
        std::fs::write(dir.join("b.pgn"), PGN).expect("write");
        std::fs::write(dir.join("notes.txt"), "x").expect("write");
        let mut gz = flate2::write::GzEncoder::new(vec![], flate2::Compression::default());
        gz.write_all(PGN.as_bytes()).expect("gz");
        let gz = gz.finish().expect("gz");
        std::fs::write(sub.join("a.pgn.gz"), &gz).expect("write");
        std::fs::write(
            dir.join("c.pgn.zst"),
            zstd::encode_all(PGN.as_bytes(), 3).expect("zstd"),
        )
        .expect("write");
        let mut bz = bzip2::write::BzEncoder::new(vec![], bzip2::Compression::default());
        bz.write_all(PGN.as_bytes()).expect("bz2");
        std::fs::write(dir.join("d.pgn.bz2"), bz.finish().expect("bz2")).expect("write");
        // a gzip file without a telling name is sniffed
        std::fs::write(dir.join("e.data"), &gz).expect("write");

        let inputs = expand(&[dir.clone(), dir.join("e.data")]).expect("expand");
        let names: Vec<String> = inputs
            .iter()
            .map(|i| {
                Path::new(&i.name)
                    .strip_prefix(&dir)
                    .expect("below dir")
                    .display()
                    .to_string()
            })
            .collect();
        assert_eq!(
            names,
            ["b.pgn", "c.pgn.zst", "d.pgn.bz2", "sub/a.pgn.gz", "e.data"]
        );
        for input in &inputs {
            let (text, bytes) = read_all(input);
            assert_eq!(text, PGN, "{}", input.name);
            assert_eq!(Some(bytes), input.size(), "{}", input.name);
        }
        let missing = expand(&[dir.join("missing.pgn")]).expect_err("missing");
        assert!(
            matches!(&missing, Error::Io { path, .. } if path.ends_with("missing.pgn")),
            "{missing}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
