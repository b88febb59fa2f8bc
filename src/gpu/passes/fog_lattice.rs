//! The `fog_lattice` pass (shaders/fog_lattice.wgsl): the corners of every cell of the fog's
//! 3D value noise that a sample can read in this frame, hashed once into a buffer that every
//! pass reading the fog binds at group 0, binding 6 (`fog_lattice` in shaders/fog.wgsl).
//!
//! Each fog sample reads three octaves of the noise, and each octave blends the eight integer
//! hashes round its cell: 24 hashes a sample, a third of the fog's cost on a discrete GPU.
//! Neighbouring samples share cells, and the hash of a lattice point never changes, so the
//! pass hashes each cell's eight corners once a frame (the very `fog_cell_corners` the samples
//! called) and the samples load them: the same values, blended by the same code, so the
//! pictures keep their bytes.
//!
//! Which cells: a sample point lies in the fog's box (the square from the floor to the highest
//! the fog or a sheet reaches), or at most half a sheet's slab outside it (`sample_sheet` moves
//! the point back along the ray by up to half a slab, `Fog::least_slab_slope`), and the medium reads
//! the noise there moved by the map's drift (at most half the drift range each way), lowered by
//! the lift (at most 0.9), scaled and carried by the wind. [`LatticeLayout`] bounds each
//! octave's cells from that, with a cell to spare on every side; only the wind's offset changes
//! from frame to frame, so the sizes are fixed and each frame moves the boxes
//! ([`LatticeLayout::header`]). A fog square so large that its lattice would pass
//! [`MAX_LATTICE_CELLS`] hashes per sample instead (`FOG_NOISE_LATTICE` off), as before, and so
//! does a CPU adapter, which loads slower than it hashes ([`lattice_form`]).
//!
//! Lavapipe's pictures keep their bytes (it hashes, through the same blend). On an NVIDIA H200
//! the fog reading the lattice differs from the hashed one by one level in a few pixels (4 of
//! 2 million at 1920 × 1080): its compiler fuses the blend's multiplies and adds differently
//! when the corners come from memory.
//!
//! The lattice takes one of two forms ([`LatticeForm`]). `Corners` is the buffer above: each
//! cell's eight corners, blended by the shader's own smoothstep. `Points` is a 3D texture with
//! one value a lattice point, the octaves stacked along z, read by one filtered sample an
//! octave: a trilinear read at `cell + 0.5 + w`, where `w` is the smoothstep's weight on each
//! axis, blends the same eight values by the same weights. Samplers keep as few as 8 bits of a
//! weight, so this form differs from the hashed noise by a level at most; in exchange each
//! octave costs one texture read instead of two 16-byte loads and seven blends. It needs
//! filtered reads of 32-bit floats (`FLOAT32_FILTERABLE`); without them a GPU reads the
//! corners.

use bytemuck::{Pod, Zeroable};

use crate::frame::FrameInputs;
use crate::gpu::GpuError;
use crate::gpu::common::FrameBinding;
use crate::gpu::context::ErrorSink;
use crate::gpu::passes::builder::{PassBuilder, read_write_storage_buffer};
use crate::gpu::passes::fog::FogKnobs;
use crate::gpu::shaders::ShaderName;
use crate::scene::Fog;

/// Each octave's scale of the medium's noise point (`fog_octave_point`).
///
/// keep in sync with shaders/noise.wgsl: fog_octave_point
const OCTAVE_SCALES: [f64; 3] = [1.0, 2.03, 4.01];

/// Each octave's offset of the medium's noise point, after the scale (`fog_octave_point`).
///
/// keep in sync with shaders/noise.wgsl: fog_octave_point
const OCTAVE_OFFSETS: [[f64; 3]; 3] = [[0.0; 3], [5.2, 1.3, 7.1], [2.7, 9.1, 3.3]];

/// How the medium scales the moved point before the noise reads it, per axis (`fog_medium`).
///
/// keep in sync with shaders/fog.wgsl: fog_medium
const MEDIUM_SCALE: [f64; 3] = [0.55, 1.4, 0.55];

