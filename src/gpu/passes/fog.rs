//! The `fog` pass: the ground fog as `fog.sheets` horizontal see-through sheets over the fog's
//! square, one shared shader (shaders/fog.wgsl, `shade_sheet`), drawn back to front over the
//! scene with premultiplied blending. Each fragment reads the scene's depth and counts only the
//! part of its sheet's slab of fog in front of it, so the fog thins smoothly to a pillar's foot
//! instead of in bands. The only depth test is the raster compositor's cut-off
//! (`fog_cutoff.rs`), which skips fragments with no slab in front of the scene.
//!
//! The sheets never move; only their drawing order changes with the camera. They are
//! horizontal planes, so along any view ray the sheet farther from the eye's height is
//! crossed first: sorting by `|eye.y - height|`, largest first, is back to front for every
//! pixel at once.
//!
//! Each frame only the sheets that can show fog are drawn: those below the fog's ceiling (the
//! rest top plus the most any point of the lift map is lifted, `fog_ceiling_world`). Above it
//! the fog's height profile is exactly 0, so such a sheet's alpha is exactly 0 and its blend
//! would leave the picture as it was: leaving it out gives the same bytes, and on a CPU adapter
//! (lavapipe), which shades every fragment in full whatever it turns out to be, half the work
//! when the fog lies at rest. Each sheet under the ceiling is then drawn only over the parts of
//! the screen where its tiles of the square can hold fog (`fog_footprint.rs`): a scissored draw
//! of the same quad, so again the same bytes.
//!
//! On a CPU adapter with the seed medium a fragment shades a pair of neighbouring sheets along
//! its ray, and the blend lays their sum over the picture (`fog_groups.rs`): lavapipe's cost of
//! drawing a fragment is paid once for two sheets.
//!
//! With `output.fog_resolution: Half` the pass owns a [`FogHalf`]: the same sheets are drawn at
//! half width and height against a half-size depth, then brought up to the picture's size
//! along the scene's depth (`fog_half.rs`).
//!
//! A CPU adapter loads each uniform float lane by lane, even at a constant offset, but reads a
//! fragment's flat inputs once a block. So where the frame binding says so
//! (`fog_uniforms_as_inputs`: a CPU adapter with at most seven fires, unrolled, and enough
//! inter-stage variables), the pass draws with `vs_fog_with_uniforms` and
//! `fs_fog_with_uniforms`. The vertices read each fire as the glow reads it, the fog's knobs,
//! the eye, the projection and the distance fog, and hand them to the fragments as flat
//! inputs. The same values through the same code, so the same bytes. The compute compositors,
//! the flames and GPUs read the uniforms.

use std::borrow::Cow;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use bytemuck::{Pod, Zeroable};

use crate::frame::{FrameInputs, View};
use crate::gpu::GpuError;
use crate::gpu::camera;
use crate::gpu::common::{FrameBinding, extend};
use crate::gpu::passes::builder::{
    ALL_STAGES, DRAW_STAGES, DepthTest, PREMULTIPLIED_OVER, PassBuilder, PassContext,
    RasterPipeline, SamplePass, SampleRecording, begin_over_read_only_depth, filterable_texture,
    texture, uniform,
};
use crate::gpu::passes::fog_cutoff::FogCutoff;
use crate::gpu::passes::fog_footprint::{self, SheetDraw};
use crate::gpu::passes::fog_groups::{self, SheetGroup};
use crate::gpu::passes::fog_half::FogHalf;
use crate::gpu::renderer::staged_writes::BufferWrites;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets};
use crate::samples::SampleOffset;
use crate::scene::{Fog, Scene};

