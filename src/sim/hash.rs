//! Fingerprints: the fluid's state hash, which replays, tests and users compare bit for bit
//! and which the frame loop takes every frame, and fogbank's one FNV-1a for small inputs.
//!
//! The state hash runs at memory speed. Each field's `f32` bits (the solids' bytes, four to a
//! word) are cut into fixed blocks of [`BLOCK_WORDS`] words, and each block is hashed by eight
//! independent 64-bit lanes in the manner of XXH3's long-input loop: a stripe of sixteen words
//! is eight 64-bit words, each added to its own lane together with the product of its two
//! halves, xor-ed with a fixed secret; every [`STRIPES_PER_ROUND`] stripes the lanes are
//! scrambled. The lanes have no dependency on each other, so the loop vectorises and keeps the
//! multiplier busy; blocks are hashed in parallel and folded in block order, so the value does
//! not depend on the thread count. Nothing in it depends on the platform's maths library or
//! byte order (words are read as numbers, not bytes).
//!
//! [`fnv1a64`] and its streaming form [`fnv1a64_extend`] are fogbank's FNV-1a: the world's
//! state hash and the scene hashes use them.

use rayon::prelude::*;

use super::FluidSim;

/// FNV-1a 64's starting value: the hash of no bytes.
pub const FNV1A64_OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a, 64 bits, of `bytes`: stable across platforms and releases, unlike std's hashers.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    fnv1a64_extend(FNV1A64_OFFSET_BASIS, bytes)
}

/// FNV-1a 64 continued over `bytes` from `hash` (the value so far, [`FNV1A64_OFFSET_BASIS`]
/// at the start): hashing `a` then `b` this way gives `fnv1a64` of `a` and `b` joined.
#[inline]
pub fn fnv1a64_extend(mut hash: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(FNV_PRIME);
    }
    hash
}

/// 64-bit lanes per stripe; a stripe is `2 * LANES` 32-bit words.
const LANES: usize = 8;
/// 32-bit words per stripe.
const STRIPE_WORDS: usize = 2 * LANES;
/// Stripes between two scrambles of the lanes.
const STRIPES_PER_ROUND: usize = 16;
/// 32-bit words per block: blocks are hashed in parallel, so this is fixed (never derived from
/// the grid or the thread count). 64 KiB of floats.
pub(super) const BLOCK_WORDS: usize = 16 * 1024;

/// Fixed secrets xor-ed into the data, one per lane (the first of XXH3's default secret, read
/// as little-endian 64-bit words).
const SECRET: [u64; LANES] = [
    0xbe4b_a423_396c_feb8,
    0x1cad_21f7_2c81_017c,
    0xdb97_9083_e96d_d4de,
    0x1f67_b3b7_a4a4_4072,
    0x78e5_c0cc_4ee6_79cb,
    0x2172_ffcc_7dd0_5a82,
    0x8e24_38fc_b1be_0a0b,
    0xd85a_1cce_d6f5_6c6d,
];
/// Xor-ed into the lanes at each scramble.
const SCRAMBLE: [u64; LANES] = [
    0x3c47_d1a8_3cb3_f26c,
    0x7d40_c1e7_c19a_b9fa,
    0xa2b3_8b68_80f6_0e5b,
    0x6f5c_4c5d_c1d9_b6d2,
    0x2f84_8c94_e41a_0b2e,
    0x5bd7_93b7_c9b6_1b68,
    0xc77c_07c5_8b23_d4a1,
    0x93f8_0e7f_9ca1_a3d5,
];
const PRIME32_1: u64 = 0x9e37_79b1;
const PRIME64_1: u64 = 0x9e37_79b1_85eb_ca87;
const PRIME64_2: u64 = 0xc2b2_ae3d_27d4_eb4f;

/// A bijective 64-bit mixer (the finaliser of SplitMix64): every input bit reaches every
/// output bit.
#[inline(always)]
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Adds one stripe (`STRIPE_WORDS` words) to the lanes.
#[inline(always)]
fn accumulate(lanes: &mut [u64; LANES], stripe: &[u32; STRIPE_WORDS]) {
    for lane in 0..LANES {
        let data = u64::from(stripe[2 * lane]) | (u64::from(stripe[2 * lane + 1]) << 32);
        let keyed = data ^ SECRET[lane];
        let product = (keyed & 0xffff_ffff).wrapping_mul(keyed >> 32);
        lanes[lane] = lanes[lane].wrapping_add(data).wrapping_add(product);
    }
}

/// Spreads each lane's high bits down and multiplies, so the next round's products see them.
#[inline(always)]
fn scramble(lanes: &mut [u64; LANES]) {
    for lane in 0..LANES {
        let value = lanes[lane] ^ (lanes[lane] >> 47) ^ SCRAMBLE[lane];
        lanes[lane] = value.wrapping_mul(PRIME32_1);
    }
}

