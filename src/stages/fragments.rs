//! Rule fragments: the SQL of a rule that more than one stage needs, written once in
//! `plans/rules/<name>.sql` and put in place of `{{name}}` or `{{name(arg, …)}}` in a
//! stage's or static table's SQL before it is planned ([`expand`]).
//!
//! A fragment file starts with comment lines (`--`: the rule, its source in the FIDE Laws
//! or the PGN standard, what `$1`, `$2`, … stand for); the rest is the text put in place,
//! with `$1`, `$2`, … replaced by the arguments (SQL expressions, separated by commas outside
//! parentheses). The stages' expanded text is what is planned, profiled and explained.

/// Every fragment: its name and its file's text (compiled in).
pub const FRAGMENTS: &[(&str, &str)] = &[
    ("role_code", include_str!("../../plans/rules/role_code.sql")),
    (
        "role_letter",
        include_str!("../../plans/rules/role_letter.sql"),
    ),
    (
        "color_letter",
        include_str!("../../plans/rules/color_letter.sql"),
    ),
    (
        "line_pieces",
        include_str!("../../plans/rules/line_pieces.sql"),
    ),
    (
        "line_attack",
        include_str!("../../plans/rules/line_attack.sql"),
    ),
    (
        "square_name",
        include_str!("../../plans/rules/square_name.sql"),
    ),
    ("uci", include_str!("../../plans/rules/uci.sql")),
    ("san", include_str!("../../plans/rules/san.sql")),
    (
        "rights_lost",
        include_str!("../../plans/rules/rights_lost.sql"),
    ),
    (
        "side_rights",
        include_str!("../../plans/rules/side_rights.sql"),
    ),
    (
        "after_move",
        include_str!("../../plans/rules/after_move.sql"),
    ),
    (
        "replay_accepted",
        include_str!("../../plans/rules/replay_accepted.sql"),
    ),
    ("popcount", include_str!("../../plans/rules/popcount.sql")),
];

/// A fragment's text to put in place: its file without the leading comment lines and the
/// line breaks around it.
fn body(file: &str) -> &str {
    let start = file
        .split_inclusive('\n')
        .take_while(|line| line.trim_start().starts_with("--") || line.trim().is_empty())
        .map(str::len)
        .sum::<usize>();
    file[start..].trim_end()
}

/// The arguments of `name(a, b(c, d), e)`: split at the commas outside parentheses, trimmed.
fn arguments(list: &str) -> Vec<&str> {
    let (mut out, mut depth, mut start) = (vec![], 0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(list[start..].trim());
    out
}

/// `sql` with every `{{name}}` / `{{name(arg, …)}}` of a known fragment replaced by the
/// fragment's text, its `$1`, `$2`, … by the arguments (fragments may use fragments).
///
/// An unknown name, or a `{{` without `}}`, is left as it is: the SQL then fails to plan and
/// [`crate::stages::Pipeline::new`] names the stage (`tests/stages.rs` checks that no
/// stage keeps one).
pub fn expand(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len());
    let mut rest = sql;
    while let Some(open) = rest.find("{{") {
        out.push_str(&rest[..open]);
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            out.push_str(&rest[open..]);
            return out;
        };
        let call = after[..close].trim();
        let (name, args) = match call.split_once('(') {
            Some((name, args)) => (
                name.trim(),
                arguments(args.strip_suffix(')').unwrap_or(args)),
            ),
            None => (call, vec![]),
        };
        match FRAGMENTS.iter().find(|(n, _)| *n == name) {
            Some((_, file)) => {
                let mut text = body(file).to_string();
                // `$10` before `$1`
                for (i, arg) in args.iter().enumerate().rev() {
                    text = text.replace(&format!("${}", i + 1), arg);
                }
                out.push_str(&expand(&text));
            }
            None => out.push_str(&rest[open..open + 2 + close + 2]),
        }
        rest = &after[close + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_split_outside_parentheses() {
        assert_eq!(arguments("a, f(b, c) , d"), ["a", "f(b, c)", "d"]);
        assert_eq!(arguments("x"), ["x"]);
    }

    #[test]
    fn a_fragment_in_place_with_its_arguments() {
        let sql = "SELECT {{role_code(t.piece)}} AS code FROM t";
        let got = expand(sql);
        assert!(
            got.starts_with("SELECT CASE t.piece WHEN 'P' THEN 0"),
            "{got}"
        );
        assert!(got.ends_with("ELSE 5 END AS code FROM t"), "{got}");
        assert!(!got.contains("$1") && !got.contains("--"), "{got}");
    }

    #[test]
    fn unknown_names_and_open_braces_stay() {
        assert_eq!(expand("a {{nothing}} b"), "a {{nothing}} b");
        assert_eq!(expand("a {{role_code(x)"), "a {{role_code(x)");
        assert_eq!(expand("no fragment"), "no fragment");
    }

    #[test]
    fn every_fragment_has_a_header_and_a_body() {
        for (name, file) in FRAGMENTS {
            assert!(file.starts_with(&format!("-- Rule `{name}`")), "{name}");
            assert!(!body(file).is_empty(), "{name}");
        }
    }
}
