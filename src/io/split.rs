//! One large PGN file read by several readers: byte ranges that start at game boundaries,
//! each with the index of its first game in the file ([`PgnRange`], [`split`]).
//!
//! Only plain-text files are split (a compressed stream cannot be entered in the middle;
//! standard input cannot be read twice). The cuts are found in two passes over the file,
//! both cheap next to parsing the games:
//!
//! 1. near each `k / n` of the file, the first line starting with `[` after a line that is
//!    not a tag pair ([`likely_game_start`]): a candidate cut;
//! 2. the ranges between candidates are scanned in parallel, each by a
//!    [`BoundaryScanner`] (the reader's game-boundary rule without building the games),
//!    which counts the games of its range and tells whether the reader, having read the
//!    file up to the next candidate, would start a fresh game exactly there. A candidate
//!    where it would not (inside a comment, in a tag section, …) is dropped: the range
//!    before it is scanned on into the next one, so there are fewer ranges, never
//!    different games. Where the scanner gives up (the empty-line rule of the tag
//!    section), no cut is made after that point.
//!
//! The first game index of each range is the sum of the counts before it, so `game_index`
//! is the game's index in its file exactly as one reader over the whole file (`validate`)
//! gives it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use super::input::{Compression, Input, Source};
use crate::error::{Error, Result};
use crate::pgn::split::{BoundaryScanner, likely_game_start};

/// A piece of a scan partition: the games of `input` from byte `start` to byte `end`
/// (the end of the input when `None`), the first of them game `first_game` of the file.
/// A whole input is `start` 0, `end` `None`, `first_game` 0. A plain description (file
/// and numbers), so a plan holding it can be serialized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnRange {
    /// The input read.
    pub input: Input,
    /// The first byte (a game boundary; 0 for the start of the input).
    pub start: u64,
    /// The byte after the last one (a game boundary), or `None` for the end of the input.
    pub end: Option<u64>,
    /// The index in its file of the first game of the range.
    pub first_game: u64,
}

impl PgnRange {
    /// The whole input.
    #[must_use]
    pub fn whole(input: Input) -> PgnRange {
        PgnRange {
            input,
            start: 0,
            end: None,
            first_game: 0,
        }
    }

    /// Whether the range is the whole input.
    #[must_use]
    pub fn is_whole(&self) -> bool {
        self.start == 0 && self.end.is_none()
    }
}

/// Bytes read at a time while scanning.
const CHUNK: usize = 1 << 20;

/// How far before a candidate place the window starts (the line before it must be in it).
const LOOK_BACK: u64 = 64 * 1024;

/// Whether `input` is a plain-text file (by name, or by its first bytes when the name
/// says nothing), the only kind that can be split.
fn is_plain_file(input: &Input) -> Result<Option<&Path>> {
    let Source::File(path) = &input.source else {
        return Ok(None);
    };
    let plain = match input.compression {
        Compression::None => true,
        Compression::Sniff => {
            let mut head = [0u8; 4];
            let n = File::open(path)
                .and_then(|mut f| f.read(&mut head))
                .map_err(|e| io(input, e))?;
            Compression::sniff(&head[..n]) == Compression::None
        }
        _ => false,
    };
    Ok(plain.then_some(path.as_path()))
}

fn io(input: &Input, source: std::io::Error) -> Error {
    Error::Io {
        path: input.name.clone(),
        source,
    }
}

