//! The shaders' forms per scene and adapter, and the pipeline constants that pick them.
//!
//! The shaders take the form that suits the scene and the kind of adapter, chosen once when
//! the frame binding is made. Every form runs the same sums in the same order, so the pictures
//! keep their bytes; `gpu/tests/adapter_forms.rs` renders the GPU forms on lavapipe and
//! compares.
//!
//! A CPU adapter (lavapipe) runs every branch of a shader for every pixel, taken or not, so a
//! discard saves nothing. It leaves a loop only once no pixel of its block has a turn left. It
//! loads uniforms and storage one lane at a time, but reads a fragment's flat inputs once a
//! block. Only a pipeline constant removes code there, so the forms are pipeline constants,
//! given to `ShaderName::create_module`, which drops the branches they rule out
//! (`gpu/specialize.rs`):
//!
//! - `LAMPS_IN_SCENE` ([`FrameBinding::lamp_constants`]) compiles the lamps out of scenes
//!   without any; scene.wgsl's `WEATHER_IN_SCENE` (set by the `scene` pass) does so for
//!   `wet_stone`.
//! - `DISTANCE_FOG_FORM` ([`FrameBinding::distance_fog_constants`]) compiles out the distance
//!   fog's modes not taken and, with no height falloff, its exponentials.
//! - `FIRES_UNROLLED` ([`FrameBinding::fire_constants`]): with at most
//!   [`MAX_FIRES_UNROLLED`] fires, every loop over the fires has a constant count, so the
//!   compiler unrolls it and reads each fire's uniforms at a constant index. `FIRES_ON_CPU`
//!   gives those loops a CPU adapter's shapes: the fog's glow keeps or drops a fire by a
//!   select, and the physical medium loops over the bits of the fires in range. With more fires
//!   a CPU adapter's glow goes by those bits too (`FIRE_GLOW_BY_MASK`).
//! - `FOG_NOISE_LATTICE` and `FOG_NOISE_POINTS`: on a GPU, where the lattice fits, the fog
//!   reads its noise from the lattice the `fog_lattice` pass hashed, as filtered points or,
//!   where the points texture is too large, as each cell's corners; a CPU adapter, which loads
//!   slower than it hashes, hashes.
//! - `FOG_FLUID_VIEW` ([`FrameBinding::fog_constants`]): off for the physical medium outside
//!   the `fluid` view, whose code then leaves its pipelines. Read from the knobs, it made a CPU
//!   adapter shade each physical fragment's seed colour and lights a second time.
//!
//! Other forms are not constants. On a CPU adapter the raster `fog` pass hands its fragments
//! the uniforms as flat inputs ([`FrameBinding::fog_uniforms_as_inputs`]), and the raster
//! `scene` pass draws the floor last, for the depth test to spare the floor's noise behind what
//! stands on it ([`FrameBinding::cpu_adapter`]). The `edges` and `accumulate` passes say theirs.
//! With the seed medium a CPU adapter draws the raster sheets two to a fragment
//! (`passes/fog_groups.rs`): the one form that rounds the sums otherwise, by a level or so.

use super::common::FrameBinding;
use crate::frame::View;
use crate::gpu::distance_fog::DistanceFogParams;
use crate::gpu::medium::{medium_constant, medium_octaves_constant};
use crate::gpu::sky::sky_constants;
use crate::scene::Scene;

/// keep in sync with shaders/common.wgsl: FOG_FORM_FLAT
/// `DISTANCE_FOG_FORM`'s flag for a distance fog without height falloff.
const DISTANCE_FOG_FORM_FLAT: u32 = 4;
/// keep in sync with shaders/common.wgsl: FOG_FORM_ANY
/// `DISTANCE_FOG_FORM` saying nothing: the shaders read the mode and falloff from the uniforms.
#[cfg(test)]
const DISTANCE_FOG_FORM_ANY: u32 = 255;

/// common.wgsl's `DISTANCE_FOG_FORM` for `fog`: its mode, with [`DISTANCE_FOG_FORM_FLAT`]
/// where its height falloff is 0. The weather changes the distance fog's range and colour
/// frame by frame, never its mode or falloff (`WeatherLook::distance_fog`).
pub(super) fn distance_fog_form(fog: &DistanceFogParams) -> u32 {
    #[cfg(test)]
    if FORCE_DISTANCE_FOG_READ.get() {
        return DISTANCE_FOG_FORM_ANY;
    }
    let flat = if fog.height[0] == 0.0 {
        DISTANCE_FOG_FORM_FLAT
    } else {
        0
    };
    fog.mode[0] | flat
}