/// Everything `shade_sheet` reads besides the point, the view direction and the maps.
///
/// keep in sync with shaders/fog.wgsl: FogKnobs
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct FogKnobs {
    /// xy: fog square corner at the smallest x, z; zw: its size.
    pub area: [f32; 4],
    /// xyz: ball centre; w: ball radius.
    pub ball: [f32; 4],
    /// xyz: noise drift per second; w: time in seconds.
    pub wind: [f32; 4],
    /// rgb: fog colour (display sRGB: `shade_sheet` works the example's colour formula in
    /// display values and converts its result to linear); w: the fog's shape
    /// (`FogShape::shader_code`: 0 lift, 1 density sets the height).
    pub fog_color: [f32; 4],
    /// rgb: glow colour (display sRGB); w: glow strength.
    pub glow_color: [f32; 4],
    /// x: fog floor; y: rest top; z: lift height; w: sheet spacing.
    pub layer: [f32; 4],
    /// x: sigma; y: drift range of the map; z: 1 for the `fluid` view; w: how many sheets
    /// (the lowest) `sheets_transmittance` crosses: every sheet, or in the `flame` pass those
    /// under the fog's ceiling.
    pub optics: [f32; 4],
    /// x: sheet count; y: 1 counts the part of a sheet's slab in front of the scene (the
    /// de-banding), 0 the whole slab or nothing; z: the raymarch's steps per ray, 0 when the fog
    /// is drawn as sheets; w: top of the highest sheet's slab.
    pub sampling: [f32; 4],
}

/// 1: each sheet counts the part of its slab in front of the scene (the de-banding), 0: its
/// whole slab or nothing, as a depth test per sheet would (`FogKnobs::sampling`'s y).
pub(crate) const PARTIAL_SLABS: f32 = 1.0;

impl FogKnobs {
    /// The knobs for `view` (the `flow` view thins the fog to a veil, the `fluid` view shows the
    /// maps), with the ball at its start and time 0 until [`FogKnobs::for_frame`].
    pub(crate) fn new(scene: &Scene, view: View) -> Self {
        let fog = &scene.fog;
        let sigma = if view == View::Flow {
            fog.veil_sigma
        } else {
            fog.sigma
        };
        let debug = if view == View::Fluid { 1.0 } else { 0.0 };
        FogKnobs {
            area: fog_square(fog),
            ball: [
                scene.ball.start[0],
                scene.ball.radius,
                scene.ball.start[1],
                scene.ball.radius,
            ],
            wind: extend(fog.wind, 0.0),
            fog_color: extend(fog.color, fog.shape.shader_code()),
            glow_color: extend(fog.glow_color, fog.glow),
            layer: [fog.bottom, fog.top, fog.lift_height, fog.sheet_spacing()],
            optics: [sigma, fog.offset_range, debug, fog.sheets as f32],
            sampling: [fog.sheets as f32, PARTIAL_SLABS, 0.0, fog.sheets_top],
        }
    }

    /// These knobs for a raymarch of `steps` steps per ray instead of sheets.
    pub(crate) fn raymarched(mut self, steps: u32) -> Self {
        self.sampling[2] = steps as f32;
        self
    }

    /// These knobs with partial slabs at the scene's depth counted (on) or not (off).
    #[cfg(test)]
    pub(crate) fn with_partial_slabs(mut self, on: bool) -> Self {
        self.sampling[1] = if on { 1.0 } else { 0.0 };
        self
    }

    /// These knobs with this frame's ball and time.
    pub(crate) fn for_frame(&self, inputs: &FrameInputs<'_>) -> Self {
        let mut knobs = *self;
        knobs.ball = extend(inputs.ball_pos_world, self.ball[3]);
        knobs.wind[3] = inputs.time_s;
        // With weather, the noise drifts as far as the wind carried it (worked out on the CPU),
        // passed as the per-second rate the shader multiplies by the time.
        if let Some(weather) = &inputs.weather {
            let time_s = inputs.time_s;
            let per_s = |drift: f32| if time_s > 0.0 { drift / time_s } else { 0.0 };
            let [x, y, z] = weather.noise_drift_world;
            knobs.wind = [per_s(x), per_s(y), per_s(z), time_s];
            // Gloom dims the sheets and a flash lights them (`WeatherFrame::fog_light`).
            for c in &mut knobs.fog_color[..3] {
                *c *= weather.fog_light;
            }
        }
        knobs
    }
}

/// The fog's square as the shaders take it: xy its corner at the smallest x and z, zw its
/// size (world units).
pub(crate) fn fog_square(fog: &Fog) -> [f32; 4] {
    let half_world = fog.area * 0.5;
    [-half_world, -half_world, fog.area, fog.area]
}

/// The height of every sheet, lowest first: where the `fog` pass draws its quads and the
/// `fog_compute` pass crosses its planes.
pub(crate) fn sheet_heights(fog: &Fog) -> Vec<f32> {
    (0..fog.sheets).map(|i| fog.sheet_height(i)).collect()
}

