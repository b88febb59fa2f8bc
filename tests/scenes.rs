//! Scene input without a GPU: `validate` on good scenes (every shipped one) and its warnings, and
//! one test per kind of bad input — syntax, unknown field, unknown variant, out of range, a
//! pillar outside the hall, bad lamps, a bad `--set`, a missing file, a bad `--frames` — each a
//! clear error (exit 2) that names the place. The bad scenes are in tests/scenes/.

mod common;

use common::{fogbank, fogbank_ok, scene, stderr, stdout, temp_dir};
use std::path::Path;

/// `fogbank maps` on the bad scene `file` exits 2 with every one of `expected` in its message,
/// without panicking and without writing anything.
#[track_caller]
fn assert_bad_scene(file: &str, expected: &[&str]) {
    let dir = temp_dir(&format!("bad-{file}"));
    let out = fogbank(&["maps", &scene(file), "--out", dir.to_str().unwrap()]);
    assert_error(&out, expected);
    assert!(!dir.exists(), "nothing is written for a bad scene");
}

/// The run failed as bad input does (exit 2, no panic) with every one of `expected` in stderr.
#[track_caller]
fn assert_error(out: &std::process::Output, expected: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    for text in expected {
        assert!(err.contains(text), "expected {text:?} in:\n{err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn syntax_error_names_file_line_and_column() {
    assert_bad_scene(
        "syntax_error.ron",
        &["tests/scenes/syntax_error.ron:5:", "height"],
    );
}

#[test]
fn unknown_field_suggests_the_closest_name() {
    assert_bad_scene(
        "unknown_field.ron",
        &[
            "tests/scenes/unknown_field.ron:5:",
            "pilars",
            "did you mean `pillars`?",
        ],
    );
}

#[test]
fn unknown_variant_suggests_the_closest_name() {
    assert_bad_scene("unknown_variant.ron", &["unknown_variant.ron:3:", "Follow"]);
}

#[test]
fn out_of_range_names_field_value_and_range() {
    assert_bad_scene(
        "out_of_range.ron",
        &["out_of_range.ron:5:", "fog.sheets", "is 0", "1..=512"],
    );
}

#[test]
fn pillar_outside_the_hall_is_pointed_at() {
    assert_bad_scene(
        "pillar_outside.ron",
        &[
            "pillar_outside.ron:6:",
            "hall.pillars[1]",
            "outside the hall",
        ],
    );
}

#[test]
fn bad_override_names_the_flag() {
    let out = fogbank(&["simulate", "--set", "fog.sheetz=3", "--frames", "0"]);
    assert_error(&out, &["fog.sheetz", "sheets"]);
    let out = fogbank(&["simulate", "--set", "fluid.grid=4", "--frames", "0"]);
    assert_error(&out, &["8..=2048"]);
}

/// `output.fog_resolution` is `Full` or `Half`: another value, in a scene file, through `--set`
/// or as `--fog-resolution`, is bad input naming the field (or flag) and the choices; with
/// `--layers` (a full-size fog layer) `Half` is refused before anything is rendered.
#[test]
fn bad_fog_resolution_names_the_field_and_the_choices() {
    assert_bad_scene(
        "bad_fog_resolution.ron",
        &["bad_fog_resolution.ron:4:", "Quarter", "Half"],
    );
    let out = fogbank(&["validate", "--set", "output.fog_resolution=Quarter"]);
    assert_error(&out, &["output.fog_resolution", "Half"]);
    let out = fogbank(&["render", "--frames", "0", "--fog-resolution", "quarter"]);
    assert_error(&out, &["--fog-resolution", "half"]);
    let dir = temp_dir("half-layers");
    let d = dir.to_str().unwrap();
    let out = fogbank(&[
        "render",
        "--frames",
        "0",
        "--format",
        "exr",
        "--layers",
        "--fog-resolution",
        "half",
        "--out",
        d,
    ]);
    assert_error(&out, &["--layers", "--fog-resolution full"]);
    assert!(!dir.join("frame_0000.exr").exists(), "nothing is rendered");
}

#[test]
fn missing_scene_file_is_a_clear_error() {
    let out = fogbank(&["validate", "tests/scenes/does_not_exist.ron"]);
    assert_error(&out, &["does_not_exist.ron"]);
}

#[test]
fn frames_past_the_clip_and_bad_ranges_are_errors() {
    let out = fogbank(&["simulate", &scene("tiny.ron"), "--frames", "5..20"]);
    assert_error(&out, &["12 frames"]);
    let out = fogbank(&["simulate", "--frames", "9..3"]);
    assert_error(&out, &["--frames"]);
}

#[test]
fn validate_accepts_good_scenes_and_warns() {
    let out = fogbank_ok(&["validate", "scenes/temple.ron"]);
    assert!(stdout(&out).contains("ok"));
    let out = fogbank_ok(&[
        "validate",
        "scenes/temple.ron",
        "--set",
        "lights.ambient.intensity=0",
        "--set",
        "lights.directional.intensity=0",
        "--set",
        "lights.ball.intensity=0",
    ]);
    assert!(stderr(&out).contains("warning"), "{}", stderr(&out));
    assert!(stderr(&out).contains("black"), "{}", stderr(&out));
}

/// `--set lights.directional.shadows=true` turns the moon's shadows on; on a moon without light
/// `validate` warns, naming the field.
#[test]
fn moon_shadows_are_set_from_the_command_line_and_warn_without_light() {
    let out = fogbank_ok(&["scene", "--set", "lights.directional.shadows=true"]);
    assert!(stdout(&out).contains("shadows: true"), "{}", stdout(&out));
    let out = fogbank_ok(&[
        "validate",
        "--set",
        "lights.directional.shadows=true",
        "--set",
        "lights.directional.intensity=0",
    ]);
    let err = stderr(&out);
    assert!(err.contains("warning"), "{err}");
    assert!(err.contains("lights.directional.shadows"), "{err}");
    let out = fogbank(&["validate", "--set", "lights.directional.shadows=yes"]);
    assert_error(&out, &["lights.directional.shadows"]);
}

#[test]
fn every_shipped_scene_validates() {
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ron") {
            fogbank_ok(&["validate", path.to_str().unwrap()]);
        }
    }
}

