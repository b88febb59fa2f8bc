//! `fogbank simulate`: step the scene and print one line, or one JSON object, per frame.

use super::{Progress, ProgressMode, SimulateSettings, limit_threads, load_scene};
use crate::Error;
use crate::error::RequestError;
use crate::pipeline::{create_dir, frames_in_clip, start_playback};
use crate::playback::FrameState;
use crate::sim::FluidSim;
use serde_json::json;
use std::io::Write;

pub(super) fn run(settings: &SimulateSettings) -> Result<(), Error> {
    limit_threads(settings.threads);
    let loaded = load_scene(&settings.scene)?;
    let scene = &loaded.scene;
    // The fluid covers [-area/2, area/2] in x and z; a probe outside would read the edge cell.
    let half = scene.fog.area * 0.5;
    if let Some(&[x, z]) = settings
        .probes_world
        .iter()
        .find(|[x, z]| x.abs() > half || z.abs() > half)
    {
        return Err(RequestError::ProbeOutsideFog { x, z, half }.into());
    }
    let frames = frames_in_clip(settings.frames.as_ref(), scene)?;
    let first_frame = frames.frames().first().copied().unwrap_or(0);
    let mut playback = start_playback(settings.scene.cache.as_deref(), scene, first_frame)?;
    if let Some(dir) = &settings.scene.cache {
        create_dir(dir)?;
        let every_steps = playback
            .timeline()
            .steps_before(settings.cache_every_frames.max(1));
        playback.write_cache(dir, every_steps);
    }
    let mut progress = Progress::new(
        "simulate",
        frames.len() as u64,
        ProgressMode::detect(settings.quiet),
    );
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for &frame in frames.frames() {
        if crate::interrupt::requested() {
            return Err(Error::interrupted(0));
        }
        // Stoppable between steps too: a far first frame can take minutes to reach.
        let Some(state) = playback.advance_to_or_stop(frame, crate::interrupt::poll) else {
            return Err(Error::interrupted(0));
        };
        if let Some(error) = playback.take_cache_error() {
            return Err(error.into());
        }
        progress.advance(1);
        let line = if settings.json {
            json_line(&state, playback.world().fluid(), &settings.probes_world)
        } else {
            text_line(&state, playback.world().fluid(), &settings.probes_world)
        };
        // A closed pipe (e.g. `| head`) ends the run quietly (`main` says nothing of it); a
        // full disk is an error.
        writeln!(out, "{line}").map_err(Error::Stdout)?;
    }
    progress.finish();
    Ok(())
}

fn json_line(state: &FrameState, fluid: &FluidSim, probes_world: &[[f32; 2]]) -> String {
    let stats = fluid.stats();
    let [bx, by, bz] = state.ball_pos_world;
    let under_ball = fluid.probe(bx, bz);
    let probes: Vec<_> = probes_world
        .iter()
        .map(|&[x, z]| {
            let p = fluid.probe(x, z);
            json!({"x": x, "z": z, "density": p.density, "speed": p.speed, "lift": p.lift})
        })
        .collect();
    let mut events: Vec<&str> = state.events.iter().map(|e| e.name()).collect();
    events.extend(state.strikes.iter().map(|_| "strike"));
    let mut line = json!({
        "frame": state.frame,
        "time": state.time_s,
        "step": state.steps,
        "hash": format!("{:016x}", state.hash),
        "ball": {"x": bx, "y": by, "z": bz},
        "ball_density": under_ball.density,
        "events": events,
        "density": {"mean": stats.density_mean, "min": stats.density_min, "max": stats.density_max},
        "speed_max": stats.speed_max,
        "lift_max": stats.lift_max,
        "probes": probes,
    });
    // Only scenes with walkers gain this key: each walker's place and the fog under it.
    if !state.walkers_pos_world.is_empty() {
        line["walkers"] = state
            .walkers_pos_world
            .iter()
            .map(|&[x, z]| json!({"x": x, "z": z, "density": fluid.probe(x, z).density}))
            .collect();
    }
    // Only scenes with weather gain these keys: other scenes' lines stay as they were.
    if let Some(weather) = &state.weather {
        line["weather"] = json!({
            "sky": weather.sky.name(),
            "fog_density": weather.fog_density,
            "gloom": weather.gloom,
            "rain": weather.rain,
            "wind": weather.wind_world_per_s,
            "wind_speed": weather.wind_world_per_s[0].hypot(weather.wind_world_per_s[1]),
            "wetness": weather.wetness,
            "flash": weather.flash,
        });
        line["strikes"] = state
            .strikes
            .iter()
            .map(|s| json!({"number": s.number, "time": s.time_s()}))
            .collect();
    }
    line.to_string()
}

fn text_line(state: &FrameState, fluid: &FluidSim, probes_world: &[[f32; 2]]) -> String {
    let stats = fluid.stats();
    let [bx, by, bz] = state.ball_pos_world;
    let mut line = format!(
        "frame {:>5}  t={:>7.3}s  hash={:016x}  ball=({bx:>6.2},{by:>5.2},{bz:>6.2})  \
         density={:.3} [{:.3}..{:.3}]  speed_max={:.2}  lift_max={:.3}",
        state.frame,
        state.time_s,
        state.hash,
        stats.density_mean,
        stats.density_min,
        stats.density_max,
        stats.speed_max,
        stats.lift_max
    );
    for &[x, z] in probes_world {
        let p = fluid.probe(x, z);
        line.push_str(&format!(
            "  probe({x},{z}): d={:.3} s={:.2} l={:.3}",
            p.density, p.speed, p.lift
        ));
    }
    if let Some(weather) = &state.weather {
        let [wx, wz] = weather.wind_world_per_s;
        line.push_str(&format!(
            "  sky={} gloom={:.2} rain={:.2} wind=({wx:.2},{wz:.2}) wet={:.2}",
            weather.sky.name(),
            weather.gloom,
            weather.rain,
            weather.wetness
        ));
    }
    for (i, &[x, z]) in state.walkers_pos_world.iter().enumerate() {
        let density = fluid.probe(x, z).density;
        line.push_str(&format!("  walker{i}=({x:.2},{z:.2}) d={density:.3}"));
    }
    for event in &state.events {
        line.push_str("  ");
        line.push_str(event.name());
    }
    for strike in &state.strikes {
        line.push_str(&format!("  strike@{:.3}s", strike.time_s()));
    }
    line
}
