//! The world's snapshot: the whole state after a step as bytes (`--cache` files), read back so
//! that stepping the restored world gives exactly what stepping the saved one would have.

use super::World;
use crate::ball::BallMotion;
use crate::scene::{Camera, Scene};
use crate::sim::{FluidSim, SnapshotError, SnapshotHeader, get_f32, get_u64, put_u64};
use crate::weather::WeatherState;

impl World {
    /// The whole state as bytes: a header (magic, format version, [`sim_scene_hash`], grid
    /// size, step, payload length, CRC-32; see [`SnapshotHeader::seal`]), the fluid (see `sim/snapshot.rs`), the ball with its script state, the
    /// camera's eye, the step count and the weather (if any), all little-endian. [`World::restore`] reads it back.
    pub fn snapshot(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.fluid.mapping().cell_count() * 37);
        self.fluid.write_snapshot(&mut out);
        self.ball.write_snapshot(&mut out);
        for v in self.camera.eye_world {
            out.extend_from_slice(&v.to_le_bytes());
        }
        put_u64(&mut out, self.steps);
        // The weather, last, and only when there is one: a scene without weather keeps its
        // snapshot bytes.
        if let Some(weather) = &self.weather {
            weather.write_bytes(&mut out);
        }
        SnapshotHeader {
            scene_hash: sim_scene_hash(&self.scene),
            cells: self.fluid.mapping().cells as u64,
            step: self.steps,
        }
        .seal(&out)
    }

    /// The world of `scene` in the state saved by [`World::snapshot`]. Stepping it gives
    /// exactly what stepping the saved world would have. A snapshot of another scene, another
    /// grid or another format version, or damaged bytes (the checksum catches any flipped bit),
    /// is an error, never a panic.
    pub fn restore(scene: &Scene, bytes: &[u8]) -> Result<World, SnapshotError> {
        let mut input = bytes;
        let header = SnapshotHeader::read(&mut input)?;
        let expected_hash = sim_scene_hash(scene);
        if header.scene_hash != expected_hash {
            return Err(SnapshotError::OtherScene {
                found: header.scene_hash,
                expected: expected_hash,
            });
        }
        // Solids, mapping and parameters come from the scene, exactly as a fresh world's.
        let mut world = World::new(scene);
        if header.cells != world.fluid.mapping().cells as u64 {
            return Err(SnapshotError::GridSize {
                found: header.cells,
                expected: world.fluid.mapping().cells as u64,
            });
        }
        world.fluid = FluidSim::read_snapshot(&scene.fluid, *world.fluid.mapping(), &mut input)?;
        world.ball = BallMotion::read_snapshot(&scene.ball, &scene.hall, &mut input)?;
        let mut eye_world = [0.0; 3];
        for v in eye_world.iter_mut() {
            *v = get_f32(&mut input, "camera")?;
        }
        // Only the follow camera moves with the steps; a fixed or keyframed camera's eye is
        // the scene's, which may have changed since the snapshot (it is a look field).
        if matches!(scene.camera, Camera::Follow(_)) {
            world.camera.eye_world = eye_world;
        }
        world.steps = get_u64(&mut input, "step count")?;
        if world.steps != header.step {
            return Err(SnapshotError::Corrupt(format!(
                "header says step {}, body says step {}",
                header.step, world.steps
            )));
        }
        if world.weather.is_some() {
            world.weather = Some(WeatherState::read_bytes(&mut input)?);
        }
        if !input.is_empty() {
            return Err(SnapshotError::Corrupt(format!(
                "{} bytes left after the end",
                input.len()
            )));
        }
        Ok(world)
    }
}

/// The scene hash a snapshot carries: [`Scene::step_hash`], the scene's canonical hash with
/// the fields the step never reads left out (`scene::canonical::LOOK_FIELDS`: output, lights,
/// colours, the fog's look, a fixed camera…). They choose which states are shown and how they
/// look, not the states themselves, so a cache made by `simulate` serves a `render --size` of
/// the same scene, the scene relit or its fog recoloured.
pub fn sim_scene_hash(scene: &Scene) -> u64 {
    scene.step_hash()
}