/// Reads `len` bytes at `at` (fewer at the end of the file).
fn read_at(file: &mut File, at: u64, len: usize) -> std::io::Result<Vec<u8>> {
    file.seek(SeekFrom::Start(at))?;
    let mut buf = Vec::with_capacity(len);
    file.take(len as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

/// The first likely game start at or after `from` and before `limit`.
fn candidate(file: &mut File, from: u64, limit: u64) -> std::io::Result<Option<u64>> {
    let mut at = from;
    while at < limit {
        let window_start = at.saturating_sub(LOOK_BACK);
        let window = read_at(file, window_start, (at - window_start) as usize + CHUNK)?;
        let first = (at - window_start) as usize;
        let last = ((limit - window_start) as usize).min(window.len());
        if let Some(i) = (first..last).find(|&i| likely_game_start(&window, i)) {
            return Ok(Some(window_start + i as u64));
        }
        if window.len() < first + CHUNK {
            return Ok(None); // end of file
        }
        at += CHUNK as u64;
    }
    Ok(None)
}

/// Feeds the bytes `from..to` of `file` to `scanner`.
fn scan(file: &mut File, scanner: &mut BoundaryScanner, from: u64, to: u64) -> std::io::Result<()> {
    file.seek(SeekFrom::Start(from))?;
    let mut left = to - from;
    let mut buf = vec![0u8; CHUNK];
    while left > 0 && !scanner.gave_up() {
        let want = buf.len().min(left as usize);
        let n = file.read(&mut buf[..want])?;
        if n == 0 {
            break;
        }
        scanner.feed(&buf[..n]);
        left -= n as u64;
    }
    Ok(())
}

/// `input` as at most `pieces` ranges of about equal size, each starting at a game
/// boundary (see the module docs), in file order; one whole range for an input that is not
/// a plain file, or when `pieces` is at most 1 or no safe cut is found.
///
/// Errors: [`Error::Io`] naming the input when it cannot be read.
pub fn split(input: &Input, pieces: usize) -> Result<Vec<PgnRange>> {
    let whole = || Ok(vec![PgnRange::whole(input.clone())]);
    // nothing to cut: the file is not opened (to sniff its compression)
    if pieces <= 1 || input.size().unwrap_or(0) == 0 {
        return whole();
    }
    let (Some(path), Some(size)) = (is_plain_file(input)?, input.size()) else {
        return whole();
    };
    let mut file = File::open(path).map_err(|e| io(input, e))?;
    let mut cuts: Vec<u64> = vec![0];
    let pieces = pieces as u64;
    for k in 1..pieces {
        let from = (k * size / pieces).max(cuts.last().map_or(0, |c| c + 1));
        let limit = ((k + 1) * size / pieces).max(from);
        if let Some(c) = candidate(&mut file, from, limit).map_err(|e| io(input, e))? {
            cuts.push(c);
        }
    }
    if cuts.len() == 1 {
        return whole();
    }
    // each range between candidates, scanned in parallel (the last one needs no count)
    let scanned: Vec<std::io::Result<BoundaryScanner>> = std::thread::scope(|s| {
        let handles: Vec<_> = cuts
            .windows(2)
            .enumerate()
            .map(|(i, w)| {
                let (from, to) = (w[0], w[1]);
                s.spawn(move || {
                    let mut scanner = if i == 0 {
                        BoundaryScanner::at_file_start()
                    } else {
                        BoundaryScanner::at_cut()
                    };
                    let mut f = File::open(path)?;
                    scan(&mut f, &mut scanner, from, to)?;
                    Ok(scanner)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(std::io::Error::other("boundary scan failed")))
            })
            .collect()
    });
    let mut scanned: Vec<Option<BoundaryScanner>> = scanned
        .into_iter()
        .map(|r| r.map(Some))
        .collect::<std::io::Result<_>>()
        .map_err(|e| io(input, e))?;
    // walk the candidates: keep those the scanner of the range before them calls safe
    let mut ranges = vec![PgnRange::whole(input.clone())];
    let Some(mut current) = scanned.first_mut().and_then(Option::take) else {
        return whole();
    };
    for j in 1..cuts.len() {
        let cut = cuts[j];
        match current.games_before() {
            Some(n) => {
                let first_game = ranges.last().map_or(0, |r| r.first_game) + n;
                if let Some(r) = ranges.last_mut() {
                    r.end = Some(cut);
                }
                ranges.push(PgnRange {
                    input: input.clone(),
                    start: cut,
                    end: None,
                    first_game,
                });
                match scanned.get_mut(j).and_then(Option::take) {
                    Some(next) => current = next,
                    None => break, // the last range: no count needed
                }
            }
            None if current.gave_up() => break,
            None => {
                // not a boundary: the range goes on to the next candidate
                if let Some(&next) = cuts.get(j + 1) {
                    scan(&mut file, &mut current, cut, next).map_err(|e| io(input, e))?;
                }
            }
        }
    }
    Ok(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::PgnReader;
    use std::io::BufReader;

    /// The games of every range of `split(input, pieces)`, read by their own readers with
    /// their indexes offset, equal one reader's games over the whole file.
    fn check(path: &Path, pieces: usize) -> usize {
        let input = super::super::input::expand(&[path.to_path_buf()])
            .expect("input")
            .remove(0);
        let bytes = std::fs::read(path).expect("read");
        let whole: Vec<_> = PgnReader::new(BufReader::new(bytes.as_slice()))
            .collect::<std::result::Result<_, _>>()
            .expect("read");
        let ranges = split(&input, pieces).expect("split");
        let mut got = vec![];
        for r in &ranges {
            let end = r.end.map_or(bytes.len(), |e| e as usize);
            let slice = &bytes[r.start as usize..end];
            for g in PgnReader::new(BufReader::new(slice)) {
                let mut g = g.expect("read");
                g.index += r.first_game as usize;
                got.push(g);
            }
        }
        assert_eq!(got, whole, "{} in {pieces} pieces", path.display());
        ranges.len()
    }

    #[test]
    fn ranges_of_the_test_files_read_as_the_whole_file() {
        let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pgn"));
        let mut files = vec![];
        for d in [dir.to_path_buf(), dir.join("malformed")] {
            for e in std::fs::read_dir(&d).expect("dir") {
                let p = e.expect("entry").path();
                if p.extension().is_some_and(|x| x == "pgn") {
                    files.push(p);
                }
            }
        }
        let mut split_files = 0;
        for f in &files {
            let mut most = 1;
            for pieces in [2, 3, 7, 64] {
                most = most.max(check(f, pieces));
            }
            split_files += usize::from(most > 1);
        }
        assert!(split_files > 20, "{split_files} files split");
    }
}
