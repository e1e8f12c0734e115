//! Errors of the interpreter: a game that cannot be loaded, and actions that cannot be evaluated.

use miette::SourceSpan;
use rg_core::{EdgeId, Span};

/// Why a checked game cannot be turned into the runtime form (the cases where the reference
/// interpreter aborts while loading a game: no `begin`, shapes it cannot store).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum CompileError {
    /// The game has no `begin` node.
    #[error("the game has no `begin` node")]
    #[diagnostic(
        code(rg::interp::no_begin),
        help("every game starts at the node named `begin`")
    )]
    NoBegin,
    /// A type, constant, variable or action the interpreter cannot represent.
    #[error("{message}")]
    #[diagnostic(code(rg::interp::unsupported))]
    Unsupported {
        message: String,
        #[label("here")]
        label: Option<SourceSpan>,
        span: Option<Span>,
        #[help]
        help: Option<String>,
    },
}

impl CompileError {
    pub(crate) fn at(message: impl Into<String>, span: Option<Span>) -> Self {
        CompileError::Unsupported {
            message: message.into(),
            label: span.map(Into::into),
            span,
            help: None,
        }
    }

    pub(crate) fn with_help(mut self, text: impl Into<String>) -> Self {
        if let CompileError::Unsupported { help, .. } = &mut self {
            *help = Some(text.into());
        }
        self
    }

    /// The source span the error points at, if any.
    pub fn span(&self) -> Option<Span> {
        match self {
            CompileError::NoBegin => None,
            CompileError::Unsupported { span, .. } => *span,
        }
    }
}

/// What went wrong while evaluating an action: a proper game never does any of these (its
/// actions are always evaluable), and the reference interpreter aborts on them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// A map was indexed by a symbol outside its domain (reading gives the default in the
    /// reference; storing cannot be represented). Reported when reading only in strict mode.
    KeyOutsideDomain { key: String, write: bool },
    /// A stored symbol is not a member of the location's set type (strict mode only).
    ValueOutsideType { value: String, ty: String },
    /// A reachability check that (transitively) re-enters itself never terminates.
    RecursiveReachability,
    /// A move search produced a walk with more tags than any real move (a cycle through tags).
    TooManyTags { limit: usize },
    /// Reachability checks nested deeper than the interpreter allows.
    ReachNesting { limit: usize },
    /// The keeper moves in a cycle: after `moves` keeper moves in a row the game is back in a
    /// state (at node `node`) it was in, so no player ever moves again (perft and playouts would
    /// never end). Reported on the edge that ends the keeper move closing the cycle.
    KeeperCycle { node: String, moves: usize },
    /// More than `limit` keeper moves in a row, with no player moving.
    KeeperMoves { limit: usize },
    /// One search (the legal moves of a state, with its reachability checks) took more steps
    /// or held more bytes than [`crate::SearchLimit`] allows: `limit` is the value of
    /// `--search-limit` that sets both, N steps and N bytes.
    SearchLimit { what: SearchBudget, limit: u64 },
}

/// Which budget of a search ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchBudget {
    /// Steps: edges evaluated (an `x = T(*)` assignment once per value).
    Steps,
    /// Memory held (counted in words of 4 bytes): moves found, pending states, the path and
    /// the visited-state sets.
    Bytes,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::KeyOutsideDomain { key, write: true } => {
                write!(
                    f,
                    "store into a map at key `{key}`, which is outside the map's domain"
                )
            }
            Fault::KeyOutsideDomain { key, write: false } => {
                write!(
                    f,
                    "map accessed at key `{key}`, which is outside the map's domain"
                )
            }
            Fault::ValueOutsideType { value, ty } => {
                write!(f, "value `{value}` stored into a location of type `{ty}`")
            }
            Fault::RecursiveReachability => {
                write!(
                    f,
                    "a reachability check reaches the node it is checked from"
                )
            }
            Fault::TooManyTags { limit } => {
                write!(
                    f,
                    "a move search produced a walk with more than {limit} tags"
                )
            }
            Fault::ReachNesting { limit } => {
                write!(f, "reachability checks are nested more than {limit} deep")
            }
            Fault::KeeperCycle { node, moves } => {
                let steps = if *moves == 1 {
                    "1 keeper move brings".to_string()
                } else {
                    format!("{moves} keeper moves in a row bring")
                };
                write!(
                    f,
                    "the keeper moves in a cycle: {steps} the game back to a state at `{node}` \
                     it was in before, so no player ever moves again"
                )
            }
            Fault::KeeperMoves { limit } => {
                write!(
                    f,
                    "the keeper made more than {limit} moves in a row with no player moving"
                )
            }
            Fault::SearchLimit { what, limit } => {
                let what = match what {
                    SearchBudget::Steps => format!("took more than {limit} steps"),
                    SearchBudget::Bytes => {
                        format!("held more than {limit} bytes of moves and search states")
                    }
                };
                write!(
                    f,
                    "the search for the legal moves of a state {what}, the limit set by \
                     `--search-limit`"
                )
            }
        }
    }
}

