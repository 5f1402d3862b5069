//! PGN text split into games by lines, without our reader: each game's movetext (shared by
//! the tests and `benches/rows.rs`, which includes this file).

/// Each game of a PGN text: the text after its tag section (movetext, comments and result
/// marker included). Games are split as a PGN file is read: a line starting with `[` after
/// movetext (outside a `{` comment) starts the next game, and so does, after an empty line
/// in the tag section, a tag whose name the game already has; a byte order mark at the
/// start of a line is left out, and so are `%` and `;` lines of the tag section.
pub fn movetexts(text: &str) -> Vec<String> {
    let mut games = vec![];
    let (mut names, mut body): (Vec<String>, Vec<&str>) = (vec![], vec![]);
    let (mut in_moves, mut in_comment, mut blank) = (false, false, false);
    let mut content = false;
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    for line in text.lines() {
        let line = line.trim_start_matches('\u{feff}');
        let s = line.trim();
        let tag_name = s.strip_prefix('[').map(|t| {
            t.split(|c: char| c.is_whitespace() || c == '"')
                .next()
                .unwrap_or("")
        });
        let new_game = match tag_name {
            Some(_) if in_comment => false,
            Some(_) if in_moves => true,
            Some(name) => blank && names.iter().any(|n| n == name),
            None => false,
        };
        if new_game {
            games.push(body.join("\n"));
            (names, body, in_moves, blank, content) = (vec![], vec![], false, false, false);
        }
        match tag_name {
            // `%` escape lines and `;` comments in the tag section
            None if !in_moves && (line.starts_with('%') || s.starts_with(';')) => {}
            Some(name) if !in_moves && !in_comment => {
                names.push(name.to_string());
                content = true;
            }
            _ if !in_moves && s.is_empty() => blank = true,
            _ => {
                in_moves = true;
                content |= !s.is_empty();
                body.push(line);
                // a `{` comment may go on over lines (a `;` comment ends with its line, a
                // `%` escape line is all comment)
                let escape = line.starts_with('%') && !in_comment;
                for c in line.chars().take(if escape { 0 } else { usize::MAX }) {
                    match c {
                        '{' if !in_comment => in_comment = true,
                        '}' if in_comment => in_comment = false,
                        ';' if !in_comment => break,
                        _ => {}
                    }
                }
            }
        }
    }
    if content {
        games.push(body.join("\n"));
    }
    games
}
