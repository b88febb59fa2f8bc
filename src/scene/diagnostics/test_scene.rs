//! A small document shaped like a scene, shared by the diagnostics and overrides tests: it
//! has nested sections, a list, an enum with struct and unit variants, and an optional field.

use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Hall {
    pub size_world: f32,
    pub pillars: Vec<(f32, f32)>,
    pub name: String,
}

impl Default for Hall {
    fn default() -> Self {
        Self {
            size_world: 24.0,
            pillars: vec![(-3.5, -3.5), (3.5, -3.5), (-3.5, 3.5), (3.5, 3.5)],
            name: "temple".to_string(),
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Fog {
    pub sheets: u32,
    pub color: (f32, f32, f32),
    pub density: f32,
}

impl Default for Fog {
    fn default() -> Self {
        Self {
            sheets: 48,
            color: (0.8, 0.8, 0.9),
            density: 0.5,
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct FollowCamera {
    pub lag: f32,
    pub look_height: f32,
}

impl Default for FollowCamera {
    fn default() -> Self {
        Self {
            lag: 2.5,
            look_height: 1.0,
        }
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct FixedCamera {
    pub position: (f32, f32, f32),
    pub target: (f32, f32, f32),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Camera {
    Follow(FollowCamera),
    Fixed(FixedCamera),
    Orbit,
}

impl Default for Camera {
    fn default() -> Self {
        Camera::Follow(FollowCamera::default())
    }
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub enum Step {
    Steer { at: f32, toward: (f32, f32) },
    Jump { at: f32 },
    Stop,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[serde(default, deny_unknown_fields)]
pub struct Scene {
    pub hall: Hall,
    pub fog: Fog,
    pub camera: Camera,
    pub script: Vec<Step>,
    pub title: Option<String>,
}