/// The most fires the shaders unroll their loops over (`FIRES_UNROLLED`); with more the loops
/// read the count from the uniforms, and a CPU adapter's fog glow goes by the in-range bits.
///
/// A GPU gains too: with the temple's five fires a constant count took its `fog_compute` pass
/// from 0.871 to 0.800 ms (H100, 1920 × 1080; `benches/runs/2026-12-07-h100-i`).
pub(crate) const MAX_FIRES_UNROLLED: u32 = 8;

/// The most fires the raster fog hands its fragments as inputs (`FIRE_GLOW_FROM_INPUTS`), two
/// inter-stage variables each.
///
/// keep in sync with shaders/fires.wgsl: MAX_FIRES_AS_INPUTS
pub(crate) const MAX_FIRES_AS_INPUTS: u32 = 7;

/// The inter-stage variables of the raster fog's sheets with the uniforms as inputs: the
/// sheet's position, two a fire, the fog's eight knobs, the eye, the projection's four
/// columns and the distance fog's three. Lavapipe allows 31.
///
/// keep in sync with shaders/fog.wgsl: SheetWithUniformsOut
pub(super) const FOG_INPUT_VARIABLES: u32 = 1 + 2 * MAX_FIRES_AS_INPUTS + 8 + 1 + 4 + 3;

#[cfg(test)]
thread_local! {
    /// Tests only: frame bindings made on this thread choose their shaders' forms as for an
    /// adapter of this type, whatever the adapter (the forms must give the same bytes).
    pub(crate) static FORCE_DEVICE_TYPE: std::cell::Cell<Option<wgpu::DeviceType>> =
        const { std::cell::Cell::new(None) };
    /// Tests only: frame bindings made on this thread never unroll the loops over the fires
    /// (a CPU adapter then lights the fog from the in-range bits, as with many fires).
    pub(crate) static FORCE_FIRES_ROLLED: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
    /// Tests only: frame bindings made on this thread never hand the raster fog's fragments
    /// their uniforms as inputs (they read the uniforms, as with more fires).
    pub(crate) static FORCE_FOG_UNIFORMS_READ: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
    /// Tests only: frame bindings made on this thread leave `DISTANCE_FOG_FORM` unset, so the
    /// shaders read the distance fog's mode and falloff from its uniforms (the same bytes).
    pub(crate) static FORCE_DISTANCE_FOG_READ: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
    /// Tests only: frame bindings made on this thread that would read the noise lattice's
    /// points read its corners instead (the hashed noise's bytes).
    pub(crate) static FORCE_LATTICE_CORNERS: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
    /// Tests only: frame bindings made on this thread leave `FOG_FLUID_VIEW` on, so every fog
    /// pipeline tests the `fluid` view's knob at run time (the same bytes).
    pub(crate) static FORCE_FLUID_VIEW_READ: std::cell::Cell<bool> =
        const { std::cell::Cell::new(false) };
}

impl FrameBinding {
    /// Chooses the forms that depend on the kind of adapter (`cpu`: a CPU adapter) and on what
    /// `device` allows: the unrolled loops over the fires, the glow by the in-range bits, the
    /// raster fog's uniforms as inputs (and, in tests, whether the fog reads its view).
    pub(super) fn choose_forms(&mut self, device: &wgpu::Device, cpu: bool) {
        #[cfg(test)]
        let unrolls = !FORCE_FIRES_ROLLED.get();
        #[cfg(not(test))]
        let unrolls = true;
        self.fires_unrolled = if unrolls && self.fire_count <= MAX_FIRES_UNROLLED {
            self.fire_count
        } else {
            0
        };
        self.fire_glow_by_mask = cpu && self.fires_unrolled == 0;
        #[cfg(test)]
        let cpu_inputs = !FORCE_FOG_UNIFORMS_READ.get();
        #[cfg(not(test))]
        let cpu_inputs = true;
        let inputs_fit = device.limits().max_inter_stage_shader_variables >= FOG_INPUT_VARIABLES;
        let fires_fit =
            self.fires_unrolled == self.fire_count && self.fire_count <= MAX_FIRES_AS_INPUTS;
        self.fog_uniforms_as_inputs = cpu && cpu_inputs && inputs_fit && fires_fit;
        self.cpu_adapter = cpu;
        #[cfg(test)]
        {
            self.fluid_view_read = FORCE_FLUID_VIEW_READ.get();
        }
    }

