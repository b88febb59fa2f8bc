//! The deterministic 2D fluid that moves the fog: Jos Stam's stable fluids ("Stable Fluids",
//! SIGGRAPH 1999) on a square grid over the floor, as the temple example runs it on the CPU.
//! It lives apart from the GPU and the scene file: callers stir it (the ball, blasts), step it
//! at a fixed `dt`, and read it back as the two RGBA8 maps the fog shader samples.
//!
//! Per step ([`FluidSim::step`]): vorticity confinement, the optional viscosity
//! (`fluid.viscosity`), an optional first projection (`fluid.projections: 2`), semi-Lagrangian
//! advection of the air with decay, warm-started pressure projection, the separate shock-wave
//! field (which projection would erase, being all divergence), the fog itself — density, drift
//! offsets and lift — carried by the sum of both velocities, and the optional fog diffusion.
//! The walls are applied as confinement, advection and projection write each row, so the air
//! is not read again for them. What stirs the fluid from outside (the ball, blasts, streams,
//! wind, walkers) is applied by the world between steps.
//!
//! Every parameter is in world units and seconds ([`FluidParams`]). The grid keeps its
//! velocities in cells per second and converts at the boundary through
//! [`GridMapping::cell_size_world`], so a scene gives the same fog on any grid (`tests_units`).
//! The row kernels run with the widest instructions the CPU has (`lanes`), each choice to the
//! same bits.
//!
//! Determinism is a property, not an accident: every stage writes each output row from input
//! buffers only (the red-black pressure sweeps read one colour and write the other; the
//! multigrid's and the diffusions' half-sweeps write the next buffer from the last), rows are
//! spread over rayon's threads, and reductions run in a fixed sequential order, so the state is
//! bit-identical for any thread count. [`FluidSim::state_hash`] lets replays check that.

mod advect;
mod aligned;
mod brush;
mod confine;
mod diffusion;
mod exp;
mod forces;
mod grid;
mod hash;
mod lanes;
pub mod maps;
mod multigrid;
mod params;
mod pressure;
mod readout;
mod shock;
mod snapshot;
mod sources;
mod stages;
mod stencil;
mod team;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_sources;
#[cfg(test)]
mod tests_units;
mod wind;

use aligned::AlignedFloats;
use multigrid::Multigrid;
use pressure::PressureSolver;

pub use diffusion::DIFFUSION_SWEEPS;
pub use forces::BallPush;
pub use grid::GridMapping;
pub use hash::{FNV1A64_OFFSET_BASIS, fnv1a64, fnv1a64_extend};
pub use params::{
    DEFAULT_MULTIGRID_CYCLES, DEFAULT_SOR_OMEGA, FluidParams, PressureSolverKind, TEMPLE_CELL_WORLD,
};
pub use readout::{FieldStats, Probe};
pub use snapshot::{SnapshotError, SnapshotHeader};
pub(crate) use snapshot::{get_f32, get_f64, get_u64, put_u64, take};
pub use sources::{FluidStream, FogModel, FogSource};
pub use wind::WindPush;

/// Smallest grid the simulation runs: stencils need an interior and a border.
pub const MIN_GRID_CELLS: usize = 4;

