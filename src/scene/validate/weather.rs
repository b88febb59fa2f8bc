//! Checks of the `weather` section: the changes in time order, every rate and target in range,
//! a wind with a direction and a cycle, lightning gaps that make sense, colours.

use super::Checker;
use crate::scene::Scene;
use crate::scene::weather::SkyKind;

pub(super) fn check_weather(c: &mut Checker, scene: &Scene) {
    let Some(weather) = &scene.weather else {
        return;
    };
    let mut previous: Option<f64> = None;
    for (i, change) in weather.changes.iter().enumerate() {
        let path = format!("weather.changes[{i}].at");
        c.time(&path, change.at);
        if let Some(before) = previous
            && change.at < before
        {
            c.error(
                &path,
                format!(
                    "`{path}` is {}, earlier than the change before it at {before}: changes must be in time order",
                    change.at
                ),
                format!("move this change after weather.changes[{}], or set its `at` to {before} or later", i - 1),
            );
        }
        previous = Some(change.at);
    }
    for kind in SkyKind::ALL {
        let name = kind.name().to_lowercase();
        let sky = weather.skies.of(kind);
        let path = |field: &str| format!("weather.skies.{name}.{field}");
        if let Some(v) = sky.fog_density {
            c.range(&path("fog_density"), v, 0.0..=10.0);
        }
        if let Some(v) = sky.gloom {
            c.range(&path("gloom"), v, 0.0..=1.0);
        }
        if let Some(v) = sky.rain {
            c.range(&path("rain"), v, 0.0..=1.0);
        }
        if let Some(v) = sky.wind {
            c.range(&path("wind"), v, 0.0..=100.0);
        }
    }
    let rates = &weather.rates;
    for (field, value) in [
        ("fog_density", rates.fog_density),
        ("gloom", rates.gloom),
        ("rain", rates.rain),
        ("wind", rates.wind),
        ("wetting", rates.wetting),
        ("drying", rates.drying),
        ("flash_decay", rates.flash_decay),
    ] {
        let path = format!("weather.rates.{field}");
        if value.is_finite() && value < 0.0 {
            c.error(
                &path,
                format!("`{path}` is {value}: a rate is how fast a quantity eases, it cannot be negative"),
                format!("set {path} to 0 (never changes) or a positive rate per second"),
            );
        } else {
            c.range(&path, value, 0.0..=1.0e4);
        }
    }
    let wind = &weather.wind;
    c.point("weather.wind.direction", &wind.direction);
    let [dx, dz] = wind.direction;
    if dx == 0.0 && dz == 0.0 {
        c.error(
            "weather.wind.direction",
            "`weather.wind.direction` is (0, 0), which points nowhere".into(),
            "set weather.wind.direction to the way the wind blows on the floor, e.g. (1, 0.3)"
                .into(),
        );
    }
    c.range("weather.wind.gust_share", wind.gust_share, 0.0..=10.0);
    c.range("weather.wind.wander_rad", wind.wander_rad, 0.0..=3.15);
    if wind.cycle_s.is_finite() && wind.cycle_s <= 0.0 {
        c.error(
            "weather.wind.cycle_s",
            format!(
                "`weather.wind.cycle_s` is {}: the wind repeats after this many seconds, so it must be more than 0",
                wind.cycle_s
            ),
            "set weather.wind.cycle_s to a period in seconds, e.g. 40".into(),
        );
    } else {
        c.range("weather.wind.cycle_s", wind.cycle_s, 1.0 / 60.0..=1.0e5);
    }
    c.range("weather.wind.phase_s", wind.phase_s, -1.0e5..=1.0e5);
    c.range("weather.wind.drag", wind.drag, 0.0..=10.0);
    c.range("weather.wind.noise_share", wind.noise_share, 0.0..=10.0);
    c.range("weather.wind.pile_share", wind.pile_share, 0.0..=1.0);
    let lightning = &weather.lightning;
    c.range(
        "weather.lightning.first_after_s",
        lightning.first_after_s,
        0.0..=1.0e5,
    );
    c.range(
        "weather.lightning.gap_min_s",
        lightning.gap_min_s,
        1.0 / 60.0..=1.0e5,
    );
    c.range(
        "weather.lightning.gap_max_s",
        lightning.gap_max_s,
        1.0 / 60.0..=1.0e5,
    );
    if lightning.gap_max_s < lightning.gap_min_s {
        c.error(
            "weather.lightning.gap_max_s",
            format!(
                "`weather.lightning.gap_max_s` is {}, shorter than gap_min_s {}",
                lightning.gap_max_s, lightning.gap_min_s
            ),
            "set weather.lightning.gap_max_s to gap_min_s or more".into(),
        );
    }
    c.range(
        "weather.lightning.flash_ambient",
        lightning.flash_ambient,
        0.0..=100.0,
    );
    c.range(
        "weather.gloom_far_share",
        weather.gloom_far_share,
        0.0..=1.0,
    );
    c.color("weather.storm_fog_color", weather.storm_fog_color);
    c.color("weather.storm_ambient_color", weather.storm_ambient_color);
    c.range(
        "weather.storm_ambient_intensity",
        weather.storm_ambient_intensity,
        0.0..=100.0,
    );
}
