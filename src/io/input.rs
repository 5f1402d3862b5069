//! Inputs of batch validation: files, directories (searched recursively) and `-` for
//! standard input, with `.zst`, `.gz` and `.bz2` decompressed on the fly.
//!
//! [`expand`] turns command-line arguments into a list of [`Input`]s (checking that every
//! named file or directory exists); [`Input::open`] opens one as a buffered reader of PGN
//! text, counting the bytes read from the source (before decompression) in a shared
//! [`ByteCounter`] for progress reporting. Nothing is read into memory as a whole.
//!
//! Every input is recognised by its first bytes, whatever its name: a zstd, gzip or bzip2
//! magic number selects the decoder, anything else is plain text (so a gzip file named
//! `games.pgn` is read as gzip, and a plain file named `x.pgn.gz` as text). Concatenated
//! streams (several zstd frames, gzip members, bzip2 streams) are read to the end. Text that
//! is not text at all (a NUL byte or many control bytes at its start, or another compression
//! such as xz or zip) is refused with [`Error::NotPgn`] instead of being read as hundreds of
//! games with syntax errors.

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
    /// Bytes compiled into the program ([`Input::sample`]).
    Bundled(&'static [u8]),
}

/// The 20 games of `data/sample.pgn`, compiled into the program: what `sqlchess validate`
/// reads without an argument, from any folder.
pub const SAMPLE_PGN: &[u8] = include_bytes!("../../data/sample.pgn");

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
    /// Not known yet: decided by the first bytes when opened (every input starts so).
    Sniff,
}

impl Compression {
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

/// Why `head`, the first bytes of an input's (decompressed) text, is not PGN text, or
/// `None` when it may be: another compression's magic number (xz, zip, 7z, lz4, lzip), or a
/// first line (its first 4 KiB at most) with a NUL byte or more than one control byte in 32
/// (PGN text, UTF-8 or Windows-1252, has almost none: only tab, line feed, carriage return,
/// form feed and escape are expected). Only the first line is judged: binary bytes further
/// on are the reader's to report game by game, without losing the games around them.
#[must_use]
pub fn not_text(head: &[u8]) -> Option<String> {
    const OTHERS: [(&[u8], &str); 5] = [
        (&[0xFD, b'7', b'z', b'X', b'Z', 0], "xz-compressed"),
        (b"PK\x03\x04", "a zip archive"),
        (&[b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C], "a 7z archive"),
        (&[0x04, 0x22, 0x4D, 0x18], "lz4-compressed"),
        (b"LZIP", "lzip-compressed"),
    ];
    if let Some((_, what)) = OTHERS.iter().find(|(magic, _)| head.starts_with(magic)) {
        return Some(format!(
            "{what} (zstd, gzip and bzip2 are read; decompress it first)"
        ));
    }
    let end = head
        .iter()
        .take(FIRST_LINE)
        .position(|&b| b == b'\n')
        .unwrap_or(head.len().min(FIRST_LINE));
    let head = &head[..end];
    if let Some(at) = head.iter().position(|&b| b == 0) {
        return Some(format!("binary data (a NUL byte at offset {at})"));
    }
    let controls = head
        .iter()
        .filter(|&&b| (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0C | 0x1B)) || b == 0x7F)
        .count();
    (controls * 32 > head.len()).then(|| {
        format!(
            "binary data ({controls} control bytes in its first {} bytes)",
            head.len()
        )
    })
}

/// The paths a path argument names: a glob pattern (`games/*.pgn.zst`: the paths it
/// matches, sorted) or the path itself (a file or directory, for [`expand`]), as `read_pgn`
/// and the Python package's `validate` take them.
///
/// Errors: [`Error::Usage`] for a pattern that does not parse or reads a folder it cannot,
/// or one that matches nothing.
pub fn glob_paths(path: &Path) -> Result<Vec<PathBuf>> {
    let Some(pattern) = path.to_str().filter(|p| p.contains(['*', '?', '['])) else {
        return Ok(vec![path.to_path_buf()]);
    };
    let bad = |e: &dyn std::fmt::Display| Error::Usage(format!("glob {pattern:?}: {e}"));
    let mut found = vec![];
    for entry in glob::glob(pattern).map_err(|e| bad(&e))? {
        found.push(entry.map_err(|e| bad(&e))?);
    }
    if found.is_empty() {
        return Err(Error::Usage(format!("no file matches {pattern:?}")));
    }
    found.sort();
    Ok(found)
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
            out.extend(found.into_iter().map(Input::file));
        } else {
            out.push(Input::file(arg.clone()));
        }
    }
    Ok(out)
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
    /// The file at `path`, named by it, its compression recognised by its first bytes when
    /// opened (whatever its name).
    #[must_use]
    pub fn file(path: PathBuf) -> Input {
        Input {
            name: path.display().to_string(),
            source: Source::File(path),
            compression: Compression::Sniff,
        }
    }

    /// The bundled sample ([`SAMPLE_PGN`]), named `data/sample.pgn` as in the repository.
    #[must_use]
    pub fn sample() -> Input {
        Input {
            name: "data/sample.pgn".into(),
            source: Source::Bundled(SAMPLE_PGN),
            compression: Compression::None,
        }
    }

    /// The size of the source in bytes, if it is a regular file (or bundled).
    #[must_use]
    pub fn size(&self) -> Option<u64> {
        match &self.source {
            Source::File(p) => std::fs::metadata(p)
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.len()),
            Source::Bundled(b) => Some(b.len() as u64),
            Source::Stdin => None,
        }
    }

    /// Opens the input as buffered PGN text (decompressed), counting source bytes in
    /// `counter`. Read errors later on (including corrupt compressed data) come from the
    /// reader as [`io::Error`]s.
    ///
    /// Errors: [`Error::Io`] naming the input when it cannot be opened or its first block
    /// cannot be read or decompressed; [`Error::NotPgn`] when that block is not text
    /// ([`not_text`]).
    pub fn open(&self, counter: &ByteCounter) -> Result<Box<dyn BufRead>> {
        let io = |e: io::Error| Error::Io {
            path: self.name.clone(),
            source: e,
        };
        let raw: Box<dyn Read> = match &self.source {
            Source::Stdin => Box::new(io::stdin().lock()),
            Source::File(p) => Box::new(File::open(p).map_err(io)?),
            Source::Bundled(bytes) => Box::new(*bytes),
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
        self.checked(reader)
    }

    /// `reader` once its first block is known to be text. Errors: as [`Input::open`].
    fn checked(&self, mut reader: Box<dyn BufRead>) -> Result<Box<dyn BufRead>> {
        let head = reader.fill_buf().map_err(|e| Error::Io {
            path: self.name.clone(),
            source: e,
        })?;
        match not_text(head) {
            Some(reason) => Err(Error::NotPgn {
                path: self.name.clone(),
                reason,
            }),
            None => Ok(reader),
        }
    }
}

