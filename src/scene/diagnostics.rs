//! Scene-file diagnostics: a scene is written by hand, so every problem found while reading it
//! (RON syntax, a misspelt field or variant, a wrong type, a value out of range, a bad `--set`)
//! is reported the way rustc and ripgrep report theirs — the file, line and column, the line
//! itself with a caret under the culprit, and a `help:` line that says how to fix it.
//!
//! The module knows nothing of the concrete `Scene` type: [`parse_document`] is generic over any
//! serde document, and field paths such as `hall.pillars[3]` are found in the text by a small,
//! error-tolerant RON tokenizer ([`locate_path`]) that tracks nesting, strings and comments.

use std::fmt;
use std::path::Path;

use ron::error::{Error as RonError, Position, SpannedError};
use ron::extensions::Extensions;
use serde::de::DeserializeOwned;

/// The text of one scene file and the name diagnostics show for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    /// A file path, or `<embedded temple.ron>` for a scene compiled into the binary.
    pub name: String,
    /// The whole file as UTF-8.
    pub text: String,
}

impl SourceText {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            text: text.into(),
        }
    }

    /// Reads a scene file; a missing or unreadable file becomes [`SceneError::Io`].
    pub fn read(path: &Path) -> Result<Self, SceneError> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Self::new(path.display().to_string(), text)),
            Err(source) => Err(SceneError::Io {
                path: path.display().to_string(),
                source,
            }),
        }
    }
}

/// A position in a source text, both 1-based; `col` counts characters, as ron does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub line: usize,
    pub col: usize,
}

/// The quoted source line of a diagnostic and where its caret goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    /// The source line, tabs expanded to four spaces, control characters replaced.
    pub line_text: String,
    /// 1-based display column of the first caret in `line_text`.
    pub caret_col: usize,
    /// Number of carets (at least one).
    pub caret_width: usize,
}

/// Where a diagnostic points: the file, the position when known, the quoted line, and a note
/// saying why it points there when that is not obvious.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// The file path, or `<embedded temple.ron>`.
    pub file: String,
    pub location: Option<Location>,
    pub snippet: Option<Snippet>,
    pub note: Option<String>,
}

/// Everything that can go wrong between a scene file (or a `--set` flag) and a scene document.
///
/// `Display` renders a complete multi-line diagnostic starting with `error:`. The position
/// data sits behind a `Box` so that `Result<_, SceneError>` stays small.
#[derive(thiserror::Error, Debug)]
pub enum SceneError {
    /// The text is not well-formed RON.
    Syntax {
        place: Box<Place>,
        message: String,
        help: String,
    },
    /// A field name the document type does not have, usually a typo.
    UnknownField {
        place: Box<Place>,
        field: String,
        /// Dotted path of the block holding the field; empty at the top level.
        section: String,
        suggestion: Option<String>,
        expected: Vec<String>,
    },
    /// An enum variant name the document type does not have.
    UnknownVariant {
        place: Box<Place>,
        variant: String,
        /// Dotted path of the field whose value is the variant.
        field_path: String,
        suggestion: Option<String>,
        expected: Vec<String>,
    },
    /// A value of the wrong type, out of range or inconsistent with another one.
    Invalid {
        place: Box<Place>,
        field_path: String,
        message: String,
        help: String,
    },
    /// A `--set PATH=VALUE` flag that cannot be applied; `flag` is the text after `--set`.
    Override {
        flag: String,
        message: String,
        suggestion: Option<String>,
    },
    /// The scene file cannot be read.
    Io {
        /// The path as given.
        path: String,
        source: std::io::Error,
    },
}

impl SceneError {
    /// Where in the scene file the error points, for the variants that have one.
    pub fn place(&self) -> Option<&Place> {
        match self {
            SceneError::Syntax { place, .. }
            | SceneError::UnknownField { place, .. }
            | SceneError::UnknownVariant { place, .. }
            | SceneError::Invalid { place, .. } => Some(place),
            SceneError::Override { .. } | SceneError::Io { .. } => None,
        }
    }

    /// Line and column the error points at, when known.
    pub fn location(&self) -> Option<Location> {
        self.place().and_then(|p| p.location)
    }
}

/// A finding that does not stop the render but is probably a mistake.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Dotted path of the field the warning is about, e.g. `lights.ambient`.
    pub field_path: String,
    /// What is wrong and, ideally, what to do about it.
    pub message: String,
}

/// The RON options every scene read uses: newtype variants may be written without their extra
/// parentheses (`camera: Follow(lag: 2.5)`) and `Option` fields without `Some(…)`.
pub fn ron_options() -> ron::Options {
    ron::Options::default()
        .with_default_extension(Extensions::UNWRAP_VARIANT_NEWTYPES | Extensions::IMPLICIT_SOME)
}

/// Parses a whole document from RON, turning every ron error into a located [`SceneError`].
pub fn parse_document<T: DeserializeOwned>(src: &SourceText) -> Result<T, SceneError> {
    ron_options()
        .from_str::<T>(&src.text)
        .map_err(|err| error_from_ron(src, &err))
}

/// Finds where the dotted field path (`fog.sheets`, `hall.pillars[3]`, `ball.script[2].at`) is
/// written in `text` and returns the position of its value; `None` when the field is not
/// written (its default applies) or the path is malformed.
///
/// Enum variant names and `Some(…)` are looked through, so `camera.lag` finds the field in
/// `camera: Follow(lag: 2.5)`; naming the variant (`camera.Follow.lag`) works too.
pub fn locate_path(text: &str, path: &str) -> Option<Location> {
    let segs = parse_path(path)?;
    let tree = parse_loose(text);
    let found = walk(&tree.root, &segs).ok()?;
    Some(location_of(text, found.value.start))
}

/// Builds the [`SceneError::Invalid`] a validator reports for `field_path`: it points at the
/// value when it is written, at the closest written enclosing section otherwise.
pub fn invalid(src: &SourceText, field_path: &str, message: String, help: String) -> SceneError {
    SceneError::Invalid {
        place: Box::new(place_for(src, field_path)),
        field_path: field_path.to_string(),
        message,
        help,
    }
}

/// Renders a warning in the same style as errors (`warning: …`, file, line, caret).
pub fn render_warning(src: &SourceText, warning: &Warning) -> String {
    let place = place_for(src, &warning.field_path);
    Report::at("warning", &warning.message, &place, None).to_string()
}

/// The candidate closest to `name` (case-insensitive optimal-string-alignment distance, which
/// counts a swap of two neighbours as one edit), if it is within `max(2, len / 3)` edits.
/// Failing that, a name that differs only by a `_`-separated suffix, as field names carry
/// units (`lag` → `lag_rate`, `radius_m` → `radius`). Ties go to the earlier candidate.
pub fn did_you_mean<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let name_lower = name.to_lowercase();
    let name_chars: Vec<char> = name_lower.chars().collect();
    let limit = (name_chars.len() / 3).max(2);
    let closest = candidates
        .iter()
        .map(|&c| {
            let c_chars: Vec<char> = c.to_lowercase().chars().collect();
            (edit_distance(&name_chars, &c_chars), c)
        })
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c);
    if closest.is_some() || name_chars.len() < 3 {
        return closest;
    }
    let extends = |long: &str, short: &str| {
        long.strip_prefix(short)
            .is_some_and(|rest| rest.starts_with('_'))
    };
    candidates
        .iter()
        .copied()
        .filter(|c| {
            let c_lower = c.to_lowercase();
            extends(&c_lower, &name_lower) || (c_lower.len() >= 3 && extends(&name_lower, &c_lower))
        })
        .min_by_key(|c| c.len().abs_diff(name.len()))
}