/// The sheets' heights for one sample of a frame, lowest first: `centre` (the heights of
/// [`sheet_heights`]) for the centre sample, else each sheet moved to the sample's phase of its
/// slab (`crate::samples`), so a frame's samples see the fog between the sheets too.
pub(crate) fn sample_sheet_heights<'h>(
    fog: &Fog,
    centre: &'h [f32],
    sample: &SampleOffset,
) -> Cow<'h, [f32]> {
    if sample.is_centre() {
        return Cow::Borrowed(centre);
    }
    let phase = sample.depth_phase;
    Cow::Owned(
        (0..fog.sheets)
            .map(|i| fog.sheet_height_at(i, phase))
            .collect(),
    )
}

/// The height (world) the fog reaches nowhere this frame: the rest top (`layer`'s y, which the
/// density-height shape only lowers) plus the lift height times the largest lift in the lift
/// map (`lift_map`, RGBA8 with the lift in red), which the shader's bilinear reads of the map
/// never exceed.
pub(crate) fn fog_ceiling_world(knobs: &FogKnobs, lift_map: &[u8]) -> f32 {
    let max_lift = lift_map
        .chunks_exact(4)
        .map(|texel| texel[0])
        .max()
        .unwrap_or(0);
    knobs.layer[1] + f32::from(max_lift) / 255.0 * knobs.layer[2]
}

/// How many of the sheets `heights_world` (lowest first) can show fog under `ceiling_world`. A
/// sheet samples the fog at most half a spacing below its own height (`sample_sheet` moves the
/// point back along the ray by at most half a slab, whose height is one spacing), and at or
/// above the ceiling the fog's height profile is exactly 0; a whole spacing of margin covers
/// the rounding of the shader's sums.
pub(crate) fn sheets_under(heights_world: &[f32], spacing_world: f32, ceiling_world: f32) -> usize {
    heights_world.partition_point(|&height_world| height_world - spacing_world <= ceiling_world)
}

/// Sheet heights in drawing order for an eye at `eye_y_world`: farthest from the eye's height
/// first. Ties keep the lower sheet first, so the order never depends on the sort.
pub(crate) fn back_to_front(heights_world: &[f32], eye_y_world: f32) -> Vec<f32> {
    let mut order: Vec<usize> = (0..heights_world.len()).collect();
    order.sort_by(|&a, &b| {
        let da = (eye_y_world - heights_world[a]).abs();
        let db = (eye_y_world - heights_world[b]).abs();
        db.total_cmp(&da).then(a.cmp(&b))
    });
    order.into_iter().map(|i| heights_world[i]).collect()
}

/// The `fog` pass's pipeline, knobs and sheets; also the fog layer's raster pass
/// (`fog_layer.rs`), the same sheets under another name.
pub(crate) struct FogPass {
    /// `fog`, or `fog_layer`: the label of the pass and of its wgpu objects.
    name: &'static str,
    pipeline: wgpu::RenderPipeline,
    bind_group: wgpu::BindGroup,
    knobs_buffer: wgpu::Buffer,
    knobs: FogKnobs,
    /// One f32 per sheet, or one [`SheetGroup`] per group, rewritten each frame in drawing
    /// order (instance buffer).
    sheet_order: wgpu::Buffer,
    /// Whether a fragment shades a group of sheets (`fog_groups.rs`): on CPU adapters.
    grouped: bool,
    /// How many sheets (the lowest) this frame draws: those under the fog's ceiling
    /// (`sheets_under`), set by `prepare`; all of them before the first frame.
    drawn: AtomicU32,
    /// How many instances this frame draws: `drawn` sheets, or the groups holding them.
    instances: AtomicU32,
    /// Where each drawn sheet can show fog this frame, as scissored draws in drawing order
    /// (`fog_footprint.rs`), set by `prepare`; `None` draws every drawn sheet whole.
    footprint: Mutex<Option<Vec<SheetDraw>>>,
    /// How far from its crossing a sheet's fragment reads the fog (`fog_footprint::reach_world`).
    reach_world: f32,
    /// The picture's width and height, pixels: the camera's aspect and the footprint's margin.
    picture_size_px: (u32, u32),
    /// Tests only: draw every sheet, as before the ceiling was worked out.
    #[cfg(test)]
    every_sheet: bool,
    heights_world: Vec<f32>,
    /// The fog section, for the sheets' heights of each sample.
    fog: Fog,
    /// The half-size targets and upsampling, with `output.fog_resolution: Half`.
    half: Option<FogHalf>,
    /// The depth the sheets are tested against, past which they show no fog
    /// (`fog_cutoff.rs`): the raster compositor's full-size fog.
    cutoff: Option<FogCutoff>,
}