/// `fogbank scene` prints the scene as resolved (file, defaults, `--set`): read back, it is the
/// same scene — the same state hashes — and the overrides are in it.
#[test]
fn the_resolved_scene_reads_back_as_the_same_scene() {
    let dir = temp_dir("resolved");
    std::fs::create_dir_all(&*dir).unwrap();
    let args = [scene("tiny.ron"), "--set".into(), "fog.sheets=20".into()];
    let printed = stdout(&fogbank_ok(
        &[&["scene"], &args.each_ref().map(String::as_str)[..]].concat(),
    ));
    assert!(printed.contains("sheets: 20"), "{printed}");
    let resolved = dir.join("resolved.ron");
    std::fs::write(&resolved, &printed).unwrap();
    let hashes = |scene_args: &[&str]| {
        let out = fogbank_ok(&[&["simulate", "--json", "--quiet"], scene_args].concat());
        stdout(&out)
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["hash"].clone())
            .collect::<Vec<_>>()
    };
    let original = hashes(&args.each_ref().map(String::as_str));
    assert_eq!(original.len(), 12);
    assert_eq!(hashes(&[resolved.to_str().unwrap()]), original);
}

/// `fogbank scene --schema` is a JSON Schema naming every section.
#[test]
fn the_schema_is_json_with_every_section() {
    let out = fogbank_ok(&["scene", "--schema"]);
    let schema: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    for section in [
        "hall", "ball", "fluid", "fog", "fires", "output", "camera", "lights",
    ] {
        assert!(schema["properties"][section].is_object(), "{section}");
    }
    // Fields added later are there too, with their choices.
    let text = stdout(&out);
    assert!(
        text.contains("fog_resolution") && text.contains("\"Half\""),
        "{text}"
    );
    // A scene file and --schema do not go together.
    let out = fogbank(&["scene", "--schema", &scene("tiny.ron")]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// Completions and the manual page come from the same definitions as the flags.
#[test]
fn completions_and_manual_pages_are_generated() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&fogbank_ok(&["completions", shell]));
        assert!(
            script.contains("render") && script.contains("golden"),
            "{shell}"
        );
    }
    let page = stdout(&fogbank_ok(&["man"]));
    assert!(page.contains(".TH fogbank 1"), "{page}");
    let dir = temp_dir("man");
    fogbank_ok(&["man", "--out", dir.to_str().unwrap()]);
    let render = std::fs::read_to_string(dir.join("fogbank-render.1")).unwrap();
    assert!(render.contains(".TH fogbank-render 1"), "{render}");
    assert!(Path::new(&*dir).join("fogbank.1").is_file());
}

