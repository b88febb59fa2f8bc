//! A walker's path as timed points on the floor, and where on it the walker is at any time.
//!
//! Both kinds of scene path ([`WalkerPath::Timed`] and [`WalkerPath::Waypoints`]) resolve to
//! one [`Route`]: points with the time the walker is there and the distance walked so far.
//! Between two points the walker goes straight at constant speed; before the first time it
//! stands at the first point, after the last at the last. Every query is a pure function of
//! the absolute time, computed in `f64` in a fixed order.

use crate::scene::WalkerPath;

/// One point of a route.
#[derive(Debug, Clone, Copy, PartialEq)]
struct RoutePoint {
    /// When the walker is here, seconds.
    time_s: f64,
    /// Where, world x and z.
    pos_world: [f64; 2],
    /// Distance walked from the first point to here, world units.
    walked_world: f64,
}

/// A walker's path, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// At least one point, times strictly increasing (validation guarantees it; `new` drops
    /// any point that is not later than the one before, so a bad route cannot panic).
    points: Vec<RoutePoint>,
}

impl Route {
    /// The route of a scene path. Waypoints are timed from `start_s` at `speed`.
    pub fn new(path: &WalkerPath) -> Route {
        let timed: Vec<(f64, [f64; 2])> = match path {
            WalkerPath::Timed(points) => points
                .iter()
                .map(|&(t, x, z)| (f64::from(t), [f64::from(x), f64::from(z)]))
                .collect(),
            WalkerPath::Waypoints(waypoints) => {
                let speed = f64::from(waypoints.speed).max(1e-3);
                let mut time_s = f64::from(waypoints.start_s);
                let mut out: Vec<(f64, [f64; 2])> = Vec::new();
                for &(x, z) in &waypoints.points {
                    let pos = [f64::from(x), f64::from(z)];
                    if let Some(&(_, last)) = out.last() {
                        let length = distance(last, pos);
                        if length <= 0.0 {
                            continue; // the same point again: nothing to walk
                        }
                        time_s += length / speed;
                    }
                    out.push((time_s, pos));
                }
                out
            }
        };
        let mut points: Vec<RoutePoint> = Vec::with_capacity(timed.len());
        for (time_s, pos_world) in timed {
            if !(time_s.is_finite() && pos_world.iter().all(|v| v.is_finite())) {
                continue;
            }
            match points.last() {
                Some(last) if time_s <= last.time_s => continue,
                Some(last) => {
                    let walked_world = last.walked_world + distance(last.pos_world, pos_world);
                    points.push(RoutePoint {
                        time_s,
                        pos_world,
                        walked_world,
                    });
                }
                None => points.push(RoutePoint {
                    time_s,
                    pos_world,
                    walked_world: 0.0,
                }),
            }
        }
        if points.is_empty() {
            points.push(RoutePoint {
                time_s: 0.0,
                pos_world: [0.0, 0.0],
                walked_world: 0.0,
            });
        }
        Route { points }
    }

    /// Where the walker is at `time_s` and how far it has walked: `(pos_world, walked_world)`.
    pub fn at(&self, time_s: f64) -> ([f64; 2], f64) {
        let first = self.points[0];
        let last = self.points[self.points.len() - 1];
        // NaN stands at the first point too.
        if time_s.is_nan() || time_s <= first.time_s {
            return (first.pos_world, first.walked_world);
        }
        if time_s >= last.time_s {
            return (last.pos_world, last.walked_world);
        }
        // The segment holding `time_s`: the first point later than it, and the one before.
        let next = self.points.partition_point(|p| p.time_s <= time_s);
        let (a, b) = (self.points[next - 1], self.points[next]);
        let t = (time_s - a.time_s) / (b.time_s - a.time_s);
        let pos = [
            a.pos_world[0] + (b.pos_world[0] - a.pos_world[0]) * t,
            a.pos_world[1] + (b.pos_world[1] - a.pos_world[1]) * t,
        ];
        (pos, a.walked_world + (b.walked_world - a.walked_world) * t)
    }

    /// The direction of the first segment that moves at all, `None` for a walker that never
    /// moves (what it faces when it stands before and after its path).
    fn first_direction(&self) -> Option<[f64; 2]> {
        self.points
            .windows(2)
            .map(|w| sub(w[1].pos_world, w[0].pos_world))
            .find(|d| d[0] != 0.0 || d[1] != 0.0)
    }