/// Optimal string alignment distance (Levenshtein plus adjacent transpositions).
fn edit_distance(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    let mut rows = vec![0usize; (a.len() + 1) * width];
    for (j, cell) in rows.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[i * width] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[(i - 1) * width + j] + 1)
                .min(rows[i * width + j - 1] + 1)
                .min(rows[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[(i - 2) * width + j - 2] + 1);
            }
            rows[i * width + j] = best;
        }
    }
    rows[a.len() * width + b.len()]
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// One diagnostic laid out like rustc's: headline, `-->` file:line:col, quoted line, caret,
/// then `= note:` / `= help:` lines.
struct Report<'a> {
    severity: &'a str,
    headline: &'a str,
    file: &'a str,
    location: Option<Location>,
    snippet: Option<&'a Snippet>,
    notes: Vec<(&'a str, &'a str)>,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.severity, self.headline)?;
        let gutter = self.location.map_or(1, |l| l.line.to_string().len());
        let pad = " ".repeat(gutter);
        match self.location {
            Some(l) => write!(f, "\n{pad}--> {}:{}:{}", self.file, l.line, l.col)?,
            None if !self.file.is_empty() => write!(f, "\n{pad}--> {}", self.file)?,
            None => {}
        }
        if let (Some(l), Some(s)) = (self.location, self.snippet) {
            let code_line = format!("{:>gutter$} | {}", l.line, s.line_text);
            write!(f, "\n{pad} |\n{}", code_line.trim_end())?;
            write!(
                f,
                "\n{pad} | {}{}",
                " ".repeat(s.caret_col.saturating_sub(1)),
                "^".repeat(s.caret_width.max(1))
            )?;
        }
        for (label, text) in &self.notes {
            write!(f, "\n{pad} = {label}: {text}")?;
        }
        Ok(())
    }
}

/// `` `hall.pillars` `` or, for the empty path, "the top level of the scene".
fn describe(path: &str) -> String {
    if path.is_empty() {
        "the top level of the scene".to_string()
    } else {
        format!("`{path}`")
    }
}

fn backticked_list(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl<'a> Report<'a> {
    /// A report for a place in a file: its note (if any), then the help.
    fn at(severity: &'a str, headline: &'a str, place: &'a Place, help: Option<&'a str>) -> Self {
        let mut notes = Vec::new();
        if let Some(note) = &place.note {
            notes.push(("note", note.as_str()));
        }
        if let Some(help) = help {
            notes.push(("help", help));
        }
        Report {
            severity,
            headline,
            file: &place.file,
            location: place.location,
            snippet: place.snippet.as_ref(),
            notes,
        }
    }
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::Syntax {
                place,
                message,
                help,
            } => Report::at("error", message, place, Some(help)).fmt(f),
            SceneError::UnknownField {
                place,
                field,
                section,
                suggestion,
                expected,
            } => {
                let within = if section.is_empty() {
                    "at the top level of the scene".to_string()
                } else {
                    format!("in `{section}`")
                };
                let headline = format!("unknown field `{field}` {within}");
                let (help, choices) = unknown_help(field, "field", suggestion, expected);
                let mut report = Report::at("error", &headline, place, None);
                if let Some(choices) = &choices {
                    report.notes.push(("note", choices));
                }
                report.notes.push(("help", &help));
                report.fmt(f)
            }
            SceneError::UnknownVariant {
                place,
                variant,
                field_path,
                suggestion,
                expected,
            } => {
                let headline = format!("unknown variant `{variant}` for {}", describe(field_path));
                let (help, choices) = unknown_help(variant, "variant", suggestion, expected);
                let mut report = Report::at("error", &headline, place, None);
                if let Some(choices) = &choices {
                    report.notes.push(("note", choices));
                }
                report.notes.push(("help", &help));
                report.fmt(f)
            }
            SceneError::Invalid {
                place,
                message,
                help,
                ..
            } => Report::at("error", message, place, Some(help)).fmt(f),
            SceneError::Override {
                flag,
                message,
                suggestion,
            } => {
                let headline = format!("--set {flag}: {message}");
                let notes = suggestion.iter().map(|s| ("help", s.as_str())).collect();
                Report {
                    severity: "error",
                    headline: &headline,
                    file: "",
                    location: None,
                    snippet: None,
                    notes,
                }
                .fmt(f)
            }
            SceneError::Io { path, source } => {
                let headline = format!("cannot read scene file `{path}`: {source}");
                Report {
                    severity: "error",
                    headline: &headline,
                    file: "",
                    location: None,
                    snippet: None,
                    notes: vec![("help", "check the path and that the file is readable")],
                }
                .fmt(f)
            }
        }
    }
}

