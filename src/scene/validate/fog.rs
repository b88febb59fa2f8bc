//! Checks of the ground fog: its sheets and heights, and the fluid under it (grid size,
//! rates, and how far the ball's push reaches compared with the fog).

use super::Checker;
use crate::scene::medium::{MAX_MEDIUM_OCTAVES, MIE_DROPLET_UM};
use crate::scene::{FogMedium, Phase, Scene};

pub(super) fn check_fog(c: &mut Checker, scene: &Scene) {
    let f = &scene.fog;
    c.range("fog.area", f.area, 0.01..=1.0e4);
    c.int_range("fog.sheets", f.sheets, 1..=512);
    c.range("fog.bottom", f.bottom, -1.0e4..=1.0e4);
    c.range("fog.top", f.top, -1.0e4..=1.0e4);
    c.range("fog.sheets_top", f.sheets_top, -1.0e4..=1.0e4);
    c.range("fog.lift_height", f.lift_height, 0.0..=1.0e4);
    c.range("fog.sigma", f.sigma, 0.0..=1.0e4);
    c.range("fog.veil_sigma", f.veil_sigma, 0.0..=1.0e4);
    c.range("fog.offset_range", f.offset_range, 0.001..=1.0e4);
    c.color("fog.color", f.color);
    c.range("fog.glow", f.glow, 0.0..=100.0);
    c.color("fog.glow_color", f.glow_color);
    c.point("fog.wind", &f.wind);
    c.int_range("fog.flow_every", f.flow_every, 1..=scene.fluid.grid.max(1));
    check_medium(c, &f.medium);
    if f.top <= f.bottom {
        c.error(
            "fog.top",
            format!(
                "`fog.top` is {}, it must be above `fog.bottom` ({})",
                f.top, f.bottom
            ),
            "raise fog.top above fog.bottom".into(),
        );
    }
    if f.sheets_top <= f.bottom {
        c.error(
            "fog.sheets_top",
            format!(
                "`fog.sheets_top` is {}, it must be above `fog.bottom` ({})",
                f.sheets_top, f.bottom
            ),
            "raise fog.sheets_top above fog.bottom".into(),
        );
    } else if f.sheets_top < f.top {
        c.warn(
            "fog.sheets_top",
            format!(
                "`fog.sheets_top` ({}) is below `fog.top` ({}): the top of the fog is cut off",
                f.sheets_top, f.top
            ),
            "raise fog.sheets_top to at least fog.top + fog.lift_height".into(),
        );
    }
    if f.sheets > 256 {
        c.warn(
            "fog.sheets",
            format!(
                "{} sheets will render slowly; 32 to 96 is usually enough",
                f.sheets
            ),
            "lower fog.sheets".into(),
        );
    }
    if f.area < 2.0 * scene.ball.limit {
        c.warn(
            "fog.area",
            format!(
                "the fog ({} across) is narrower than where the ball can roll ({} across)",
                f.area,
                2.0 * scene.ball.limit
            ),
            "enlarge fog.area or lower ball.limit".into(),
        );
    }
}

/// The physical medium's albedo, phase and octaves (the seed medium has no settings).
fn check_medium(c: &mut Checker, medium: &FogMedium) {
    let Some(physical) = medium.physical() else {
        return;
    };
    c.range("fog.medium.albedo", physical.albedo, 0.0..=1.0);
    c.int_range(
        "fog.medium.octaves",
        physical.octaves,
        1..=MAX_MEDIUM_OCTAVES,
    );
    match physical.phase {
        Phase::HenyeyGreenstein(g) => {
            if !(g.is_finite() && g > -1.0 && g < 1.0) {
                c.error(
                    "fog.medium.phase",
                    format!(
                        "`fog.medium.phase` is HenyeyGreenstein({g}): its g must lie strictly between -1 and 1"
                    ),
                    "use a g in (-1, 1): 0 scatters alike every way, 0.6 to 0.9 forward like fog"
                        .into(),
                );
            }
        }
        Phase::Mie(droplet_um) => {
            if !MIE_DROPLET_UM.contains(&droplet_um) {
                c.error(
                    "fog.medium.phase",
                    format!(
                        "`fog.medium.phase` is Mie({droplet_um}): the droplet diameter must be {} to {} µm, where the fit holds",
                        MIE_DROPLET_UM.start(),
                        MIE_DROPLET_UM.end()
                    ),
                    "use a diameter from 5 to 50 µm (fog droplets are about 10 to 20)".into(),
                );
            }
        }
    }
}