/// How far fully lifted fog reads its noise below the point, world units (`fog_medium`).
///
/// keep in sync with shaders/fog.wgsl: fog_medium
const LIFT_DROP_WORLD: f64 = 0.9;

/// How far outside the fog's box a sample can lie, in sheet spacings: half the longest slab
/// (the spacing over [`Fog::least_slab_slope`]), rounded up. Three for the seed medium.
fn slab_reach_spacings(fog: &Fog) -> f64 {
    (0.5 / f64::from(fog.least_slab_slope())).ceil()
}

/// The most cells a lattice may hold (32 bytes each: 32 MiB). The temple's holds about 120 000.
pub(crate) const MAX_LATTICE_CELLS: u64 = 1 << 20;

/// Invocations in one workgroup, one cell each.
///
/// keep in sync with shaders/fog_lattice.wgsl: WORKGROUP_CELLS
const WORKGROUP_CELLS: u32 = 64;

/// Workgroups in one row of the dispatch (the limit on one dimension).
const DISPATCH_ROW: u32 = 65_535;

/// Bytes of one cell's corners: two `vec4<f32>`.
///
/// keep in sync with shaders/noise.wgsl: FogCellCorners
const CELL_BYTES: u64 = 32;

/// The points texture's format: the hash's values exactly (half floats moved the temple's fog
/// by up to 3 levels), filterable where the device has `FLOAT32_FILTERABLE`.
///
/// keep in sync with shaders/fog_lattice.wgsl: lattice_points
const POINTS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R32Float;

/// The format of the one texel bound in the points' place when the fog does not read them:
/// filterable on every device, so the frame's bind group is valid without `FLOAT32_FILTERABLE`.
const UNREAD_POINTS_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R16Float;

/// Invocations of the points' fill along each axis of a workgroup.
///
/// keep in sync with shaders/fog_lattice.wgsl: cs_fog_lattice_points
const POINTS_WORKGROUP: u32 = 4;

/// How the fog's passes read their noise (fog.wgsl's `FOG_NOISE_LATTICE` and
/// `FOG_NOISE_POINTS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LatticeForm {
    /// Each sample hashes its cells' corners: CPU adapters, and lattices too large to fill.
    Hashed,
    /// Each cell's eight corners in the buffer, blended by the shader: the hashed noise's
    /// values and weights.
    Corners,
    /// One value a lattice point in a 3D texture, blended by the sampler.
    Points,
}

/// The lattice the frame's group 0 binds: the buffer (the boxes, then with
/// [`LatticeForm::Corners`] every cell's corners) and the points texture (one texel unless
/// [`LatticeForm::Points`]).
#[derive(Debug, Clone)]
pub(crate) struct NoiseLattice {
    pub form: LatticeForm,
    pub buffer: wgpu::Buffer,
    pub points: wgpu::TextureView,
}

impl NoiseLattice {
    /// The lattice of `layout` in `form`, unfilled.
    pub(crate) fn new(device: &wgpu::Device, layout: &LatticeLayout, form: LatticeForm) -> Self {
        let build = PassBuilder::new(device, ShaderName::FogLattice.name());
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&build.label("cells")),
            size: layout.buffer_bytes(form == LatticeForm::Corners),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::COPY_DST
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let ([width, height, depth], format, usage) = match form {
            LatticeForm::Points => (
                layout.points_extent(),
                POINTS_FORMAT,
                wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::STORAGE_BINDING,
            ),
            _ => (
                [1; 3],
                UNREAD_POINTS_FORMAT,
                wgpu::TextureUsages::TEXTURE_BINDING,
            ),
        };
        let points = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(&build.label("points")),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: depth,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D3,
            format,
            usage,
            view_formats: &[],
        });
        NoiseLattice {
            form,
            buffer,
            points: points.create_view(&Default::default()),
        }
    }

    /// The fog's passes' pipeline constants for this form: `FOG_NOISE_LATTICE` and
    /// `FOG_NOISE_POINTS`.
    pub(crate) fn constants(&self) -> [(&'static str, f64); 2] {
        let on = |yes: bool| f64::from(u8::from(yes));
        [
            ("FOG_NOISE_LATTICE", on(self.form != LatticeForm::Hashed)),
            ("FOG_NOISE_POINTS", on(self.form == LatticeForm::Points)),
        ]
    }
}