/// Bad lamps are errors naming the field (negative intensity and range, a cone out of range);
/// a lamp inside a pillar is a warning naming its position; the lamp scene validates.
#[test]
fn bad_lamps_are_errors_and_a_lamp_in_a_pillar_a_warning() {
    let out = fogbank(&[
        "validate",
        "--set",
        "lamps=[(intensity: -1.0, range: -3.0, cone_deg: 120.0)]",
    ]);
    assert_error(
        &out,
        &[
            "lamps[0].intensity",
            "lamps[0].range",
            "lamps[0].cone_deg",
            "1..=80",
        ],
    );
    let out = fogbank_ok(&["validate", "--set", "lamps=[(position: (-3.5, 1.5, -3.5))]"]);
    let err = stderr(&out);
    assert!(err.contains("warning"), "{err}");
    assert!(err.contains("lamps[0].position"), "{err}");
    assert!(err.contains("hall.pillars[0]"), "{err}");
    fogbank_ok(&["validate", &scene("lamp.ron")]);
}

#[test]
fn a_byte_order_mark_and_crlf_line_ends_load_and_errors_keep_their_place() {
    let dir = temp_dir("bom-crlf");
    std::fs::create_dir_all(&dir).unwrap();
    let plain = std::fs::read_to_string(scene("tiny.ron")).unwrap();
    let crlf = plain.replace('\n', "\r\n");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    let hash = |path: &str| {
        let out = fogbank_ok(&["scene", path, "--set", "fog.sheets=12"]);
        stdout(&out)
    };
    let reference = hash(&write("plain.ron", &plain));
    for (name, text) in [
        ("bom.ron", format!("\u{FEFF}{plain}")),
        ("crlf.ron", crlf.clone()),
        ("bom-crlf.ron", format!("\u{FEFF}{crlf}")),
    ] {
        let path = write(name, &text);
        let out = fogbank_ok(&["validate", &path]);
        assert!(stdout(&out).contains("ok"), "{name}: {}", stdout(&out));
        assert_eq!(hash(&path), reference, "{name} reads as the same scene");
    }
    // An error on the first line and one further down point at the same line and column with
    // a BOM and CRLF as without.
    let broken = |text: &str| text.replacen("fog: (", "fog: (bogus: 1, ", 1);
    let place = |path: &str| {
        let out = fogbank(&["validate", path]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let text = stderr(&out);
        let at = text.find(".ron:").unwrap() + 5;
        text[at..].split_whitespace().next().unwrap().to_string()
    };
    let expected = place(&write("bad.ron", &broken(&plain)));
    assert_eq!(
        place(&write(
            "bad-bom-crlf.ron",
            &format!("\u{FEFF}{}", broken(&crlf))
        )),
        expected
    );
    assert_eq!(expected, "6:11");
    // On the first line, the mark takes no column.
    assert_eq!(place(&write("bad-first-bom.ron", "\u{FEFF}@")), "1:1");
}
