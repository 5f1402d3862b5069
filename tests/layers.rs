//! The crate's import structure, checked on its source: no import cycle between library
//! files, and no module importing one that the README's layer list puts on its own level or
//! above it.
//!
//! An import is a `use` of a path of this crate (`crate::…`, `super::…`, `self::…`, or a
//! child module's name) or a `crate::…` path written in code; comments and `#[cfg(test)]`
//! modules are left out. A path stands for the file of the longest module prefix it names
//! (`crate::validate::PlyRow` is `src/validate/mod.rs`, which re-exports it).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The README's layer list: after the line starting with `Layers, lowest first`, one
/// numbered line per level, each naming its modules in backquotes.
fn layers() -> BTreeMap<String, usize> {
    let readme = fs::read_to_string(root().join("README.md")).expect("README.md");
    let mut out = BTreeMap::new();
    let mut lines = readme
        .lines()
        .skip_while(|l| !l.starts_with("Layers, lowest first"));
    assert!(
        lines.next().is_some(),
        "README.md has no line 'Layers, lowest first'"
    );
    for line in lines {
        let line = line.trim();
        let item = line
            .split_once(". ")
            .and_then(|(n, rest)| Some((n.parse::<usize>().ok()?, rest)));
        let Some((level, rest)) = item else {
            if out.is_empty() {
                continue; // the paragraph before the list
            }
            break;
        };
        for (i, part) in rest.split('`').enumerate() {
            if i % 2 == 1 {
                out.insert(part.to_string(), level);
            }
        }
    }
    assert!(!out.is_empty(), "README.md's layer list is empty");
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src readable") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file under `src/` (`src/a/b.rs` and `src/a/b/mod.rs`: `[a, b]`;
/// `src/lib.rs`: `[]`); `src/cli/…` is the binary's crate, its modules under `cli`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The source without comments and `#[cfg(test)]` modules: string contents blanked, so that
/// neither `//` nor braces inside strings count.
fn code_of(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == '/' && b.get(i + 1) == Some(&'/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && b.get(i + 1) == Some(&'*') {
            i += 2;
            while i + 1 < b.len() && !(b[i] == '*' && b[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == 'r'
            && (b.get(i + 1) == Some(&'"') || b.get(i + 1) == Some(&'#'))
            && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            // a raw string: r"…", r#"…"#
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && b.get(i + 2) == Some(&'\'') {
            // a char literal such as '{'
            out.push_str("' '");
            i += 3;
        } else if c == '\'' && b.get(i + 1) == Some(&'\\') {
            let mut j = i + 2;
            while j < b.len() && b[j] != '\'' {
                j += 1;
            }
            out.push_str("' '");
            i = j + 1;
        } else {
            out.push(c);
            i += 1;
        }
    }
    strip_test_modules(&out)
}

/// `code` without the items that follow `#[cfg(test)]` (a module or function, up to its
/// closing brace).
fn strip_test_modules(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let Some(open) = after.find(['{', ';']) else {
            rest = "";
            break;
        };
        if after.as_bytes()[open] == b';' {
            rest = &after[open + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = after.len();
        for (k, ch) in after[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

/// One path of a `use` tree: its segments and the name it binds there.
#[derive(Debug, PartialEq)]
struct Used {
    path: Vec<String>,
    name: String,
}

/// The paths of a `use` tree (`a::{b, c::{D, E as F}}` gives `a::b`, `a::c::D`, `a::c::E`
/// bound as `F`); globs dropped.
fn expand(tree: &str) -> Vec<Used> {
    let tree: String = tree
        .replace(" as ", "@")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    fn go(prefix: &[String], t: &str, out: &mut Vec<Used>) {
        // split t at top-level commas
        let mut depth = 0;
        let mut start = 0;
        let mut items = vec![];
        for (i, ch) in t.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    items.push(&t[start..i]);
                    start = i + 1;
                }
                _ => {}
            }
        }
        items.push(&t[start..]);
        for item in items.into_iter().filter(|s| !s.is_empty()) {
            let mut p = prefix.to_vec();
            if let Some(brace) = item.find('{') {
                let head = item[..brace].trim_end_matches("::");
                p.extend(head.split("::").filter(|s| !s.is_empty()).map(String::from));
                go(&p, &item[brace + 1..item.len() - 1], out);
                continue;
            }
            let (item, alias) = match item.split_once('@') {
                Some((i, a)) => (i, Some(a)),
                None => (item, None),
            };
            p.extend(
                item.split("::")
                    .filter(|s| !s.is_empty() && *s != "*" && *s != "self")
                    .map(String::from),
            );
            let name = alias
                .map(String::from)
                .or_else(|| p.last().cloned())
                .unwrap_or_default();
            out.push(Used { path: p, name });
        }
    }
    let mut out = vec![];
    go(&[], &tree, &mut out);
    out
}

/// A file's `use` statements: whether each is a re-export (`pub use`, `pub(crate) use`),
/// and what it uses; and the code without them.
fn uses(code: &str) -> (Vec<(bool, Vec<Used>)>, String) {
    let mut out = vec![];
    let mut rest = String::new();
    let mut last = 0;
    for (at, _) in code.match_indices("use ") {
        if at < last {
            continue;
        }
        let before = code[..at].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(end) = code[at..].find(';') else {
            continue;
        };
        let tree = &code[at + 4..at + end];
        if tree.contains('(') || tree.contains('=') {
            continue;
        }
        let line_start = code[..at].rfind('\n').map_or(0, |i| i + 1);
        let public = code[line_start..at].trim_start().starts_with("pub");
        out.push((public, expand(tree)));
        rest.push_str(&code[last..line_start.max(last)]);
        last = at + end + 1;
    }
    rest.push_str(&code[last..]);
    // `mod x;` declares a child, it uses nothing of it
    let rest = rest
        .lines()
        .filter(|l| {
            let l = l.trim();
            let decl = l
                .strip_prefix("pub ")
                .or_else(|| l.strip_prefix("pub(crate) "));
            !(decl.unwrap_or(l).starts_with("mod ") && l.ends_with(';'))
        })
        .collect::<Vec<_>>()
        .join("\n");
    (out, rest)
}

/// The `crate::` paths written in code (not in `use` statements; `$crate::` left out).
fn inline_paths(code: &str) -> Vec<Vec<String>> {
    let mut out = vec![];
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with('$') {
            continue;
        }
        let path: String = code[at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        out.push(
            path.split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect(),
        );
    }
    out
}

/// Whether `word` occurs in `code` as a whole identifier.
fn mentions(code: &str, word: &str) -> bool {
    code.match_indices(word).any(|(at, _)| {
        let ident = |c: char| c.is_alphanumeric() || c == '_';
        !code[..at].chars().last().is_some_and(ident)
            && !code[at + word.len()..].chars().next().is_some_and(ident)
    })
}

/// A path as used in `module`, made crate-absolute; `None` for another crate's.
fn absolute(
    p: &[String],
    module: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let first = p.first()?;
    let mut m: Vec<String> = match first.as_str() {
        "crate" => vec![],
        "self" => module.to_vec(),
        "super" => {
            let mut m = module.to_vec();
            let mut rest = p;
            while rest.first().map(String::as_str) == Some("super") {
                m.pop();
                rest = &rest[1..];
            }
            m.extend(rest.iter().cloned());
            return Some(m);
        }
        _ => {
            // a child module's name
            let mut child = module.to_vec();
            child.push(first.clone());
            if !modules.contains(&child) {
                return None;
            }
            let mut m = module.to_vec();
            m.extend(p.iter().cloned());
            return Some(m);
        }
    };
    m.extend(p[1..].iter().cloned());
    Some(m)
}

/// What the files re-export: per module, name → the absolute path it stands for.
type Reexports = BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>>;

/// The file a path lands in: the file of its longest module prefix, or, where that module
/// re-exports the next segment, the file of what it re-exports.
fn file_of(
    path: &[String],
    by_module: &BTreeMap<Vec<String>, PathBuf>,
    reexports: &Reexports,
    depth: usize,
) -> Option<PathBuf> {
    let n = (0..=path.len())
        .rev()
        .find(|&n| by_module.contains_key(&path[..n]))?;
    if depth < 8
        && let Some(next) = path.get(n)
        && let Some(target) = reexports.get(&path[..n]).and_then(|r| r.get(next))
    {
        let mut t = target.clone();
        t.extend(path[n + 1..].iter().cloned());
        return file_of(&t, by_module, reexports, depth + 1);
    }
    by_module.get(&path[..n]).cloned()
}

/// Import edges between the library's files (the binary's files under `cli` as modules
/// `cli::…`): file → files whose items it uses. A re-export (`pub use`) is no edge unless
/// its file's own code uses the name.
fn graph() -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let src = root().join("src");
    let mut all = vec![];
    files(&src, &mut all);
    let mut by_module = BTreeMap::new();
    for f in &all {
        let rel = f.strip_prefix(&src).expect("under src");
        by_module.insert(module_of(rel), rel.to_path_buf());
    }
    let modules: BTreeSet<Vec<String>> = by_module.keys().cloned().collect();
    // per file: its module, its uses made absolute (re-export or not), its other code
    let mut parsed = vec![];
    let mut reexports: Reexports = BTreeMap::new();
    for f in &all {
        let rel = f.strip_prefix(&src).expect("under src").to_path_buf();
        let module = module_of(&rel);
        let code = code_of(&fs::read_to_string(f).expect("readable"));
        // the binary (src/cli/main.rs) names the library `sqlchess::`; its own modules
        // (`crate::x` in src/cli) are under cli
        let code = if rel.starts_with("cli") {
            code.replace("crate::", "crate::cli::")
                .replace("sqlchess::", "crate::")
        } else {
            code
        };
        let (statements, rest) = uses(&code);
        let mut used = vec![];
        for (public, paths) in statements {
            for u in paths {
                if let Some(p) = absolute(&u.path, &module, &modules) {
                    if public {
                        reexports
                            .entry(module.clone())
                            .or_default()
                            .insert(u.name.clone(), p.clone());
                    }
                    if !public || mentions(&rest, &u.name) {
                        used.push(p);
                    }
                }
            }
        }
        used.extend(inline_paths(&rest));
        parsed.push((rel, used));
    }
    let mut edges: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (rel, used) in parsed {
        let mut to = BTreeSet::new();
        for p in used {
            if let Some(target) = file_of(&p, &by_module, &reexports, 0)
                && target != rel
                && target.as_path() != Path::new("lib.rs")
            {
                to.insert(target);
            }
        }
        edges.insert(rel, to);
    }
    edges
}

/// The cycles of the graph: its strongly connected components of more than one file.
fn cycles(edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Vec<Vec<PathBuf>> {
    // Kosaraju: finishing order, then the components of the transposed graph
    fn visit(
        n: &PathBuf,
        edges: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        seen: &mut BTreeSet<PathBuf>,
        order: &mut Vec<PathBuf>,
    ) {
        if !seen.insert(n.clone()) {
            return;
        }
        for m in edges.get(n).into_iter().flatten() {
            visit(m, edges, seen, order);
        }
        order.push(n.clone());
    }
    let mut seen = BTreeSet::new();
    let mut order = vec![];
    for n in edges.keys() {
        visit(n, edges, &mut seen, &mut order);
    }
    let mut back: BTreeMap<PathBuf, BTreeSet<PathBuf>> = BTreeMap::new();
    for (a, tos) in edges {
        for b in tos {
            back.entry(b.clone()).or_default().insert(a.clone());
        }
    }
    let mut assigned = BTreeSet::new();
    let mut out = vec![];
    for n in order.iter().rev() {
        if assigned.contains(n) {
            continue;
        }
        let mut component = vec![];
        visit(n, &back, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            out.push(component);
        }
    }
    out
}

#[test]
fn no_import_cycle_between_library_files() {
    let edges = graph();
    assert!(edges.len() > 40, "src/ read: {} files", edges.len());
    let found = cycles(&edges);
    let text: Vec<String> = found
        .iter()
        .map(|c| {
            let inside: BTreeSet<&PathBuf> = c.iter().collect();
            c.iter()
                .map(|f| {
                    let tos: Vec<String> = edges[f]
                        .iter()
                        .filter(|t| inside.contains(t))
                        .map(|t| t.display().to_string())
                        .collect();
                    format!("{} -> {}", f.display(), tos.join(", "))
                })
                .collect::<Vec<_>>()
                .join("; ")
        })
        .collect();
    assert!(found.is_empty(), "import cycles:\n{}", text.join("\n"));
}

#[test]
fn modules_import_only_from_lower_layers() {
    let levels = layers();
    let edges = graph();
    let top = |f: &Path| {
        f.components()
            .next()
            .map(|c| {
                c.as_os_str()
                    .to_string_lossy()
                    .trim_end_matches(".rs")
                    .to_string()
            })
            .unwrap_or_default()
    };
    let mut wrong = vec![];
    for (from, tos) in &edges {
        let a = top(from);
        if a == "lib" {
            continue;
        }
        let Some(&la) = levels.get(&a) else {
            wrong.push(format!(
                "{}: module {a} is not in README.md's layer list",
                from.display()
            ));
            continue;
        };
        for to in tos {
            let b = top(to);
            if a == b {
                continue;
            }
            match levels.get(&b) {
                Some(&lb) if lb < la => {}
                Some(&lb) => wrong.push(format!(
                    "{} (layer {la}, {a}) imports {} (layer {lb}, {b})",
                    from.display(),
                    to.display()
                )),
                None => wrong.push(format!(
                    "{}: module {b} is not in README.md's layer list",
                    to.display()
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_sees_cycles_and_layers() {
    // the parser on a small tree: nested groups, super, a child module, renames
    let got: Vec<(String, String)> = expand("crate::a::{b, c::{D, E as F}, self}")
        .into_iter()
        .map(|u| (u.path.join("::"), u.name))
        .collect();
    let want = [
        ("crate::a::b", "b"),
        ("crate::a::c::D", "D"),
        ("crate::a::c::E", "F"),
        ("crate::a", "a"),
    ];
    assert_eq!(
        got,
        want.map(|(p, n)| (p.to_string(), n.to_string())).to_vec()
    );
    let (statements, rest) = uses("mod w;\npub use x::Y;\nuse super::Z;\nfn f() -> Y {}\n");
    assert_eq!(statements.len(), 2);
    assert!(statements[0].0 && !statements[1].0);
    assert!(mentions(&rest, "Y") && !mentions(&rest, "Z") && !mentions(&rest, "w"));
    let code = code_of(
        "use x::y; // use crate::z;\n\"crate::w\"\n#[cfg(test)]\nmod tests { use crate::t; }\n",
    );
    assert!(!code.contains("crate::z") && !code.contains("crate::w") && !code.contains("crate::t"));
    let mut edges = BTreeMap::new();
    edges.insert(
        PathBuf::from("a.rs"),
        BTreeSet::from([PathBuf::from("b.rs")]),
    );
    edges.insert(
        PathBuf::from("b.rs"),
        BTreeSet::from([PathBuf::from("a.rs")]),
    );
    edges.insert(
        PathBuf::from("c.rs"),
        BTreeSet::from([PathBuf::from("a.rs")]),
    );
    assert_eq!(
        cycles(&edges),
        vec![vec![PathBuf::from("a.rs"), PathBuf::from("b.rs")]]
    );
}