pub(super) fn check_fluid(c: &mut Checker, scene: &Scene) {
    let p = &scene.fluid;
    c.int_range("fluid.grid", p.grid, 8..=2048);
    c.int_range(
        "fluid.pressure_iterations",
        p.pressure_iterations,
        0..=100_000,
    );
    if p.pressure_iterations == 0 {
        c.warn(
            "fluid.pressure_iterations",
            "with 0 pressure iterations the air is not kept from compressing: it will not flow round pillars".into(),
            "use 16 or more".into(),
        );
    }
    if p.grid > 512 {
        c.warn(
            "fluid.grid",
            format!("a {0}×{0} fluid steps slowly on the CPU", p.grid),
            "96 to 256 is usually enough".into(),
        );
    }
    let rates: [(&str, f32, f32); 26] = [
        ("fluid.vorticity", p.vorticity, 1.0e4),
        ("fluid.vorticity_threshold", p.vorticity_threshold, 1.0e4),
        ("fluid.velocity_decay", p.velocity_decay, 1.0e4),
        ("fluid.shock_fade", p.shock_fade, 1.0e4),
        ("fluid.refill", p.refill, 1.0e4),
        ("fluid.spill", p.spill, 1.0e4),
        ("fluid.relax", p.relax, 1.0e4),
        ("fluid.settle", p.settle, 1.0e4),
        ("fluid.continuity", p.continuity, 1.0e4),
        ("fluid.drift_limit", p.drift_limit, 1.0e4),
        ("fluid.max_density", p.max_density, 1.0e4),
        ("fluid.solid_margin", p.solid_margin, 1.0e4),
        ("fluid.ball_reach", p.ball_reach, 100.0),
        ("fluid.ball_ring", p.ball_ring, 100.0),
        ("fluid.ball_take", p.ball_take, 1.0),
        ("fluid.ball_rise_lift", p.ball_rise_lift, 1.0e4),
        ("fluid.shock_to_air", p.shock_to_air, 1.0e4),
        ("fluid.takeoff_radius", p.takeoff_radius, 1.0e3),
        ("fluid.takeoff_strength", p.takeoff_strength, 1.0e4),
        ("fluid.takeoff_raise", p.takeoff_raise, 1.0),
        ("fluid.landing_radius", p.landing_radius, 1.0e3),
        ("fluid.landing_strength", p.landing_strength, 1.0e4),
        (
            "fluid.landing_raise_per_speed",
            p.landing_raise_per_speed,
            1.0e4,
        ),
        ("fluid.landing_min_speed", p.landing_min_speed, 1.0e4),
        ("fluid.fog_depth_margin", p.fog_depth_margin, 1.0e4),
        ("fluid.speed_scale", p.speed_scale, 1.0e6),
    ];
    for (path, value, max) in rates {
        c.range(path, value, 0.0..=max);
    }
    c.range("fluid.fog_depth_fade", p.fog_depth_fade, 0.001..=1.0e4);
    c.range("fluid.max_density", p.max_density, 1.0..=1.0e4);
    c.range("fluid.speed_scale", p.speed_scale, 0.001..=1.0e6);
    if p.ball_ring <= p.ball_reach {
        c.error(
            "fluid.ball_ring",
            format!("`fluid.ball_ring` ({}) must be larger than `fluid.ball_reach` ({}): the pushed fog needs a ring to go to", p.ball_ring, p.ball_reach),
            "make ball_ring larger than ball_reach".into(),
        );
    }
    check_pressure_solver(c, p);
}

/// The pressure solver's knobs: SOR's factor strictly inside (0, 2), where it converges, and at
/// least one multigrid V-cycle. Checked whichever solver is chosen, so a scene does not carry
/// a bad value that breaks the day it switches.
fn check_pressure_solver(c: &mut Checker, p: &crate::sim::FluidParams) {
    let omega = p.sor_omega;
    if !(omega.is_finite() && omega > 0.0 && omega < 2.0) {
        c.error(
            "fluid.sor_omega",
            format!(
                "`fluid.sor_omega` is {omega}, it must lie strictly between 0 and 2 (over-relaxation diverges outside)"
            ),
            format!(
                "set fluid.sor_omega to a value in (0, 2), e.g. {} (1 is plain Gauss-Seidel)",
                crate::sim::DEFAULT_SOR_OMEGA
            ),
        );
    }
    c.int_range("fluid.multigrid_cycles", p.multigrid_cycles, 1..=1000);
}