/// The lanes' starting values for a block of `len` words.
#[inline(always)]
fn start_lanes(len: usize) -> [u64; LANES] {
    SECRET.map(|secret| secret.rotate_left(17) ^ len as u64)
}

/// The block's hash from its lanes after the last stripe; `len` is its length in words.
#[inline(always)]
fn finish_lanes(lanes: [u64; LANES], len: usize) -> u64 {
    let mut hash = (len as u64).wrapping_mul(PRIME64_1);
    for lane in lanes {
        hash = mix64(hash ^ lane).wrapping_add(PRIME64_2);
    }
    hash
}

/// Adds the stripes of `words` to the lanes, scrambling after each `STRIPES_PER_ROUND`-th; a
/// last partial stripe is padded with zeros. `words` must start at a round's start.
#[inline(always)]
fn absorb<T: Copy>(lanes: &mut [u64; LANES], words: &[T], bits: impl Fn(T) -> u32 + Copy) {
    let mut index = 0;
    let mut chunks = words.chunks_exact(STRIPE_WORDS);
    for chunk in &mut chunks {
        let stripe: &[T; STRIPE_WORDS] = chunk.try_into().expect("a whole stripe");
        accumulate(lanes, &stripe.map(bits));
        if index % STRIPES_PER_ROUND == STRIPES_PER_ROUND - 1 {
            scramble(lanes);
        }
        index += 1;
    }
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let mut stripe = [0u32; STRIPE_WORDS];
        for (slot, &word) in stripe.iter_mut().zip(tail) {
            *slot = bits(word);
        }
        accumulate(lanes, &stripe);
        if index % STRIPES_PER_ROUND == STRIPES_PER_ROUND - 1 {
            scramble(lanes);
        }
    }
}

/// The hash of one block of floats (their bits); the block's length is part of it.
fn hash_float_block(block: &[f32]) -> u64 {
    let mut lanes = start_lanes(block.len());
    // Whole rounds first, so the loop the compiler sees has no scramble test inside.
    let round_words = STRIPES_PER_ROUND * STRIPE_WORDS;
    let mut rounds = block.chunks_exact(round_words);
    for round in &mut rounds {
        for chunk in round.chunks_exact(STRIPE_WORDS) {
            let stripe: &[f32; STRIPE_WORDS] = chunk.try_into().expect("a whole stripe");
            accumulate(&mut lanes, &stripe.map(f32::to_bits));
        }
        scramble(&mut lanes);
    }
    absorb(&mut lanes, rounds.remainder(), f32::to_bits);
    finish_lanes(lanes, block.len())
}

/// The hash of one block of bytes, four to a word (the first byte lowest); a last partial
/// word is padded with zeros. The length in bytes is mixed into the result.
fn hash_byte_block(block: &[u8]) -> u64 {
    let words: Vec<u32> = block
        .chunks(4)
        .map(|chunk| {
            let mut word = [0u8; 4];
            word[..chunk.len()].copy_from_slice(chunk);
            u32::from_le_bytes(word)
        })
        .collect();
    let mut lanes = start_lanes(words.len());
    absorb(&mut lanes, &words, |word| word);
    mix64(finish_lanes(lanes, words.len()) ^ block.len() as u64)
}

/// Folds one more value into a running hash (order matters).
#[inline]
fn fold(hash: u64, value: u64) -> u64 {
    mix64(hash.rotate_left(29) ^ value).wrapping_add(PRIME64_1)
}

/// The block hashes of a float field, in block order (blocks in parallel).
fn float_block_hashes(field: &[f32]) -> Vec<u64> {
    field
        .par_chunks(BLOCK_WORDS)
        .map(hash_float_block)
        .collect()
}

