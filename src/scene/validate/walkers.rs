//! Checks of the walkers: how many, their paths (points on the floor, times strictly
//! increasing, a walking speed), their size, push, clearing and colour, and the follow
//! camera's `subject` (a walker that exists).

use super::Checker;
use crate::scene::walkers::{MAX_PATH_POINTS, MAX_WALKERS, WalkerPath};
use crate::scene::{Camera, FollowSubject, Scene};

/// Latest time a path point may name, seconds (about 11.5 days; keeps times exact enough).
const MAX_TIME_S: f32 = 1.0e6;

pub(super) fn check_walkers(c: &mut Checker, scene: &Scene) {
    if scene.walkers.len() > MAX_WALKERS {
        c.error(
            "walkers",
            format!(
                "`walkers` has {} walkers, at most {MAX_WALKERS} are allowed",
                scene.walkers.len()
            ),
            "remove walkers".into(),
        );
    }
    let half = scene.fog.area.max(scene.hall.floor_size) / 2.0;
    for (i, walker) in scene.walkers.iter().enumerate() {
        let path = format!("walkers[{i}]");
        c.range(&format!("{path}.radius"), walker.radius, 0.05..=2.0);
        c.range(&format!("{path}.height"), walker.height, 0.2..=10.0);
        if walker.radius.is_finite()
            && walker.height.is_finite()
            && walker.radius > 0.0
            && walker.height < 4.0 * walker.radius
        {
            c.error(
                format!("{path}.height"),
                format!(
                    "`{path}.height` is {}, less than four times its radius {}: the body would not fit",
                    walker.height, walker.radius
                ),
                format!("make {path}.height at least {}", 4.0 * walker.radius),
            );
        }
        c.range(&format!("{path}.push"), walker.push, 0.0..=60.0);
        c.range(&format!("{path}.clear"), walker.clear, 0.0..=1000.0);
        c.color(&format!("{path}.color"), walker.color);
        check_path(c, &format!("{path}.path"), &walker.path, half);
    }
    if let Camera::Follow(follow) = &scene.camera
        && let FollowSubject::Walker(index) = follow.subject
        && index >= scene.walkers.len()
    {
        let count = scene.walkers.len();
        let help = match count {
            0 => "add a walker to `walkers`, or follow the `Ball`".to_string(),
            _ => format!(
                "name a walker from 0 to {}, or follow the `Ball`",
                count - 1
            ),
        };
        c.error(
            "camera.subject",
            format!("`camera.subject` is Walker({index}), but the scene has {count} walkers"),
            help,
        );
    }
}

/// A floor point `(x, z)` at `path` that must lie on the floor, `-half..=half`.
fn check_floor_point(c: &mut Checker, path: &str, x: f32, z: f32, half: f32) {
    let on_floor = |v: f32| v.is_finite() && v.abs() <= half;
    if !(on_floor(x) && on_floor(z)) {
        c.error(
            path,
            format!(
                "`{path}` is at ({x}, {z}), off the floor, which spans -{half}..={half} on x and z"
            ),
            format!("move the point inside -{half}..={half}"),
        );
    }
}

