//! fogbank: an offline renderer and video exporter for ground fog that behaves like a fluid.
//!
//! The crate follows the data flow in ARCHITECTURE.md: a [`scene`] is parsed and validated,
//! the [`timeline`] maps output frames to 60 Hz steps, the [`ball`] turns its script into
//! motion, the [`sim`] steps the fluid, [`world`] joins them into one deterministic state that
//! [`playback`] walks frame by frame; the [`pipeline`] runs the frame loop, where the [`gpu`]
//! renders [`frame`] inputs into pictures that [`output`] writes and [`compare`] judges.
//! [`cli`] and [`commands`] are the command line on top, and nothing below them imports them:
//! the library does not know the command line. [`error`] maps every failure to an exit code.

pub mod ball;
pub mod ci;
pub mod cli;
pub mod color;
pub mod commands;
pub mod compare;
pub mod error;
pub mod frame;
pub mod frame_pool;
pub mod gpu;
pub mod interrupt;
pub mod output;
pub mod people;
pub mod pipeline;
pub mod playback;
pub mod rng;
pub mod samples;
pub mod scene;
pub mod sim;
pub mod terrain;
pub mod timeline;
pub mod weather;
pub mod world;

pub use error::Error;
