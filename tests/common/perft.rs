//! Perft suites as data: the `.perft` format of shakmaty and python-chess (`id NAME`, `epd
//! FEN`, `perft DEPTH NODES`; `#` starts a comment).

use std::path::Path;

/// One position of a suite with its node counts by depth.
#[derive(Debug, Clone)]
pub struct PerftCase {
    pub id: String,
    pub epd: String,
    pub counts: Vec<(u32, u64)>,
}

/// Reads a `.perft` file. Panics on a malformed line (test data).
pub fn read_perft(path: &Path) -> Vec<PerftCase> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out: Vec<PerftCase> = vec![];
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = || format!("{}:{}", path.display(), n + 1);
        let (key, rest) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{}: {line}", at()));
        match key {
            "id" => out.push(PerftCase {
                id: rest.trim().to_string(),
                epd: String::new(),
                counts: vec![],
            }),
            "epd" => {
                out.last_mut()
                    .unwrap_or_else(|| panic!("{}: epd before id", at()))
                    .epd = rest.trim().to_string()
            }
            "perft" => {
                let (d, nodes) = rest
                    .trim()
                    .split_once(' ')
                    .and_then(|(d, n)| Some((d.parse().ok()?, n.trim().parse().ok()?)))
                    .unwrap_or_else(|| panic!("{}: {line}", at()));
                out.last_mut()
                    .unwrap_or_else(|| panic!("{}: perft before id", at()))
                    .counts
                    .push((d, nodes));
            }
            _ => panic!("{}: unknown line {line:?}", at()),
        }
    }
    out
}