    /// The direction the walker faces at `time_s`, as an angle about +y in radians: 0 faces
    /// +z, π/2 faces +x. It is the direction of the walker's displacement over the
    /// `window_s` before and after `time_s`, so at a corner it turns smoothly over about
    /// `2·window_s`. Standing, it keeps the direction it last walked in (or, before it has
    /// walked, the one it will walk in first).
    pub fn heading_rad(&self, time_s: f64, window_s: f64) -> f64 {
        let (before, _) = self.at(time_s - window_s);
        let (after, _) = self.at(time_s + window_s);
        let mut direction = sub(after, before);
        if length(direction) < 1e-6 {
            // Standing: the last segment that moved before now, else the first one at all.
            let moved_before = self
                .points
                .windows(2)
                .filter(|w| w[1].time_s <= time_s + window_s)
                .map(|w| sub(w[1].pos_world, w[0].pos_world))
                .rfind(|d| d[0] != 0.0 || d[1] != 0.0);
            direction = moved_before
                .or_else(|| self.first_direction())
                .unwrap_or([0.0, 1.0]);
        }
        direction[0].atan2(direction[1])
    }

    /// The walker's speed at `time_s`, world units per second, averaged over the `window_s`
    /// before and after it (so legs fade in and out of a stride rather than snap).
    pub fn speed_world_per_s(&self, time_s: f64, window_s: f64) -> f64 {
        let (_, before) = self.at(time_s - window_s);
        let (_, after) = self.at(time_s + window_s);
        (after - before) / (2.0 * window_s)
    }

    /// The time of the last point, seconds: after it the walker stands still.
    pub fn end_s(&self) -> f64 {
        self.points[self.points.len() - 1].time_s
    }
}

fn sub(a: [f64; 2], b: [f64; 2]) -> [f64; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

fn length(d: [f64; 2]) -> f64 {
    (d[0] * d[0] + d[1] * d[1]).sqrt()
}

fn distance(a: [f64; 2], b: [f64; 2]) -> f64 {
    length(sub(b, a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::WaypointPath;

    #[test]
    fn stands_before_and_after_and_walks_between() {
        let route = Route::new(&WalkerPath::Timed(vec![(1.0, 0.0, 0.0), (3.0, 4.0, 0.0)]));
        assert_eq!(route.at(0.0), ([0.0, 0.0], 0.0));
        assert_eq!(route.at(2.0), ([2.0, 0.0], 2.0));
        assert_eq!(route.at(9.0), ([4.0, 0.0], 4.0));
        assert!((route.speed_world_per_s(2.0, 0.1) - 2.0).abs() < 1e-9);
        assert_eq!(route.speed_world_per_s(5.0, 0.1), 0.0);
        // Facing +x the whole time, standing included.
        for t in [0.0, 2.0, 5.0] {
            let heading = route.heading_rad(t, 0.25);
            assert!(
                (heading - std::f64::consts::FRAC_PI_2).abs() < 1e-9,
                "{t}: {heading}"
            );
        }
    }

    #[test]
    fn waypoints_are_walked_at_their_speed_and_corners_turn_smoothly() {
        let route = Route::new(&WalkerPath::Waypoints(WaypointPath {
            points: vec![(0.0, 0.0), (2.6, 0.0), (2.6, 2.6)],
            speed: 1.3,
            start_s: 1.0,
        }));
        assert_eq!(route.end_s(), 5.0);
        let (pos, walked) = route.at(4.0);
        assert!((pos[0] - 2.6).abs() < 1e-6 && (pos[1] - 1.3).abs() < 1e-6);
        assert!((walked - 3.9).abs() < 1e-6);
        // Round the corner at t = 3 the heading sweeps from +x (π/2) to +z (0) without a jump.
        let mut previous = route.heading_rad(2.5, 0.25);
        for k in 1..=100 {
            let t = 2.5 + f64::from(k) * 0.01;
            let heading = route.heading_rad(t, 0.25);
            assert!(
                (heading - previous).abs() < 0.1,
                "{t}: {previous} → {heading}"
            );
            previous = heading;
        }
        assert!(previous.abs() < 1e-9);
    }
}
