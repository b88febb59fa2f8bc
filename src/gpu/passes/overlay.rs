//! The `overlay` pass: the lines that explain the fog, drawn over it (shaders/overlay.wgsl).
//!
//! - `sheets` view: every fog sheet as its outline and one diagonal, as the example's
//!   wireframe view (the sheets never move: all the motion is in the fog shader).
//! - `flow` view: the fluid as a mesh of lines, one point every `fog.flow_every` cells each way,
//!   each point placed in the vertex shader from the maps (drift, lift, density) and coloured by
//!   the air's speed; rows and columns joined. Nothing is built on the CPU per frame.
//!
//! The `fog` and `fluid` views draw no overlay. Lines are depth-tested against the scene and
//! blended like the fog.

use bytemuck::{Pod, Zeroable};

use crate::frame::View;
use crate::gpu::GpuError;
use crate::gpu::common::{FrameBinding, extend, srgb_to_linear};
use crate::gpu::passes::builder::{
    ALL_STAGES, DRAW_STAGES, DepthTest, PREMULTIPLIED_OVER, PassBuilder, PassContext,
    RasterPipeline, SamplePass, SampleRecording, begin_over_picture, filterable_texture, uniform,
};
use crate::gpu::passes::fog::fog_square;
use crate::gpu::shaders::ShaderName;
use crate::gpu::targets::{COLOR_FORMAT, Targets};
use crate::scene::Scene;

/// The example's outline colour for the sheets (display sRGB).
const SHEET_LINE_SRGB: [f32; 3] = [0.55, 0.75, 1.0];
/// Air speed, world units per second, at which a flow point is fully orange (the example's 30
/// cells per second on the temple's grid).
const FLOW_FULL_SPEED_WORLD: f32 = 30.0 * crate::sim::TEMPLE_CELL_WORLD;
/// Vertices per sheet: four outline segments and the diagonal.
const SHEET_LINE_VERTICES: u32 = 10;

/// What the `overlay` pass reads.
///
/// keep in sync with shaders/overlay.wgsl: OverlayKnobs
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub(crate) struct OverlayKnobs {
    /// xy: fog square corner at the smallest x, z; zw: its size.
    pub area: [f32; 4],
    /// rgb: sheet outline colour (linear); w: number of sheets.
    pub sheet_color: [f32; 4],
    /// x: drift range; y: lift height; z: speed for 1.0 in the map; w: speed for full orange
    /// (both world units per second).
    pub flow_scale: [f32; 4],
    /// x: grid cells per side; y: cells between points; z: points per side.
    pub flow_grid: [u32; 4],
}

/// The flow mesh's points per side: one every `every` cells (at least 1).
fn flow_points_per_side(grid: u32, every: u32) -> u32 {
    grid / every.max(1)
}

/// Vertices of the flow mesh: per row and per column, one segment between neighbours.
pub(crate) fn flow_vertex_count(points_per_side: u32) -> u32 {
    points_per_side * points_per_side.saturating_sub(1) * 2 * 2
}

impl OverlayKnobs {
    pub(crate) fn new(scene: &Scene) -> Self {
        let fog = &scene.fog;
        let grid = scene.fluid.grid;
        let every = fog.flow_every.max(1);
        OverlayKnobs {
            area: fog_square(fog),
            sheet_color: extend(srgb_to_linear(SHEET_LINE_SRGB), fog.sheets as f32),
            flow_scale: [
                fog.offset_range,
                fog.lift_height,
                scene.fluid.speed_scale,
                FLOW_FULL_SPEED_WORLD,
            ],
            flow_grid: [grid, every, flow_points_per_side(grid, every), 0],
        }
    }
}

/// Which lines the view draws.
enum Lines {
    /// One instance per sheet.
    Sheets {
        pipeline: wgpu::RenderPipeline,
        heights: wgpu::Buffer,
        sheets: u32,
    },
    /// The flow mesh.
    Flow {
        pipeline: wgpu::RenderPipeline,
        vertices: u32,
    },
}

/// The `overlay` pass for one view; nothing to draw for the `fog` and `fluid` views.
pub(crate) struct OverlayPass {
    lines: Option<Lines>,
    bind_group: wgpu::BindGroup,
}

impl OverlayPass {
    /// Whether `view` has lines drawn over the picture (tested against the scene's depth).
    pub(crate) fn draws_lines(view: View) -> bool {
        !matches!(view, View::Fog | View::Fluid)
    }

