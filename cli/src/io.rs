//! Reading inputs and writing outputs atomically.

use crate::report::Failure;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Reads `path` (`-` = standard input). Returns the display name and the text.
pub fn read_input(path: &str) -> Result<(String, String), Failure> {
    if path == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| Failure::Io(format!("cannot read standard input: {e}")))?;
        return Ok(("<stdin>".to_owned(), text));
    }
    let bytes =
        std::fs::read(path).map_err(|e| Failure::Io(format!("cannot read `{path}`: {e}")))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Failure::Io(format!(
            "`{path}` is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })?;
    Ok((path.to_owned(), text))
}

/// Where output goes: standard output (`None` or `-`) or a file.
pub fn output_target(out: Option<&str>) -> Option<PathBuf> {
    match out {
        None | Some("-") => None,
        Some(p) => Some(PathBuf::from(p)),
    }
}

/// Whether two paths name the same file (the second may not exist yet).
fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| -> Option<PathBuf> {
        if let Ok(c) = p.canonicalize() {
            return Some(c);
        }
        let parent = match p.parent() {
            Some(pp) if !pp.as_os_str().is_empty() => pp.canonicalize().ok()?,
            _ => std::env::current_dir().ok()?,
        };
        Some(parent.join(p.file_name()?))
    };
    matches!((canon(a), canon(b)), (Some(x), Some(y)) if x == y)
}

/// Writes `bytes` to the target: standard output, or a file written atomically (a temporary file
/// in the same directory, renamed over the target on success). Refuses to overwrite `input`.
pub fn write_output(
    target: Option<&Path>,
    bytes: &[u8],
    input: Option<&str>,
) -> Result<(), Failure> {
    let Some(path) = target else {
        let mut out = std::io::stdout().lock();
        return out
            .write_all(bytes)
            .and_then(|()| out.flush())
            .or_else(|e| {
                // A closed pipe (`rgt … | head`) is not an error worth reporting.
                if e.kind() == std::io::ErrorKind::BrokenPipe {
                    Ok(())
                } else {
                    Err(Failure::Io(format!("cannot write standard output: {e}")))
                }
            });
    };
    if let Some(input) = input.filter(|i| *i != "-")
        && same_file(Path::new(input), path)
    {
        return Err(Failure::Usage(format!(
            "refusing to overwrite the input file `{}`; choose another output",
            path.display()
        )));
    }
    write_atomically(path, bytes)
}

/// Writes a file via a temporary sibling and a rename, so readers never see a partial file.
/// A target that exists but is not a regular file (`/dev/null`, a FIFO, a terminal) is written
/// in place: renaming over it would replace the device with a plain file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let err = |e: std::io::Error| Failure::Io(format!("cannot write `{}`: {e}", path.display()));
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
        && !meta.is_dir()
    {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(err)?;
        return f.write_all(bytes).and_then(|()| f.flush()).map_err(err);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".rgt-")
        .suffix(".tmp")
        .tempfile_in(&dir)
        .map_err(err)?;
    tmp.write_all(bytes).map_err(err)?;
    tmp.as_file().sync_all().map_err(err)?;
    tmp.persist(path).map_err(|e| err(e.error))?;
    Ok(())
}
