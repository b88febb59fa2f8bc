//! Checks of the fluid's optional stages: `fluid.fog` (the fog model and its sources),
//! `fluid.streams`, `fluid.viscosity`, `fluid.fog_diffusion` and `fluid.projections`. Every
//! problem names the field down to the list entry (`fluid.fog.sources[3].position`).

use super::Checker;
use crate::scene::Scene;
use crate::sim::{FogModel, PressureSolverKind};

/// Largest diffusion rate, world units² per second (far past anything that still shows fog).
const MAX_DIFFUSION_WORLD2_PER_S: f32 = 1.0e3;

/// Checks that `position` (world x, z) lies inside the fog's square of side `area`.
fn check_inside_fog(c: &mut Checker, path: &str, position: [f32; 2], area: f32) {
    c.point(path, &position);
    let half = area * 0.5;
    let inside = position.iter().all(|v| v.is_finite() && v.abs() <= half);
    if !inside {
        c.error(
            path,
            format!(
                "`{path}` is ({}, {}), outside the fog's area (x and z within ±{half}, half of `fog.area`)",
                position[0], position[1]
            ),
            format!("move it inside ±{half}, or enlarge fog.area"),
        );
    }
}

/// Largest grid on which `pressure_iterations` red-black sweeps still keep up: beyond it
/// their residual grows with the cells squared (see scenes/README.md for the measurements).
const MAX_SWEEP_GRID: u32 = 128;

pub(super) fn check_fluid_extras(c: &mut Checker, scene: &Scene) {
    let p = &scene.fluid;
    if p.grid > MAX_SWEEP_GRID && p.solver != PressureSolverKind::Multigrid {
        c.warn(
            "fluid.solver",
            format!(
                "on a {0}×{0} grid {1} red-black sweeps leave the air compressible (the pressure residual grows with the grid: about 6× at 256² what it is at 96²)",
                p.grid, p.pressure_iterations
            ),
            "use `solver: multigrid` (its residual does not grow with the grid), or raise pressure_iterations in proportion to the grid squared".into(),
        );
    }
    let area = scene.fog.area;
    if let FogModel::Sources { sources, fade } = &p.fog {
        c.range("fluid.fog.fade", *fade, 0.0..=1.0e4);
        if sources.is_empty() {
            c.error(
                "fluid.fog.sources",
                "`fluid.fog.sources` is empty: with no source the fog only fades away".into(),
                "add a source, or use `fog: Relax`".into(),
            );
        }
        for (k, source) in sources.iter().enumerate() {
            let at = format!("fluid.fog.sources[{k}]");
            check_inside_fog(c, &format!("{at}.position"), source.position, area);
            c.range(&format!("{at}.radius"), source.radius, 1.0e-4..=1.0e4);
            c.range(&format!("{at}.rate"), source.rate, 0.0..=1.0e4);
        }
    }
    for (k, stream) in p.streams.iter().enumerate() {
        let at = format!("fluid.streams[{k}]");
        check_inside_fog(c, &format!("{at}.position"), stream.position, area);
        c.point(&format!("{at}.direction"), &stream.direction);
        let [dx, dz] = stream.direction;
        if dx.is_finite() && dz.is_finite() && dx == 0.0 && dz == 0.0 {
            c.error(
                format!("{at}.direction"),
                format!("`{at}.direction` is (0, 0): a stream needs a direction"),
                "give a non-zero (x, z), e.g. (1.0, 0.0)".into(),
            );
        }
        c.range(&format!("{at}.radius"), stream.radius, 1.0e-4..=1.0e4);
        c.range(&format!("{at}.strength"), stream.strength, 0.0..=1.0e4);
        c.range(&format!("{at}.period_s"), stream.period_s, 0.0..=1.0e6);
        c.range(&format!("{at}.swing_deg"), stream.swing_deg, 0.0..=180.0);
    }
    let max = MAX_DIFFUSION_WORLD2_PER_S;
    c.range("fluid.viscosity", p.viscosity, 0.0..=max);
    c.range("fluid.fog_diffusion", p.fog_diffusion, 0.0..=max);
    c.int_range("fluid.projections", p.projections, 1..=2);
}