/// The fluid's state, structure of arrays, one `cells × cells` row-major field per quantity
/// (index `j * cells + i`, see [`GridMapping`]).
#[derive(Debug, Clone)]
pub struct FluidSim {
    params: FluidParams,
    mapping: GridMapping,
    /// Rows per rayon task at the least (see `grid::min_rows_per_task`); tests lower it to force
    /// splitting on small grids. It never changes results, only how work is shared.
    min_rows_per_task: usize,
    /// The instructions the advections run with (the widest the CPU has; tests pick each one).
    /// It never changes results.
    lanes: lanes::Lanes,
    /// Air velocity along +x (`i`), in cells per second.
    u: AlignedFloats,
    /// Air velocity along +z (`j`), in cells per second.
    v: AlignedFloats,
    /// Shock-wave velocity along +x, in cells per second (not projected).
    su: AlignedFloats,
    /// Shock-wave velocity along +z, in cells per second (not projected).
    sv: AlignedFloats,
    /// Fog density: 1 at rest, 0 none, up to `max_density` piled up.
    density: AlignedFloats,
    /// How far along x the air carried the fog's wisps, in world units.
    off_x: AlignedFloats,
    /// How far along z the air carried the fog's wisps, in world units.
    off_z: AlignedFloats,
    /// How high the fog has been thrown, 0 to 1.
    lift: AlignedFloats,
    /// Pressure from the last projection, in grid order (the solver keeps its own copy, split
    /// by checkerboard colour, and starts the next solve from it).
    pressure: AlignedFloats,
    /// 1 where a pillar or the altar stands, else 0.
    solid: Vec<u8>,
    // Scratch: the next value of each advected field and the curl; and the pressure solver.
    u_next: AlignedFloats,
    v_next: AlignedFloats,
    su_next: AlignedFloats,
    sv_next: AlignedFloats,
    density_next: AlignedFloats,
    off_x_next: AlignedFloats,
    off_z_next: AlignedFloats,
    lift_next: AlignedFloats,
    curl: AlignedFloats,
    /// Scratch of the advections: the two fields carried by the air packed per cell (`u, v`,
    /// then `su, sv`), and the fog's four (`density, off_x, off_z, lift`), so one bilinear read
    /// loads every field of a cell at once (`grid::pack_fields`). Sized on first use, and only
    /// under `Lanes::Plain` (the AVX2 read takes the fields as they lie, `advect::near`).
    packed_pair: Vec<[f32; 2]>,
    packed_fog: Vec<[f32; 4]>,
    solver: PressureSolver,
    /// The `multigrid` solver's levels (with the divergence it solves for), built only when
    /// the parameters name it.
    multigrid: Option<Box<Multigrid>>,
    /// `fluid.fog: Sources`: the summed source rate per cell (density per second) and the
    /// fade per second; `None` for `Relax`. Built once from the parameters.
    fog_sources: Option<(Vec<f32>, f32)>,
    /// Each of `fluid.streams`' discs with its falloff per cell, in list order (`sources.rs`).
    stream_discs: Vec<Option<sources::StreamDisc>>,
    /// Scratch of the diffusion stages, made on their first use.
    diffusion: Option<diffusion::DiffusionScratch>,
    /// Per row, whether the shock holds anything but zeros there: found by
    /// `advect_shock` before it carries the shock, then for what it carried (the fog's carry
    /// reads that); and its scratch.
    shock_rows: Vec<bool>,
    shock_rows_next: Vec<bool>,
    /// Whether the shock's and the fog's carries pass over rows with no shock near them
    /// (`shock.rs`). Always on; tests turn it off to see it change no bit.
    skip_calm_shock_rows: bool,
}

impl FluidSim {
    /// The moving state's float fields in their one fixed order — u, v, su, sv, density, off_x,
    /// off_z, lift, pressure — shared by the state hash and the snapshots.
    pub(super) fn state_fields(&self) -> [&[f32]; 9] {
        [
            &self.u,
            &self.v,
            &self.su,
            &self.sv,
            &self.density,
            &self.off_x,
            &self.off_z,
            &self.lift,
            &self.pressure,
        ]
    }

    /// A fluid at rest with no solids and the fog at rest: density 1 everywhere (`fluid.fog:
    /// Relax`), or each cell at the level its sources hold it at in still air, `rate / fade`
    /// capped at `max_density` (`Sources`; 0 everywhere when `fade` is 0).
    ///
    /// The grid size is `mapping.cells`; callers build the mapping from `params.grid` and the
    /// fog's area. Grids smaller than [`MIN_GRID_CELLS`] are raised to it (the scene's
    /// validation rejects them before this point).
    pub fn new(params: &FluidParams, mapping: GridMapping) -> FluidSim {
        let mapping = GridMapping {
            cells: mapping.cells.max(MIN_GRID_CELLS),
            ..mapping
        };
        let count = mapping.cell_count();
        let zeros = AlignedFloats::zeros(count);
        let fog_sources = match &params.fog {
            FogModel::Relax => None,
            FogModel::Sources { sources, fade } => {
                Some((sources::source_rates(sources, &mapping), *fade))
            }
        };
        let density = match &fog_sources {
            None => AlignedFloats::filled(count, 1.0),
            Some((rates, fade)) => AlignedFloats::from_slice(&sources::settled_density(
                rates,
                *fade,
                params.max_density,
            )),
        };
        FluidSim {
            params: params.clone(),
            mapping,
            min_rows_per_task: grid::min_rows_per_task(mapping.cells),
            lanes: lanes::Lanes::detect(),
            u: zeros.clone(),
            v: zeros.clone(),
            su: zeros.clone(),
            sv: zeros.clone(),
            density,
            off_x: zeros.clone(),
            off_z: zeros.clone(),
            lift: zeros.clone(),
            pressure: zeros.clone(),
            solid: vec![0; count],
            u_next: zeros.clone(),
            v_next: zeros.clone(),
            su_next: zeros.clone(),
            sv_next: zeros.clone(),
            density_next: zeros.clone(),
            off_x_next: zeros.clone(),
            off_z_next: zeros.clone(),
            lift_next: zeros.clone(),
            curl: zeros,
            packed_pair: Vec::new(),
            packed_fog: Vec::new(),
            solver: PressureSolver::new(mapping.cells),
            multigrid: (params.solver == PressureSolverKind::Multigrid)
                .then(|| Box::new(Multigrid::new(mapping.cells))),
            fog_sources,
            stream_discs: sources::stream_discs(&params.streams, &mapping),
            diffusion: None,
            shock_rows: vec![false; mapping.cells],
            shock_rows_next: vec![false; mapping.cells],
            skip_calm_shock_rows: true,
        }
    }

