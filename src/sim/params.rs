//! The fluid's tuning knobs in one place: this struct is the `fluid` section of a scene file, so
//! every field name is user-facing and every default is the temple example's value. The
//! simulation reads most of them; the blast and fog-depth numbers are applied by the ball loop
//! that stirs the fluid, but they live here so the whole fluid is tuned in one section.

use serde::{Deserialize, Serialize};

use super::sources::{FluidStream, FogModel};

/// How the fog's fluid moves, how it is stirred, and how it is packed for the shader.
///
/// Every parameter is in world units and seconds (or dimensionless), never in cells, so the
/// same scene gives the same fog on any `grid` (within the grid's resolution): the solver
/// keeps its velocities in cells per second internally and converts at the boundary with
/// [`GridMapping::cell_size_world`](super::GridMapping::cell_size_world). Rates are per second
/// and turned into per-step factors with `exp(-rate * dt)`, so the behaviour does not depend
/// on the step length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct FluidParams {
    /// Cells per side of the square grid laid over the fog's area. Default 96.
    pub grid: u32,
    /// Pressure-solver iterations per step (red-black sweeps, warm-started from the last
    /// step's pressure, so a few rounds are enough). The `multigrid` solver counts V-cycles in
    /// `multigrid_cycles` instead. Default 24.
    pub pressure_iterations: u32,
    /// How the pressure is solved: `red_black` (red-black Gauss-Seidel, the example's),
    /// `sor` (red-black successive over-relaxation by `sor_omega`: the same sweeps, converging
    /// several times faster) or `multigrid` (geometric multigrid V-cycles: the grid's smooth
    /// errors are removed on coarser grids, so a couple of cycles leave less divergence than
    /// hundreds of sweeps). Default `red_black`.
    #[serde(skip_serializing_if = "is_red_black")]
    pub solver: PressureSolverKind,
    /// Over-relaxation factor of the `sor` solver, dimensionless, in (0, 2): 1 is plain
    /// Gauss-Seidel, larger steps further past each sweep's value. Default 1.8.
    #[serde(skip_serializing_if = "is_default_sor_omega")]
    pub sor_omega: f32,
    /// V-cycles per step of the `multigrid` solver, 1 or more (each is two red-black sweeps
    /// down to the coarsest grid and two back up). Default 2.
    #[serde(skip_serializing_if = "is_default_multigrid_cycles")]
    pub multigrid_cycles: u32,
    /// Vorticity-confinement strength (epsilon, per second), 0 to 10^4: how hard swirls are
    /// kept from being smeared out by the grid. The force is `vorticity · h · (N × ω)` world
    /// units per second² (Fedkiw, Stam and Jensen 2001), `h` the cell size in world units and
    /// `ω` the curl per second: it gives back the swirl the grid's numerical smoothing takes
    /// away, and that smoothing shrinks with the cell, so the force does too. Default 9.0.
    pub vorticity: f32,
    /// Curl below which confinement fades out, per second (it is full from twice this). Swirls
    /// the ball leaves are kept alive until they are this weak, then the air calms; without it
    /// confinement amplifies grid-scale noise and the air never comes to rest. 0 confines every
    /// curl, as the temple example does (its air never quite comes to rest). Default 2.0.
    pub vorticity_threshold: f32,
    /// How fast the air slows by itself, per second: each step keeps `exp(-velocity_decay * dt)`
    /// of its speed. Default 0.55.
    pub velocity_decay: f32,
    /// How fast the shock wave of a blast dies out, per second (`exp(-shock_fade * dt)` kept per
    /// step). Default 2.0.
    pub shock_fade: f32,
    /// How fast emptied fog comes back toward the rest density 1, per second (a step closes
    /// `1 - exp(-refill * dt)` of the gap). Default 0.3.
    pub refill: f32,
    /// How fast piled-up fog spreads back toward the rest density 1, per second (a step closes
    /// `1 - exp(-spill * dt)` of the excess). Default 0.8.
    pub spill: f32,
    /// How fast the drift offsets (how far the air carried the fog's wisps) relax toward zero,
    /// per second (`exp(-relax * dt)` kept per step). Default 0.18.
    pub relax: f32,
    /// How fast thrown-up fog settles back down, per second (`exp(-settle * dt)` of the lift
    /// kept per step). Default 0.7.
    pub settle: f32,
    /// How strongly the shock wave's divergence empties the fog where it opens the air and piles
    /// it where it closes (dimensionless factor on `divergence * dt`). Default 0.7.
    pub continuity: f32,
    /// Largest drift offset along x or z, in world units; offsets are clamped to
    /// `[-drift_limit, drift_limit]`. Default 3.0.
    pub drift_limit: f32,
    /// Most fog a cell can hold (1 is the rest density, 0 none). Default 2.0.
    pub max_density: f32,
    /// World units added to a pillar's radius when it is rasterised into solid cells, so the air
    /// keeps clear of its surface. Default 0.04.
    pub solid_margin: f32,
    /// Reach of the ball's push, as a multiple of its radius: within it the air is set toward
    /// the ball's speed and the fog is taken away. Default 1.35.
    pub ball_reach: f32,
    /// Outer radius of the ring that receives the fog the ball removed, as a multiple of its
    /// radius (the ring runs from `ball_reach` out to this). Default 2.4.
    pub ball_ring: f32,
    /// Fraction of the fog under the ball's centre removed per step at full weight (0 to 1).
    /// Default 0.9.
    pub ball_take: f32,
    /// Lift added per world unit per second of the ball's rising speed, at full weight.
    /// Default 0.08.
    pub ball_rise_lift: f32,
    /// Fraction of a blast's outward push that also goes into the ordinary (projected) air,
    /// where obstacles turn it into swirls; the whole push goes into the shock wave.
    /// Default 0.35.
    pub shock_to_air: f32,
    /// Radius of the blast when the ball takes off, as a multiple of its radius (applied by the
    /// ball loop). Default 4.5.
    pub takeoff_radius: f32,
    /// Strength of the take-off blast, as a multiple of the jump speed (dimensionless): the
    /// blast's peak outward air speed is `jump · takeoff_strength` world units per second
    /// (applied by the ball loop). Default 0.6875 (the 3 cells per second per unit of jump
    /// speed the temple used on its 96-cell grid over 22 units).
    pub takeoff_strength: f32,
    /// How much the take-off blast lifts the fog (0 to 1, applied by the ball loop).
    /// Default 0.3.
    pub takeoff_raise: f32,
    /// Radius of the landing blast, as a multiple of the ball's radius (applied by the ball
    /// loop). Default 7.0.
    pub landing_radius: f32,
    /// Strength of the landing blast, as a multiple of the impact speed (dimensionless): the
    /// blast's peak outward air speed is `impact · landing_strength` world units per second
    /// (applied by the ball loop). Default 1.1458 (the temple's former 5 cells per second per
    /// unit of impact speed on its 96-cell grid over 22 units).
    pub landing_strength: f32,
    /// Lift given by a landing per metre per second of impact speed: the raise is
    /// `min(1, impact * landing_raise_per_speed)` (applied by the ball loop). Default 0.1111.
    pub landing_raise_per_speed: f32,
    /// Impact speed in world units per second below which a landing does not blast (applied by
    /// the ball loop). Default 2.0.
    pub landing_min_speed: f32,
    /// Height in world units over which the ball's push fades as its bottom rises out of the
    /// fog top (see [`FluidParams::fog_depth_weight`]). Default 0.8.
    pub fog_depth_fade: f32,
    /// Height in world units above the fog top at which the ball's bottom stops pushing
    /// entirely (see [`FluidParams::fog_depth_weight`]). Default 0.2.
    pub fog_depth_margin: f32,
    /// Air speed in world units per second that maps to 255 in the speed channel of the lift
    /// map (and to the top of the speed debug view). Default 9.1667 (40 cells per second of
    /// the temple's 96-cell grid over 22 units).
    pub speed_scale: f32,
    /// Where the fog comes from: `Relax` (fog everywhere, relaxing toward the rest density 1;
    /// the default) or `Sources(sources: [...], fade: ...)` (fixed sources add fog, all fog
    /// fades). See [`FogModel`].
    #[serde(skip_serializing_if = "is_relax")]
    pub fog: FogModel,
    /// Kinematic viscosity of the air, world units² per second, 0 or more: the velocity is
    /// diffused by an implicit solve each step (before the advection). 0 (the default) skips
    /// the stage.
    #[serde(skip_serializing_if = "is_zero_f32")]
    pub viscosity: f32,
    /// Diffusion of the fog density, world units² per second, 0 or more: an implicit solve
    /// after the fog is carried. 0 (the default) skips the stage.
    #[serde(skip_serializing_if = "is_zero_f32")]
    pub fog_diffusion: f32,
    /// Pressure projections per step, 1 or 2. 1 (the default) projects after the advection;
    /// 2 also projects before it (the stable-fluids loop: forces, diffusion, projection,
    /// advection, projection), so the air is carried by a divergence-free field.
    #[serde(skip_serializing_if = "is_one_projection")]
    pub projections: u32,
    /// Slow force streams that keep the fog drifting, applied in list order. Default none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<FluidStream>,
}