/// Help (and, without a suggestion, a note listing the choices) for an unknown name.
fn unknown_help(
    name: &str,
    kind: &str,
    suggestion: &Option<String>,
    expected: &[String],
) -> (String, Option<String>) {
    match suggestion {
        Some(s) => (format!("did you mean `{s}`?"), None),
        None if expected.is_empty() => {
            (format!("remove `{name}`: there are no {kind}s here"), None)
        }
        None => (
            format!("remove `{name}` or replace it with one of the {kind}s listed above"),
            Some(format!("expected one of {}", backticked_list(expected))),
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Positions
// ---------------------------------------------------------------------------------------------

/// Line and column (1-based, in characters) of a byte offset, clamped to the text.
pub(super) fn location_of(text: &str, offset: usize) -> Location {
    let offset = floor_boundary(text, offset);
    let before = &text[..offset];
    let line = 1 + before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = 1 + before[line_start..].chars().count();
    Location { line, col }
}

/// Byte offset of a ron position (1-based line and character column), clamped to the text.
pub(super) fn offset_of(text: &str, pos: Position) -> usize {
    let mut line_start = 0;
    for _ in 1..pos.line.max(1) {
        match text[line_start..].find('\n') {
            Some(i) => line_start += i + 1,
            None => return text.len(),
        }
    }
    let rest = &text[line_start..];
    let within = rest
        .char_indices()
        .nth(pos.col.saturating_sub(1))
        .map_or(rest.len(), |(i, _)| i);
    line_start + within
}

fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The quoted line for `location` with `width_chars` carets, capped at the end of the line.
fn make_snippet(text: &str, location: Location, width_chars: usize) -> Snippet {
    let raw = text
        .split('\n')
        .nth(location.line.saturating_sub(1))
        .unwrap_or("");
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    let mut line_text = String::new();
    let mut caret_col = None;
    let mut caret_end = None;
    let first = location.col.saturating_sub(1);
    let last = first + width_chars.max(1);
    for (i, c) in raw.chars().enumerate() {
        if i == first {
            caret_col = Some(line_text.chars().count() + 1);
        }
        if i == last {
            caret_end = Some(line_text.chars().count() + 1);
        }
        match c {
            '\t' => line_text.push_str("    "),
            c if c.is_control() => line_text.push('?'),
            c => line_text.push(c),
        }
    }
    let line_len = line_text.chars().count();
    let caret_col = caret_col.unwrap_or(line_len + 1);
    let caret_end = caret_end.unwrap_or(line_len + 1).max(caret_col + 1);
    Snippet {
        line_text,
        caret_col,
        caret_width: caret_end - caret_col,
    }
}

/// Number of characters of `text[start..end]` on its first line, at least 1.
fn width_on_line(text: &str, start: usize, end: usize) -> usize {
    let start = floor_boundary(text, start);
    let end = floor_boundary(text, end.max(start));
    text[start..end]
        .split('\n')
        .next()
        .map_or(0, |s| s.trim_end_matches('\r').chars().count())
        .max(1)
}

// ---------------------------------------------------------------------------------------------
// Mapping ron errors
// ---------------------------------------------------------------------------------------------

/// Where a diagnostic about `field_path` points: its value when written, else the closest
/// written enclosing section (with a note saying the field has its default), else nowhere.
fn place_for(src: &SourceText, field_path: &str) -> Place {
    let text = &src.text;
    let tree = parse_loose(text);
    let Some(segs) = parse_path(field_path) else {
        return Place {
            file: src.name.clone(),
            location: None,
            snippet: None,
            note: None,
        };
    };
    if let Ok(found) = walk(&tree.root, &segs) {
        let location = location_of(text, found.value.start);
        let width = width_on_line(text, found.value.start, found.value.end);
        return Place {
            file: src.name.clone(),
            location: Some(location),
            snippet: Some(make_snippet(text, location, width)),
            note: None,
        };
    }
    let note = Some(format!(
        "`{field_path}` is not written in {}, so its default value applies",
        src.name
    ));
    for len in (1..segs.len()).rev() {
        if let Ok(found) = walk(&tree.root, &segs[..len]) {
            let (start, end) = match &found.key {
                Some(key) => (key.start, key.end),
                None => (found.value.start, found.value.end),
            };
            let location = location_of(text, start);
            return Place {
                file: src.name.clone(),
                location: Some(location),
                snippet: Some(make_snippet(
                    text,
                    location,
                    width_on_line(text, start, end),
                )),
                note,
            };
        }
    }
    Place {
        file: src.name.clone(),
        location: None,
        snippet: None,
        note,
    }
}

/// Turns a ron error into a located [`SceneError`], naming the field it happened in.
pub fn error_from_ron(src: &SourceText, err: &SpannedError) -> SceneError {
    let text = &src.text;
    let ron_start = floor_boundary(text, offset_of(text, err.span.start));
    let start = value_start(text, ron_start, &err.code);
    let end = floor_boundary(text, offset_of(text, err.span.end)).max(start);
    let location = location_of(text, start);
    let tree = parse_loose(text);
    let hit = path_at(text, &tree.root, start);
    let here = format_path(&hit.segs);
    let container = if hit.at_entry_start && !hit.segs.is_empty() {
        format_path(&hit.segs[..hit.segs.len() - 1])
    } else {
        here.clone()
    };
    let token = token_at(text, start);
    let place = |width: usize, note: Option<String>| {
        Box::new(Place {
            file: src.name.clone(),
            location: Some(location),
            snippet: Some(make_snippet(text, location, width)),
            note,
        })
    };
    if tree.root.start == tree.root.end {
        return SceneError::Syntax {
            place: place(1, None),
            message: "the scene file is empty".to_string(),
            help: "write the scene as one `( … )` block of `name: value` entries".to_string(),
        };
    }
    let span_width = width_on_line(text, start, end);
    let token_width = width_on_line(text, start, start + token.len());

    match &err.code {
        RonError::NoSuchStructField {
            expected, found, ..
        } => SceneError::UnknownField {
            place: place(found.chars().count(), None),
            field: found.clone(),
            section: container,
            suggestion: did_you_mean(found, expected).map(str::to_string),
            expected: expected.iter().map(|s| s.to_string()).collect(),
        },
        RonError::NoSuchEnumVariant {
            expected, found, ..
        } => SceneError::UnknownVariant {
            place: place(found.chars().count(), None),
            variant: found.clone(),
            field_path: here,
            suggestion: did_you_mean(found, expected).map(str::to_string),
            expected: expected.iter().map(|s| s.to_string()).collect(),
        },
        RonError::DuplicateStructField { field, .. } => SceneError::Invalid {
            place: place(field.chars().count(), None),
            field_path: here,
            message: format!(
                "field `{field}` is written twice in {}",
                describe(&container)
            ),
            help: format!("keep only one `{field}` entry"),
        },
        RonError::MissingStructField { field, .. } => SceneError::Invalid {
            place: place(span_width, None),
            field_path: join_path(&container, field),
            message: format!("missing field `{field}` in {}", describe(&container)),
            help: format!("add `{field}: …` to {}", describe(&container)),
        },
        code => {
            if let Some(value_problem) = describe_value_problem(code, &token) {
                return SceneError::Invalid {
                    place: place(token_width, None),
                    message: format!("{}: {}", describe(&here), value_problem.message),
                    help: value_problem.help,
                    field_path: here,
                };
            }
            let (message, help, note) =
                describe_syntax_problem(code, &token, &container, text, &tree);
            SceneError::Syntax {
                place: place(span_width, note),
                message,
                help,
            }
        }
    }
}

/// What is wrong with a value and how to write it instead.
pub(super) struct ValueProblem {
    pub message: String,
    pub help: String,
}

/// Describes a ron error that means "this value has the wrong type or size" in words that do
/// not depend on the surrounding text; `token` is the offending value as written. `None` for
/// errors that are about syntax instead.
pub(super) fn describe_value_problem(code: &RonError, token: &str) -> Option<ValueProblem> {
    let problem = |message: String, help: &str| {
        Some(ValueProblem {
            message,
            help: help.to_string(),
        })
    };
    let shown = if token.is_empty() {
        "the end of the text".to_string()
    } else {
        format!("`{}`", shorten(token))
    };
    match code {
        RonError::InvalidValueForType { expected, found } => Some(ValueProblem {
            message: format!("expected {}, found {found}", humanize_expected(expected)),
            help: format!("write {} here", humanize_expected(expected)),
        }),
        RonError::ExpectedDifferentLength { expected, found } => Some(ValueProblem {
            message: format!(
                "expected {expected}, found {found} element{}",
                if *found == 1 { "" } else { "s" }
            ),
            help: format!("write {expected} here"),
        }),
        RonError::ExpectedInteger | RonError::InvalidIntegerDigit { .. } => problem(
            format!("expected a whole number, found {shown}"),
            "write a whole number such as `32`",
        ),
        RonError::IntegerOutOfBounds => problem(
            format!("{shown} is out of range for this whole-number field"),
            "write a smaller whole number; counts and sizes cannot be negative",
        ),
        RonError::ExpectedFloat => problem(
            format!("expected a number, found {shown}"),
            "write a number such as `1.5`",
        ),
        RonError::ExpectedBoolean => problem(
            format!("expected `true` or `false`, found {shown}"),
            "write `true` or `false`",
        ),
        RonError::ExpectedString => problem(
            format!("expected text in double quotes, found {shown}"),
            "put the text in double quotes, e.g. `\"clip\"`",
        ),
        RonError::ExpectedChar => problem(
            format!("expected a character in single quotes, found {shown}"),
            "write a character such as `'a'`",
        ),
        RonError::ExpectedArray => problem(
            format!("expected a list in square brackets, found {shown}"),
            "write a list such as `[(1.0, 2.0), (3.0, 4.0)]`",
        ),
        RonError::ExpectedStructLike | RonError::ExpectedNamedStructLike(_) => problem(
            format!("expected a `( … )` block, found {shown}"),
            "write the value in parentheses, e.g. `(0.0, 1.0, 2.0)` or `(name: value)`; \
             enum variants that carry values need them too, e.g. `Fixed( … )`",
        ),
        RonError::ExpectedMap => problem(
            format!("expected a `{{ … }}` map, found {shown}"),
            "write a map such as `{\"key\": value}`",
        ),
        RonError::ExpectedUnit => problem(format!("expected `()`, found {shown}"), "write `()`"),
        RonError::ExpectedOption => problem(
            format!("expected an optional value, found {shown}"),
            "write the value itself, `Some(value)` or `None`",
        ),
        RonError::ExpectedComma if looks_decimal(token) => problem(
            format!("expected a whole number, found {shown}"),
            "write a whole number such as `32`",
        ),
        RonError::Message(message) => Some(ValueProblem {
            message: message.clone(),
            help: "check this value against the documentation of the field".to_string(),
        }),
        _ => None,
    }
}

/// Message, help and an optional note for an error in the RON syntax itself.
fn describe_syntax_problem(
    code: &RonError,
    token: &str,
    container: &str,
    text: &str,
    tree: &LooseTree,
) -> (String, String, Option<String>) {
    let unclosed_note = || {
        tree.unclosed.map(|offset| {
            let at = location_of(text, offset);
            let bracket = text
                .get(offset..)
                .and_then(|s| s.chars().next())
                .unwrap_or('(');
            format!(
                "the `{bracket}` opened at line {}, column {} is never closed",
                at.line, at.col
            )
        })
    };
    let in_container = describe(container);
    let at_end = text.trim_end().is_empty();
    match code {
        RonError::Eof => (
            "unexpected end of file".to_string(),
            "close every `(`, `[` and `{`, and finish the last value".to_string(),
            unclosed_note(),
        ),
        RonError::ExpectedComma if tree.unclosed.is_some() => (
            format!("expected `,` or a closing bracket in {in_container}"),
            "close every `(`, `[` and `{`, and separate entries with `,`".to_string(),
            unclosed_note(),
        ),
        RonError::ExpectedComma => (
            format!("expected `,` between entries in {in_container}"),
            "add a `,` before this, or remove the extra text".to_string(),
            None,
        ),
        RonError::ExpectedArrayEnd => (
            format!("expected `]` in {in_container}"),
            "close the list with `]` and separate its elements with `,`".to_string(),
            None,
        ),
        RonError::ExpectedStructLikeEnd | RonError::ExpectedOptionEnd => (
            format!("expected `)` in {in_container}"),
            "close the parentheses here; a tuple needs exactly as many values as its field \
             takes, and entries are separated by `,`"
                .to_string(),
            None,
        ),
        RonError::ExpectedMapEnd => (
            format!("expected `}}` in {in_container}"),
            "close the map with `}` and separate its entries with `,`".to_string(),
            None,
        ),
        RonError::ExpectedMapColon => (
            format!("expected `:` in {in_container}"),
            if token == "=" {
                "write entries as `name: value`, with `:` instead of `=`".to_string()
            } else {
                "write entries as `name: value`".to_string()
            },
            None,
        ),
        RonError::ExpectedStringEnd => (
            "text in double quotes is never closed".to_string(),
            "add the closing `\"`".to_string(),
            None,
        ),
        RonError::UnclosedBlockComment => (
            "block comment is never closed".to_string(),
            "close the comment with `*/`".to_string(),
            None,
        ),
        RonError::TrailingCharacters => (
            "unexpected text after the end of the scene".to_string(),
            "remove it: a scene file is a single `( … )` block (look for an extra `)`)".to_string(),
            None,
        ),
        RonError::UnexpectedChar(c) => {
            let help = match c {
                '=' => "write entries as `name: value`, with a colon".to_string(),
                ';' => "separate entries with `,`".to_string(),
                _ => format!("remove the `{c}`"),
            };
            (
                format!("unexpected character `{c}` in {in_container}"),
                help,
                None,
            )
        }
        RonError::ExpectedIdentifier => (
            format!("expected a field name in {in_container}"),
            "write entries as `name: value`; an enum variant carrying fields is written \
             `Variant(name: value)` with one pair of parentheses"
                .to_string(),
            None,
        ),
        RonError::ExpectedDifferentStructName { expected, found } => (
            format!("expected `{expected}`, found `{found}`"),
            format!("remove the name `{found}` or write `{expected}`"),
            None,
        ),
        RonError::ExceededRecursionLimit => (
            "the scene nests too deeply".to_string(),
            "check that brackets are balanced".to_string(),
            None,
        ),
        other => {
            let message = lower_first(&other.to_string());
            let help = if at_end {
                "the file is empty: write the scene as one `( … )` block".to_string()
            } else {
                "check the RON syntax here".to_string()
            };
            (format!("{message} in {in_container}"), help, None)
        }
    }
}

/// "u32" → "a whole number (u32)", and the like; serde's own phrases pass through.
fn humanize_expected(expected: &str) -> String {
    match expected {
        "u8" | "u16" | "u32" | "u64" | "u128" | "usize" => {
            format!("a non-negative whole number ({expected})")
        }
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" => format!("a whole number ({expected})"),
        "f32" | "f64" => "a number".to_string(),
        "a boolean" | "bool" => "`true` or `false`".to_string(),
        other => other.to_string(),
    }
}

pub(super) fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// At most 40 characters of a token, on one line.
fn shorten(token: &str) -> String {
    let line = token.lines().next().unwrap_or("");
    if line.chars().count() > 40 {
        let head: String = line.chars().take(39).collect();
        format!("{head}…")
    } else {
        line.to_string()
    }
}

/// A number with a decimal point or exponent, such as `1.5` or `-2e3`.
fn looks_decimal(token: &str) -> bool {
    let digits = token.trim_start_matches(['+', '-']);
    digits.starts_with(|c: char| c.is_ascii_digit()) && digits.contains(['.', 'e', 'E'])
}

/// Where the value an error is about begins: ron's span can start on the whitespace before
/// a value, and for `1.5` in an integer field it points at the `.`; move to the value's start.
pub(super) fn value_start(text: &str, offset: usize, code: &RonError) -> usize {
    let bytes = text.as_bytes();
    let mut scanner = Scanner::new(text);
    scanner.pos = floor_boundary(text, offset);
    scanner.skip_trivia();
    let mut start = scanner.pos;
    let after_digit = start > 0 && bytes.get(start - 1).is_some_and(u8::is_ascii_digit);
    let after_sign = start > 0 && matches!(bytes.get(start - 1), Some(b'-' | b'+'));
    if matches!(code, RonError::IntegerOutOfBounds) && after_sign {
        // `-3` in an unsigned field: ron points past the sign.
        return start - 1;
    }
    if matches!(code, RonError::ExpectedComma) && bytes.get(start) == Some(&b'.') && after_digit {
        while start > 0
            && bytes
                .get(start - 1)
                .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'_'))
        {
            start -= 1;
        }
    }
    start
}

/// The value written at `offset` (an atom, a string or a whole bracketed group).
pub(super) fn token_at(text: &str, offset: usize) -> String {
    let mut scanner = Scanner::new(text);
    scanner.pos = floor_boundary(text, offset);
    let node = scanner.parse_value();
    let token = text.get(node.start..node.end).unwrap_or("");
    if token.is_empty() {
        // A closing bracket or other delimiter: show that one character.
        text.get(node.start..)
            .and_then(|rest| rest.chars().next())
            .map_or_else(String::new, String::from)
    } else {
        token.to_string()
    }
}

fn join_path(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_string()
    } else {
        format!("{prefix}.{field}")
    }
}