    /// Advances the fluid by `dt_s` seconds (the frame loop uses exactly 1/60). A negative or
    /// non-finite `dt_s` leaves the state untouched.
    pub fn step(&mut self, dt_s: f32) {
        self.step_observed(dt_s, &mut |_| {});
    }

    /// [`FluidSim::step`], calling `after_stage` with each stage's name as it finishes (the
    /// benchmark times stages with it). The state is exactly what `step` gives.
    #[doc(hidden)]
    pub fn step_observed(&mut self, dt_s: f32, after_stage: &mut (dyn FnMut(&'static str) + Send)) {
        if !dt_s.is_finite() || dt_s < 0.0 {
            return;
        }
        // Each stage hands rows to rayon. From a thread outside the pool, every hand-off is a
        // round trip through the pool's queue and a wake-up; from one of its workers, the work
        // runs inline and the other workers steal. So the whole step runs on a worker: one
        // round trip per step instead of one per stage and pressure half-sweep.
        if rayon::current_thread_index().is_none() && self.mapping.cells > self.min_rows_per_task {
            rayon::scope(|_| self.run_stages(dt_s, after_stage));
        } else {
            self.run_stages(dt_s, after_stage);
        }
    }

    /// The stages of [`FluidSim::step`] in order, on the calling thread.
    fn run_stages(&mut self, dt_s: f32, after_stage: &mut dyn FnMut(&'static str)) {
        self.confine_vortices_then_walls(dt_s);
        after_stage("confine_vortices + walls");
        if self.params.viscosity > 0.0 {
            self.diffuse_velocity(dt_s);
            after_stage("diffuse_velocity");
        }
        if self.params.projections >= 2 {
            self.project_then_walls(self.pressure_rounds(), after_stage);
            after_stage("project (before advection): gradient + walls");
        }
        self.advect_velocity_then_walls(dt_s);
        after_stage("advect_velocity + walls");
        self.project_then_walls(self.pressure_rounds(), after_stage);
        after_stage("project: gradient + walls");
        let shock_active = self.advect_shock(dt_s);
        after_stage("advect_shock");
        self.carry_fog(dt_s, shock_active);
        after_stage("carry_fog");
        if self.params.fog_diffusion > 0.0 {
            self.diffuse_fog(dt_s);
            after_stage("diffuse_fog");
        }
    }

    /// `fluid.speed_scale` (world units per second) in the grid's cells per second: the air
    /// speed that maps to 255 in the speed channels of the maps.
    pub fn speed_scale_cells(&self) -> f32 {
        self.params.speed_scale / self.mapping.cell_size_world()
    }

    /// Sweeps (red-black solvers) or V-cycles (multigrid) of one projection.
    fn pressure_rounds(&self) -> u32 {
        match self.params.solver {
            PressureSolverKind::Multigrid => self.params.multigrid_cycles,
            PressureSolverKind::RedBlack | PressureSolverKind::Sor => {
                self.params.pressure_iterations
            }
        }
    }

    /// Which instructions the step's row kernels run with on this CPU, picked once at run
    /// time: `"plain"`, `"AVX2"` or `"AVX-512"` (every choice gives the same bits).
    pub fn kernel_lanes(&self) -> &'static str {
        self.lanes.name()
    }

    /// Where the grid lies on the floor.
    pub fn mapping(&self) -> &GridMapping {
        &self.mapping
    }

    /// The parameters the fluid was built with.
    pub fn params(&self) -> &FluidParams {
        &self.params
    }

    /// Fog density per cell (1 at rest).
    pub fn density(&self) -> &[f32] {
        &self.density
    }

    /// The ordinary (projected) air velocity `(u, v)` along +x and +z, in cells per second.
    pub fn velocity(&self) -> (&[f32], &[f32]) {
        (&self.u, &self.v)
    }

    /// The shock-wave velocity `(su, sv)` along +x and +z, in cells per second.
    pub fn shock(&self) -> (&[f32], &[f32]) {
        (&self.su, &self.sv)
    }

    /// How high the fog has been thrown per cell, 0 to 1.
    pub fn lift(&self) -> &[f32] {
        &self.lift
    }

    /// The drift offsets `(off_x, off_z)` per cell, in world units.
    pub fn drift(&self) -> (&[f32], &[f32]) {
        (&self.off_x, &self.off_z)
    }

    /// The pressure left by the last projection.
    pub fn pressure(&self) -> &[f32] {
        &self.pressure
    }

    /// Root mean square over the interior cells of what the last projection's pressure solve
    /// left unsolved of `lap(p) = div` (the divergence the projection leaves in the air,
    /// before walls): how well `fluid.solver` converged. 0 before the first step.
    #[doc(hidden)]
    pub fn pressure_residual_rms(&mut self) -> f64 {
        match &mut self.multigrid {
            Some(multigrid) => multigrid.residual_rms(),
            None => self.solver.residual_rms(),
        }
    }

    /// 1 for solid cells, 0 for open ones.
    pub fn solid(&self) -> &[u8] {
        &self.solid
    }
}