impl FogPass {
    /// The sheets of `scene` in `view`, as the pass `name` (`fog`, or `fog_layer` for the
    /// layer's own pass), drawn at half size through `half` when given. With `cutoff` (the
    /// raster compositor's own pass) a full-size pass tests its sheets against a cut-off
    /// depth.
    pub(crate) fn new(
        ctx: &PassContext<'_>,
        name: &'static str,
        half: Option<FogHalf>,
        cutoff: bool,
    ) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            maps,
            targets,
            scene,
            view,
            ..
        } = *ctx;
        // On CPU adapters with a few fires the vertices read the fires and the knobs for the
        // fragments.
        let mut constants = frame.fog_constants(scene, view).to_vec();
        let grouped = fog_groups::grouped(frame);
        let (vertex_entry, fragment_entry) = match (frame.fog_uniforms_as_inputs, grouped) {
            (true, _) => {
                let fires = frame.fires_unrolled > 0;
                constants.push(("FIRE_GLOW_FROM_INPUTS", f64::from(u8::from(fires))));
                match grouped {
                    true => ("vs_fog_group_with_uniforms", "fs_fog_group_with_uniforms"),
                    false => ("vs_fog_with_uniforms", "fs_fog_with_uniforms"),
                }
            }
            (false, true) => ("vs_fog_group", "fs_fog_group"),
            (false, false) => ("vs_fog", "fs_fog"),
        };
        let module = ShaderName::Fog.create_module(device, errors, &constants)?;
        let build = PassBuilder::new(device, name);
        let knobs = FogKnobs::new(scene, view);
        let knobs_buffer = build.uniform_buffer::<FogKnobs>("knobs");
        let heights_world = sheet_heights(&scene.fog);
        let instance_bytes = match grouped {
            true => std::mem::size_of::<SheetGroup>(),
            false => std::mem::size_of::<f32>(),
        };
        let sheet_order = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(&build.label("sheet_order")),
            // At least one element: a zero-sized vertex buffer cannot be bound (a group holds
            // at least one sheet).
            size: (heights_world.len().max(1) * instance_bytes) as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });

        let layout = build.bind_group_layout(&[
            uniform(0, ALL_STAGES),
            filterable_texture(1, DRAW_STAGES),
            filterable_texture(2, DRAW_STAGES),
            // The scene's depth, read by the fragments (no depth attachment: see
            // `record_sheets`).
            texture(
                3,
                wgpu::ShaderStages::FRAGMENT,
                wgpu::TextureSampleType::Float { filterable: false },
            ),
        ]);
        let bind_group = build.bind_group(
            &layout,
            [
                knobs_buffer.as_entire_binding(),
                wgpu::BindingResource::TextureView(&maps.fluid_view),
                wgpu::BindingResource::TextureView(&maps.lift_view),
                // At half size the depth each half-size texel stands for.
                wgpu::BindingResource::TextureView(match &half {
                    Some(half) => &half.depth_view,
                    None => targets.scene_depth_view(),
                }),
            ],
        );
        let attributes = match grouped {
            true => wgpu::vertex_attr_array![0 => Float32x4],
            false => wgpu::vertex_attr_array![0 => Float32],
        };
        let cutoff = cutoff && half.is_none();
        #[cfg(test)]
        let cutoff = cutoff && !crate::gpu::passes::fog_cutoff::FORCE_NO_CUTOFF.get();
        let sheets = RasterPipeline {
            part: None,
            module: &module,
            vertex_entry,
            fragment_entry,
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: instance_bytes as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &attributes,
            })],
            bind_group_layouts: &[&frame.layout, &layout],
            topology: wgpu::PrimitiveTopology::TriangleList,
            // Seen from above and from below.
            cull_mode: None,
            // Each fragment counts the part of its slab in front of the scene
            // (`visible_slab_world` in fog.wgsl) and discards itself where there is none. The
            // cut-off's depth test only skips some of those before they are shaded.
            depth: cutoff.then_some(DepthTest::OVER),
            format: COLOR_FORMAT,
            blend: Some(PREMULTIPLIED_OVER),
        };
        let pipeline = build.raster_pipeline(&sheets);
        let size = targets.output.size();
        let cutoff = cutoff.then(|| {
            let size_px = (size.width, size.height);
            FogCutoff::new(&build, &module, (frame, &layout), &scene.fog, size_px)
        });

        Ok(FogPass {
            name,
            pipeline,
            bind_group,
            knobs_buffer,
            knobs,
            sheet_order,
            grouped,
            drawn: AtomicU32::new(heights_world.len() as u32),
            instances: AtomicU32::new(0),
            footprint: Mutex::new(None),
            reach_world: fog_footprint::reach_world(
                scene.fog.sheet_spacing(),
                scene.fog.least_slab_slope(),
            ),
            picture_size_px: (targets.output.width(), targets.output.height()),
            heights_world,
            fog: scene.fog.clone(),
            #[cfg(test)]
            every_sheet: false,
            half,
            cutoff,
        })
    }

    /// Turns the counting of partial slabs on or off from the next frame (tests compare both).
    #[cfg(test)]
    pub(crate) fn set_partial_slabs(&mut self, on: bool) {
        self.knobs = self.knobs.with_partial_slabs(on);
    }

    /// Draws every sheet, under the fog's ceiling or not, from the next frame (tests compare
    /// the two).
    #[cfg(test)]
    pub(crate) fn set_every_sheet(&mut self, on: bool) {
        self.every_sheet = on;
    }

    /// How many sheets the last `prepare` chose to draw.
    #[cfg(test)]
    pub(crate) fn sheets_drawn(&self) -> u32 {
        self.drawn.load(Ordering::Relaxed)
    }

    /// How many screen cells the last `prepare`'s scissored draws cover, summed over the sheets
    /// (`fog_footprint.rs`); `None` when every drawn sheet was drawn whole.
    #[cfg(test)]
    pub(crate) fn footprint_cells(&self) -> Option<u32> {
        let footprint = self
            .footprint
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        footprint
            .as_ref()
            .map(|draws| draws.iter().map(|draw| draw.cells.area()).sum())
    }

    /// How many sheets `prepare` draws for `knobs` and `inputs`.
    fn sheets_to_draw(&self, heights: &[f32], knobs: &FogKnobs, inputs: &FrameInputs<'_>) -> usize {
        #[cfg(test)]
        if self.every_sheet {
            return heights.len();
        }
        let ceiling_world = fog_ceiling_world(knobs, inputs.lift_map);
        sheets_under(heights, knobs.layer[3], ceiling_world)
    }

    /// Queues this frame's knobs and the order of the sheets it draws (applied at the next
    /// submit).
    pub(crate) fn prepare(&self, queue: &dyn BufferWrites, inputs: &FrameInputs<'_>) {
        let knobs = self.knobs.for_frame(inputs);
        queue.write_buffer(&self.knobs_buffer, 0, bytemuck::bytes_of(&knobs));
        if let Some(cutoff) = &self.cutoff {
            cutoff.prepare(queue, inputs);
        }
        let heights = sample_sheet_heights(&self.fog, &self.heights_world, &inputs.sample);
        let drawn = self.sheets_to_draw(&heights, &knobs, inputs);
        self.drawn.store(drawn as u32, Ordering::Relaxed);
        let mut footprint = None;
        let mut instances = 0;
        let eye_y_world = inputs.camera.eye_world[1];
        if drawn > 0 && self.grouped {
            let (width, height) = self.picture_size_px;
            let aspect = width as f32 / height.max(1) as f32;
            let guard_world = fog_groups::near_guard_world(inputs.camera.fov_y_deg, aspect);
            let blocks = (drawn, fog_groups::SHEETS_PER_GROUP);
            let groups = fog_groups::sheet_groups(&heights, blocks, eye_y_world, guard_world);
            queue.write_buffer(&self.sheet_order, 0, bytemuck::cast_slice(&groups));
            let sheets = groups.iter().map(|group| &heights[group.indices()]);
            footprint = self.footprint_of(sheets, &knobs, inputs);
            instances = groups.len();
        } else if drawn > 0 {
            let order = back_to_front(&heights[..drawn], eye_y_world);
            queue.write_buffer(&self.sheet_order, 0, bytemuck::cast_slice(&order));
            footprint = self.footprint_of(order.chunks(1), &knobs, inputs);
            instances = drawn;
        }
        self.instances.store(instances as u32, Ordering::Relaxed);
        *self
            .footprint
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()) = footprint;
    }

    /// The scissored draws of the instances `order` (drawing order, each given by its sheets'
    /// heights) for `inputs`; `None` in the `fluid` view, which shows a band of every column,
    /// fog or not.
    fn footprint_of<'h>(
        &self,
        order: impl IntoIterator<Item = &'h [f32]>,
        knobs: &FogKnobs,
        inputs: &FrameInputs<'_>,
    ) -> Option<Vec<SheetDraw>> {
        #[cfg(test)]
        if self.every_sheet {
            return None;
        }
        if knobs.optics[2] > 0.0 {
            return None;
        }
        let ceilings = fog_footprint::tile_ceilings(
            knobs,
            inputs.fluid_map,
            inputs.lift_map,
            self.reach_world,
        );
        let clip_from_world = camera::frame_clip_from_world(inputs, self.picture_size_px);
        Some(fog_footprint::group_draws(
            order,
            &ceilings,
            clip_from_world,
            self.picture_size_px,
            knobs.layer[3],
        ))
    }

    /// Records the pass over what the `scene` pass left in the targets (at half size: the
    /// half-size depth, the sheets into the half-size fog, and its upsampling over the picture).
    /// (The later samples of `--edge-samples` on a full-size fog are drawn by the
    /// `fog_compute` pass over the listed pixels instead: `passes/edges.rs`.)
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (targets, frame): (&Targets, &FrameBinding),
    ) {
        match &self.half {
            None => {
                let color = &targets.color_linear_view;
                let cutoff = self.cutoff.as_ref().map(|cutoff| {
                    cutoff.record(encoder, frame, &self.bind_group);
                    cutoff.view()
                });
                self.record_sheets(encoder, (color, cutoff), wgpu::LoadOp::Load, frame);
            }
            Some(half) => {
                half.record_depth(encoder);
                let fog_view = &half.fog_view;
                self.record_sheets(encoder, (fog_view, None), wgpu::LoadOp::Load, frame);
                half.record_upsample(encoder, targets);
            }
        }
    }

    /// Records the sheets, back to front, into `color_view` (kept with `LoadOp::Load`, or
    /// cleared first), each fragment weighed by the part of its slab in front of the scene's
    /// depth, which the pass reads as a texture (so it is no attachment): the `fog` pass itself,
    /// and the fog layer (`fog_layer.rs`) over transparent black. The blend is premultiplied
    /// "over" in colour and alpha alike, so over transparent black the layer's alpha is the
    /// fog's total coverage `1 - Π(1 - αᵢ)`, and the layer over the fogless picture gives
    /// what the `fog` pass draws over it.
    pub(crate) fn record_sheets(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        (color_view, cutoff): (&wgpu::TextureView, Option<&wgpu::TextureView>),
        load: wgpu::LoadOp<wgpu::Color>,
        frame: &FrameBinding,
    ) {
        let mut pass = begin_over_read_only_depth(encoder, self.name, color_view, load, cutoff);
        let drawn = self.instances.load(Ordering::Relaxed);
        if drawn == 0 {
            return;
        }
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        pass.set_vertex_buffer(0, self.sheet_order.slice(..));
        let footprint = self
            .footprint
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let Some(draws) = footprint.as_ref() else {
            pass.draw(0..6, 0..drawn);
            return;
        };
        let (width, height) = match &self.half {
            Some(half) => half.size,
            None => self.picture_size_px,
        };
        for draw in draws {
            let (x, y, w, h) = draw.cells.scissor_px(width, height);
            if w == 0 || h == 0 {
                continue;
            }
            pass.set_scissor_rect(x, y, w, h);
            pass.draw(0..6, draw.sheet..draw.sheet + 1);
        }
    }
}

impl SamplePass for FogPass {
    fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, sample: &SampleRecording<'_>) {
        self.record(encoder, (sample.targets, sample.frame));
    }
}

#[cfg(test)]
mod tests;