fn is_relax(model: &FogModel) -> bool {
    *model == FogModel::Relax
}

fn is_zero_f32(value: &f32) -> bool {
    value.to_bits() == 0
}

fn is_one_projection(count: &u32) -> bool {
    *count == 1
}

/// The pressure solvers `fluid.solver` names.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PressureSolverKind {
    /// Red-black Gauss-Seidel, `pressure_iterations` sweeps: the example's solver.
    #[default]
    RedBlack,
    /// Red-black successive over-relaxation by `sor_omega`, `pressure_iterations` sweeps.
    Sor,
    /// Geometric multigrid, `multigrid_cycles` V-cycles.
    Multigrid,
}

/// The temple's cell, world units: its 22-unit fog area over the default 96-cell grid. The
/// parameters that were once in cells are converted with it, so the temple keeps its look.
pub const TEMPLE_CELL_WORLD: f32 = 22.0 / 96.0;

/// Default of [`FluidParams::sor_omega`].
pub const DEFAULT_SOR_OMEGA: f32 = 1.8;
/// Default of [`FluidParams::multigrid_cycles`].
pub const DEFAULT_MULTIGRID_CYCLES: u32 = 2;

// The solver fields came after the first scenes were written; they are left out of the
// serialized scene while they hold their defaults, so a scene that does not use them keeps its
// scene hash.
fn is_red_black(kind: &PressureSolverKind) -> bool {
    *kind == PressureSolverKind::RedBlack
}