/// The most bytes of the first line [`not_text`] judges.
const FIRST_LINE: usize = 4096;

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
                "a byte range of an input that is not a file",
            )));
        };
        let mut file = File::open(p).map_err(io)?;
        file.seek(io::SeekFrom::Start(start)).map_err(io)?;
        let raw: Box<dyn Read> = match end {
            Some(e) => Box::new(file.take(e.saturating_sub(start))),
            None => Box::new(file),
        };
        self.checked(Box::new(BufReader::with_capacity(
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
    fn magic_numbers_and_text() {
        assert_eq!(Compression::sniff(b"\x28\xb5\x2f\xfd"), Compression::Zstd);
        assert_eq!(Compression::sniff(b"\x1f\x8b\x08"), Compression::Gzip);
        assert_eq!(Compression::sniff(b"BZh9"), Compression::Bzip2);
        assert_eq!(Compression::sniff(b"[Event"), Compression::None);
        assert_eq!(Compression::sniff(b""), Compression::None);
        assert!(is_pgn_name("x.Pgn.bz2") && !is_pgn_name("x.txt") && !is_pgn_name("x.pgn.xz"));
        // text: PGN, Windows-1252 bytes, a BOM, an escape; not: NUL, controls, xz, zip
        assert_eq!(not_text(PGN.as_bytes()), None);
        assert_eq!(
            not_text(b"\xef\xbb\xbf[Event \"caf\xe9\"]\x1b\r\n\x0c"),
            None
        );
        assert_eq!(not_text(b""), None);
        assert!(not_text(b"[Event \"x\"]\0").is_some_and(|r| r.contains("offset 11")));
        assert!(not_text(&[1u8; 100]).is_some_and(|r| r.contains("100 control bytes")));
        // binary after the first line is the reader's to report
        assert_eq!(not_text(b"[Event \"x\"]\n\0\0\0\x01\x02"), None);
        assert!(not_text(b"\xfd7zXZ\0\0").is_some_and(|r| r.starts_with("xz-compressed")));
        assert!(not_text(b"PK\x03\x04").is_some_and(|r| r.contains("zip")));
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
        // a gzip file without a telling name is sniffed; so is one named as plain text, and
        // a plain file named as compressed is read as text (issue 31)
        std::fs::write(dir.join("e.data"), &gz).expect("write");
        std::fs::write(sub.join("f.pgn"), &gz).expect("write");
        std::fs::write(sub.join("g.pgn.zst"), PGN).expect("write");

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
            [
                "b.pgn",
                "c.pgn.zst",
                "d.pgn.bz2",
                "sub/a.pgn.gz",
                "sub/f.pgn",
                "sub/g.pgn.zst",
                "e.data"
            ]
        );
        for input in &inputs {
            let (text, bytes) = read_all(input);
            assert_eq!(text, PGN, "{}", input.name);
            assert_eq!(Some(bytes), input.size(), "{}", input.name);
        }
        // a file that is not text: one error naming it
        std::fs::write(dir.join("h.pgn"), b"\xfd7zXZ\0\0\x04\xe6\xd6\xb4F").expect("write");
        let not_pgn = expand(&[dir.join("h.pgn")]).expect("expand")[0]
            .open(&ByteCounter::new())
            .err()
            .expect("not a PGN file");
        assert!(
            matches!(&not_pgn, Error::NotPgn { path, reason } if path.ends_with("h.pgn") && reason.starts_with("xz")),
            "{not_pgn}"
        );
        let missing = expand(&[dir.join("missing.pgn")]).expect_err("missing");
        assert!(
            matches!(&missing, Error::Io { path, .. } if path.ends_with("missing.pgn")),
            "{missing}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
