//! A walker's body as capsules: a torso, a head, two legs that swing from the hips and lift
//! the foot coming forward, and two arms that swing against the legs.
//!
//! Proportions are fractions of the walker's `height` (hips at half of it, shoulders at 0.8)
//! and of its body `radius` (the legs 0.42 of it, the arms 0.3). The clothes' colour dresses
//! the torso and the arms, the legs wear a darker shade of it, the head is a skin tone.

use crate::color::srgb_to_linear;
use crate::frame::Capsule;
use crate::scene::{Rgb, Walker, hex};

use super::WalkerPose;

/// Capsules per walker: torso, head, left and right leg, left and right arm, in that order.
pub const CAPSULES_PER_WALKER: usize = 6;

/// The head's colour (sRGB).
const SKIN: Rgb = hex(0xc99a7e);
/// The legs' colour as a fraction of the clothes'.
const LEGS_SHADE: f32 = 0.5;
/// Largest swing of a leg from the vertical at full stride, radians.
const LEG_SWING_RAD: f32 = 0.42;
/// An arm's swing as a fraction of the legs'.
const ARM_SWING_SHARE: f32 = 0.6;
/// A full gait cycle (two steps) in heights: 1.4 units for an adult of 1.75.
const GAIT_CYCLE_IN_HEIGHTS: f32 = 0.8;

/// The body's measures, world units, and its colours (linear).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Body {
    radius_world: f32,
    height_world: f32,
    clothes_linear: [f32; 3],
    legs_linear: [f32; 3],
    skin_linear: [f32; 3],
}

fn add(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

fn scaled(v: [f32; 3], k: f32) -> [f32; 3] {
    [v[0] * k, v[1] * k, v[2] * k]
}

impl Body {
    pub(super) fn new(walker: &Walker) -> Body {
        let clothes_linear = walker.color.map(srgb_to_linear);
        Body {
            radius_world: walker.radius,
            height_world: walker.height,
            clothes_linear,
            legs_linear: scaled(clothes_linear, LEGS_SHADE),
            skin_linear: SKIN.map(srgb_to_linear),
        }
    }

    pub(super) fn radius_world(&self) -> f32 {
        self.radius_world
    }

    /// Distance walked in one full gait cycle (two steps), world units.
    pub(super) fn gait_cycle_world(&self) -> f32 {
        (GAIT_CYCLE_IN_HEIGHTS * self.height_world).max(1e-3)
    }

    /// Appends the body's [`CAPSULES_PER_WALKER`] capsules at `pose` to `out`.
    pub(super) fn capsules(&self, pose: &WalkerPose, out: &mut Vec<Capsule>) {
        let (h, r) = (self.height_world, self.radius_world);
        let (sin_h, cos_h) = pose.heading_rad.sin_cos();
        let forward = [sin_h, 0.0, cos_h];
        let right = [cos_h, 0.0, -sin_h];
        let up = [0.0, 1.0, 0.0];
        let leg_r = 0.42 * r;
        let arm_r = 0.3 * r;
        let head_r = 0.07 * h;
        let hip_y = 0.5 * h;
        let leg_length = (hip_y - leg_r).max(0.0);
        let swing = LEG_SWING_RAD * pose.stride;
        let legs = [
            (-1.0, pose.gait_phase_rad),
            (1.0, pose.gait_phase_rad + std::f32::consts::PI),
        ];
        // Each leg's angle from the vertical and how high its foot is lifted.
        let leg_angle = |phase: f32| swing * phase.sin();
        let foot_lift = |phase: f32| {
            let coming_forward = phase.cos().max(0.0);
            0.07 * h * pose.stride * coming_forward * coming_forward
        };
        // The hips bob: the body sinks until the lower foot touches the floor.
        let bob = legs
            .iter()
            .map(|&(_, phase)| foot_lift(phase) + leg_length * (1.0 - leg_angle(phase).cos()))
            .fold(f32::MAX, f32::min);
        let base = [pose.pos_world[0], -bob, pose.pos_world[1]];
        // A point of the body: `f` forward, `s` to the right, `y` up from the feet's spot.
        let at = |f: f32, s: f32, y: f32| {
            add(
                add(base, scaled(forward, f)),
                add(scaled(right, s), scaled(up, y)),
            )
        };
        let capsule = |a_world, b_world, radius_world, albedo_linear| Capsule {
            a_world,
            b_world,
            radius_world,
            albedo_linear,
        };

        // Leaning a little into the walk.
        let lean = 0.03 * h * pose.stride;

        // Torso: from just below the hips to the shoulders.
        let torso_low = 0.47 * h + r;
        let torso_high = (0.83 * h - r).max(torso_low);
        out.push(capsule(
            at(0.0, 0.0, torso_low),
            at(lean, 0.0, torso_high),
            r,
            self.clothes_linear,
        ));
        // Head: a sphere on top.
        let head = at(1.3 * lean, 0.0, h - head_r);
        out.push(capsule(head, head, head_r, self.skin_linear));

        // Legs: pendulums from the hips, the one coming forward lifting its foot.
        for (side, phase) in legs {
            let angle = leg_angle(phase);
            let lift = foot_lift(phase);
            let hip = at(0.0, side * 0.5 * r, hip_y);
            let (sin_a, cos_a) = angle.sin_cos();
            let foot = add(
                hip,
                add(
                    scaled(forward, leg_length * sin_a),
                    scaled(up, lift - leg_length * cos_a),
                ),
            );
            out.push(capsule(hip, foot, leg_r, self.legs_linear));
        }

        // Arms: from the shoulders, swinging against the leg on their side.
        let shoulder_y = 0.8 * h;
        let arm_length = (0.36 * h - arm_r).max(0.0);
        for (side, phase) in legs {
            let angle = -ARM_SWING_SHARE * swing * phase.sin();
            let shoulder = at(lean * 0.8, side * (r + 0.8 * arm_r), shoulder_y);
            let (sin_a, cos_a) = angle.sin_cos();
            let hand = add(
                shoulder,
                add(
                    scaled(forward, arm_length * sin_a),
                    add(
                        scaled(right, side * 0.15 * arm_r),
                        scaled(up, -arm_length * cos_a),
                    ),
                ),
            );
            out.push(capsule(shoulder, hand, arm_r, self.clothes_linear));
        }
    }
}