impl FluidSim {
    /// A 64-bit fingerprint of the whole state: grid size, then u, v, su, sv, density, off_x,
    /// off_z, lift, pressure and solid.
    ///
    /// Each field is cut into blocks of 16 Ki values (the solids: 64 Ki bytes), each block
    /// hashed over its values' bits (see the module documentation), and the block hashes are
    /// folded in field order, then block order, after the grid size. The same for every run and
    /// every thread count on one platform; a few stages call the platform's `exp`/`sin`, so
    /// another operating system's maths library may give other bits.
    pub fn state_hash(&self) -> u64 {
        let cells = self.mapping.cells;
        let mut hash = fold(PRIME64_2, cells as u64);
        let fields = self.state_fields();
        // One parallel pass over all fields' blocks; the fold below is in fixed order.
        let blocks: Vec<Vec<u64>> = fields
            .par_iter()
            .map(|field| float_block_hashes(field))
            .collect();
        for field_blocks in blocks {
            for block_hash in field_blocks {
                hash = fold(hash, block_hash);
            }
        }
        for block in self.solid.chunks(4 * BLOCK_WORDS) {
            hash = fold(hash, hash_byte_block(block));
        }
        hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_published_vectors() {
        // Reference values from the FNV specification's test suite.
        assert_eq!(
            fnv1a64_extend(FNV1A64_OFFSET_BASIS, b""),
            0xcbf2_9ce4_8422_2325
        );
        assert_eq!(
            fnv1a64_extend(FNV1A64_OFFSET_BASIS, b"a"),
            0xaf63_dc4c_8601_ec8c
        );
        assert_eq!(
            fnv1a64_extend(FNV1A64_OFFSET_BASIS, b"foobar"),
            0x8594_4171_f739_67e8
        );
    }

    /// The block hash written word by word, without stripes copied at once.
    fn plain_block_hash(words: &[u32]) -> u64 {
        let mut lanes = SECRET.map(|secret| secret.rotate_left(17) ^ words.len() as u64);
        let stripes = words.len().div_ceil(STRIPE_WORDS);
        for index in 0..stripes {
            for lane in 0..LANES {
                let at = |k: usize| words.get(index * STRIPE_WORDS + k).copied().unwrap_or(0);
                let data = u64::from(at(2 * lane)) | (u64::from(at(2 * lane + 1)) << 32);
                let keyed = data ^ SECRET[lane];
                let product = (keyed & 0xffff_ffff).wrapping_mul(keyed >> 32);
                lanes[lane] = lanes[lane].wrapping_add(data).wrapping_add(product);
            }
            if index % STRIPES_PER_ROUND == STRIPES_PER_ROUND - 1 {
                scramble(&mut lanes);
            }
        }
        let mut hash = (words.len() as u64).wrapping_mul(PRIME64_1);
        for lane in lanes {
            hash = mix64(hash ^ lane).wrapping_add(PRIME64_2);
        }
        hash
    }

    #[test]
    fn block_hash_matches_the_word_by_word_definition() {
        for len in [0, 1, 15, 16, 17, 255, 256, 257, 1000] {
            let floats: Vec<f32> = (0..len).map(|i| (i as f32 * 0.37).sin() * 1e3).collect();
            let words: Vec<u32> = floats.iter().map(|f| f.to_bits()).collect();
            assert_eq!(hash_float_block(&floats), plain_block_hash(&words), "{len}");
            let bytes: Vec<u8> = (0..len).map(|i| (i * 7 % 251) as u8).collect();
            let byte_words: Vec<u32> = bytes
                .chunks(4)
                .map(|chunk| {
                    let mut word = [0u8; 4];
                    word[..chunk.len()].copy_from_slice(chunk);
                    u32::from_le_bytes(word)
                })
                .collect();
            assert_eq!(
                hash_byte_block(&bytes),
                mix64(plain_block_hash(&byte_words) ^ len as u64),
                "{len} bytes"
            );
        }
    }

    #[test]
    fn pinned_values_of_the_block_hash() {
        // The state hash is compared across machines and releases: its definition is fixed.
        assert_eq!(hash_float_block(&[]), 0x7953_4029_49da_8709);
        let ramp: Vec<f32> = (0..100).map(|i| i as f32 * 0.25 - 3.0).collect();
        assert_eq!(hash_float_block(&ramp), 0x1eaa_784e_8200_3ac6);
    }

    #[test]
    fn every_flipped_bit_and_every_swap_changes_the_block_hash() {
        let floats: Vec<f32> = (0..40).map(|i| (i as f32 * 0.61).cos() * 7.0).collect();
        let reference = hash_float_block(&floats);
        let mut seen = std::collections::HashSet::new();
        seen.insert(reference);
        for index in 0..floats.len() {
            for bit in 0..32 {
                let mut flipped = floats.clone();
                flipped[index] = f32::from_bits(flipped[index].to_bits() ^ (1 << bit));
                assert!(seen.insert(hash_float_block(&flipped)), "{index} {bit}");
            }
        }
        for a in 0..floats.len() {
            for b in a + 1..floats.len() {
                let mut swapped = floats.clone();
                swapped.swap(a, b);
                assert_ne!(hash_float_block(&swapped), reference, "{a} {b}");
            }
        }
        // Zeros of another length are another block.
        assert_ne!(hash_float_block(&[0.0; 16]), hash_float_block(&[0.0; 17]));
        assert_ne!(hash_byte_block(&[0; 4]), hash_byte_block(&[0; 5]));
    }

    #[test]
    fn a_field_hashes_the_same_whatever_the_thread_count() {
        let field: Vec<f32> = (0..3 * BLOCK_WORDS + 77).map(|i| i as f32 * 0.5).collect();
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| float_block_hashes(&field));
        let three = rayon::ThreadPoolBuilder::new()
            .num_threads(3)
            .build()
            .unwrap()
            .install(|| float_block_hashes(&field));
        assert_eq!(one, three);
        assert_eq!(one.len(), 4);
    }
}
