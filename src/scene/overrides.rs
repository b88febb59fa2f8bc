//! `--set PATH=VALUE` overrides: change one field of a scene from the command line (render the
//! same scene with 32 fog sheets, a fixed camera or another clip name) without editing the file.
//! Generic over the document type, like the rest of scene reading.

use ron::error::{Error as RonError, SpannedError};
use ron::ser::PrettyConfig;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::diagnostics::{
    Node, SceneError, Seg, WalkError, describe_value_problem, did_you_mean, format_path,
    lower_first, offset_of, parse_loose, parse_path, ron_options, token_at, value_start, walk,
};

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

fn override_error(flag: &str, message: impl Into<String>, help: Option<String>) -> SceneError {
    SceneError::Override {
        flag: flag.to_string(),
        message: message.into(),
        suggestion: help,
    }
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
struct Edit {
    start: usize,
    end: usize,
    prefix: String,
    suffix: String,
    /// The field name inserted because it was not written in the document.
    inserted_field: Option<String>,
    /// The enum variant (or struct name) written before the block the field went into.
    variant: Option<String>,
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

/// `PARENT` has no field `name`: suggest the closest of `keys`, and when the parent is an enum
/// variant, say that another variant has to be set as a whole.
fn no_field_error(
    flag: &str,
    parent: &str,
    name: &str,
    keys: &[&str],
    variant: Option<&str>,
) -> SceneError {
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

fn walk_error(flag: &str, segs: &[Seg], text: &str, root: &Node, err: WalkError<'_>) -> SceneError {
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

fn parse_error(
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

#[cfg(test)]
mod tests {
    use super::super::diagnostics::test_scene::*;
    use super::*;

    fn set(doc: Scene, flags: &[&str]) -> Result<Scene, SceneError> {
        let flags: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        apply_overrides(doc, &flags)
    }

    fn set_ok(flags: &[&str]) -> Scene {
        match set(Scene::default(), flags) {
            Ok(scene) => scene,
            Err(err) => panic!("{flags:?} should apply:\n{err}"),
        }
    }

    /// The error's message and help, for flags that must fail.
    fn set_err(flags: &[&str]) -> (String, String, String) {
        match set(Scene::default(), flags) {
            Ok(scene) => panic!("{flags:?} should fail, gave {scene:?}"),
            Err(err @ SceneError::Override { .. }) => {
                let shown = err.to_string();
                let SceneError::Override {
                    message,
                    suggestion,
                    ..
                } = err
                else {
                    unreachable!("matched above")
                };
                (message, suggestion.unwrap_or_default(), shown)
            }
            Err(other) => panic!("expected an Override error, got {other:?}"),
        }
    }

    #[test]
    fn integers_floats_and_tuples() {
        let scene = set_ok(&[
            "fog.sheets=32",
            "fog.density=0.25",
            "fog.color=(0.5,0.6,0.7)",
        ]);
        assert_eq!(scene.fog.sheets, 32);
        assert_eq!(scene.fog.density, 0.25);
        assert_eq!(scene.fog.color, (0.5, 0.6, 0.7));
        // An integer is a fine value for a float field.
        assert_eq!(set_ok(&["fog.density=1"]).fog.density, 1.0);
        // Everything else is untouched.
        assert_eq!(scene.hall, Hall::default());
        assert_eq!(scene.camera, Camera::default());
    }

    #[test]
    fn lists_and_elements() {
        let scene = set_ok(&["hall.pillars=[(1,2),(3,4)]"]);
        assert_eq!(scene.hall.pillars, vec![(1.0, 2.0), (3.0, 4.0)]);
        let scene = set_ok(&["hall.pillars[1]=(9, 9)"]);
        let mut expected = Hall::default().pillars;
        expected[1] = (9.0, 9.0);
        assert_eq!(scene.hall.pillars, expected);
        let scene = set_ok(&["hall.pillars[3][0]=-1.25"]);
        assert_eq!(scene.hall.pillars[3], (-1.25, 3.5));
        let scene = set_ok(&["hall.pillars=[]"]);
        assert!(scene.hall.pillars.is_empty());
    }

    #[test]
    fn text_with_and_without_quotes() {
        assert_eq!(set_ok(&["hall.name=clip"]).hall.name, "clip");
        assert_eq!(set_ok(&["hall.name=\"a b\""]).hall.name, "a b");
        assert_eq!(set_ok(&["hall.name=say \"hi\""]).hall.name, "say \"hi\"");
        // An absent optional text field.
        assert_eq!(set_ok(&["title=dusk"]).title.as_deref(), Some("dusk"));
        assert_eq!(
            set_ok(&["title=Some(\"dusk\")"]).title.as_deref(),
            Some("dusk")
        );
        assert_eq!(set_ok(&["title=dusk", "title=None"]).title, None);
    }

    #[test]
    fn enums_whole_and_through_the_selected_variant() {
        let scene = set_ok(&["camera=Fixed(position: (0,5,9), target: (0,0,0))"]);
        assert_eq!(
            scene.camera,
            Camera::Fixed(FixedCamera {
                position: (0.0, 5.0, 9.0),
                target: (0.0, 0.0, 0.0)
            })
        );
        assert_eq!(set_ok(&["camera=Orbit"]).camera, Camera::Orbit);
        let expected = Camera::Follow(FollowCamera {
            lag: 3.0,
            look_height: 1.0,
        });
        assert_eq!(set_ok(&["camera.lag=3"]).camera, expected);
        assert_eq!(set_ok(&["camera.Follow.lag=3"]).camera, expected);
        // After switching variant, its fields are reachable.
        let scene = set_ok(&["camera=Fixed()", "camera.target=(1,2,3)"]);
        assert_eq!(
            scene.camera,
            Camera::Fixed(FixedCamera {
                position: (0.0, 0.0, 0.0),
                target: (1.0, 2.0, 3.0)
            })
        );
        let scene = set_ok(&["script=[Jump(at: 1), Stop]", "script[0].at=2.5"]);
        assert_eq!(scene.script, vec![Step::Jump { at: 2.5 }, Step::Stop]);
    }

    #[test]
    fn map_entries_by_key_existing_or_new() {
        #[derive(Serialize, serde::Deserialize, Debug, Default, PartialEq)]
        #[serde(default, deny_unknown_fields)]
        struct Torches {
            intensity: std::collections::BTreeMap<String, f32>,
        }
        let doc = Torches {
            intensity: [("left".to_string(), 1.0)].into_iter().collect(),
        };
        let flags = [
            "intensity.left=2".to_string(),
            "intensity.right=3".to_string(),
        ];
        let doc = apply_overrides(doc, &flags).expect("map entries can be set and added");
        assert_eq!(doc.intensity.get("left"), Some(&2.0));
        assert_eq!(doc.intensity.get("right"), Some(&3.0));
    }

    #[test]
    fn later_flags_win_and_no_flags_change_nothing() {
        assert_eq!(set_ok(&["fog.sheets=8", "fog.sheets=16"]).fog.sheets, 16);
        assert_eq!(set_ok(&[]), Scene::default());
    }

    #[test]
    fn missing_equals_and_empty_sides() {
        let (message, help, shown) = set_err(&["fog.sheets"]);
        assert_eq!(message, "missing `=`");
        assert!(help.contains("--set PATH=VALUE"));
        assert!(
            shown.starts_with("error: --set fog.sheets: missing `=`"),
            "{shown}"
        );
        let (message, _, _) = set_err(&["=3"]);
        assert!(message.contains("no field"), "{message}");
        let (message, _, _) = set_err(&["fog.sheets="]);
        assert!(message.contains("no value"), "{message}");
        let (message, _, _) = set_err(&["hall.pillars[x]=1"]);
        assert!(message.contains("not a field path"), "{message}");
    }

    #[test]
    fn unknown_paths_suggest_the_closest_field() {
        let (message, help, _) = set_err(&["fog.shets=3"]);
        assert_eq!(message, "`fog` has no field `shets`");
        assert_eq!(help, "did you mean `fog.sheets`?");
        let (message, help, _) = set_err(&["fgo.sheets=3"]);
        assert_eq!(message, "the scene has no field `fgo`");
        assert_eq!(help, "did you mean `fog`?");
        let (_, help, _) = set_err(&["fog.weather=3"]);
        assert_eq!(help, "the fields of `fog` are `sheets`, `color`, `density`");
        let (message, help, _) = set_err(&["camera.lagg=3"]);
        assert_eq!(message, "`camera` has no field `lagg`");
        assert_eq!(help, "did you mean `camera.lag`?");
        // A field of another variant than the selected one.
        let (message, help, _) = set_err(&["camera.target=(1,2,3)"]);
        assert_eq!(
            message,
            "`camera` is `Follow( … )`, which has no field `target`"
        );
        assert!(help.contains("--set camera=Variant( … )"), "{help}");
        let (message, help, _) = set_err(&["title.x=1"]);
        assert_eq!(message, "`title` is `None`, so it has no fields yet");
        assert!(help.contains("--set title="), "{help}");
        let (_, help, _) = set_err(&["[0]=1"]);
        assert!(help.contains("name a field of the scene"), "{help}");
        let (message, _, _) = set_err(&["fog.sheets.x=3"]);
        assert!(message.contains("plain value"), "{message}");
    }

    #[test]
    fn indices_out_of_range_or_on_non_lists() {
        let (message, help, _) = set_err(&["hall.pillars[4]=(1,1)"]);
        assert_eq!(
            message,
            "index 4 is out of range: `hall.pillars` has 4 elements"
        );
        assert!(help.contains("from 0 to 3"), "{help}");
        let (message, _, _) = set_err(&["fog[0]=1"]);
        assert!(message.contains("not a list"), "{message}");
    }

    #[test]
    fn bad_values_name_the_flag_and_the_expected_type() {
        let (message, _, shown) = set_err(&["fog.sheets=abc"]);
        assert_eq!(message, "expected a whole number, found `abc`");
        assert!(
            shown.starts_with("error: --set fog.sheets=abc: expected a whole number"),
            "{shown}"
        );
        let (message, _, _) = set_err(&["fog.sheets=1.5"]);
        assert_eq!(message, "expected a whole number, found `1.5`");
        let (message, _, _) = set_err(&["fog.sheets=-3"]);
        assert_eq!(message, "`-3` is out of range for this whole-number field");
        let (message, _, _) = set_err(&["fog.color=(1,2)"]);
        assert!(message.contains("a tuple of size 3"), "{message}");
        let (message, _, _) = set_err(&["fog.density=thick"]);
        assert_eq!(message, "expected a number, found `thick`");
        let (message, help, _) = set_err(&["camera=Fixd(position: (0,5,9))"]);
        assert_eq!(message, "unknown variant `Fixd`");
        assert!(help.starts_with("did you mean `Fixed`?"), "{help}");
        let (message, help, _) = set_err(&["camera=Fixed(positon: (0,5,9))"]);
        assert_eq!(message, "unknown field `positon` in the value");
        assert_eq!(help, "did you mean `position`?");
        let (message, help, _) = set_err(&["hall.pillars=[(1,2)"]);
        assert_eq!(message, "the `[` in the value is never closed");
        assert!(help.contains("--set 'hall.pillars=…'"), "{help}");
        let (message, _, _) = set_err(&["fog.color=(1,2,3))"]);
        assert_eq!(message, "unexpected `)` after the value `(1,2,3)`");
        // One flag sets one field.
        let (message, _, _) = set_err(&["fog.sheets=3, density: 9"]);
        assert_eq!(message, "unexpected `,` after the value `3`");
        let (_, _, shown) = set_err(&["hall.pillars=[(1,2)"]);
        assert!(
            shown.starts_with("error: --set hall.pillars=[(1,2): "),
            "{shown}"
        );
    }

    #[test]
    fn garbage_flags_never_panic() {
        let pieces = [
            "",
            "=",
            "[",
            "]",
            "[0]",
            "fog",
            ".",
            "sheets",
            "(",
            ")",
            "\"",
            "1",
            "é",
            "::",
            ",",
            "hall",
            "pillars",
            "[99999999999999999999]",
            "camera",
            "Fixed(",
            "/*",
            "//",
            "r#\"",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let flag = format!("{a}{b}={c}{a}");
                    let _ = set(Scene::default(), &[flag.as_str()]).map_err(|e| e.to_string());
                    let flag = format!("{a}.{b}{c}");
                    let _ = set(Scene::default(), &[flag.as_str()]).map_err(|e| e.to_string());
                }
            }
        }
    }
}
