//! Nearest palette colour to a pixel: the lookup every pixel of every GIF frame makes.

/// Nearest-colour search: palette entries sorted by green, searched outward from the query's
/// green value and stopped once the green distance alone exceeds the best match.
pub(crate) struct Nearest {
    /// (colour rounded to integers, palette index), sorted by green then by index.
    pub(crate) sorted: Vec<([i32; 3], u8)>,
}

impl Nearest {
    pub(crate) fn new(palette: &[[f32; 3]]) -> Self {
        let mut sorted: Vec<([i32; 3], u8)> = palette
            .iter()
            .enumerate()
            .map(|(i, c)| (c.map(|v| v.round().clamp(0.0, 255.0) as i32), i as u8))
            .collect();
        sorted.sort_by_key(|(c, i)| (c[1], *i));
        Nearest { sorted }
    }

    /// Index of the palette colour nearest to `colour` (Euclidean RGB; ties go to the lower
    /// index, so the answer never depends on search order).
    pub(crate) fn find(&self, colour: [i32; 3]) -> u8 {
        let start = self.sorted.partition_point(|(c, _)| c[1] < colour[1]);
        let mut best = (i32::MAX, u8::MAX);
        let consider = |best: &mut (i32, u8), entry: &([i32; 3], u8)| {
            let d = distance2(entry.0, colour);
            if d < best.0 || (d == best.0 && entry.1 < best.1) {
                *best = (d, entry.1);
            }
        };
        for entry in &self.sorted[start..] {
            let dg = entry.0[1] - colour[1];
            if dg * dg > best.0 {
                break;
            }
            consider(&mut best, entry);
        }
        for entry in self.sorted[..start].iter().rev() {
            let dg = entry.0[1] - colour[1];
            if dg * dg > best.0 {
                break;
            }
            consider(&mut best, entry);
        }
        best.1
    }
}

pub(crate) fn distance2(a: [i32; 3], b: [i32; 3]) -> i32 {
    (0..3).map(|c| (a[c] - b[c]) * (a[c] - b[c])).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_search_agrees_with_brute_force() {
        let palette: Vec<[f32; 3]> = (0..97)
            .map(|i| {
                [
                    (i * 37 % 256) as f32,
                    (i * 91 % 256) as f32,
                    (i * 13 % 256) as f32,
                ]
            })
            .collect();
        let nearest = Nearest::new(&palette);
        for q in 0..2000 {
            let colour = [(q * 7) % 256, (q * 31) % 256, (q * 101) % 256];
            let found = nearest.find(colour) as usize;
            let best = palette
                .iter()
                .map(|c| distance2(c.map(|v| v as i32), colour))
                .min()
                .unwrap();
            assert_eq!(distance2(palette[found].map(|v| v as i32), colour), best);
        }
    }
}
