//! What a `--set` flag that cannot be applied says: a path that names no field (with a
//! did-you-mean, or the fields there are), an index out of range, or a value the parser
//! rejects, worded for the command line rather than for a file.

use ron::error::{Error as RonError, SpannedError};

use super::Edit;
use crate::scene::diagnostics::{
    Node, SceneError, Seg, WalkError, describe_value_problem, did_you_mean, format_path,
    lower_first, offset_of, token_at, value_start, walk,
};

pub(super) fn override_error(
    flag: &str,
    message: impl Into<String>,
    help: Option<String>,
) -> SceneError {
    SceneError::Override {
        flag: flag.to_string(),
        message: message.into(),
        suggestion: help,
    }
}

/// The scene's optional sections (absent from a scene that does not use them), each with a
/// small value that adds it: `--set weather.wind.base_speed=5` on a scene without weather
/// says so and how to add one, instead of "no field".
const OPTIONAL_SECTIONS: &[(&str, &str)] = &[
    ("weather", "(sky: Storm)"),
    ("clouds", "(coverage: 0.5)"),
    ("water", "(surface_height: 1.0)"),
];

/// A path into an optional section the scene does not have: say so, and how to add one.
fn missing_section_error(flag: &str, section: &str, example: &str) -> SceneError {
    override_error(
        flag,
        format!("the scene has no `{section}` section, so `{section}.…` cannot be set"),
        Some(format!(
            "add one to the scene file, e.g. `{section}: {example},` (see scenes/README.md, \
             \"{section}\"), or add it first on the command line: \
             --set '{section}={example}' {flag}"
        )),
    )
}

/// Enum fields left out of a written scene at their default unit variant, with that variant and
/// the variant whose fields a path can reach: `(path, default, other)`.
const UNIT_DEFAULTS: &[(&str, &str, &str)] = &[("fog.medium", "Seed", "Physical")];

/// A path into the fields of an enum left at its default unit variant: say which variant it is
/// and how to switch to the one with fields.
fn unit_default_error(flag: &str, path: &str, default: &str, other: &str) -> SceneError {
    override_error(
        flag,
        format!("`{path}` is `{default}`, which has no fields"),
        Some(format!(
            "set the variant first, then its fields: --set '{path}={other}()' {flag}"
        )),
    )
}

/// `PARENT` has no field `name`: suggest the closest of `keys`, and when the parent is an enum
/// variant, say that another variant has to be set as a whole.
pub(super) fn no_field_error(
    flag: &str,
    parent: &str,
    name: &str,
    keys: &[&str],
    variant: Option<&str>,
) -> SceneError {
    if parent.is_empty()
        && let Some((section, example)) = OPTIONAL_SECTIONS.iter().find(|(s, _)| *s == name)
    {
        return missing_section_error(flag, section, example);
    }
    let path = join(parent, name);
    if let Some((path, default, other)) = UNIT_DEFAULTS.iter().find(|(p, ..)| *p == path) {
        return unit_default_error(flag, path, default, other);
    }
    let shown = if parent.is_empty() {
        "the scene".to_string()
    } else {
        format!("`{parent}`")
    };
    if let Some(close) = did_you_mean(name, keys) {
        return override_error(
            flag,
            format!("{shown} has no field `{name}`"),
            Some(format!("did you mean `{}`?", join(parent, close))),
        );
    }
    match variant {
        Some(variant) if !parent.is_empty() => override_error(
            flag,
            format!("{shown} is `{variant}( … )`, which has no field `{name}`"),
            Some(format!(
                "its fields are {}; to use another variant, set the whole value: \
                 --set {parent}=Variant( … )",
                listed(keys)
            )),
        ),
        _ => override_error(
            flag,
            format!("{shown} has no field `{name}`"),
            Some(format!("the fields of {shown} are {}", listed(keys))),
        ),
    }
}

