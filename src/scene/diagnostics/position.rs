//! Positions in a scene's text: byte offsets, ron's `line:col` (1-based, columns counted in
//! characters), and the one quoted source line a diagnostic shows with the culprit's span.
//! Every offset is clamped to the text and to a character boundary, so a position from a
//! damaged file never panics.

use std::ops::Range;

use ron::error::Position;

/// A position in a source text, both 1-based; `col` counts characters, as ron does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Location {
    pub line: usize,
    pub col: usize,
}

/// The quoted source line of a diagnostic and the span the caret goes under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snippet {
    /// The source line as written, without its line ending. Tabs, control and wide characters
    /// are laid out when the diagnostic is rendered, so the caret lands under the span.
    pub line_text: String,
    /// Byte range of the culprit in `line_text`; empty at the end of the line (one caret).
    pub span: Range<usize>,
}

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
pub(crate) fn offset_of(text: &str, pos: Position) -> usize {
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

pub(super) fn floor_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The quoted line for `location`, its span `width_chars` characters wide, capped at the end
/// of the line.
pub(super) fn make_snippet(text: &str, location: Location, width_chars: usize) -> Snippet {
    let raw = text
        .split('\n')
        .nth(location.line.saturating_sub(1))
        .unwrap_or("");
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    let byte_at = |chars: usize| raw.char_indices().nth(chars).map_or(raw.len(), |(i, _)| i);
    let first = location.col.saturating_sub(1);
    let start = byte_at(first);
    let end = byte_at(first + width_chars.max(1));
    Snippet {
        line_text: raw.to_string(),
        span: start..end,
    }
}

/// Number of characters of `text[start..end]` on its first line, at least 1.
pub(super) fn width_on_line(text: &str, start: usize, end: usize) -> usize {
    let start = floor_boundary(text, start);
    let end = floor_boundary(text, end.max(start));
    text[start..end]
        .split('\n')
        .next()
        .map_or(0, |s| s.trim_end_matches('\r').chars().count())
        .max(1)
}