fn check_path(c: &mut Checker, path: &str, walker_path: &WalkerPath, half: f32) {
    let count = match walker_path {
        WalkerPath::Timed(points) => points.len(),
        WalkerPath::Waypoints(waypoints) => waypoints.points.len(),
    };
    if count == 0 || count > MAX_PATH_POINTS {
        c.error(
            path,
            format!("`{path}` has {count} points, it needs 1 to {MAX_PATH_POINTS}"),
            "give the walker at least one point".into(),
        );
    }
    match walker_path {
        WalkerPath::Timed(points) => {
            let mut previous: Option<f32> = None;
            for (k, &(time_s, x, z)) in points.iter().enumerate() {
                let point = format!("{path}[{k}]");
                if !time_s.is_finite() || !(0.0..=MAX_TIME_S).contains(&time_s) {
                    c.error(
                        &point,
                        format!(
                            "`{point}` has time {time_s}, allowed range is 0..={MAX_TIME_S} seconds"
                        ),
                        format!("set the first number of {point} to a time in seconds"),
                    );
                } else if let Some(before) = previous
                    && time_s <= before
                {
                    c.error(
                        &point,
                        format!(
                            "`{point}` has time {time_s}, not after the point before it ({before}): times must strictly increase"
                        ),
                        format!("give {point} a time later than {before}, or reorder the points"),
                    );
                }
                if time_s.is_finite() {
                    previous = Some(previous.map_or(time_s, |p| p.max(time_s)));
                }
                check_floor_point(c, &point, x, z, half);
            }
        }
        WalkerPath::Waypoints(waypoints) => {
            for (k, &(x, z)) in waypoints.points.iter().enumerate() {
                check_floor_point(c, &format!("{path}.points[{k}]"), x, z, half);
            }
            c.range(&format!("{path}.speed"), waypoints.speed, 0.05..=20.0);
            c.range(
                &format!("{path}.start_s"),
                waypoints.start_s,
                0.0..=MAX_TIME_S,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::validate::check;
    use crate::scene::{Camera, FollowSubject, Scene, SourceText, Walker, WalkerPath};

    fn errors_of(scene: &Scene) -> Vec<String> {
        check(scene)
            .errors
            .into_iter()
            .map(|p| format!("{}: {}", p.field_path, p.message))
            .collect()
    }

    fn with_walker(walker: Walker) -> Scene {
        Scene {
            walkers: vec![Walker::default(), walker],
            ..Scene::default()
        }
    }

    #[test]
    fn good_walkers_pass() {
        assert_eq!(
            errors_of(&with_walker(Walker::default())),
            Vec::<String>::new()
        );
    }

    #[test]
    fn times_out_of_order_name_the_point() {
        let scene = with_walker(Walker {
            path: WalkerPath::Timed(vec![(0.0, 0.0, 0.0), (2.0, 1.0, 0.0), (2.0, 2.0, 0.0)]),
            ..Walker::default()
        });
        let errors = errors_of(&scene);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("walkers[1].path[2]: "), "{errors:?}");
        assert!(errors[0].contains("strictly increase"), "{errors:?}");
    }

    #[test]
    fn bad_sizes_and_points_name_their_fields() {
        let scene = with_walker(Walker {
            radius: -0.2,
            path: WalkerPath::Timed(vec![(0.0, 400.0, 0.0)]),
            ..Walker::default()
        });
        let errors = errors_of(&scene);
        assert!(
            errors.iter().any(|e| e.starts_with("walkers[1].radius: ")),
            "{errors:?}"
        );
        assert!(
            errors.iter().any(|e| e.starts_with("walkers[1].path[0]: ")),
            "{errors:?}"
        );
        let scene = with_walker(Walker {
            path: WalkerPath::Timed(Vec::new()),
            push: f32::NAN,
            ..Walker::default()
        });
        let errors = errors_of(&scene);
        assert!(
            errors.iter().any(|e| e.starts_with("walkers[1].path: ")),
            "{errors:?}"
        );
        assert!(
            errors.iter().any(|e| e.starts_with("walkers[1].push: ")),
            "{errors:?}"
        );
    }

    #[test]
    fn the_follow_camera_must_name_a_walker_that_exists() {
        let mut scene = with_walker(Walker::default());
        let Camera::Follow(follow) = &mut scene.camera else {
            panic!("the default camera follows");
        };
        follow.subject = FollowSubject::Walker(2);
        let errors = errors_of(&scene);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("camera.subject: "), "{errors:?}");
        let Camera::Follow(follow) = &mut scene.camera else {
            unreachable!()
        };
        follow.subject = FollowSubject::Walker(1);
        assert!(errors_of(&scene).is_empty());
    }

    /// The scene file's own syntax reads, prints back identically, and a bad time is reported
    /// with the field's path.
    #[test]
    fn walkers_read_from_a_scene_file() {
        let text = r#"(
            camera: Follow(subject: Walker(1)),
            walkers: [
                (path: Timed([(0.0, -3.0, 1.0), (4.0, 2.0, 1.0)]), color: (0.2, 0.3, 0.5)),
                (path: Waypoints(points: [(-4.0, -2.0), (4.0, -2.0)], speed: 1.1), radius: 0.22, height: 1.6),
            ],
        )"#;
        let loaded = crate::scene::load::load_source(SourceText::new("w.ron", text), &[])
            .expect("the walkers load");
        assert_eq!(loaded.scene.walkers.len(), 2);
        let printed = crate::scene::to_ron(&loaded.scene).unwrap();
        let reread =
            crate::scene::load::load_source(SourceText::new("p.ron", printed.clone()), &[])
                .unwrap_or_else(|e| panic!("{printed}\n{e}"));
        assert_eq!(reread.scene, loaded.scene);
        let bad = text.replace("(4.0, 2.0, 1.0)", "(0.0, 2.0, 1.0)");
        let error = crate::scene::load::load_source(SourceText::new("w.ron", bad), &[])
            .map(|_| ())
            .expect_err("times out of order fail");
        assert!(error.to_string().contains("walkers[0].path[1]"), "{error}");
    }
}