/// One octave's block of cells in a frame.
///
/// keep in sync with shaders/noise.wgsl: FogLatticeBox
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct LatticeBox {
    /// xyz: the lowest cell; w: the index of its corners in the buffer's cells.
    pub origin: [i32; 4],
    /// xyz: cells along each axis; w: cells in all.
    pub size: [u32; 4],
    /// `origin` as floats, for the points' reads (`fog_points_noise`), which then convert no
    /// integer per sample: xyz the lowest cell, w the first layer of points.
    pub origin_f32: [f32; 4],
    /// xyz: the last cell along each axis (`size` − 1) as floats; w: 0.
    pub last_f32: [f32; 4],
}

/// The boxes of the three octaves, at the start of the lattice buffer, and the points
/// texture's extent.
///
/// keep in sync with shaders/noise.wgsl: FogLattice
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct LatticeHeader {
    pub boxes: [LatticeBox; 3],
    /// xyz: the points texture's texels along each axis as floats ([`LatticeLayout::points_extent`]
    /// with [`LatticeForm::Points`], else 1); w: 0.
    pub points_extent_f32: [f32; 4],
}

/// Where the noise of a scene's fog can be read, octave by octave, before the wind's offset.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LatticeLayout {
    /// The lowest noise point (before the octave's scale and offset) a sample can read, with
    /// no wind.
    still_low: [f64; 3],
    /// Cells along each axis, per octave.
    sizes: [[u32; 3]; 3],
}

impl LatticeLayout {
    /// The layout for the fog of `knobs` (any frame's: only the wind differs between them),
    /// whose slabs `fog` sets.
    pub(crate) fn new(knobs: &FogKnobs, fog: &Fog) -> Self {
        let [area_x, area_z, size_x, size_z] = knobs.area.map(f64::from);
        let [
            floor_world,
            rest_top_world,
            lift_height_world,
            spacing_world,
        ] = knobs.layer.map(f64::from);
        let drift_reach_world = 0.5 * f64::from(knobs.optics[1]).abs();
        let sheets_top_world = f64::from(knobs.sampling[3]);
        let reach_world = slab_reach_spacings(fog) * spacing_world.abs();
        let top_world = (rest_top_world + lift_height_world).max(sheets_top_world);
        // The sample points, then the points the medium reads its noise at.
        let low_world = [
            area_x - reach_world - drift_reach_world,
            floor_world - reach_world - LIFT_DROP_WORLD,
            area_z - reach_world - drift_reach_world,
        ];
        let high_world = [
            area_x + size_x + reach_world + drift_reach_world,
            top_world + reach_world,
            area_z + size_z + reach_world + drift_reach_world,
        ];
        let still_low = std::array::from_fn(|axis| low_world[axis] * MEDIUM_SCALE[axis]);
        let sizes = OCTAVE_SCALES.map(|scale| {
            std::array::from_fn(|axis| {
                let extent = (high_world[axis] - low_world[axis]) * MEDIUM_SCALE[axis] * scale;
                // The cells from the lowest point's to the highest's, and one more each side.
                (extent.ceil().max(0.0) as u32).saturating_add(3)
            })
        });
        LatticeLayout { still_low, sizes }
    }

    /// Cells in all three octaves' boxes.
    pub(crate) fn cells(&self) -> u64 {
        self.sizes
            .iter()
            .map(|size| size.iter().map(|&n| u64::from(n)).product::<u64>())
            .sum()
    }

    /// Whether the lattice is small enough to fill each frame ([`MAX_LATTICE_CELLS`]).
    pub(crate) fn fits(&self) -> bool {
        self.cells() <= MAX_LATTICE_CELLS
    }

    /// Texels of the points texture along x, y and z: every octave's points (one more than its
    /// cells along each axis), the octaves one after another along z.
    pub(crate) fn points_extent(&self) -> [u32; 3] {
        let widest = |axis: usize| self.sizes.iter().map(|size| size[axis] + 1).max();
        let depth = self.sizes.iter().map(|size| size[2] + 1).sum();
        [widest(0).unwrap_or(1), widest(1).unwrap_or(1), depth]
    }