// ---------------------------------------------------------------------------------------------
// Field paths
// ---------------------------------------------------------------------------------------------

/// One step of a field path: `name` or `[index]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Seg {
    Field(String),
    Index(usize),
}

/// Splits `hall.pillars[3].x` into segments; `None` when malformed.
pub(super) fn parse_path(path: &str) -> Option<Vec<Seg>> {
    let mut segs = Vec::new();
    let path = path.trim();
    if path.is_empty() {
        return Some(segs);
    }
    for (part_index, part) in path.split('.').enumerate() {
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        let name = name.trim();
        if name.is_empty() {
            // Only `[0]` at the very start may come without a name.
            if part_index > 0 || rest.is_empty() {
                return None;
            }
        } else if name.contains(']') || name.contains(char::is_whitespace) {
            return None;
        } else {
            segs.push(Seg::Field(name.to_string()));
        }
        while !rest.is_empty() {
            let inner = rest.strip_prefix('[')?;
            let close = inner.find(']')?;
            let index = inner[..close].trim().parse::<usize>().ok()?;
            segs.push(Seg::Index(index));
            rest = &inner[close + 1..];
        }
    }
    Some(segs)
}

pub(super) fn format_path(segs: &[Seg]) -> String {
    let mut out = String::new();
    for seg in segs {
        match seg {
            Seg::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            Seg::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

/// A value found by [`walk`], with the key it is written under (absent for list elements).
pub(super) struct Found<'n> {
    pub value: &'n Node,
    pub key: Option<&'n Key>,
}

/// Why [`walk`] stopped; `depth` is the index of the segment that failed.
pub(super) enum WalkError<'n> {
    /// The block `parent` has no field of that name.
    NoField { depth: usize, parent: &'n Node },
    /// A field was asked of something that is not a `( … )` or `{ … }` block.
    NotStruct { depth: usize },
    /// The list has `len` elements.
    NoIndex { depth: usize, len: usize },
    /// An index was asked of something that is not a list or tuple.
    NotList { depth: usize },
}

/// Follows `segs` from `root`, looking through variant names and `Some(…)` wrappers.
pub(super) fn walk<'n>(root: &'n Node, segs: &[Seg]) -> Result<Found<'n>, WalkError<'n>> {
    let mut found = Found {
        value: root,
        key: None,
    };
    for (depth, seg) in segs.iter().enumerate() {
        let node = found.value.unwrapped();
        match seg {
            Seg::Field(name) => {
                if let Some(entry) = node.entries.iter().find(|e| e.key_name() == Some(name)) {
                    found = Found {
                        value: &entry.value,
                        key: entry.key.as_ref(),
                    };
                } else if found.value.names_variant(name) {
                    // `camera.Follow.lag`: the variant name selects nothing new.
                } else if node.is_struct_like() {
                    return Err(WalkError::NoField {
                        depth,
                        parent: node,
                    });
                } else {
                    return Err(WalkError::NotStruct { depth });
                }
            }
            Seg::Index(index) => {
                if !node.is_list_like() {
                    return Err(WalkError::NotList { depth });
                }
                match node.entries.get(*index) {
                    Some(entry) => {
                        found = Found {
                            value: &entry.value,
                            key: None,
                        }
                    }
                    None => {
                        return Err(WalkError::NoIndex {
                            depth,
                            len: node.entries.len(),
                        });
                    }
                }
            }
        }
    }
    Ok(found)
}

/// The path of the innermost entry at an offset.
struct PathHit {
    segs: Vec<Seg>,
    /// The offset is at the start of the last entry (its key, or its value when it has none).
    at_entry_start: bool,
}

fn path_at(text: &str, root: &Node, offset: usize) -> PathHit {
    let mut segs = Vec::new();
    let mut node = root;
    loop {
        let inner = node.unwrapped();
        let mut next = None;
        for (index, entry) in inner.entries.iter().enumerate() {
            let start = entry.key.as_ref().map_or(entry.value.start, |k| k.start);
            let end = entry.value.end.max(entry.key.as_ref().map_or(0, |k| k.end));
            // A bare name also owns the position right after it: ron reports a missing `( … )`
            // after the variant name in `camera: Fixed)` there.
            let bare_name =
                entry.value.open.is_none() && text_starts_with_ident(text, entry.value.start);
            let end = if bare_name { end + 1 } else { end };
            if offset < start || offset >= end.max(start + 1) {
                continue;
            }
            let seg = match entry.key_name() {
                Some(name) => Seg::Field(name.to_string()),
                None => Seg::Index(index),
            };
            segs.push(seg);
            let in_key = entry.key.as_ref().is_some_and(|k| offset < k.end);
            if in_key || offset == start {
                return PathHit {
                    segs,
                    at_entry_start: true,
                };
            }
            next = Some(&entry.value);
            break;
        }
        match next {
            Some(value) => node = value,
            None => {
                return PathHit {
                    segs,
                    at_entry_start: false,
                };
            }
        }
    }
}

fn text_starts_with_ident(text: &str, offset: usize) -> bool {
    text.as_bytes()
        .get(offset)
        .copied()
        .is_some_and(is_ident_start)
}

// ---------------------------------------------------------------------------------------------
// Loose RON tree
// ---------------------------------------------------------------------------------------------

/// Deeper nesting than this is not descended into (ron itself stops at 128).
const MAX_DEPTH: usize = 256;

/// A value in the loose tree: an atom (number, string, identifier…) or a bracketed group,
/// possibly named (`Follow( … )`, `Some( … )`). Offsets are bytes into the text.
#[derive(Debug)]
pub(super) struct Node {
    pub start: usize,
    pub end: usize,
    pub name: Option<String>,
    /// The opening bracket and its offset, for groups.
    pub open: Option<(u8, usize)>,
    pub entries: Vec<Entry>,
}

#[derive(Debug)]
pub(super) struct Entry {
    pub key: Option<Key>,
    pub value: Node,
}

#[derive(Debug)]
pub(super) struct Key {
    pub name: String,
    pub start: usize,
    pub end: usize,
}

impl Entry {
    fn key_name(&self) -> Option<&str> {
        self.key.as_ref().map(|k| k.name.as_str())
    }
}

impl Node {
    fn atom(start: usize, end: usize) -> Self {
        Self {
            start,
            end,
            name: None,
            open: None,
            entries: Vec::new(),
        }
    }

    /// Looks through `Name(( … ))`, `Some([ … ])` and the like: a named group whose only
    /// content is another group.
    pub(super) fn unwrapped(&self) -> &Node {
        let mut node = self;
        while node.name.is_some()
            && node.open.is_some_and(|(b, _)| b == b'(')
            && node.entries.len() == 1
            && node.entries[0].key.is_none()
            && node.entries[0].value.open.is_some()
        {
            node = &node.entries[0].value;
        }
        node
    }

    fn names_variant(&self, name: &str) -> bool {
        self.name.as_deref() == Some(name)
    }

    /// A `( … )` or `{ … }` block (possibly empty) whose entries are keyed.
    pub(super) fn is_struct_like(&self) -> bool {
        matches!(self.open, Some((b'(' | b'{', _))) && self.entries.iter().all(|e| e.key.is_some())
    }

    fn is_list_like(&self) -> bool {
        matches!(self.open, Some((b'[' | b'(', _))) && self.entries.iter().all(|e| e.key.is_none())
    }

    /// The keys of a block, in written order.
    pub(super) fn keys(&self) -> Vec<&str> {
        self.entries.iter().filter_map(Entry::key_name).collect()
    }
}

pub(super) struct LooseTree {
    pub root: Node,
    /// Offset of the innermost bracket still open at the end of the text.
    pub unclosed: Option<usize>,
}

/// Parses RON text into a loose tree without ever failing: garbage gives a partial tree.
pub(super) fn parse_loose(text: &str) -> LooseTree {
    let mut scanner = Scanner::new(text);
    scanner.skip_attributes();
    let root = scanner.parse_value();
    LooseTree {
        root,
        unclosed: scanner.unclosed,
    }
}

struct Scanner<'t> {
    text: &'t str,
    bytes: &'t [u8],
    pos: usize,
    depth: usize,
    unclosed: Option<usize>,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

fn is_delimiter(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b',' | b'(' | b')' | b'[' | b']' | b'{' | b'}' | b':' | b'"' | b'\'' | b'/'
        )
}

