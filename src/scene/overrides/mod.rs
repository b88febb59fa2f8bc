//! `--set PATH=VALUE` overrides: change one field of a scene from the command line (render the
//! same scene with 32 fog sheets, a fixed camera or another clip name) without editing the file.
//! Generic over the document type, like the rest of scene reading.

mod errors;
#[cfg(test)]
mod tests;

use ron::ser::PrettyConfig;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::diagnostics::{SceneError, Seg, WalkError, parse_loose, parse_path, ron_options, walk};
use errors::{override_error, parse_error, walk_error};

/// Applies each `PATH=VALUE` of `sets` to `doc`, in order (a later flag wins).
///
/// `PATH` names a field with dots and list elements with `[index]`: `fog.sheets`,
/// `hall.pillars[0]`, `ball.script[2].at`. `VALUE` is written exactly as in a scene file
/// (`32`, `0.5`, `(0.5, 0.6, 0.7)`, `[(1, 2), (3, 4)]`, `Fixed(position: (0, 5, 9), target:
/// (0, 0, 0))`, `Orbit`); text fields also take unquoted text (`output.name=clip`).
///
/// How: the document is written out as RON with the scene options, the value text of `PATH`
/// is found with the same tokenizer that locates errors, replaced by `VALUE`, and the result is
/// parsed back into `T`. Because the real parser reads the new value, enums, options, tuples
/// and numbers behave exactly as in a file, and a wrong value gets the parser's own complaint
/// (`--set fog.sheets=abc: expected a whole number, found `abc``).
///
/// Limits:
/// - A path goes through the enum variant that is currently selected (`camera.lag` when the
///   camera is `Follow( … )`; `camera.Follow.lag` also works). To switch variants, set the
///   whole field: `--set camera=Fixed(position: (0, 5, 9), target: (0, 0, 0))`.
/// - An index must name an existing element; to grow or shrink a list, set the whole list.
/// - Fields the document does not serialize (`#[serde(skip)]`) return to their defaults.
/// - Map entries are reached by their key (`lights.torch.intensity`); keys cannot contain `.`.
pub fn apply_overrides<T: Serialize + DeserializeOwned>(
    doc: T,
    sets: &[String],
) -> Result<T, SceneError> {
    let mut doc = doc;
    for flag in sets {
        doc = apply_one(&doc, flag)?;
    }
    Ok(doc)
}