    /// Whether the points texture fits `limits` (its sides at most the largest 3D texture's).
    pub(crate) fn points_fit(&self, limits: &wgpu::Limits) -> bool {
        self.points_extent()
            .iter()
            .all(|&side| side <= limits.max_texture_dimension_3d)
    }

    /// Bytes of the buffer: the header, then every cell's corners when the fog `reads` the
    /// lattice (one cell when nothing does).
    pub(crate) fn buffer_bytes(&self, reads: bool) -> u64 {
        let cells = if reads { self.cells() } else { 1 };
        std::mem::size_of::<LatticeHeader>() as u64 + cells * CELL_BYTES
    }

    /// The boxes for a frame whose wind has carried the noise `wind_world` (the medium's
    /// `knobs.wind.xyz * knobs.wind.w`), laid out for `form`: each box's `origin.w` is its
    /// first cell in the buffer, or with [`LatticeForm::Points`] its first layer of points.
    pub(crate) fn header(&self, wind_world: [f32; 3], form: LatticeForm) -> LatticeHeader {
        let mut first = 0u32;
        let boxes = std::array::from_fn(|octave| {
            let size = self.sizes[octave];
            let origin: [i32; 3] = std::array::from_fn(|axis| {
                let low = (self.still_low[axis] + f64::from(wind_world[axis]))
                    * OCTAVE_SCALES[octave]
                    + OCTAVE_OFFSETS[octave][axis];
                // A cell to spare below the lowest point's cell.
                low.floor()
                    .clamp(f64::from(i32::MIN / 2), f64::from(i32::MAX / 2)) as i32
                    - 1
            });
            let cells = size[0] * size[1] * size[2];
            let origin = [origin[0], origin[1], origin[2], first as i32];
            let lattice_box = LatticeBox {
                origin,
                size: [size[0], size[1], size[2], cells],
                origin_f32: origin.map(|cell| cell as f32),
                last_f32: [size[0] - 1, size[1] - 1, size[2] - 1, 0].map(|cell| cell as f32),
            };
            first += match form {
                LatticeForm::Points => size[2] + 1,
                _ => cells,
            };
            lattice_box
        });
        let points_extent_f32 = match form {
            LatticeForm::Points => {
                let [x, y, z] = self.points_extent();
                [x as f32, y as f32, z as f32, 0.0]
            }
            _ => [1.0, 1.0, 1.0, 0.0],
        };
        LatticeHeader {
            boxes,
            points_extent_f32,
        }
    }
}

/// How the fog's passes read their noise from `layout`'s lattice on an adapter of
/// `device_type` whose textures are bounded by `limits`, and which can filter 32-bit floats or
/// not (`filterable`): on a GPU, from the points texture where it fits and can be filtered,
/// else the corners where they fit, else hashed. A CPU adapter (lavapipe) loads
/// storage one lane at a time and hashes faster than it loads: its fog pass took 934 ms a frame
/// with the corners against 257 without (320 × 180, the temple), and 225 with the points
/// against 143 (640 × 360). An H200's `fog_compute` took 1.67 ms with the corners against 2.06
/// hashing, and an H100's 1.079 with the points against 1.131 with the corners (the temple at
/// 1920 × 1080).
pub(crate) fn lattice_form(
    layout: &LatticeLayout,
    device_type: wgpu::DeviceType,
    (limits, filterable): (&wgpu::Limits, bool),
) -> LatticeForm {
    if device_type == wgpu::DeviceType::Cpu || !layout.fits() {
        LatticeForm::Hashed
    } else if filterable && layout.points_fit(limits) {
        LatticeForm::Points
    } else {
        LatticeForm::Corners
    }
}

/// The pass: its pipeline, the lattice it fills, and the fog's knobs for the wind.
pub(crate) struct FogLatticePass {
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    lattice: NoiseLattice,
    layout: LatticeLayout,
    knobs: FogKnobs,
}