impl<'t> Scanner<'t> {
    fn new(text: &'t str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            unclosed: None,
        }
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.bytes.get(self.pos + ahead).copied()
    }

    fn peek(&self) -> Option<u8> {
        self.peek_at(0)
    }

    fn skip_trivia(&mut self) {
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some(b), _) if b.is_ascii_whitespace() => self.pos += 1,
                (Some(b'/'), Some(b'/')) => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                (Some(b'/'), Some(b'*')) => {
                    self.pos += 2;
                    let mut level = 1;
                    while level > 0 {
                        match (self.peek(), self.peek_at(1)) {
                            (None, _) => break,
                            (Some(b'/'), Some(b'*')) => {
                                level += 1;
                                self.pos += 2;
                            }
                            (Some(b'*'), Some(b'/')) => {
                                level -= 1;
                                self.pos += 2;
                            }
                            _ => self.pos += 1,
                        }
                    }
                }
                _ => return,
            }
        }
    }

    /// Skips `#![enable( … )]` attributes at the top of a file.
    fn skip_attributes(&mut self) {
        loop {
            self.skip_trivia();
            if self.peek() == Some(b'#') && self.peek_at(1) == Some(b'!') {
                self.pos += 2;
                self.skip_trivia();
                if self.peek() == Some(b'[') {
                    let _attribute = self.parse_value();
                }
            } else {
                return;
            }
        }
    }

    fn ident_end(&self, from: usize) -> usize {
        let mut end = from;
        while self.bytes.get(end).copied().is_some_and(is_ident_char) {
            end += 1;
        }
        end
    }

    /// Whether a raw string (`r"…"`, `r#"…"#`) starts `ahead` bytes from here.
    fn raw_string_ahead(&self, ahead: usize) -> bool {
        if self.peek_at(ahead) != Some(b'r') {
            return false;
        }
        let mut i = ahead + 1;
        while self.peek_at(i) == Some(b'#') {
            i += 1;
        }
        self.peek_at(i) == Some(b'"')
    }

    fn skip_string(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => self.pos = (self.pos + 2).min(self.bytes.len()),
                b'"' => {
                    self.pos += 1;
                    return;
                }
                _ => self.pos += 1,
            }
        }
    }

    fn skip_raw_string(&mut self) {
        self.pos += 1; // r
        let mut hashes = 0;
        while self.peek() == Some(b'#') {
            hashes += 1;
            self.pos += 1;
        }
        self.pos += 1; // "
        while let Some(b) = self.peek() {
            self.pos += 1;
            if b == b'"' {
                let mut closing = 0;
                while closing < hashes && self.peek() == Some(b'#') {
                    closing += 1;
                    self.pos += 1;
                }
                if closing == hashes {
                    return;
                }
            }
        }
    }

    fn skip_char_literal(&mut self) {
        self.pos += 1;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => self.pos = (self.pos + 2).min(self.bytes.len()),
                b'\'' => {
                    self.pos += 1;
                    return;
                }
                b'\n' => return,
                _ => self.pos += 1,
            }
        }
    }

    fn parse_value(&mut self) -> Node {
        self.skip_trivia();
        let start = self.pos;
        let Some(b) = self.peek() else {
            return Node::atom(start, start);
        };
        match b {
            b'(' | b'[' | b'{' => self.parse_group(start, None),
            b'"' => {
                self.skip_string();
                Node::atom(start, self.pos)
            }
            b'\'' => {
                self.skip_char_literal();
                Node::atom(start, self.pos)
            }
            b'r' if self.raw_string_ahead(0) => {
                self.skip_raw_string();
                Node::atom(start, self.pos)
            }
            b'b' if self.peek_at(1) == Some(b'"') => {
                self.pos += 1;
                self.skip_string();
                Node::atom(start, self.pos)
            }
            b'b' if self.peek_at(1) == Some(b'\'') => {
                self.pos += 1;
                self.skip_char_literal();
                Node::atom(start, self.pos)
            }
            b'b' if self.raw_string_ahead(1) => {
                self.pos += 1;
                self.skip_raw_string();
                Node::atom(start, self.pos)
            }
            _ if is_ident_start(b) => {
                let name_start = if b == b'r'
                    && self.peek_at(1) == Some(b'#')
                    && self.peek_at(2).is_some_and(is_ident_start)
                {
                    start + 2
                } else {
                    start
                };
                let end = self.ident_end(name_start);
                self.pos = end;
                self.skip_trivia();
                if self.peek() == Some(b'(') {
                    let name = self.text.get(name_start..end).map(str::to_string);
                    return self.parse_group(start, name);
                }
                self.pos = end;
                Node::atom(start, end)
            }
            _ => {
                while self.peek().is_some_and(|b| !is_delimiter(b)) {
                    self.pos += 1;
                }
                Node::atom(start, self.pos)
            }
        }
    }

    /// Parses `( … )`, `[ … ]` or `{ … }` at `self.pos`; `start` includes a leading name.
    fn parse_group(&mut self, start: usize, name: Option<String>) -> Node {
        let open_at = self.pos;
        let opener = self.peek().unwrap_or(b'(');
        let closer = match opener {
            b'[' => b']',
            b'{' => b'}',
            _ => b')',
        };
        self.pos += 1;
        if self.depth >= MAX_DEPTH {
            return Node::atom(start, self.pos);
        }
        self.depth += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_trivia();
            let Some(b) = self.peek() else {
                self.unclosed.get_or_insert(open_at);
                break;
            };
            if b == closer {
                self.pos += 1;
                break;
            }
            if matches!(b, b')' | b']' | b'}') {
                // A mismatched closer: leave it to the enclosing group.
                break;
            }
            if b == b',' {
                self.pos += 1;
                continue;
            }
            let before = self.pos;
            let first = self.parse_value();
            self.skip_trivia();
            let entry = if self.peek() == Some(b':') && self.peek_at(1) != Some(b':') {
                self.pos += 1;
                let raw = self.text.get(first.start..first.end).unwrap_or("");
                let name = raw
                    .strip_prefix("r#")
                    .unwrap_or(raw)
                    .trim_matches('"')
                    .to_string();
                let key = Key {
                    name,
                    start: first.start,
                    end: first.end,
                };
                Entry {
                    key: Some(key),
                    value: self.parse_value(),
                }
            } else {
                Entry {
                    key: None,
                    value: first,
                }
            };
            if self.pos == before {
                // Nothing consumed (a stray `:` or `=`): step over one character.
                let step = self.text[self.pos..]
                    .chars()
                    .next()
                    .map_or(1, char::len_utf8);
                self.pos += step;
                continue;
            }
            entries.push(entry);
        }
        self.depth -= 1;
        Node {
            start,
            end: self.pos,
            name,
            open: Some((opener, open_at)),
            entries,
        }
    }
}

