//! Tests of `--set` on a small stand-in scene: every kind of value, path and mistake.

use super::*;
use crate::scene::diagnostics::test_scene::*;

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
fn a_path_into_a_missing_weather_section_says_how_to_add_one() {
    let (message, help, _) = set_err(&["weather.wind.base_speed=5"]);
    assert_eq!(
        message,
        "the scene has no `weather` section, so `weather.…` cannot be set"
    );
    assert!(help.contains("weather: (sky: Storm),"), "{help}");
    assert!(help.contains("--set 'weather=(sky: Storm)'"), "{help}");
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
