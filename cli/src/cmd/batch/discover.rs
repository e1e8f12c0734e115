//! Finding the games of a library and where each one's output goes.

use super::glob::Glob;
use crate::lang::Lang;
use crate::report::Failure;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One game to convert.
#[derive(Clone, Debug)]
pub struct Job {
    /// The input file, as reached from the INPUT argument (used in messages and the report).
    pub input: PathBuf,
    /// The language (by extension, or `--from`).
    pub lang: Lang,
    /// The output file: `--out-dir` joined with the path relative to the INPUT directory (the
    /// file name for a file INPUT), with the extension of `--emit`; with `--preserve-paths`,
    /// the INPUT's own path comes in between.
    pub output: PathBuf,
    /// Size of the input in bytes (largest games are started first).
    pub size: u64,
}

/// Expands the INPUT arguments into the sorted list of games.
///
/// Directories are searched recursively for files whose extension names a language; hidden
/// entries (names starting with `.`), symbolic links to directories and the output directory
/// (when inside an INPUT directory) are not entered. `--glob` narrows directory searches; files named explicitly are always
/// taken. Fails (usage error) when two games would write the same output, when an output would
/// overwrite its input, or when nothing is found.
pub fn discover(
    inputs: &[String],
    globs: &[Glob],
    from: Option<Lang>,
    out_dir: &Path,
    extension: &str,
    preserve_paths: bool,
) -> Result<Vec<Job>, Failure> {
    let out_canon = out_dir.canonicalize().ok();
    let mut jobs = Vec::new();
    for input in inputs {
        if input == "-" {
            return Err(Failure::Usage(
                "standard input (`-`) cannot be translated into a directory; name the files"
                    .to_owned(),
            ));
        }
        let path = PathBuf::from(input);
        // `--preserve-paths`: the INPUT as written, inside the output directory.
        let kept = if preserve_paths {
            inside(&path)
        } else {
            PathBuf::new()
        };
        let meta = std::fs::metadata(&path)
            .map_err(|e| Failure::Io(format!("cannot read `{input}`: {e}")))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            walk(&path, "", out_canon.as_deref(), &mut found)
                .map_err(|e| Failure::Io(format!("cannot search `{input}`: {e}")))?;
            for (relative, file, size) in found {
                let Some(lang) = Lang::from_path(&file) else {
                    continue;
                };
                if !globs.is_empty() && !globs.iter().any(|g| g.matches_path(&relative)) {
                    continue;
                }
                let output = out_dir
                    .join(&kept)
                    .join(Path::new(&relative).with_extension(extension));
                jobs.push(Job {
                    input: file,
                    lang: from.unwrap_or(lang),
                    output,
                    size,
                });
            }
        } else {
            let lang = Lang::detect(input, from)?;
            let name = path
                .file_name()
                .ok_or_else(|| Failure::Usage(format!("`{input}` names no file")))?;
            let output = if preserve_paths {
                out_dir.join(kept.with_extension(extension))
            } else {
                out_dir.join(Path::new(name).with_extension(extension))
            };
            jobs.push(Job {
                output,
                input: path,
                lang,
                size: meta.len(),
            });
        }
    }
    if jobs.is_empty() {
        let known: Vec<String> = Lang::ALL
            .iter()
            .flat_map(|l| l.extensions().iter().map(|e| format!(".{e}")))
            .collect();
        let narrowed = if globs.is_empty() {
            String::new()
        } else {
            let pats: Vec<&str> = globs.iter().map(Glob::as_str).collect();
            format!(" matching --glob {}", pats.join(", "))
        };
        return Err(Failure::Usage(format!(
            "no games found{narrowed} (looked for {} files)",
            known.join(" ")
        )));
    }
    jobs.sort_by(|a, b| a.input.cmp(&b.input).then(a.output.cmp(&b.output)));
    dedupe_and_check(jobs, preserve_paths)
}

/// A path as written, made relative for use inside the output directory: its root, `.` and `..`
/// are dropped (`../lib/hrg` → `lib/hrg`, `/srv/games` → `srv/games`).
fn inside(path: &Path) -> PathBuf {
    path.components()
        .filter_map(|c| match c {
            std::path::Component::Normal(part) => Some(part),
            _ => None,
        })
        .collect()
}

