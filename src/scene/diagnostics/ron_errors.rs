//! From ron's errors to fogbank's: each ron error becomes a [`SceneError`] that points at the
//! value it is about, names the field it happened in (found with the loose tree, since ron
//! does not say) and says in words how to fix it. Also shared with `--set`: the wording of
//! value problems and where a value starts.

use ron::error::{Error as RonError, SpannedError};

use super::paths::{format_path, parse_path, path_at, walk};
use super::position::{floor_boundary, location_of, make_snippet, offset_of, width_on_line};
use super::render::describe;
use super::scanner::{LooseTree, Scanner, parse_loose};
use super::suggest::did_you_mean;
use super::{Place, SceneError, SourceText};

/// Where a diagnostic about `field_path` points: its value when written, else the closest
/// written enclosing section (with a note saying the field has its default), else nowhere.
pub(super) fn place_for(src: &SourceText, field_path: &str) -> Place {
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
pub(crate) struct ValueProblem {
    pub message: String,
    pub help: String,
}

/// Describes a ron error that means "this value has the wrong type or size" in words that do
/// not depend on the surrounding text; `token` is the offending value as written. `None` for
/// errors that are about syntax instead.
pub(crate) fn describe_value_problem(code: &RonError, token: &str) -> Option<ValueProblem> {
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

pub(crate) fn lower_first(s: &str) -> String {
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
pub(crate) fn value_start(text: &str, offset: usize, code: &RonError) -> usize {
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
pub(crate) fn token_at(text: &str, offset: usize) -> String {
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