impl FogLatticePass {
    /// The pass filling `frame`'s lattice for the fog of `knobs`, or `None` when the frame's
    /// passes hash the noise themselves ([`LatticeForm::Hashed`]).
    pub(crate) fn new(
        device: &wgpu::Device,
        errors: &ErrorSink,
        frame: &FrameBinding,
        (knobs, layout): (FogKnobs, LatticeLayout),
    ) -> Result<Option<Self>, GpuError> {
        let lattice = frame.fog_lattice.clone();
        let points = lattice.form == LatticeForm::Points;
        if lattice.form == LatticeForm::Hashed {
            return Ok(None);
        }
        let module = ShaderName::FogLattice.create_module(device, errors, &[])?;
        let build = PassBuilder::new(device, ShaderName::FogLattice.name());
        let buffer = read_write_storage_buffer(0, wgpu::ShaderStages::COMPUTE);
        let (bindings, bind_group, entry) = if points {
            let texture = wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::StorageTexture {
                    access: wgpu::StorageTextureAccess::WriteOnly,
                    format: POINTS_FORMAT,
                    view_dimension: wgpu::TextureViewDimension::D3,
                },
                count: None,
            };
            let bindings = build.bind_group_layout(&[buffer, texture]);
            let resources = [
                lattice.buffer.as_entire_binding(),
                wgpu::BindingResource::TextureView(&lattice.points),
            ];
            let bind_group = build.bind_group(&bindings, resources);
            (bindings, bind_group, "cs_fog_lattice_points")
        } else {
            let bindings = build.bind_group_layout(&[buffer]);
            let bind_group = build.bind_group(&bindings, [lattice.buffer.as_entire_binding()]);
            (bindings, bind_group, "cs_fog_lattice")
        };
        let pipeline = build.compute_pipeline(&module, entry, &[&bindings]);
        Ok(Some(FogLatticePass {
            pipeline,
            bind_group,
            lattice,
            layout,
            knobs,
        }))
    }

    /// The header of the lattice for the moment of `inputs`.
    fn header(&self, inputs: &FrameInputs<'_>) -> LatticeHeader {
        let wind = self.knobs.for_frame(inputs).wind;
        let wind_world = [wind[0] * wind[3], wind[1] * wind[3], wind[2] * wind[3]];
        self.layout.header(wind_world, self.lattice.form)
    }

    /// Queues this frame's boxes (applied at the next submit).
    pub(crate) fn prepare(&self, queue: &wgpu::Queue, inputs: &FrameInputs<'_>) {
        let header = self.header(inputs);
        queue.write_buffer(&self.lattice.buffer, 0, bytemuck::bytes_of(&header));
    }

    /// What the points' reads take of the header for the moment of `inputs`, for the frame
    /// uniforms (common.wgsl, `noise_points`): each octave's `origin_f32` and `last_f32`, then
    /// the points' extent. On an H100 at 1920 × 1080 the temple's `fog_compute` took 0.771 ms
    /// reading them as uniforms against 0.814 from the lattice's storage buffer.
    pub(crate) fn noise_points(&self, inputs: &FrameInputs<'_>) -> [[f32; 4]; 7] {
        let LatticeHeader {
            boxes,
            points_extent_f32,
        } = self.header(inputs);
        let [a, b, c] = boxes;
        [
            a.origin_f32,
            a.last_f32,
            b.origin_f32,
            b.last_f32,
            c.origin_f32,
            c.last_f32,
            points_extent_f32,
        ]
    }

    /// Records the pass: one invocation a cell, in rows of workgroups, or one a point.
    pub(crate) fn record(&self, encoder: &mut wgpu::CommandEncoder) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(ShaderName::FogLattice.name()),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        if self.lattice.form == LatticeForm::Points {
            let [x, y, z] = self
                .layout
                .points_extent()
                .map(|side| side.div_ceil(POINTS_WORKGROUP));
            pass.dispatch_workgroups(x, y, z);
        } else {
            let groups = (self.layout.cells() as u32).div_ceil(WORKGROUP_CELLS);
            pass.dispatch_workgroups(groups.min(DISPATCH_ROW), groups.div_ceil(DISPATCH_ROW), 1);
        }
    }
}

#[cfg(test)]
mod tests;