pub(super) fn walk_error(
    flag: &str,
    segs: &[Seg],
    text: &str,
    root: &Node,
    err: WalkError<'_>,
) -> SceneError {
    let prefix = |depth: usize| format_path(&segs[..depth]);
    // How to replace the value at `depth` as a whole.
    let set_whole = |depth: usize| {
        let whole = prefix(depth);
        if whole.is_empty() {
            "name a field of the scene, for example --set fog.sheets=32".to_string()
        } else {
            format!("set it as a whole: --set {whole}=…")
        }
    };
    // The value written at `depth`, e.g. `None` for an absent optional block.
    let written = |depth: usize| {
        walk(root, &segs[..depth])
            .ok()
            .and_then(|found| text.get(found.value.start..found.value.end))
            .unwrap_or("")
            .to_string()
    };
    let shown = |depth: usize| {
        let p = prefix(depth);
        if p.is_empty() {
            "the scene".to_string()
        } else {
            format!("`{p}`")
        }
    };
    match err {
        WalkError::NoField { depth, parent } => {
            let name = match &segs[depth] {
                Seg::Field(name) => name.as_str(),
                Seg::Index(_) => "",
            };
            no_field_error(
                flag,
                &prefix(depth),
                name,
                &parent.keys(),
                parent.name.as_deref(),
            )
        }
        WalkError::NotStruct { depth } if written(depth) == "None" => override_error(
            flag,
            format!("{} is `None`, so it has no fields yet", shown(depth)),
            Some(format!(
                "{} first, e.g. --set {}=()",
                set_whole(depth),
                prefix(depth)
            )),
        ),
        WalkError::NotStruct { depth } => override_error(
            flag,
            format!("{} is a plain value with no fields", shown(depth)),
            Some(set_whole(depth)),
        ),
        WalkError::NotList { depth } => override_error(
            flag,
            format!("{} is not a list, so it has no `[index]`", shown(depth)),
            Some(set_whole(depth)),
        ),
        WalkError::NoIndex { depth, len } => {
            let index = match &segs[depth] {
                Seg::Index(i) => *i,
                Seg::Field(_) => 0,
            };
            let whole = prefix(depth);
            let help = if len == 0 {
                format!("the list is empty; set the whole list: --set {whole}=[…]")
            } else {
                format!(
                    "use an index from 0 to {}, or set the whole list: --set {whole}=[…]",
                    len - 1
                )
            };
            override_error(
                flag,
                format!(
                    "index {index} is out of range: `{whole}` has {len} element{}",
                    if len == 1 { "" } else { "s" }
                ),
                Some(help),
            )
        }
    }
}

pub(super) fn parse_error(
    flag: &str,
    path: &str,
    segs: &[Seg],
    value: &str,
    edit: &Edit,
    edited_text: &str,
    err: &SpannedError,
) -> SceneError {
    // Where the error is, in bytes of the edited text, to tell the value's fault from others.
    let offset = value_start(
        edited_text,
        offset_of(edited_text, err.span.start),
        &err.code,
    );
    let value_begin = edit.start + edit.prefix.len();
    let in_value = offset >= value_begin && offset <= value_begin + value.len();
    let token = if in_value {
        token_at(edited_text, offset)
    } else {
        value.to_string()
    };

    match &err.code {
        RonError::NoSuchStructField {
            expected, found, ..
        } => {
            let suggestion = did_you_mean(found, expected);
            if let Some(inserted_name) = &edit.inserted_field
                && inserted_name == found
            {
                let parent = format_path(&segs[..segs.len() - 1]);
                return no_field_error(flag, &parent, found, expected, edit.variant.as_deref());
            }
            let help = match suggestion {
                Some(close) => format!("did you mean `{close}`?"),
                None => format!("the fields here are {}", listed(expected)),
            };
            override_error(
                flag,
                format!("unknown field `{found}` in the value"),
                Some(help),
            )
        }
        RonError::NoSuchEnumVariant {
            expected, found, ..
        } => {
            let help = match did_you_mean(found, expected) {
                Some(close) => format!("did you mean `{close}`? (one of {})", listed(expected)),
                None => format!("write one of {}", listed(expected)),
            };
            override_error(flag, format!("unknown variant `{found}`"), Some(help))
        }
        code => {
            if let Some(problem) = describe_value_problem(code, &token) {
                return override_error(flag, problem.message, Some(problem.help));
            }
            override_error(
                flag,
                format!(
                    "`{value}` is not a valid value for `{path}`: {}",
                    lower_first(&code.to_string())
                ),
                Some(
                    "write the value as in a scene file, e.g. 32, 0.5, (0.5, 0.6, 0.7), \
                     [(1, 2)], Orbit; quote text that contains spaces or punctuation"
                        .to_string(),
                ),
            )
        }
    }
}

fn join(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_string()
    } else {
        format!("{prefix}.{name}")
    }
}

fn listed(names: &[&str]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
