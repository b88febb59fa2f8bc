//! Checks of the `clouds` and `water` sections: shares in 0..=1, sizes and heights positive,
//! the water's density not negative and its transition depth greater than 0, colours.

use super::Checker;
use crate::scene::Scene;

pub(super) fn check_sky(c: &mut Checker, scene: &Scene) {
    if let Some(clouds) = &scene.clouds {
        c.range("clouds.coverage", clouds.coverage, 0.0..=1.0);
        c.color("clouds.color", clouds.color);
        c.color("clouds.storm_color", clouds.storm_color);
        c.positive("clouds.altitude", clouds.altitude);
        c.range("clouds.scale", clouds.scale, 0.01..=100_000.0);
        c.range("clouds.softness", clouds.softness, 0.01..=1.0);
    }
    if let Some(water) = &scene.water {
        c.range(
            "water.surface_height",
            water.surface_height,
            -1000.0..=1000.0,
        );
        c.color("water.color", water.color);
        c.non_negative("water.density", water.density);
        c.positive("water.transition_depth", water.transition_depth);
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::validate::check;
    use crate::scene::{Clouds, Scene, Water, load};

    /// The error for `path` in `scene`'s report, if any.
    fn error_at(scene: &Scene, path: &str) -> Option<String> {
        check(scene)
            .errors
            .into_iter()
            .find(|p| p.field_path == path)
            .map(|p| format!("{} / {}", p.message, p.help))
    }

    #[test]
    fn clouds_and_water_out_of_range_name_the_field_and_the_fix() {
        let scene = Scene {
            clouds: Some(Clouds {
                coverage: 1.5,
                altitude: 0.0,
                softness: 0.0,
                ..Clouds::default()
            }),
            water: Some(Water {
                density: -0.1,
                transition_depth: 0.0,
                color: [0.2, 1.2, 0.3],
                ..Water::default()
            }),
            ..Scene::default()
        };
        let coverage = error_at(&scene, "clouds.coverage").expect("coverage 1.5");
        assert!(
            coverage.contains("1.5") && coverage.contains("0..=1"),
            "{coverage}"
        );
        assert!(error_at(&scene, "clouds.altitude").is_some());
        assert!(error_at(&scene, "clouds.softness").is_some());
        let density = error_at(&scene, "water.density").expect("density −0.1");
        assert!(density.contains("-0.1"), "{density}");
        let depth = error_at(&scene, "water.transition_depth").expect("depth 0");
        assert!(depth.contains("greater than 0"), "{depth}");
        assert!(error_at(&scene, "water.color[1]").is_some());
        // The defaults are clean, and zero density (clear water) and zero coverage are allowed.
        let clean = Scene {
            clouds: Some(Clouds {
                coverage: 0.0,
                ..Clouds::default()
            }),
            water: Some(Water {
                density: 0.0,
                ..Water::default()
            }),
            ..Scene::default()
        };
        assert!(
            check(&clean).errors.is_empty(),
            "{:?}",
            check(&clean).errors
        );
    }

    #[test]
    fn set_reaches_the_fields_once_the_section_is_there() {
        let sets = |flags: &[&str]| flags.iter().map(|f| f.to_string()).collect::<Vec<_>>();
        let scene = load(
            None,
            &sets(&[
                "clouds=(coverage: 0.3)",
                "clouds.altitude=80.0",
                "water=()",
                "water.transition_depth=2.0",
            ]),
        )
        .expect("loads")
        .scene;
        let clouds = scene.clouds.expect("clouds");
        assert_eq!((clouds.coverage, clouds.altitude), (0.3, 80.0));
        assert_eq!(scene.water.expect("water").transition_depth, 2.0);
        // Into a section the scene lacks: the error says how to add it.
        let error = load(None, &sets(&["water.density=0.5"])).expect_err("no water");
        let shown = format!("{error:?}");
        assert!(shown.contains("has no `water` section"), "{shown}");
        // A range error from `--set` names the field.
        let error =
            load(None, &sets(&["clouds=()", "clouds.coverage=2.0"])).expect_err("coverage 2");
        assert!(format!("{error:?}").contains("clouds.coverage"));
    }
}
