//! `rgt fmt`: canonical formatting of a source file.

use crate::io::{write_atomically, write_output};
use crate::lang::Lang;
use crate::report::{Diagnostic, Failure, Session};
use std::path::Path;
use std::process::ExitCode;

/// Print a game file in canonical form.
///
/// For RG, the canonical printed form (fixed layout and order of declarations; no built-ins
/// added, nothing checked beyond syntax);
/// comments are kept: one after a declaration on its line stays there, the others move with
/// the declaration that follows them. HRG comments are kept before the construct that follows
/// them.
/// For KIF, the normalised rules (one rule per disjunct, keywords in lower case, `(p)` as `p`,
/// `and` flattened, `(not (distinct s t))` unified away, duplicates dropped, comments dropped;
/// not validated). Other languages print their own canonical form where their
/// front-end provides one.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The file to format (`-` = standard input, as RG unless --from says otherwise).
    #[arg(value_name = "INPUT")]
    pub input: String,

    /// The input language; by default chosen by the file extension.
    #[arg(long, value_enum, value_name = "LANG")]
    pub from: Option<Lang>,

    /// Do not print; exit with status 1 if the file is not in canonical form.
    #[arg(long, conflicts_with = "write")]
    pub check: bool,

    /// Rewrite the file in place (atomically) instead of printing.
    #[arg(long)]
    pub write: bool,

    /// For RBG: print the low-level (LL-RBG) expansion of the description — macros expanded,
    /// board generators written out as explicit graphs — instead of formatting it.
    #[arg(long, conflicts_with_all = ["write", "check"])]
    pub lower: bool,
}

/// Canonical text of `text` in `lang`; warnings (KIF normalisation) go to `session`.
fn format(
    session: &Session,
    lang: Lang,
    file: rg_core::FileId,
    text: &str,
) -> Result<String, Failure> {
    match lang {
        Lang::Rg => rg_core::format::format(file, text).map_err(|e| Failure::input(&e, Some(file))),
        Lang::Hrg => front_hrg::format(file, text).map_err(|e| Failure::input(&e, Some(file))),
        Lang::Kif => {
            let parsed = front_gdl::parse(file, text, &front_gdl::ParseOptions::default())
                .map_err(|e| Failure::input(&e, Some(file)))?;
            let warnings: Vec<Diagnostic> = parsed
                .warnings
                .iter()
                .flat_map(|w| Diagnostic::from_miette(w, Some(file)))
                .collect();
            session.emit(&warnings);
            Ok(front_gdl::print(&parsed.program))
        }
        Lang::Lg => front_linegames::format(file, text).map_err(|e| Failure::input(&e, Some(file))),
        other => Err(Failure::Usage(format!(
            "formatting {} files is not available in this build of rgt yet",
            other.name()
        ))),
    }
}

/// Runs `rgt fmt`.
pub fn run(session: &mut Session, args: Args) -> Result<ExitCode, Failure> {
    let lang = Lang::detect(&args.input, args.from)?;
    let (name, text) = rg_pipeline::read_source(&args.input)?;
    let file = session.sources.add(name.clone(), text.clone());
    if args.lower {
        if lang != Lang::Rbg {
            return Err(Failure::Usage("--lower is for RBG descriptions".into()));
        }
        let ll = front_rbg::to_ll(file, &text).map_err(|e| Failure::input(&e, Some(file)))?;
        write_output(None, ll.as_bytes(), None)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.write && lang == Lang::Kif {
        return Err(Failure::Usage(
            "--write is not available for KIF: normalised KIF drops comments and expands `or`; \
             redirect the output to another file instead"
                .into(),
        ));
    }
    let formatted = format(session, lang, file, &text)?;
    if args.check {
        if formatted == text {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!("{name} is not in canonical form (run `rgt fmt --write {name}`)");
        return Ok(ExitCode::from(crate::report::EXIT_INPUT));
    }
    if args.write {
        if args.input == "-" {
            return Err(Failure::Usage(
                "--write needs a file, not standard input".into(),
            ));
        }
        if formatted != text {
            write_atomically(Path::new(&args.input), formatted.as_bytes())?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    write_output(None, formatted.as_bytes(), None)?;
    Ok(ExitCode::SUCCESS)
}
