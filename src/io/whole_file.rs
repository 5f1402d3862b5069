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
/// it is not a file name, or it names something other than a regular file: a folder, a
/// symbolic link, a device, a FIFO, which the rename would replace).
pub fn temp_beside(path: &Path) -> Result<(File, TempPath)> {
    let io = |source| Error::Io {
        path: path.display().to_string(),
        source,
    };
    // renaming over anything but a regular file would replace it: a device such as
    // /dev/full, a FIFO, a symbolic link (/dev/stdout) or a folder
    if let Ok(m) = std::fs::symlink_metadata(path)
        && !m.file_type().is_file()
    {
        let what = if m.file_type().is_symlink() {
            "a symbolic link"
        } else if m.is_dir() {
            "a folder"
        } else {
            "a device, FIFO or socket"
        };
        return Err(io(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "is {what}, not a regular file: the output is written whole to a new file \
                 renamed to this name, which would replace it (name a regular file, or use \
                 standard output)"
            ),
        )));
    }
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
    let temp = builder.tempfile_in(folder).map_err(|e| {
        io(std::io::Error::new(
            e.kind(),
            format!(
                "cannot create a file in folder {} ({})",
                folder.display(),
                std::io::Error::from(e.kind())
            ),
        ))
    })?;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A file written whole never replaces what is not a regular file: a symbolic link stays
    /// one and its target is untouched; a device is not opened.
    #[cfg(unix)]
    #[test]
    fn only_regular_files_are_replaced() {
        let dir = tempfile::tempdir().expect("tempdir");
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "kept").expect("write");
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        let e = write_whole(&link, b"new").expect_err("a link");
        assert!(e.to_string().contains("link.txt") && e.to_string().contains("symbolic link"));
        assert!(
            std::fs::symlink_metadata(&link)
                .expect("link")
                .file_type()
                .is_symlink()
        );
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "kept");
        let e = write_whole(Path::new("/dev/null"), b"x").expect_err("a device");
        assert!(e.to_string().contains("a device, FIFO or socket"), "{e}");
        assert!(write_whole(dir.path(), b"x").is_err());
        // a regular file is replaced, whole
        write_whole(&target, b"new").expect("regular file");
        assert_eq!(std::fs::read_to_string(&target).expect("read"), "new");
        let files: Vec<_> = std::fs::read_dir(dir.path()).expect("dir").collect();
        assert_eq!(files.len(), 2, "no temporary file left");
    }
}
