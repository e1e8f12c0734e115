//! Diagnostics of the GDL front-end (reader, validation, grounding and lowering).
//!
//! Every finding is one [`GdlDiagnostic`]: a [`Code`], a message, a primary span, optional
//! secondary labels and a help line. Its miette code is `gdl::` followed by the catalogue code,
//! e.g. `gdl::E-VAL-040`; scripts and tests match on these codes, never on message text. The
//! letter says the level (`E` error, `W` warning), the middle part the stage (`LEX`, `PARSE`,
//! `VAL`, `GND`, `LOW`, `CHK`). All findings of a stage are collected and returned together in
//! one [`GdlErrors`], which miette renders as each finding in source order followed by a summary.

use miette::{Diagnostic, LabeledSpan, Severity};
use rg_core::Span;
use std::fmt;

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Stops the translation.
    Error,
    /// Never stops it.
    Warning,
}

macro_rules! codes {
    ($( $(#[$doc:meta])* $variant:ident = $text:literal, )*) => {
        /// A stable diagnostic code (the codes are a published catalogue: scripts and tests match
        /// on them, so they never change meaning).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code {
            $( $(#[$doc])* $variant, )*
        }

        impl Code {
            /// Every code, in catalogue order.
            pub const ALL: &'static [Code] = &[$(Code::$variant),*];

            /// The catalogue text, e.g. `"E-VAL-040"`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( Code::$variant => $text, )*
                }
            }
        }
    };
}

codes! {
    /// `)` without a matching `(`.
    UnmatchedClose = "E-PARSE-001",
    /// End of file inside a list.
    UnclosedParen = "E-PARSE-002",
    /// A lone `?`.
    LoneQuestionMark = "E-LEX-002",
    /// A rule head (or literal, or function term) that is a variable, a list or nothing.
    NotASentence = "E-PARSE-003",
    /// `()`.
    EmptyList = "E-PARSE-004",
    /// A connective used with the wrong number of arguments or where it cannot be.
    MisplacedConnective = "E-PARSE-005",
    /// An infix syntax error.
    InfixSyntax = "E-PARSE-006",
    /// `(p)` or `(f)` with no arguments.
    UnnecessaryParens = "W-PARSE-007",
    /// `(<= h)`.
    EmptyBody = "W-PARSE-008",
    /// `(and …)` in a body.
    AndInBody = "W-PARSE-009",
    /// Characters outside `[A-Za-z0-9_-]` in a symbol.
    UnusualCharacters = "W-LEX-010",
    /// Two spellings of one symbol.
    InconsistentCase = "W-LEX-011",
    /// (rgt) Lists nested deeper than the reader accepts.
    TooDeep = "E-PARSE-018",
    /// No `role` / `legal` / `terminal` / `goal`.
    MissingKeyword = "E-VAL-001",
    /// Keyword relation with the wrong arity.
    KeywordArity = "E-VAL-002",
    /// Keyword used as a function symbol.
    KeywordAsFunction = "E-VAL-003",
    /// Keyword used as an object constant.
    KeywordAsConstant = "W-VAL-004",
    /// Variable in a fact.
    VariableInFact = "E-VAL-005",
    /// A keyword relation where it cannot appear (head or body).
    KeywordPlacement = "E-VAL-006",
    /// `init` / `base` / `input` depending on `true` / `does`.
    DependsOnState = "E-VAL-007",
    /// `legal` / `goal` / `terminal` depending on `does`.
    DependsOnDoes = "E-VAL-008",
    /// `sees` in a body.
    SeesInBody = "W-VAL-009",
    /// A name used with two arities.
    TwoArities = "W-VAL-010",
    /// `(or)`.
    EmptyOr = "W-VAL-011",
    /// A negated non-literal such as `(not (and …))`.
    NegatedNonLiteral = "E-VAL-012",
    /// A body relation defined nowhere.
    Undefined = "W-VAL-013",
    /// A defined relation never used.
    Unused = "W-VAL-014",
    /// A name used as relation and as function.
    RelationAndFunction = "W-VAL-015",
    /// (rgt) A non-standard nesting of connectives (`(not (or …))`, `(not (not …))`,
    /// `(not (distinct …))`, `or` inside `or`) that was rewritten.
    NestedConnective = "W-VAL-016",
    /// (rgt) A body whose disjunctions expand to too many rules.
    TooManyDisjuncts = "E-VAL-017",
    /// A compound role.
    CompoundRole = "E-VAL-021",
    /// A goal value that is not an integer 0…100.
    GoalValue = "W-VAL-022",
    /// `random` role without `sees`, or `random` with goals.
    RandomRole = "W-VAL-023",
    /// Relation-level negation cycle.
    RelationNegationCycle = "W-VAL-030",
    /// Ground negation cycle (reported by grounding).
    GroundNegationCycle = "E-VAL-031",
    /// Recursion restriction violated.
    RecursionRestriction = "E-VAL-032",
    /// Unsafe rule.
    UnsafeRule = "E-VAL-040",
    /// (rgt, `--lenient`) An unsafe rule given GGP-Base's meaning (literals evaluated left to
    /// right) instead of being rejected.
    UnsafeRuleLenient = "W-VAL-041",
    /// `base` / `input` differ from the computed fluents / actions (grounding).
    BaseInputMismatch = "W-GND-040",
    /// A role without any possible legal move (grounding).
    NoLegalMove = "W-GND-041",
    /// (rgt) `terminal` holds in every state, the initial one included: no role ever moves.
    AlwaysTerminal = "W-GND-042",
    /// A grounding guard was exceeded.
    GroundingLimit = "E-GND-050",
    /// Two ground terms flatten to one RG name (lowering).
    NameCollision = "W-LOW-060",
    /// (rgt) The lowering of lifted relations exceeded a nesting limit (inlined calls, or
    /// terms built through them).
    LiftingLimit = "E-LOW-061",
    /// (rgt) The lowering to RG is not part of this build.
    LoweringUnavailable = "E-LOW-099",
    /// (`rgt check`) role without legal move in a reachable non-terminal state.
    CheckNoLegalMove = "E-CHK-070",
    /// (`rgt check`) no or several goal values in a terminal state.
    CheckGoalValues = "E-CHK-071",
    /// (`rgt check`) playout longer than `--max-depth`.
    CheckMaxDepth = "E-CHK-072",
}

impl Code {
    /// The level the catalogue gives this code.
    pub fn level(self) -> Level {
        if self.as_str().starts_with('W') {
            Level::Warning
        } else {
            Level::Error
        }
    }

    /// The miette code: `gdl::` + the catalogue code.
    pub fn miette_code(self) -> String {
        format!("gdl::{}", self.as_str())
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding: an error or a warning about a GDL description.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GdlDiagnostic {
    /// The catalogue code; it also fixes the level.
    pub code: Code,
    /// The one-line message.
    pub message: String,
    /// The primary location (none for findings about the whole description).
    pub span: Option<Span>,
    /// The text shown under the primary location.
    pub label: Option<String>,
    /// Further locations with their texts.
    pub secondary: Vec<(Span, String)>,
    /// What to do about it.
    pub help: Option<String>,
}

impl GdlDiagnostic {
    /// A finding at `span`.
    pub fn new(code: Code, span: Span, message: impl Into<String>) -> Self {
        GdlDiagnostic {
            code,
            message: message.into(),
            span: Some(span),
            label: None,
            secondary: Vec::new(),
            help: None,
        }
    }

    /// A finding about the whole description (no location).
    pub fn global(code: Code, message: impl Into<String>) -> Self {
        GdlDiagnostic {
            code,
            message: message.into(),
            span: None,
            label: None,
            secondary: Vec::new(),
            help: None,
        }
    }

    /// Sets the text under the primary location.
    pub fn with_label(mut self, text: impl Into<String>) -> Self {
        self.label = Some(text.into());
        self
    }

    /// Adds a secondary location.
    pub fn with_secondary(mut self, span: Span, text: impl Into<String>) -> Self {
        self.secondary.push((span, text.into()));
        self
    }

    /// Sets the help line.
    pub fn with_help(mut self, text: impl Into<String>) -> Self {
        self.help = Some(text.into());
        self
    }

    /// The level of its code.
    pub fn level(&self) -> Level {
        self.code.level()
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.level() == Level::Error
    }

    /// Sort key: source position, then code (findings without a location come last).
    fn order_key(&self) -> (bool, u32, u32, Code) {
        match self.span {
            Some(s) => (false, s.start, s.end, self.code),
            None => (true, 0, 0, self.code),
        }
    }
}

impl fmt::Display for GdlDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GdlDiagnostic {}

impl Diagnostic for GdlDiagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code.miette_code()))
    }

    fn severity(&self) -> Option<Severity> {
        Some(match self.level() {
            Level::Error => Severity::Error,
            Level::Warning => Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary = self.span?;
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(self.label.clone().unwrap_or_else(|| "here".to_owned())),
            primary,
        )];
        labels.extend(
            self.secondary
                .iter()
                .map(|(s, t)| LabeledSpan::new_with_span(Some(t.clone()), *s)),
        );
        Some(Box::new(labels.into_iter()))
    }
}

