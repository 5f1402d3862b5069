//! Files written whole or not at all: the bytes go to a temporary file in the target's
//! folder (`.NAME.XXXXXX.tmp`), renamed to the target's name when complete, so a reader
//! never sees half a file and a failed run leaves none behind.

use std::fs::File;
use std::io::Write as _;
use std::path::Path;

use tempfile::TempPath;

use crate::error::{Error, Result};

/// A temporary file in `path`'s folder, named after it, made as `File::create` makes files
/// (the umask applies); its `TempPath` deletes it when dropped, `persist(path)` renames it.
///
/// Errors: [`Error::Io`] naming `path` (its folder does not exist, or is not writable, or
/// it is not a file name).
pub fn temp_beside(path: &Path) -> Result<(File, TempPath)> {
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("no folder {}", folder.display()),
        )));
    }
    let file_name = path.file_name().ok_or_else(|| {
        io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a file name",
        ))
    })?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(file_name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        // as File::create makes it (the umask applies), not tempfile's owner-only 0600
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    // tempfile's error names the temporary file: the user named `path`
    let temp = builder
        .tempfile_in(folder)
        .map_err(|e| io(std::io::Error::from(e.kind())))?;
    Ok(temp.into_parts())
}

/// Writes `bytes` to `path` whole ([`temp_beside`], then a rename that replaces a file of
/// that name). Errors: [`Error::Io`] naming `path`.
pub fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let (mut file, temp) = temp_beside(path)?;
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    file.write_all(bytes)
        .and_then(|()| file.flush())
        .map_err(io)?;
    drop(file);
    temp.persist(path).map_err(|e| io(e.error))
}
