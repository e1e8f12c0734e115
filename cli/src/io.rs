//! Reading inputs and writing outputs atomically.

use crate::report::Failure;
use std::io::Write;
use std::path::{Path, PathBuf};

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
    write_output_with(target, input, |out| out.write_all(bytes))
}

/// Like [`write_output`], with the text produced by `write` as it goes (through a buffer), so
/// that a large game is never held in memory twice, as a game and as its text.
pub fn write_output_with(
    target: Option<&Path>,
    input: Option<&str>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let Some(path) = target else {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        return write(&mut out).and_then(|()| out.flush()).or_else(|e| {
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
    write_atomically_with(path, write)
}

/// Writes `game` in the format of `emitter` to the target, as [`write_output_with`].
pub fn write_game(
    target: Option<&Path>,
    input: Option<&str>,
    emitter: &dyn rg_fmt::Emitter,
    game: &rg_core::Game,
) -> Result<(), Failure> {
    write_output_with(target, input, |out| emit_game(emitter, game, out))
}

/// Prints `game` in the format of `emitter` into `out`.
pub fn emit_game(
    emitter: &dyn rg_fmt::Emitter,
    game: &rg_core::Game,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    emitter.emit(game, out).map_err(|e| match e {
        rg_fmt::EmitError::Io(e) => e,
    })
}

/// Writes a file via a temporary sibling and a rename, so readers never see a partial file.
///
/// The file is written as an editor would: a symbolic link is written *through* (its final target
/// is replaced and the link kept), an existing file keeps its permission bits (and its owner and
/// group where the process may set them), and a new file gets the default mode of the umask
/// (0644 with umask 022). A target that exists but is not a regular file (`/dev/null`, a FIFO, a
/// terminal) is written in place: renaming over it would replace the device with a plain file.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

/// [`write_atomically`] with the contents written by `write` (through a buffer).
pub fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let err = |e: std::io::Error| Failure::Io(format!("cannot write `{}`: {e}", path.display()));
    let target = follow_links(path).map_err(err)?;
    let existing = std::fs::metadata(&target).ok();
    if let Some(meta) = &existing
        && !meta.is_file()
    {
        if meta.is_dir() {
            return Err(Failure::Io(format!(
                "cannot write `{}`: it is a directory",
                path.display()
            )));
        }
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .map_err(err)?;
        let mut out = std::io::BufWriter::new(f);
        return write(&mut out).and_then(|()| out.flush()).map_err(err);
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    match std::fs::metadata(&dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(Failure::Io(format!(
                "cannot write `{}`: `{}` is not a directory",
                path.display(),
                dir.display()
            )));
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::Io(format!(
                "cannot write `{}`: the directory `{}` does not exist",
                path.display(),
                dir.display()
            )));
        }
        Err(e) => return Err(err(e)),
    }
    let (tmp, file) = create_temporary(&dir).map_err(err)?;
    let mut out = std::io::BufWriter::new(file);
    let written = keep_attributes(out.get_ref(), existing.as_ref())
        .and_then(|()| write(&mut out))
        .and_then(|()| out.flush())
        .and_then(|()| out.get_ref().sync_all());
    drop(out);
    // Renamed and unregistered under the lock, so an interrupt sees either the temporary file
    // or the finished output.
    let mut pending = pending();
    let result = written.and_then(|()| std::fs::rename(&tmp, &target));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    pending.retain(|p| *p != tmp);
    drop(pending);
    result.map_err(err)
}

/// The file a path finally names: symbolic links are followed (a relative link is relative to
/// its own directory), also to a target that does not exist yet. Fails on a loop of links.
fn follow_links(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    // Linux's own limit on links followed in one path lookup.
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Gives the temporary file the permission bits, owner and group of the file it replaces (a new
/// file keeps the mode it was created with: 0666 less the umask). Setting the owner is allowed
/// only to a privileged process, and the group only to one of the process's groups: when that is
/// refused the file keeps the writer's, as with any editor.
fn keep_attributes(
    file: &std::fs::File,
    existing: Option<&std::fs::Metadata>,
) -> std::io::Result<()> {
    let Some(meta) = existing else {
        return Ok(());
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid())).is_err() {
            let _ = std::os::unix::fs::fchown(file, None, Some(meta.gid()));
        }
    }
    // After the owner: changing the owner may clear the set-user-id and set-group-id bits.
    file.set_permissions(meta.permissions())
}

/// Temporary files being written: an interrupted run removes them (see
/// [`install_interrupt_handler`]).
static PENDING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

fn pending() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Creates a new temporary file `.rgt-PID-N.tmp` in `dir`, registered in [`PENDING`] before it
/// exists, so that an interrupt at any moment finds it.
fn create_temporary(dir: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".rgt-{}-{n}.tmp", std::process::id()));
        // Held while the file is created: the interrupt handler waits for it, and once the
        // handler holds the lock no new file is created.
        let mut pending = pending();
        pending.push(tmp.clone());
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(f) => return Ok((tmp, f)),
            Err(e) => {
                pending.pop();
                if e.kind() != std::io::ErrorKind::AlreadyExists {
                    return Err(e);
                }
            }
        }
    }
}

/// What to do on an interrupt before exiting (a library conversion says how far it got).
type InterruptHook = Box<dyn Fn() + Send>;

static ON_INTERRUPT: std::sync::Mutex<Option<InterruptHook>> = std::sync::Mutex::new(None);

/// Sets (or, with `None`, removes) the hook the interrupt handler runs before it exits.
pub fn on_interrupt(hook: Option<InterruptHook>) {
    *ON_INTERRUPT.lock().unwrap_or_else(|e| e.into_inner()) = hook;
}

/// On SIGINT, SIGTERM or SIGHUP: removes the temporary files being written, runs the hook set by
/// [`on_interrupt`] and exits with status 130, so an interrupted `-o OUT` leaves neither a
/// partial `OUT` nor a temporary file.
pub fn install_interrupt_handler() {
    let _ = ctrlc::set_handler(|| {
        // The lock is kept until the process ends: no temporary file is created or renamed
        // after this point.
        let pending = pending();
        for p in pending.iter() {
            let _ = std::fs::remove_file(p);
        }
        if let Some(hook) = ON_INTERRUPT
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            hook();
        }
        std::process::exit(130);
    });
}