/// An action that cannot be evaluated, with where it happened: the edge, its source span, and the
/// moves (tag lists) played from the initial state before it.
///
/// Its code is `rg::interp::search_limit` for [`Fault::SearchLimit`], `rg::interp::runtime`
/// for the others.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("run-time error on edge `{edge_text}`: {fault}")]
pub struct RuntimeError {
    pub fault: Fault,
    pub edge: EdgeId,
    /// The edge as printed (`a, b: label`).
    pub edge_text: String,
    pub label: Option<SourceSpan>,
    pub span: Option<Span>,
    /// The moves played before the failing search, each a list of tags.
    pub path: Vec<Vec<String>>,
    pub help: Option<String>,
}

impl miette::Diagnostic for RuntimeError {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(match self.fault {
            Fault::SearchLimit { .. } => "rg::interp::search_limit",
            _ => "rg::interp::runtime",
        }))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        match (&self.fault, &self.help) {
            (Fault::SearchLimit { .. }, help) => {
                let mut text = format!(
                    "rgt limits the work of one search of the interpreter; raise the limit with \
                     `--search-limit N` (default {})",
                    crate::DEFAULT_SEARCH_LIMIT
                );
                if let Some(h) = help {
                    text.push_str("; ");
                    text.push_str(h);
                }
                Some(Box::new(text))
            }
            (_, Some(h)) => Some(Box::new(h)),
            (_, None) => None,
        }
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let label = self.label?;
        let text = match self.fault {
            // The edge the search was at when its budget ran out.
            Fault::SearchLimit { .. } => "the search was here".to_string(),
            _ => self.fault.to_string(),
        };
        Some(Box::new(std::iter::once(
            miette::LabeledSpan::new_with_span(Some(text), label),
        )))
    }
}

impl RuntimeError {
    /// The path in the `/m1/m2/` notation: each move is its tags, space-separated, between
    /// slashes.
    pub fn path_text(&self) -> String {
        format_path(&self.path)
    }

    pub(crate) fn finish_help(&mut self) {
        self.help = Some(format!("reached after the moves {}", self.path_text()));
    }
}

/// Writes a path of moves as `/m1/m2/…/`, each move its tags separated by spaces.
pub fn format_path(path: &[Vec<String>]) -> String {
    let mut s = String::from("/");
    for m in path {
        s.push_str(&m.join(" "));
        s.push('/');
    }
    s
}

/// Why a path (`--after`) cannot be followed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, miette::Diagnostic)]
pub enum PathError {
    #[error("incorrect path format: `{0}`")]
    #[diagnostic(
        code(rg::interp::path_format),
        help(
            "a path starts and ends with `/`, e.g. `/` or `//2 2/` (moves are tags separated by single spaces)"
        )
    )]
    Format(String),
    #[error("unknown tag `{0}`")]
    #[diagnostic(
        code(rg::interp::path_tag),
        help("tags are symbols or node names of the game")
    )]
    UnknownTag(String),
    #[error("path `{path}` failed at {mv}: no legal move has these tags")]
    #[diagnostic(
        code(rg::interp::path_illegal),
        help("`rgt moves GAME --after PATH` lists the legal moves at any point")
    )]
    /// `mv` names the move: `` `p1 p1` (move 3)`` or `the empty move (move 2)`.
    Illegal { path: String, mv: String },
    #[error(transparent)]
    #[diagnostic(transparent)]
    Runtime(Box<RuntimeError>),
}