    /// The pipeline constants of a pass whose module includes lamps.wgsl (given to
    /// `ShaderName::create_module`): `LAMPS_IN_SCENE`, off without lamps, so the lamps'
    /// code is compiled out of the pipeline. The picture is the same (no lamp adds no light);
    /// a CPU adapter runs every branch of a shader, taken or not, and is faster without it.
    /// `MOON_SHADOWS`, on where the moon casts shadows; off, its lookups are compiled out.
    pub(crate) fn lamp_constants(&self) -> [(&'static str, f64); 2] {
        [
            (
                "LAMPS_IN_SCENE",
                if self.lamps_in_scene { 1.0 } else { 0.0 },
            ),
            ("MOON_SHADOWS", f64::from(u8::from(self.moon_shadows))),
        ]
    }

    /// The pipeline constants of a pass whose module includes fires.wgsl: `FIRES_UNROLLED`,
    /// the scene's fire count (up to [`MAX_FIRES_UNROLLED`] fires), so the loops over the
    /// fires unroll and read each fire at a constant index, or 0 (the count read from the
    /// uniforms); and `FIRES_ON_CPU`, on for a CPU adapter, which gives those loops the shapes
    /// that suit it. The same fires in the same order, so the same picture.
    pub(crate) fn fire_constants(&self) -> [(&'static str, f64); 2] {
        [
            ("FIRES_UNROLLED", f64::from(self.fires_unrolled)),
            ("FIRES_ON_CPU", f64::from(u8::from(self.cpu_adapter))),
        ]
    }

    /// The pipeline constants of a pass that applies the distance fog (common.wgsl):
    /// `DISTANCE_FOG_FORM`, the scene's mode and whether its height falloff is 0, which neither
    /// the weather nor anything else changes while it renders, so the other modes and the
    /// falloff's exponentials are compiled out (a CPU adapter runs every branch, taken or not).
    /// The same picture: with falloff 0 the mean density is exactly 1.
    pub(crate) fn distance_fog_constants(&self) -> [(&'static str, f64); 1] {
        [("DISTANCE_FOG_FORM", f64::from(self.distance_fog_form))]
    }

    /// The pipeline constants of a pass whose module includes fog.wgsl (and so lamps.wgsl and
    /// fires.wgsl): [`Self::lamp_constants`], `FOG_NOISE_LATTICE` and `FOG_NOISE_POINTS`, how
    /// the fog reads its noise
    /// ([`NoiseLattice::constants`](crate::gpu::passes::fog_lattice::NoiseLattice::constants)), `FIRE_GLOW_BY_MASK`, on for a CPU adapter whose loops over the
    /// fires are not unrolled, [`Self::fire_constants`], [`Self::distance_fog_constants`],
    /// `FOG_MEDIUM` ([`medium_constant`]), `MEDIUM_OCTAVES` ([`medium_octaves_constant`]),
    /// [`Self::fog_shadow_constants`], sky.wgsl's `WATER_IN_SCENE` and `SKY_CLOUDS`
    /// ([`sky_constants`]), `FLUID_MAP_TEXELS`, the fluid maps' side (the scene's grid), and
    /// `FOG_FLUID_VIEW`, off for the physical medium outside the `fluid` view. The seed
    /// medium keeps it on: there the view's code is arithmetic, not a branch, so compiling it
    /// out saves lavapipe nothing, and it moved some of its pixels by a level.
    pub(crate) fn fog_constants(&self, scene: &Scene, view: View) -> [(&'static str, f64); 15] {
        let [shadowing] = self.fog_shadow_constants();
        let [lamps, moon] = self.lamp_constants();
        let [fires, fires_on_cpu] = self.fire_constants();
        let [distance_fog] = self.distance_fog_constants();
        let [water, clouds] = sky_constants(scene);
        let [lattice, points] = self.fog_lattice.constants();
        let seed = scene.fog.medium.physical().is_none();
        let fluid_view = self.fluid_view_read || view == View::Fluid || seed;
        let by_mask = (
            "FIRE_GLOW_BY_MASK",
            f64::from(u8::from(self.fire_glow_by_mask)),
        );
        [
            lamps,
            moon,
            lattice,
            points,
            by_mask,
            fires,
            fires_on_cpu,
            distance_fog,
            ("FOG_MEDIUM", f64::from(medium_constant(&scene.fog.medium))),
            (
                "MEDIUM_OCTAVES",
                f64::from(medium_octaves_constant(&scene.fog.medium)),
            ),
            shadowing,
            water,
            clouds,
            ("FLUID_MAP_TEXELS", f64::from(scene.fluid.grid)),
            ("FOG_FLUID_VIEW", f64::from(u8::from(fluid_view))),
        ]
    }

    /// The pipeline constants of a pass that reads the fog's shadow on its lights (the fog's
    /// passes and the `scene` pass): common.wgsl's `FOG_SELF_SHADOWING`, off unless the fog
    /// shadows itself, so the grid's reads are compiled out and the pictures keep their bytes.
    pub(crate) fn fog_shadow_constants(&self) -> [(&'static str, f64); 1] {
        [(
            "FOG_SELF_SHADOWING",
            f64::from(u8::from(self.fog_shadows_itself)),
        )]
    }
}