    pub(crate) fn new(ctx: &PassContext<'_>) -> Result<Self, GpuError> {
        let PassContext {
            device,
            errors,
            frame,
            maps,
            scene,
            view,
            ..
        } = *ctx;
        let build = PassBuilder::new(device, ShaderName::Overlay.name());
        let knobs = OverlayKnobs::new(scene);
        let knobs_buffer = build.static_uniform_buffer("knobs", bytemuck::bytes_of(&knobs));
        let layout = build.bind_group_layout(&[
            uniform(0, ALL_STAGES),
            filterable_texture(1, DRAW_STAGES),
            filterable_texture(2, DRAW_STAGES),
        ]);
        let bind_group = build.bind_group(
            &layout,
            [
                knobs_buffer.as_entire_binding(),
                wgpu::BindingResource::TextureView(&maps.fluid_view),
                wgpu::BindingResource::TextureView(&maps.lift_view),
            ],
        );
        let groups = [&frame.layout, &layout];

        let lines = match view {
            View::Fog | View::Fluid => None,
            View::Sheets => {
                let heights: Vec<f32> = (0..scene.fog.sheets.max(1))
                    .map(|i| scene.fog.sheet_height(i))
                    .collect();
                let heights = build.buffer_init(
                    "sheet_heights",
                    bytemuck::cast_slice(&heights),
                    wgpu::BufferUsages::VERTEX,
                );
                let attributes = wgpu::vertex_attr_array![0 => Float32];
                let instance = wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<f32>() as u64,
                    step_mode: wgpu::VertexStepMode::Instance,
                    attributes: &attributes,
                };
                let module = ShaderName::Overlay.create_module(device, errors, &[])?;
                let pipeline = build.raster_pipeline(&line_pipeline(
                    &module,
                    "sheet_lines",
                    "vs_sheet_lines",
                    &groups,
                    &[Some(instance)],
                ));
                Some(Lines::Sheets {
                    pipeline,
                    heights,
                    sheets: scene.fog.sheets,
                })
            }
            View::Flow => {
                let module = ShaderName::Overlay.create_module(device, errors, &[])?;
                let pipeline = build.raster_pipeline(&line_pipeline(
                    &module,
                    "flow_lines",
                    "vs_flow_lines",
                    &groups,
                    &[],
                ));
                Some(Lines::Flow {
                    pipeline,
                    vertices: flow_vertex_count(knobs.flow_grid[2]),
                })
            }
        };
        Ok(OverlayPass { lines, bind_group })
    }

    /// Records the pass if the view has lines to draw.
    pub(crate) fn record(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        frame: &FrameBinding,
    ) {
        let Some(lines) = &self.lines else {
            return;
        };
        let mut pass = begin_over_picture(encoder, ShaderName::Overlay.name(), targets);
        pass.set_bind_group(0, &frame.bind_group, &[]);
        pass.set_bind_group(1, &self.bind_group, &[]);
        match lines {
            Lines::Sheets {
                pipeline,
                heights,
                sheets,
            } => {
                if *sheets > 0 {
                    pass.set_pipeline(pipeline);
                    pass.set_vertex_buffer(0, heights.slice(..));
                    pass.draw(0..SHEET_LINE_VERTICES, 0..*sheets);
                }
            }
            Lines::Flow { pipeline, vertices } => {
                if *vertices > 0 {
                    pass.set_pipeline(pipeline);
                    pass.draw(0..*vertices, 0..1);
                }
            }
        }
    }
}

/// The line-list pipeline `overlay.part` of the overlay shader with vertex entry point
/// `vertex_entry`, drawn over the fog: depth-tested against the scene, no depth write,
/// premultiplied blending.
fn line_pipeline<'a>(
    module: &'a wgpu::ShaderModule,
    part: &'a str,
    vertex_entry: &'a str,
    bind_group_layouts: &'a [&'a wgpu::BindGroupLayout],
    buffers: &'a [Option<wgpu::VertexBufferLayout<'a>>],
) -> RasterPipeline<'a> {
    RasterPipeline {
        part: Some(part),
        module,
        vertex_entry,
        fragment_entry: "fs_lines",
        buffers,
        bind_group_layouts,
        topology: wgpu::PrimitiveTopology::LineList,
        cull_mode: None,
        depth: Some(DepthTest::OVER_OR_ON),
        format: COLOR_FORMAT,
        blend: Some(PREMULTIPLIED_OVER),
    }
}

impl SamplePass for OverlayPass {
    fn record_sample(&self, encoder: &mut wgpu::CommandEncoder, sample: &SampleRecording<'_>) {
        self.record(encoder, sample.targets, sample.frame);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flow_mesh_matches_the_example() {
        // 96 cells, one point in 2: 48 per side; rows and columns of 47 segments each.
        let knobs = OverlayKnobs::new(&Scene::default());
        assert_eq!(knobs.flow_grid, [96, 2, 48, 0]);
        assert_eq!(flow_vertex_count(48), 48 * 47 * 2 * 2);
        assert_eq!(flow_vertex_count(1), 0);
        assert_eq!(flow_vertex_count(0), 0);
        assert_eq!(flow_points_per_side(96, 0), 96);
    }
}
