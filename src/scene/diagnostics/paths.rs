//! Field paths (`hall.pillars[3]`, `ball.script[2].at`): parsing and printing them, following
//! one through the loose tree of a scene's text, and the reverse — the path of whatever sits
//! at a byte offset, which is how an error from ron learns the field it happened in.

use super::scanner::{Key, Node, is_ident_start};

/// One step of a field path: `name` or `[index]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seg {
    Field(String),
    Index(usize),
}

/// Splits `hall.pillars[3].x` into segments; `None` when malformed.
pub(crate) fn parse_path(path: &str) -> Option<Vec<Seg>> {
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

pub(crate) fn format_path(segs: &[Seg]) -> String {
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
pub(crate) struct Found<'n> {
    pub value: &'n Node,
    pub key: Option<&'n Key>,
}

/// Why [`walk`] stopped; `depth` is the index of the segment that failed.
pub(crate) enum WalkError<'n> {
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
pub(crate) fn walk<'n>(root: &'n Node, segs: &[Seg]) -> Result<Found<'n>, WalkError<'n>> {
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
pub(super) struct PathHit {
    pub segs: Vec<Seg>,
    /// The offset is at the start of the last entry (its key, or its value when it has none).
    pub at_entry_start: bool,
}

pub(super) fn path_at(text: &str, root: &Node, offset: usize) -> PathHit {
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