#[cfg(test)]
pub(super) mod test_scene {
    //! A small document shaped like a scene, shared by the diagnostics and overrides tests.
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(default, deny_unknown_fields)]
    pub struct Hall {
        pub size_world: f32,
        pub pillars: Vec<(f32, f32)>,
        pub name: String,
    }

    impl Default for Hall {
        fn default() -> Self {
            Self {
                size_world: 24.0,
                pillars: vec![(-3.5, -3.5), (3.5, -3.5), (-3.5, 3.5), (3.5, 3.5)],
                name: "temple".to_string(),
            }
        }
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(default, deny_unknown_fields)]
    pub struct Fog {
        pub sheets: u32,
        pub color: (f32, f32, f32),
        pub density: f32,
    }

    impl Default for Fog {
        fn default() -> Self {
            Self {
                sheets: 48,
                color: (0.8, 0.8, 0.9),
                density: 0.5,
            }
        }
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(default, deny_unknown_fields)]
    pub struct FollowCamera {
        pub lag: f32,
        pub look_height: f32,
    }

    impl Default for FollowCamera {
        fn default() -> Self {
            Self {
                lag: 2.5,
                look_height: 1.0,
            }
        }
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(default, deny_unknown_fields)]
    pub struct FixedCamera {
        pub position: (f32, f32, f32),
        pub target: (f32, f32, f32),
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    pub enum Camera {
        Follow(FollowCamera),
        Fixed(FixedCamera),
        Orbit,
    }

    impl Default for Camera {
        fn default() -> Self {
            Camera::Follow(FollowCamera::default())
        }
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
    #[serde(deny_unknown_fields)]
    pub enum Step {
        Steer { at: f32, toward: (f32, f32) },
        Jump { at: f32 },
        Stop,
    }

    #[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
    #[serde(default, deny_unknown_fields)]
    pub struct Scene {
        pub hall: Hall,
        pub fog: Fog,
        pub camera: Camera,
        pub script: Vec<Step>,
        pub title: Option<String>,
    }
}

#[cfg(test)]
mod tests {
    use super::test_scene::*;
    use super::*;

    fn src(text: &str) -> SourceText {
        SourceText::new("scenes/bad.ron", text)
    }

    fn parse(text: &str) -> Result<Scene, SceneError> {
        parse_document::<Scene>(&src(text))
    }

    /// Line and column of a located error.
    fn at(err: &SceneError) -> (usize, usize) {
        let location = err.location().expect("the error has a position");
        (location.line, location.col)
    }

    const GOOD: &str = r#"#![enable(implicit_some)]
// A scene for the tests.
(
    hall: (
        size_world: 20.0,
        /* pillars: [(9, 9)], a commented-out key */
        pillars: [(-3.5, -3.5), (3.5, -3.5), (0.0, 4.0)],
        name: "hall: [with (brackets) and // no comment]",
    ),
    fog: (sheets: 32, color: (0.5, 0.6, 0.7)),
    camera: Follow(lag: 1.5, look_height: 2.0),
    script: [
        Steer(at: 0.0, toward: (1.0, 2.0)),
        Jump(at: 2.5), // a jump
        Stop,
    ],
    title: Some("fog"),
)
"#;

    #[test]
    fn good_document_parses_with_the_scene_extensions() {
        let scene = parse(GOOD).expect("the test scene parses");
        assert_eq!(scene.fog.sheets, 32);
        assert_eq!(scene.hall.pillars.len(), 3);
        assert_eq!(
            scene.camera,
            Camera::Follow(FollowCamera {
                lag: 1.5,
                look_height: 2.0
            })
        );
        assert_eq!(scene.script[1], Step::Jump { at: 2.5 });
        assert_eq!(scene.title.as_deref(), Some("fog"));
        // IMPLICIT_SOME without the attribute.
        let scene = parse("(title: \"x\")").expect("implicit some");
        assert_eq!(scene.title.as_deref(), Some("x"));
    }

    #[test]
    fn unknown_field_points_at_the_name_and_suggests_the_closest() {
        let text = "(\n    fog: (sheets: 3),\n    hall: (\n        size_world: 2.0,\n        pilars: [(-3.5, -3.5)],\n    ),\n)\n";
        let err = parse(text).expect_err("pilars is not a field");
        assert_eq!(at(&err), (5, 9));
        match &err {
            SceneError::UnknownField {
                field,
                section,
                suggestion,
                expected,
                ..
            } => {
                assert_eq!(field, "pilars");
                assert_eq!(section, "hall");
                assert_eq!(suggestion.as_deref(), Some("pillars"));
                assert_eq!(expected, &["size_world", "pillars", "name"]);
            }
            other => panic!("expected UnknownField, got {other:?}"),
        }
        let expected = "error: unknown field `pilars` in `hall`\n \
                        --> scenes/bad.ron:5:9\n  |\n\
                        5 |         pilars: [(-3.5, -3.5)],\n  \
                        |         ^^^^^^\n  \
                        = help: did you mean `pillars`?";
        assert_eq!(err.to_string(), expected);
    }

    #[test]
    fn gutter_widens_with_the_line_number() {
        let mut text = String::from("(\n");
        for _ in 0..10 {
            text.push_str("    // padding\n");
        }
        text.push_str("    hall: (\n        pilars: [],\n    ),\n)\n");
        let err = parse(&text).expect_err("pilars is not a field");
        let expected = "error: unknown field `pilars` in `hall`\n  \
                        --> scenes/bad.ron:13:9\n   |\n\
                        13 |         pilars: [],\n   \
                        |         ^^^^^^\n   \
                        = help: did you mean `pillars`?";
        assert_eq!(err.to_string(), expected);
    }

    #[test]
    fn unknown_top_level_field_without_a_close_name_lists_the_fields() {
        let err = parse("(\n  weather: 3,\n)").expect_err("no weather field");
        let text = err.to_string();
        assert!(text.starts_with("error: unknown field `weather` at the top level of the scene"));
        assert!(text.contains("--> scenes/bad.ron:2:3"), "{text}");
        assert!(
            text.contains("= note: expected one of `hall`, `fog`, `camera`, `script`, `title`"),
            "{text}"
        );
        assert!(text.contains("= help: remove `weather`"), "{text}");
    }

    #[test]
    fn unknown_field_inside_a_variant_in_a_list_names_the_element() {
        let err = parse("(script: [Stop, Jump(att: 1.0)])").expect_err("att is a typo");
        assert_eq!(at(&err), (1, 22));
        match err {
            SceneError::UnknownField {
                section,
                suggestion,
                ..
            } => {
                assert_eq!(section, "script[1]");
                assert_eq!(suggestion.as_deref(), Some("at"));
            }
            other => panic!("expected UnknownField, got {other:?}"),
        }
    }

    #[test]
    fn unknown_variant_suggests_the_closest() {
        let text = "(\n  camera: Folow(lag: 1.0),\n)";
        let err = parse(text).expect_err("Folow is a typo");
        assert_eq!(at(&err), (2, 11));
        match &err {
            SceneError::UnknownVariant {
                variant,
                field_path,
                suggestion,
                expected,
                ..
            } => {
                assert_eq!(variant, "Folow");
                assert_eq!(field_path, "camera");
                assert_eq!(suggestion.as_deref(), Some("Follow"));
                assert_eq!(expected, &["Follow", "Fixed", "Orbit"]);
            }
            other => panic!("expected UnknownVariant, got {other:?}"),
        }
        let shown = err.to_string();
        assert!(shown.starts_with("error: unknown variant `Folow` for `camera`"));
        assert!(shown.contains("\n  |           ^^^^^\n"), "{shown}");
        assert!(shown.ends_with("= help: did you mean `Follow`?"), "{shown}");
    }

    #[test]
    fn syntax_error_reports_line_col_and_caret() {
        let text = "(\n    hall: (\n        size_world: 2.0\n        pillars: [],\n    ),\n)";
        let err = parse(text).expect_err("missing comma");
        assert_eq!(at(&err), (4, 9));
        match &err {
            SceneError::Syntax { message, .. } => {
                assert_eq!(message, "expected `,` between entries in `hall`");
            }
            other => panic!("expected Syntax, got {other:?}"),
        }
        let shown = err.to_string();
        assert!(shown.contains(" --> scenes/bad.ron:4:9\n"), "{shown}");
        assert!(
            shown.contains("4 |         pillars: [],\n  |         ^\n"),
            "{shown}"
        );
        assert!(shown.contains("= help: add a `,`"), "{shown}");
    }

    #[test]
    fn unclosed_bracket_at_end_of_file_names_the_opener() {
        let text = "(\n    hall: (\n        size_world: 2.0,\n";
        let err = parse(text).expect_err("unclosed");
        let shown = err.to_string();
        assert!(
            shown.contains("the `(` opened at line 2, column 11 is never closed"),
            "{shown}"
        );
    }

    #[test]
    fn decimal_in_an_integer_field_is_a_value_error_naming_the_field() {
        let err = parse("(\n  fog: (sheets: 1.5),\n)").expect_err("sheets is an integer");
        assert!(
            err.to_string()
                .contains("2 |   fog: (sheets: 1.5),\n  |                 ^^^\n"),
            "{err}"
        );
        assert_eq!(at(&err), (2, 17));
        match &err {
            SceneError::Invalid {
                field_path,
                message,
                ..
            } => {
                assert_eq!(field_path, "fog.sheets");
                assert_eq!(
                    message,
                    "`fog.sheets`: expected a whole number, found `1.5`"
                );
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn wrong_types_name_the_field_and_the_fix() {
        let err = parse("(hall: (name: clip))").expect_err("name needs quotes");
        match &err {
            SceneError::Invalid {
                field_path, help, ..
            } => {
                assert_eq!(field_path, "hall.name");
                assert!(help.contains("double quotes"), "{help}");
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
        let err = parse("(fog: (color: (1.0, 2.0)))").expect_err("color has three values");
        match &err {
            SceneError::Invalid {
                field_path,
                message,
                ..
            } => {
                assert_eq!(field_path, "fog.color");
                assert!(message.contains("a tuple of size 3"), "{message}");
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
        let err = parse("(camera: Fixed)").expect_err("Fixed carries values");
        match &err {
            SceneError::Invalid {
                field_path, help, ..
            } => {
                assert_eq!(field_path, "camera");
                assert!(help.contains("`Fixed( … )`"), "{help}");
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
        let err = parse("(fog: (sheets: -4))").expect_err("sheets is unsigned");
        assert!(
            matches!(&err, SceneError::Invalid { field_path, .. } if field_path == "fog.sheets"),
            "{err:?}"
        );
    }

    #[test]
    fn duplicate_field_points_at_the_second() {
        let err = parse("(fog: (sheets: 3, sheets: 4))").expect_err("duplicate");
        assert_eq!(at(&err), (1, 19));
        match err {
            SceneError::Invalid {
                field_path,
                message,
                ..
            } => {
                assert_eq!(field_path, "fog.sheets");
                assert_eq!(message, "field `sheets` is written twice in `fog`");
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn locate_path_finds_nested_fields_elements_and_variant_fields() {
        let at = |path: &str| locate_path(GOOD, path).map(|l| (l.line, l.col));
        assert_eq!(at("hall"), Some((4, 11)));
        assert_eq!(at("hall.size_world"), Some((5, 21)));
        // The commented-out `pillars` on line 6 is skipped.
        assert_eq!(at("hall.pillars"), Some((7, 18)));
        assert_eq!(at("hall.pillars[0]"), Some((7, 19)));
        assert_eq!(at("hall.pillars[2]"), Some((7, 46)));
        assert_eq!(at("hall.pillars[2][1]"), Some((7, 52)));
        assert_eq!(at("hall.name"), Some((8, 15)));
        // Brackets inside the string did not upset the nesting.
        assert_eq!(at("fog.sheets"), Some((10, 19)));
        assert_eq!(at("fog.color"), Some((10, 30)));
        assert_eq!(at("camera.lag"), Some((11, 25)));
        assert_eq!(at("camera.Follow.look_height"), Some((11, 43)));
        assert_eq!(at("script[1].at"), Some((14, 18)));
        assert_eq!(at("script[2]"), Some((15, 9)));
        assert_eq!(at("title"), Some((17, 12)));
        // Not written, out of range or malformed.
        assert_eq!(at("fog.density"), None);
        assert_eq!(at("hall.pillars[3]"), None);
        assert_eq!(at("script[0].toward[5]"), None);
        assert_eq!(at("fog..sheets"), None);
        assert_eq!(at("hall.pillars[x]"), None);
    }

    #[test]
    fn invalid_points_at_the_value_or_at_the_section() {
        let source = src(GOOD);
        let err = invalid(
            &source,
            "fog.sheets",
            "`fog.sheets` is 32, allowed range is 64..=512".to_string(),
            "set fog.sheets to a value in 64..=512".to_string(),
        );
        let expected = "error: `fog.sheets` is 32, allowed range is 64..=512\n  \
                        --> scenes/bad.ron:10:19\n   |\n\
                        10 |     fog: (sheets: 32, color: (0.5, 0.6, 0.7)),\n   \
                        |                   ^^\n   \
                        = help: set fog.sheets to a value in 64..=512";
        assert_eq!(err.to_string(), expected);

        // Defaulted field: points at its section and says so.
        let err = invalid(&source, "fog.density", "bad".into(), "fix it".into());
        assert_eq!(at(&err), (10, 5));
        let note = err.place().and_then(|p| p.note.as_deref()).unwrap_or("");
        assert!(note.contains("`fog.density` is not written"), "{note}");
        assert!(
            err.to_string()
                .contains("= note: `fog.density` is not written")
        );
        // Nothing of the path written: no position, but still the file and the help.
        let err = invalid(&src("()"), "fog.density", "bad".into(), "fix it".into());
        assert_eq!(err.location(), None);
        let shown = err.to_string();
        assert!(shown.contains(" --> scenes/bad.ron\n"), "{shown}");
        assert!(shown.ends_with("= help: fix it"), "{shown}");
    }

    #[test]
    fn warnings_render_like_errors() {
        let warning = Warning {
            field_path: "hall.pillars".to_string(),
            message: "pillar 2 overlaps the altar".to_string(),
        };
        let shown = render_warning(&src(GOOD), &warning);
        assert!(shown.starts_with("warning: pillar 2 overlaps the altar\n"));
        assert!(shown.contains("--> scenes/bad.ron:7:18"), "{shown}");
        assert!(shown.contains("^^^^^^^^^^^^^^"), "{shown}");
    }

    #[test]
    fn did_you_mean_is_case_insensitive_and_bounded() {
        let fields = ["size_world", "pillars", "altar", "sheets"];
        assert_eq!(did_you_mean("pilars", &fields), Some("pillars"));
        assert_eq!(did_you_mean("PILLARS", &fields), Some("pillars"));
        assert_eq!(did_you_mean("shetes", &fields), Some("sheets"));
        assert_eq!(did_you_mean("altra", &fields), Some("altar"));
        assert_eq!(did_you_mean("weather", &fields), None);
        // Unit suffixes: a missing or extra `_…` part.
        assert_eq!(did_you_mean("size", &fields), Some("size_world"));
        assert_eq!(did_you_mean("sheets_count", &fields), Some("sheets"));
        assert_eq!(did_you_mean("si", &fields), None);
        assert_eq!(did_you_mean("x", &[]), None);
    }

    #[test]
    fn unreadable_file_is_an_io_error_naming_the_path() {
        let err = SourceText::read(Path::new("/nonexistent/fogbank/scene.ron"))
            .expect_err("no such file");
        assert!(matches!(err, SceneError::Io { .. }));
        let shown = err.to_string();
        assert!(
            shown.starts_with("error: cannot read scene file `/nonexistent/fogbank/scene.ron`"),
            "{shown}"
        );
        assert!(shown.contains("= help: "), "{shown}");
    }

    #[test]
    fn tabs_and_crlf_keep_the_caret_aligned() {
        let text = "(\r\n\thall: (\r\n\t\tpilars: [],\r\n\t),\r\n)\r\n";
        let err = parse(text).expect_err("pilars");
        let shown = err.to_string();
        assert!(
            shown.contains("3 |         pilars: [],\n  |         ^^^^^^\n"),
            "{shown}"
        );
    }

    /// A deterministic stream of bytes for the garbage test.
    fn lcg_bytes(seed: u64, len: usize) -> Vec<u8> {
        let mut state = seed;
        (0..len)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (state >> 33) as u8
            })
            .collect()
    }

    #[test]
    fn garbage_and_truncated_input_never_panics() {
        let mut inputs: Vec<String> = Vec::new();
        let chars: Vec<(usize, char)> = GOOD.char_indices().collect();
        for &(i, _) in &chars {
            inputs.push(GOOD[..i].to_string());
        }
        let alphabet = b"()[]{}:,\"'/*#!r ab1.-\n\t=;";
        for seed in 0..300 {
            let bytes: Vec<u8> = lcg_bytes(seed, 60)
                .into_iter()
                .map(|b| alphabet[b as usize % alphabet.len()])
                .collect();
            inputs.push(String::from_utf8_lossy(&bytes).into_owned());
        }
        inputs.push("[".repeat(20_000));
        inputs.push("(a:".repeat(5_000));
        inputs.push("\"unterminated \\".to_string());
        inputs.push("r##\"raw".to_string());
        inputs.push("(é: ü, 名前: [ö".to_string());
        let mut parsed = 0;
        for text in &inputs {
            let source = src(text);
            if let Err(err) = parse_document::<Scene>(&source) {
                let shown = err.to_string();
                assert!(shown.starts_with("error: "), "{shown}");
                assert!(shown.contains("--> scenes/bad.ron"), "{shown}");
                if let Some(location) = err.location() {
                    assert!(location.line <= text.matches('\n').count() + 1);
                }
            } else {
                parsed += 1;
            }
            for path in ["hall.pillars[1]", "fog.sheets", "a", "[0]", "camera.lag"] {
                if let Some(location) = locate_path(text, path) {
                    assert!(location.line <= text.matches('\n').count() + 1);
                }
                let _ = invalid(&source, path, "m".into(), "h".into()).to_string();
                let _ = render_warning(
                    &source,
                    &Warning {
                        field_path: path.into(),
                        message: "m".into(),
                    },
                );
            }
        }
        // Only the truncation that drops just the final newline is still a whole scene.
        assert_eq!(parsed, 1);
    }
}
