//! The interface every front-end implements: source text in; a game with its warnings, or the
//! front-end's typed error, out.

use crate::game::Game;
use crate::span::FileId;

/// Options common to all front-ends.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct LowerOptions {
    /// Upper bound on the work a front-end may do where its input can blow up (GDL grounding:
    /// ground atoms + rule instances). `None` = the front-end's own default.
    pub work_limit: Option<u64>,
    /// Upper bound on what a game may make at translation time: the values of a domain, range or
    /// variable, the copies made by a power, a macro expansion or an unrolled loop, the nodes and
    /// edges of the translated game. `None` = [`DEFAULT_SIZE_LIMIT`].
    pub size_limit: Option<u64>,
    /// `--lenient`: accept what the front-end would reject but a reference implementation
    /// plays (GDL: unsafe rules, read as GGP-Base does). Other front-ends ignore it.
    pub lenient: bool,
}

/// The default of [`LowerOptions::size_limit`]: far above every known game, far below what
/// exhausts memory.
pub const DEFAULT_SIZE_LIMIT: u64 = 2_000_000;

impl LowerOptions {
    /// [`LowerOptions::size_limit`] or its default, as a count.
    pub fn size_limit(&self) -> usize {
        usize::try_from(self.size_limit.unwrap_or(DEFAULT_SIZE_LIMIT)).unwrap_or(usize::MAX)
    }
}

/// The result of lowering one source file: the game plus non-fatal warnings.
#[derive(Debug)]
pub struct Lowered {
    pub game: Game,
    pub warnings: Vec<miette::Report>,
}

impl Lowered {
    /// A result without warnings.
    pub fn new(game: Game) -> Self {
        Lowered {
            game,
            warnings: Vec::new(),
        }
    }
}

/// A source language that lowers to RG. Used with static dispatch: the CLI matches on a language
/// enum and converts each front-end's typed error into a report at the call site.
pub trait FrontEnd {
    /// The front-end's error type (usually one enum per crate, several errors wrapped in one
    /// diagnostic with `#[related]`).
    type Error: miette::Diagnostic + Send + Sync + 'static;

    /// Short language name: `"rg"`, `"hrg"`, `"rbg"`, `"gdl"`, `"lg"`.
    fn name(&self) -> &'static str;

    /// File extensions (without the dot) this front-end reads.
    fn extensions(&self) -> &'static [&'static str];

    /// Lowers one source file. Spans in the result and in errors refer to `file`.
    fn lower(&self, file: FileId, text: &str, opts: &LowerOptions) -> Result<Lowered, Self::Error>;
}