fn is_default_sor_omega(omega: &f32) -> bool {
    omega.to_bits() == DEFAULT_SOR_OMEGA.to_bits()
}

fn is_default_multigrid_cycles(cycles: &u32) -> bool {
    *cycles == DEFAULT_MULTIGRID_CYCLES
}

impl Default for FluidParams {
    fn default() -> Self {
        Self {
            grid: 96,
            pressure_iterations: 24,
            solver: PressureSolverKind::RedBlack,
            sor_omega: DEFAULT_SOR_OMEGA,
            multigrid_cycles: DEFAULT_MULTIGRID_CYCLES,
            vorticity: 9.0,
            vorticity_threshold: 2.0,
            velocity_decay: 0.55,
            shock_fade: 2.0,
            refill: 0.3,
            spill: 0.8,
            relax: 0.18,
            settle: 0.7,
            continuity: 0.7,
            drift_limit: 3.0,
            max_density: 2.0,
            solid_margin: 0.04,
            ball_reach: 1.35,
            ball_ring: 2.4,
            ball_take: 0.9,
            ball_rise_lift: 0.08,
            shock_to_air: 0.35,
            takeoff_radius: 4.5,
            takeoff_strength: 3.0 * TEMPLE_CELL_WORLD,
            takeoff_raise: 0.3,
            landing_radius: 7.0,
            landing_strength: 5.0 * TEMPLE_CELL_WORLD,
            landing_raise_per_speed: 0.1111,
            landing_min_speed: 2.0,
            fog_depth_fade: 0.8,
            fog_depth_margin: 0.2,
            speed_scale: 40.0 * TEMPLE_CELL_WORLD,
            fog: FogModel::Relax,
            viscosity: 0.0,
            fog_diffusion: 0.0,
            projections: 1,
            streams: Vec::new(),
        }
    }
}

impl FluidParams {
    /// How deep the ball is in the fog, 0 (clear above it) to 1 (fully in): the weight of its
    /// push. `ball_bottom_world` is the ball's lowest point (centre height minus radius),
    /// `fog_top_world` the fog's rest height, both in world units.
    pub fn fog_depth_weight(&self, ball_bottom_world: f32, fog_top_world: f32) -> f32 {
        let above_world = fog_top_world + self.fog_depth_margin - ball_bottom_world;
        let weight = above_world / self.fog_depth_fade;
        // A zero fade gives inf or NaN here, which must not leak out.
        if weight.is_nan() {
            0.0
        } else {
            weight.clamp(0.0, 1.0)
        }
    }
}