/// How many colliding outputs a usage error lists.
const MAX_COLLISIONS_SHOWN: usize = 5;

/// Drops a game reached twice for the same output; rejects two games for one output and an output
/// that is its own input.
fn dedupe_and_check(jobs: Vec<Job>, preserve_paths: bool) -> Result<Vec<Job>, Failure> {
    let canon = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let mut by_output: BTreeMap<PathBuf, Vec<Job>> = BTreeMap::new();
    for job in jobs {
        let key = match (job.output.parent(), job.output.file_name()) {
            (Some(dir), Some(name)) => canon(dir).join(name),
            _ => job.output.clone(),
        };
        let same: &mut Vec<Job> = by_output.entry(key).or_default();
        if !same.iter().any(|j| canon(&j.input) == canon(&job.input)) {
            same.push(job);
        }
    }
    let mut problems = Vec::new();
    let mut collisions = Vec::new();
    let mut out = Vec::new();
    for (output, mut same) in by_output {
        if same.len() > 1 {
            let names: Vec<String> = same
                .iter()
                .map(|j| format!("`{}`", j.input.display()))
                .collect();
            collisions.push(format!(
                "{} would all be written to `{}`",
                names.join(" and "),
                same[0].output.display()
            ));
        } else if canon(&same[0].input) == output {
            problems.push(format!(
                "refusing to overwrite the input file `{}`; choose another --out-dir",
                same[0].input.display()
            ));
        } else {
            out.append(&mut same);
        }
    }
    if !collisions.is_empty() {
        let n = collisions.len();
        let mut text = if n == 1 {
            collisions.remove(0)
        } else {
            let mut t = format!("{n} outputs would each be written by several games:");
            for c in collisions.iter().take(MAX_COLLISIONS_SHOWN) {
                t.push_str("\n  ");
                t.push_str(c);
            }
            if n > MAX_COLLISIONS_SHOWN {
                t.push_str(&format!("\n  … and {} more", n - MAX_COLLISIONS_SHOWN));
            }
            t
        };
        text.push_str(if preserve_paths {
            "\nhelp: rename the games, or translate them into different --out-dir directories"
        } else {
            "\nhelp: add --preserve-paths to keep each INPUT's path in the output \
             (`rgt translate a/ b/ --out-dir out --preserve-paths` writes `a/x.hrg` to \
             `out/a/x.rg` and `b/x.rbg` to `out/b/x.rg`), or use --glob to take one of them"
        });
        problems.insert(0, text);
    }
    if !problems.is_empty() {
        return Err(Failure::Usage(problems.join("\nerror: ")));
    }
    out.sort_by(|a, b| a.input.cmp(&b.input).then(a.output.cmp(&b.output)));
    Ok(out)
}

/// Collects `(relative path with '/', path, size)` of every regular file under `dir`, sorted.
fn walk(
    dir: &Path,
    prefix: &str,
    skip: Option<&Path>,
    out: &mut Vec<(String, PathBuf, u64)>,
) -> std::io::Result<()> {
    // The output directory is skipped inside an INPUT directory, not when it is the INPUT itself
    // (then `--emit rg` of .rg games is refused below as overwriting its inputs).
    if let Some(skip) = skip
        && !prefix.is_empty()
        && dir.canonicalize().is_ok_and(|c| c == skip)
    {
        return Ok(());
    }
    let mut entries: Vec<(String, PathBuf)> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| (e.file_name().to_string_lossy().into_owned(), e.path())))
        .collect::<std::io::Result<_>>()?;
    entries.sort();
    for (name, path) in entries {
        if name.starts_with('.') {
            continue;
        }
        let relative = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let link = std::fs::symlink_metadata(&path)?;
        if link.is_dir() {
            walk(&path, &relative, skip, out)?;
        } else if let Ok(meta) = std::fs::metadata(&path)
            && meta.is_file()
        {
            out.push((relative, path, meta.len()));
        }
    }
    Ok(())
}
