//! Laying a diagnostic out for the terminal, the way rustc does: a headline, `--> file:line:col`,
//! the quoted line with a caret under the culprit, then `= note:` and `= help:` lines.
//!
//! The layout itself is `annotate-snippets`' (the crate rustc's own diagnostics come from): it
//! measures tabs, control characters and wide characters (CJK, emoji) so the caret lands under
//! the right column. This module only decides what each [`SceneError`] says.

use std::fmt;

use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer, Snippet as Source};

use super::{Location, Place, SceneError, Snippet};

/// Whether a diagnostic stops the scene or only warns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Severity {
    Error,
    Warning,
}

/// What a footer line is: background (`note`) or what to do (`help`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Footer {
    Note,
    Help,
}

/// One diagnostic: headline, where it points, and its footer lines in order.
pub(super) struct Report<'a> {
    pub severity: Severity,
    pub headline: &'a str,
    /// The file, or empty for a diagnostic about a command-line flag.
    pub file: &'a str,
    pub location: Option<Location>,
    pub snippet: Option<&'a Snippet>,
    pub notes: Vec<(Footer, &'a str)>,
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
        };
        let mut group = Group::with_title(level.primary_title(self.headline));
        match (self.location, self.snippet) {
            (Some(at), Some(snippet)) => {
                group = group.element(
                    Source::source(snippet.line_text.as_str())
                        .line_start(at.line)
                        .path(self.file)
                        .annotation(AnnotationKind::Primary.span(snippet.span.clone())),
                );
            }
            (Some(at), None) => {
                group = group.element(Origin::path(self.file).line(at.line).char_column(at.col));
            }
            (None, _) if !self.file.is_empty() => {
                group = group.element(Origin::path(self.file));
            }
            (None, _) => {}
        }
        for &(footer, text) in &self.notes {
            let level = match footer {
                Footer::Note => Level::NOTE,
                Footer::Help => Level::HELP,
            };
            group = group.element(level.message(text));
        }
        f.write_str(&Renderer::plain().render(&[group]))
    }
}

impl<'a> Report<'a> {
    /// A report for a place in a file: its note (if any), then the help.
    pub(super) fn at(
        severity: Severity,
        headline: &'a str,
        place: &'a Place,
        help: Option<&'a str>,
    ) -> Self {
        let mut notes = Vec::new();
        if let Some(note) = &place.note {
            notes.push((Footer::Note, note.as_str()));
        }
        if let Some(help) = help {
            notes.push((Footer::Help, help));
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
            } => Report::at(Severity::Error, message, place, Some(help)).fmt(f),
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
                unknown_report(&headline, place, choices.as_deref(), &help).fmt(f)
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
                unknown_report(&headline, place, choices.as_deref(), &help).fmt(f)
            }
            SceneError::Invalid {
                place,
                message,
                help,
                ..
            } => Report::at(Severity::Error, message, place, Some(help)).fmt(f),
            SceneError::Override {
                flag,
                message,
                suggestion,
            } => {
                let headline = format!("--set {flag}: {message}");
                let notes = suggestion
                    .iter()
                    .map(|s| (Footer::Help, s.as_str()))
                    .collect();
                Report {
                    severity: Severity::Error,
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
                    severity: Severity::Error,
                    headline: &headline,
                    file: "",
                    location: None,
                    snippet: None,
                    notes: vec![(Footer::Help, "check the path and that the file is readable")],
                }
                .fmt(f)
            }
        }
    }
}

/// The error report for an unknown field or variant: the place, the list of choices (when
/// there is no suggestion), then the help.
fn unknown_report<'a>(
    headline: &'a str,
    place: &'a Place,
    choices: Option<&'a str>,
    help: &'a str,
) -> Report<'a> {
    let mut report = Report::at(Severity::Error, headline, place, None);
    if let Some(choices) = choices {
        report.notes.push((Footer::Note, choices));
    }
    report.notes.push((Footer::Help, help));
    report
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

/// `` `hall.pillars` `` or, for the empty path, "the top level of the scene".
pub(super) fn describe(path: &str) -> String {
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