fn apply_one<T: Serialize + DeserializeOwned>(doc: &T, flag: &str) -> Result<T, SceneError> {
    let Some((path_raw, value_raw)) = flag.split_once('=') else {
        return Err(override_error(
            flag,
            "missing `=`",
            Some("write --set PATH=VALUE, for example --set fog.sheets=32".to_string()),
        ));
    };
    let path = path_raw.trim();
    let value = value_raw.trim();
    if path.is_empty() {
        return Err(override_error(
            flag,
            "no field named before `=`",
            Some("write --set PATH=VALUE, for example --set fog.sheets=32".to_string()),
        ));
    }
    if value.is_empty() {
        return Err(override_error(
            flag,
            "no value after `=`",
            Some(format!(
                "give a value as in a scene file, for example --set {path}=…"
            )),
        ));
    }
    let segs = parse_path(path).filter(|s| !s.is_empty()).ok_or_else(|| {
        override_error(
            flag,
            format!("`{path}` is not a field path"),
            Some(
                "separate field names with `.` and write list indices as `[N]`, \
                 for example hall.pillars[0]"
                    .to_string(),
            ),
        )
    })?;

    let text = ron_options()
        .to_string_pretty(doc, PrettyConfig::default())
        .map_err(|e| override_error(flag, format!("cannot write the scene as RON: {e}"), None))?;
    let tree = parse_loose(&text);

    let edit = match walk(&tree.root, &segs) {
        Ok(found) => Edit {
            start: found.value.start,
            end: found.value.end,
            prefix: String::new(),
            suffix: String::new(),
            inserted_field: None,
            variant: None,
        },
        Err(WalkError::NoField { depth, parent }) if depth + 1 == segs.len() => {
            // The field may exist but not be written (skipped when empty): insert it and let
            // the parser say whether the document has such a field.
            let name = match &segs[depth] {
                Seg::Field(name) => name.clone(),
                Seg::Index(_) => String::new(),
            };
            let insert_at = parent.open.map_or(parent.start, |(_, at)| at + 1);
            Edit {
                start: insert_at,
                end: insert_at,
                // Map keys are quoted text; struct fields are bare names.
                prefix: if parent.open.is_some_and(|(b, _)| b == b'{') {
                    format!("{}: ", quote(&name))
                } else {
                    format!("{name}: ")
                },
                suffix: ", ".to_string(),
                inserted_field: Some(name),
                variant: parent.name.clone(),
            }
        }
        Err(err) => return Err(walk_error(flag, &segs, &text, &tree.root, err)),
    };

    // The value as written first, but only when it is one whole value: `3, density: 9` must
    // not slip a second field in. Then, unless it is quoted, as text, so that
    // `output.name=clip` needs no shell-escaped quotes. For a text field only a string literal
    // parses, so trying the raw value first changes nothing there, and it keeps `title=None`
    // meaning `None` for an optional one.
    let edited_text = edit.apply(&text, value);
    let shape_problem = unbalanced(value);
    let raw_result = match shape_problem {
        None => Some(ron_options().from_str::<T>(&edited_text)),
        Some(_) => None,
    };
    if let Some(Ok(doc)) = raw_result {
        return Ok(doc);
    }
    if !is_string_literal(value)
        && let Ok(doc) = ron_options().from_str::<T>(&edit.apply(&text, &quote(value)))
    {
        return Ok(doc);
    }
    let err = match (raw_result, shape_problem) {
        (Some(Err(err)), _) => err,
        (_, problem) => {
            return Err(override_error(
                flag,
                problem.unwrap_or_else(|| format!("`{value}` is not a single value")),
                Some(format!(
                    "check the brackets, and quote the whole argument for the shell: \
                     --set '{path}=…'"
                )),
            ));
        }
    };
    Err(parse_error(
        flag,
        path,
        &segs,
        value,
        &edit,
        &edited_text,
        &err,
    ))
}

/// One replacement in the written document.
pub(super) struct Edit {
    pub start: usize,
    pub end: usize,
    pub prefix: String,
    pub suffix: String,
    /// The field name inserted because it was not written in the document.
    pub inserted_field: Option<String>,
    /// The enum variant (or struct name) written before the block the field went into.
    pub variant: Option<String>,
}

impl Edit {
    fn apply(&self, text: &str, value: &str) -> String {
        let head = text.get(..self.start).unwrap_or("");
        let tail = text.get(self.end..).unwrap_or("");
        format!("{head}{}{value}{}{tail}", self.prefix, self.suffix)
    }
}

/// Describes an unclosed bracket or text after the value, which would make ron's complaint
/// point somewhere in the rest of the document.
fn unbalanced(value: &str) -> Option<String> {
    let tree = parse_loose(value);
    if let Some(open) = tree.unclosed {
        let bracket = value
            .get(open..)
            .and_then(|s| s.chars().next())
            .unwrap_or('(');
        return Some(format!("the `{bracket}` in the value is never closed"));
    }
    let rest = value.get(tree.root.end..).unwrap_or("").trim_start();
    rest.chars().next().map(|c| {
        let head = value.get(..tree.root.end).unwrap_or("");
        format!("unexpected `{c}` after the value `{head}`")
    })
}

fn is_string_literal(text: &str) -> bool {
    text.starts_with('"') || text.starts_with("r\"") || text.starts_with("r#")
}

/// `value` as a RON string literal.
fn quote(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
