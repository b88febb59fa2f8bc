//! Writing a scene back out as a scene file: the resolved scene (defaults filled in, `--set`
//! overrides applied) as pretty RON that reads back to the identical [`Scene`]. Useful to see
//! what a short scene file really renders, or to start a new scene from a resolved one.

use ron::ser::PrettyConfig;

use super::Scene;
use super::diagnostics::ron_options;

/// The scene as pretty RON, in the scene file's own dialect: variants carry their fields
/// directly (`camera: Follow(lag_rate: 2.5, …)`) and optional values are written without
/// `Some(…)`. Parsing the text with [`super::load`] gives back exactly `scene`: floats are
/// written with the shortest digits that read back to the same bits. Fields the scene leaves
/// out when they are unused (no fires, no blocks, no terrain, height fog at its defaults) are
/// left out here too.
pub fn to_ron(scene: &Scene) -> Result<String, ron::Error> {
    let config = PrettyConfig::new()
        .struct_names(false)
        .separate_tuple_members(false)
        .indentor("    ".to_string());
    let mut text = ron_options().to_string_pretty(scene, config)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::load;
    use std::path::Path;

    /// Loads `path`, prints it, reads the print back: the two scenes must be identical.
    fn round_trip(path: Option<&Path>, sets: &[String]) {
        let loaded = load(path, sets).expect("the scene loads");
        let text = to_ron(&loaded.scene).expect("the scene prints");
        let source = crate::scene::SourceText::new("printed.ron", text.clone());
        let reread = match crate::scene::load::load_source(source, &[]) {
            Ok(reread) => reread,
            Err(err) => panic!("{path:?} printed as\n{text}\ndoes not load:\n{err}"),
        };
        assert_eq!(reread.scene, loaded.scene, "{path:?} printed as\n{text}");
        assert_eq!(reread.scene.content_hash(), loaded.scene.content_hash());
    }

    #[test]
    fn the_embedded_temple_round_trips() {
        round_trip(None, &[]);
    }

    #[test]
    fn every_scene_file_that_loads_round_trips() {
        let mut tried = 0;
        for dir in ["scenes", "tests/scenes"] {
            let mut paths: Vec<_> = std::fs::read_dir(dir)
                .expect("the scene folder")
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|path| path.extension().is_some_and(|e| e == "ron"))
                .collect();
            paths.sort();
            for path in paths {
                if load(Some(&path), &[]).is_ok() {
                    round_trip(Some(&path), &[]);
                    tried += 1;
                }
            }
        }
        // temple, valley, example and tiny at least.
        assert!(tried >= 4, "only {tried} scene files round-tripped");
    }

    #[test]
    fn overrides_and_every_kind_of_value_round_trip() {
        let sets: Vec<String> = [
            "camera=Keyframed(keys: [(time_s: 0.0), (time_s: 2.5, fov_y_deg: 35.0)])",
            "output.frames=90",
            "output.seconds=None",
            "hall.terrain=(seed: 7)",
            "hall.blocks=[(size: (2.0, 0.5, 2.0))]",
            "fires=[(kind: Torch, phase_rad: 0.1)]",
            "clouds=(coverage: 0.25, storm_color: (0.1, 0.2, 0.3))",
            "water=(surface_height: -0.5, density: 0.0)",
            "distance_fog.mode=exponential_squared",
            "fog.top=1.2345678",
            "lights.directional.shadows=true",
            "ball.script=[Steer(at: 0.0, duration: 1.5, toward: (1.0, -2.0)), Jump(at: 0.3), Stop(at: 2.0)]",
            "name=a \"quoted\" name, with punctuation",
        ]
        .map(String::from)
        .to_vec();
        round_trip(None, &sets);
    }

    #[test]
    fn the_print_reads_like_a_scene_file() {
        let text = to_ron(&Scene::default()).unwrap();
        assert!(text.starts_with("(\n    name: \"temple\",\n"), "{text}");
        assert!(text.contains("camera: Follow(\n"), "{text}");
        assert!(text.contains("seconds: 10.0,"), "{text}");
        assert!(text.contains("color: (0.62, 0.68, 0.82),"), "{text}");
        assert!(!text.contains("fires"), "{text}");
        assert!(!text.contains("shadows"), "{text}");
        assert!(!text.contains("Some("), "{text}");
    }
}
