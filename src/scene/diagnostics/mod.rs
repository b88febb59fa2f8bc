//! Scene-file diagnostics: a scene is written by hand, so every problem found while reading it
//! (RON syntax, a misspelt field or variant, a wrong type, a value out of range, a bad `--set`)
//! is reported the way rustc and ripgrep report theirs — the file, line and column, the line
//! itself with a caret under the culprit, and a `help:` line that says how to fix it.
//!
//! This module holds the error types and the entry points; the work is split by idea:
//! - [`scanner`]: a small, error-tolerant RON tokenizer that builds a loose tree of the text
//!   (nesting, strings, comments), so spans can be found even in a broken file;
//! - [`paths`]: field paths such as `hall.pillars[3]`, and finding them in that tree;
//! - [`position`]: byte offsets, `line:col` and the quoted source line;
//! - [`ron_errors`]: turning ron's errors into located, explained [`SceneError`]s;
//! - [`suggest`]: did-you-mean for misspelt names;
//! - [`render`]: laying a diagnostic out for the terminal (with `annotate-snippets`).
//!
//! None of it knows the concrete `Scene` type: [`parse_document`] is generic over any serde
//! document, which is how its tests use a small stand-in scene.

pub mod paths;
pub mod position;
pub mod render;
pub mod ron_errors;
pub mod scanner;
pub mod suggest;

#[cfg(test)]
pub(crate) mod test_scene;
#[cfg(test)]
mod tests;

use std::path::Path;

use ron::extensions::Extensions;
use serde::de::DeserializeOwned;

pub use position::{Location, Snippet};
pub use ron_errors::error_from_ron;
pub use suggest::did_you_mean;

pub(crate) use paths::{Seg, WalkError, format_path, parse_path, walk};
pub(crate) use position::offset_of;
pub(crate) use ron_errors::{describe_value_problem, lower_first, token_at, value_start};
pub(crate) use scanner::{Node, parse_loose};

use position::location_of;
use render::{Report, Severity};
use ron_errors::place_for;

/// The text of one scene file and the name diagnostics show for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    /// A file path, or `<embedded temple.ron>` for a scene compiled into the binary.
    pub name: String,
    /// The whole file as UTF-8.
    pub text: String,
}

impl SourceText {
    /// A source named `name`. A UTF-8 byte-order mark at the start, as some editors write, is
    /// dropped, so the first line's columns count from its first visible character. CRLF line
    /// ends need nothing: RON reads `\r` as white space and lines end at `\n`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        let text: String = text.into();
        let text = match text.strip_prefix('\u{FEFF}') {
            Some(rest) => rest.to_string(),
            None => text,
        };
        Self {
            name: name.into(),
            text,
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
    Report::at(Severity::Warning, &warning.message, &place, None).to_string()
}
