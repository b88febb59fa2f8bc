//! [`Compositor`]: how the fog is put over the scene (`--compositor`), the raster `fog` pass,
//! the per-pixel `fog_compute` pass or the `raymarch` reference, and which one `Auto` picks
//! on an adapter.

/// The raymarch's steps per ray when `--steps` is not given.
pub const DEFAULT_RAYMARCH_STEPS: u32 = 256;

/// How the fog is put over the scene (`--compositor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Compositor {
    /// The `fog` pass: the sheets as quads, rasterised and blended back to front.
    #[default]
    Raster,
    /// The `fog_compute` pass: the sheets crossed per pixel, front to back, in a compute shader.
    Compute,
    /// `Compute` on a discrete GPU (where fragment work is the bottleneck), `Raster` otherwise.
    Auto,
    /// The `raymarch` pass: no sheets, the continuous fog integrated along each pixel's ray in
    /// `steps` steps (shaders/raymarch.wgsl): the reference the sheets approximate.
    Raymarch {
        /// Steps per ray through the fog's box, at least 1.
        steps: u32,
    },
}

impl serde::Serialize for Compositor {
    /// The name alone, as `--compositor` takes it (a raymarch's steps are reported apart).
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl Compositor {
    /// Every choice, in the order the CLI lists them (the raymarch with its default steps).
    pub const ALL: [Compositor; 4] = [
        Compositor::Raster,
        Compositor::Compute,
        Compositor::Auto,
        Compositor::Raymarch {
            steps: DEFAULT_RAYMARCH_STEPS,
        },
    ];

    /// The name used by `--compositor` and the JSON summary.
    pub fn name(self) -> &'static str {
        match self {
            Compositor::Raster => "raster",
            Compositor::Compute => "compute",
            Compositor::Auto => "auto",
            Compositor::Raymarch { .. } => "raymarch",
        }
    }

    /// The compositor that runs on an adapter of `device_type`: `Auto` becomes `Compute` on a
    /// discrete GPU and `Raster` elsewhere (integrated GPUs, lavapipe); the others stay.
    pub fn resolve(self, device_type: wgpu::DeviceType) -> Compositor {
        match self {
            Compositor::Auto if device_type == wgpu::DeviceType::DiscreteGpu => Compositor::Compute,
            Compositor::Auto => Compositor::Raster,
            chosen => chosen,
        }
    }

    /// Whether a compute pass writes the fog per pixel (`Compute` and `Raymarch`), reading the
    /// scene from a copy and writing the picture as a storage texture.
    pub fn is_per_pixel(self) -> bool {
        matches!(self, Compositor::Compute | Compositor::Raymarch { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_compute_only_on_discrete_gpus() {
        use wgpu::DeviceType;
        assert_eq!(
            Compositor::Auto.resolve(DeviceType::DiscreteGpu),
            Compositor::Compute
        );
        for other in [
            DeviceType::IntegratedGpu,
            DeviceType::Cpu,
            DeviceType::VirtualGpu,
            DeviceType::Other,
        ] {
            assert_eq!(Compositor::Auto.resolve(other), Compositor::Raster);
        }
        for fixed in [Compositor::Raster, Compositor::Compute] {
            assert_eq!(fixed.resolve(DeviceType::DiscreteGpu), fixed);
            assert_eq!(fixed.resolve(DeviceType::Cpu), fixed);
        }
        assert_eq!(Compositor::default(), Compositor::Raster);
        let names: Vec<&str> = Compositor::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["raster", "compute", "auto", "raymarch"]);
        let raymarch = Compositor::Raymarch { steps: 64 };
        assert_eq!(raymarch.resolve(DeviceType::DiscreteGpu), raymarch);
        assert!(raymarch.is_per_pixel() && Compositor::Compute.is_per_pixel());
        assert!(!Compositor::Raster.is_per_pixel());
        assert_eq!(serde_json::to_string(&raymarch).unwrap(), "\"raymarch\"");
    }
}