/// Every finding of a failed stage (at least one error; warnings found on the way included).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GdlErrors {
    /// Errors and warnings, in source order.
    pub diagnostics: Vec<GdlDiagnostic>,
}

impl GdlErrors {
    /// Wraps findings, sorting them into source order.
    pub fn new(mut diagnostics: Vec<GdlDiagnostic>) -> Self {
        sort_diagnostics(&mut diagnostics);
        GdlErrors { diagnostics }
    }

    /// Just the errors.
    pub fn errors(&self) -> impl Iterator<Item = &GdlDiagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }

    /// Whether any finding has this code.
    pub fn has(&self, code: Code) -> bool {
        self.diagnostics.iter().any(|d| d.code == code)
    }
}

/// Sorts findings into source order and drops exact duplicates (rules expanded from one `or`
/// produce the same finding once per copy).
pub fn sort_diagnostics(diags: &mut Vec<GdlDiagnostic>) {
    // Stable: findings without a location keep the order they were found in.
    diags.sort_by(|a, b| {
        a.order_key().cmp(&b.order_key()).then_with(|| {
            if a.span.is_some() {
                a.message.cmp(&b.message)
            } else {
                std::cmp::Ordering::Equal
            }
        })
    });
    diags.dedup();
}

impl fmt::Display for GdlErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let errors = self.errors().count();
        let warnings = self.diagnostics.len() - errors;
        let plural = |n: usize| if n == 1 { "" } else { "s" };
        write!(
            f,
            "invalid GDL description: {errors} error{}",
            plural(errors)
        )?;
        if warnings > 0 {
            write!(f, ", {warnings} warning{}", plural(warnings))?;
        }
        Ok(())
    }
}

impl std::error::Error for GdlErrors {}

impl Diagnostic for GdlErrors {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("gdl::invalid"))
    }

    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        Some(Box::new(
            self.diagnostics.iter().map(|d| d as &dyn Diagnostic),
        ))
    }
}

/// Collects findings during a stage.
#[derive(Debug, Default)]
pub(crate) struct Sink {
    pub(crate) diags: Vec<GdlDiagnostic>,
}

impl Sink {
    pub(crate) fn push(&mut self, d: GdlDiagnostic) {
        self.diags.push(d);
    }
}
