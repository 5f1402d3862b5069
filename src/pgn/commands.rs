//! Commands embedded in PGN comments (the PGN Specification Supplement's `[%cmd …]` form,
//! as online servers write them): the clock `[%clk 1:59:58.5]` and the engine evaluation
//! `[%eval 0.17]` / `[%eval #-3]`. Read as python-chess 1.11 reads them
//! (`GameNode.clock`, `GameNode.eval`): the first well-formed command of its kind counts.

/// An engine evaluation, from White's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns (`[%eval 0.17]` is 17, rounded to the nearest centipawn).
    Centipawns(i32),
    /// Mate in that many moves (`[%eval #-3]`: Black mates in 3).
    Mate(i32),
}

/// The arguments of every `[%name …]` command of `comment`, in order (text between the
/// single whitespace character after the name and the `]`).
fn commands<'a>(comment: &'a str, name: &str) -> Vec<&'a str> {
    commands_at(comment, name)
        .into_iter()
        .map(|(_, body)| body)
        .collect()
}

/// [`commands`] with the byte offset of each command in `comment`.
fn commands_at<'a>(comment: &'a str, name: &str) -> Vec<(usize, &'a str)> {
    let opener = format!("[%{name}");
    let mut out = vec![];
    for (at, _) in comment.match_indices(opener.as_str()) {
        let rest = &comment[at + opener.len()..];
        let mut chars = rest.chars();
        if !chars.next().is_some_and(char::is_whitespace) {
            continue;
        }
        let body = chars.as_str();
        if let Some(end) = body.find(']') {
            out.push((at, &body[..end]));
        }
    }
    out
}

/// The arguments of the `[%csl …]` (circled squares) and `[%cal …]` (arrows) commands of
/// `comment`, in the order they are written: comma-separated mark tokens (`Gd4`,
/// `Ge2e4,Rd8d1`) that [`crate::chess::mark::Mark::parse`] reads.
#[must_use]
pub fn mark_commands(comment: &str) -> Vec<&str> {
    let mut found = commands_at(comment, "csl");
    found.extend(commands_at(comment, "cal"));
    found.sort_by_key(|(at, _)| *at);
    found.into_iter().map(|(_, args)| args).collect()
}

/// A leading sign: whether it is `-`, and the rest.
fn signed(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

/// Digits only (at least one) as a number.
fn digits(s: &str) -> Option<u64> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// The clock of `[%clk h:mm:ss]` or `[%clk h:mm:ss.f]` in seconds (time left on the clock
/// of the player who moved).
#[must_use]
pub fn clock_seconds(comment: &str) -> Option<f64> {
    commands(comment, "clk").into_iter().find_map(|arg| {
        let mut parts = arg.splitn(3, ':');
        let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
        let (h, m) = (digits(h)?, digits(m)?);
        let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
        digits(whole)?;
        if !frac.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let secs: f64 = format!("{whole}.{frac}0").parse().ok()?;
        Some(h as f64 * 3600.0 + m as f64 * 60.0 + secs)
    })
}

/// The evaluation of `[%eval …]`: `#n` / `#+n` / `#-n` (mate) or a signed decimal number of
/// pawns with at most two decimals (optionally `,depth` after it).
#[must_use]
pub fn eval(comment: &str) -> Option<Eval> {
    commands(comment, "eval").into_iter().find_map(|arg| {
        let value = match arg.split_once(',') {
            Some((v, depth)) => {
                digits(depth)?;
                v
            }
            None => arg,
        };
        if let Some(mate) = value.strip_prefix('#') {
            let (neg, n) = signed(mate);
            let n = i32::try_from(digits(n)?).ok()?;
            return Some(Eval::Mate(if neg { -n } else { n }));
        }
        let (neg, n) = signed(value);
        let (whole, frac) = n.split_once('.').unwrap_or((n, ""));
        let whole_ok = whole.is_empty() || digits(whole).is_some();
        let frac_ok = frac.bytes().all(|b| b.is_ascii_digit()) && frac.len() <= 2;
        if !whole_ok || !frac_ok || whole.len() > 10 || (whole.is_empty() && frac.is_empty()) {
            return None;
        }
        let cp =
            digits(whole).unwrap_or(0) as i64 * 100 + format!("{frac:0<2}").parse::<i64>().ok()?;
        let cp = i32::try_from(cp).ok()?;
        Some(Eval::Centipawns(if neg { -cp } else { cp }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values python-chess 1.11.2 gives for the same comments (`node.clock()`,
    /// `node.eval().white()`).
    #[test]
    fn clock_and_eval_as_python_chess() {
        assert_eq!(clock_seconds("[%clk 0:01:02.5] x"), Some(62.5));
        assert_eq!(clock_seconds("[%eval 0.1] [%clk 1:00:00]"), Some(3600.0));
        assert_eq!(clock_seconds("[%clk 0:01]"), None);
        assert_eq!(clock_seconds("no clock"), None);
        assert_eq!(
            eval("[%eval 0.29] [%clk 0:01:02.5]"),
            Some(Eval::Centipawns(29))
        );
        assert_eq!(eval("[%eval -1.5]"), Some(Eval::Centipawns(-150)));
        assert_eq!(eval("[%eval 3,24]"), Some(Eval::Centipawns(300)));
        assert_eq!(eval("[%eval .5]"), Some(Eval::Centipawns(50)));
        assert_eq!(eval("[%eval #-3]"), Some(Eval::Mate(-3)));
        assert_eq!(eval("[%eval #4]"), Some(Eval::Mate(4)));
        assert_eq!(eval("[%eval 1.234]"), None);
        assert_eq!(eval("[%evalx 1]"), None);
    }

    /// As lichess writes them: circles and arrows in the order of their commands.
    #[test]
    fn mark_commands_in_order() {
        assert_eq!(
            mark_commands("[%eval 0.2] [%cal Ge2e4,Rd8d1] [%csl Yd4][%clk 0:01:00] [%csl Gh1]"),
            ["Ge2e4,Rd8d1", "Yd4", "Gh1"]
        );
        assert!(mark_commands("no commands [%cal]").is_empty());
    }
}
