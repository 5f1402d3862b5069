//! The binary as a user runs it: in the crate root, its output captured.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// Runs the binary in the crate root, standard input empty.
pub fn sqlchess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sqlchess"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::null())
        .output()
        .expect("run sqlchess")
}

/// A run's exit status, standard output and standard error, for assertion messages.
pub fn show(out: &Output) -> String {
    format!(
        "status {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A path as an argument (the tests' paths are UTF-8).
pub fn path(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}
