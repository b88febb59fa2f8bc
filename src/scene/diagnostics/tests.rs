//! Tests of scene diagnostics end to end: parse a broken document, check where the error
//! points and what it says.

use std::path::Path;

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
                    |\n  \
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
                    |\n   \
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
                    |\n   \
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
    assert!(shown.contains("--> scenes/bad.ron\n"), "{shown}");
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
    let err =
        SourceText::read(Path::new("/nonexistent/fogbank/scene.ron")).expect_err("no such file");
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

#[test]
fn wide_characters_before_the_error_keep_the_caret_under_it() {
    // Four CJK characters and an emoji, each two columns wide on a terminal, stand before the
    // misspelt field on its line.
    let text = "(\n  hall: (name: \"霧の神殿 🌊\", pilars: []),\n)\n";
    let err = parse(text).expect_err("pilars is not a field");
    // The column counts characters, as ron's and editors' do.
    assert_eq!(at(&err), (2, 26));
    let shown = err.to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines[3], "2 |   hall: (name: \"霧の神殿 🌊\", pilars: []),");
    // `  hall: (name: "` is 16 columns, the name 8 + 1 + 2, then `", ` 3: the caret starts at
    // display column 30 of the code, under the `p` of `pilars`.
    assert_eq!(lines[4], format!("  | {}^^^^^^", " ".repeat(30)), "{shown}");
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
