//! Reusable frame buffers: the 8-bit pictures the readback ring hands on are taken from a
//! [`FramePool`] and go back to it when the last consumer (the PNG encoder, a video sink's
//! frame thread, the frame loop itself) drops them.
//!
//! A fresh 8 MB (1080p) or 33 MB (4K) `Vec` per frame costs the frame loop's thread more than
//! the copy out of the mapped staging buffer itself: the allocator hands back untouched pages
//! (or zeroes recycled ones), and the copy then faults every 4 KiB page in. A buffer from the
//! pool was written before, so its pages are resident and the copy runs at memory speed.
//!
//! [`FrameBytes`] is the buffer: it dereferences to `[u8]`, compares by its bytes, and on drop
//! returns its allocation to the pool it came from (if the pool still exists and keeps fewer
//! than its `max_spare` idle buffers; otherwise it is freed). The pool never blocks: the
//! frames alive at once are bounded by their consumers (the readback ring, the writer pool's
//! bounded queue, the video sinks' frames in flight), and the pool keeps at most `max_spare`
//! of them idle, so memory stays flat over any number of frames.

use std::sync::{Arc, Mutex, Weak};

/// Idle buffers and what the pool has done, behind one lock.
#[derive(Debug, Default)]
struct Shelf {
    /// Idle buffers, each still holding the bytes of the frame it last carried.
    spare: Vec<Vec<u8>>,
    /// Buffers allocated because none was idle.
    allocated: usize,
    /// Buffers handed out again from `spare`.
    reused: usize,
}

#[derive(Debug)]
struct Inner {
    shelf: Mutex<Shelf>,
    max_spare: usize,
}

/// A pool of byte buffers for frames of one size (any size works; a buffer too small grows).
#[derive(Debug, Clone)]
pub struct FramePool {
    inner: Arc<Inner>,
}

/// What a [`FramePool`] has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FramePoolStats {
    /// Buffers allocated because none was idle.
    pub allocated: usize,
    /// Buffers handed out again.
    pub reused: usize,
    /// Buffers idle in the pool now.
    pub spare: usize,
}

impl FramePool {
    /// A pool that keeps at most `max_spare` idle buffers.
    pub fn new(max_spare: usize) -> Self {
        FramePool {
            inner: Arc::new(Inner {
                shelf: Mutex::new(Shelf::default()),
                max_spare,
            }),
        }
    }

    /// A buffer of exactly `len_bytes` bytes whose contents are whatever `fill` writes: `fill`
    /// is given the whole buffer and must write all of it (a reused buffer holds an older
    /// frame's bytes, a new one zeros).
    pub fn take_filled(&self, len_bytes: usize, fill: impl FnOnce(&mut [u8])) -> FrameBytes {
        let mut bytes = self.take_spare();
        // A recycled buffer of this size keeps its length and bytes (no zeroing pass): `fill`
        // writes over them, into pages that are already resident.
        bytes.resize(len_bytes, 0);
        fill(&mut bytes);
        FrameBytes {
            bytes,
            home: Some(Arc::downgrade(&self.inner)),
        }
    }

    /// An idle buffer (with an older frame's bytes) or a new empty one.
    fn take_spare(&self) -> Vec<u8> {
        let mut shelf = self.lock();
        match shelf.spare.pop() {
            Some(bytes) => {
                shelf.reused += 1;
                bytes
            }
            None => {
                shelf.allocated += 1;
                Vec::new()
            }
        }
    }

    /// What the pool has done so far.
    pub fn stats(&self) -> FramePoolStats {
        let shelf = self.lock();
        FramePoolStats {
            allocated: shelf.allocated,
            reused: shelf.reused,
            spare: shelf.spare.len(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Shelf> {
        // A panic while holding the lock leaves the shelf consistent (a push or a pop).
        self.inner
            .shelf
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// An 8-bit picture's bytes, returned to the [`FramePool`] it came from when dropped.
///
/// Made from a plain `Vec<u8>` (`.into()`) it belongs to no pool and is simply freed.
#[derive(Default)]
pub struct FrameBytes {
    bytes: Vec<u8>,
    /// The pool to return to, if any; weak, so frames may outlive the renderer.
    home: Option<Weak<Inner>>,
}

impl FrameBytes {
    /// The bytes as a plain vector, taken out of the pool's care (it will not come back).
    pub fn into_vec(mut self) -> Vec<u8> {
        self.home = None;
        std::mem::take(&mut self.bytes)
    }

    /// The pool this buffer returns to, while it exists.
    fn pool(&self) -> Option<FramePool> {
        let inner = self.home.as_ref()?.upgrade()?;
        Some(FramePool { inner })
    }
}

impl Drop for FrameBytes {
    fn drop(&mut self) {
        let Some(pool) = self.pool() else { return };
        let bytes = std::mem::take(&mut self.bytes);
        let mut shelf = pool.lock();
        if shelf.spare.len() < pool.inner.max_spare {
            shelf.spare.push(bytes);
        }
    }
}

impl Clone for FrameBytes {
    /// A copy in a buffer of the same pool (a video sink's frame thread keeps one while the
    /// file writer encodes the original), or a plain vector.
    fn clone(&self) -> Self {
        match self.pool() {
            Some(pool) => pool.take_filled(self.bytes.len(), |out| out.copy_from_slice(self)),
            None => self.bytes.clone().into(),
        }
    }
}

impl From<Vec<u8>> for FrameBytes {
    fn from(bytes: Vec<u8>) -> Self {
        FrameBytes { bytes, home: None }
    }
}

impl std::ops::Deref for FrameBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.bytes
    }
}

impl std::ops::DerefMut for FrameBytes {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }
}

impl<'a> IntoIterator for &'a FrameBytes {
    type Item = &'a u8;
    type IntoIter = std::slice::Iter<'a, u8>;
    fn into_iter(self) -> Self::IntoIter {
        self.bytes.iter()
    }
}

impl PartialEq for FrameBytes {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl Eq for FrameBytes {}

impl PartialEq<Vec<u8>> for FrameBytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        &self.bytes == other
    }
}

impl std::fmt::Debug for FrameBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FrameBytes({} bytes)", self.bytes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropped_buffers_come_back_and_are_handed_out_again() {
        let pool = FramePool::new(4);
        let first = pool.take_filled(16, |out| out.fill(7));
        let address = first.as_ptr();
        drop(first);
        assert_eq!(pool.stats().spare, 1);
        let second = pool.take_filled(16, |out| out.fill(9));
        assert_eq!(second.as_ptr(), address, "the same allocation, reused");
        assert_eq!(&second[..], &[9; 16]);
        assert_eq!(
            pool.stats(),
            FramePoolStats {
                allocated: 1,
                reused: 1,
                spare: 0
            }
        );
    }

    #[test]
    fn the_pool_keeps_at_most_max_spare_idle_buffers() {
        let pool = FramePool::new(2);
        let held: Vec<FrameBytes> = (0..5).map(|_| pool.take_filled(8, |_| {})).collect();
        drop(held);
        assert_eq!(pool.stats().spare, 2);
        assert_eq!(pool.stats().allocated, 5);
    }

    #[test]
    fn clones_and_plain_vectors_compare_by_bytes() {
        let pool = FramePool::new(2);
        let a = pool.take_filled(4, |out| out.copy_from_slice(&[1, 2, 3, 4]));
        let b = a.clone();
        assert_eq!(a, b);
        assert_eq!(b, vec![1, 2, 3, 4]);
        assert_eq!(pool.stats().allocated, 2);
        let plain: FrameBytes = vec![1, 2, 3, 4].into();
        assert_eq!(plain, a);
        drop((a, b, plain));
        assert_eq!(pool.stats().spare, 2, "the plain vector is not the pool's");
    }

    #[test]
    fn frames_may_outlive_their_pool_and_leave_it_by_into_vec() {
        let pool = FramePool::new(2);
        let kept = pool.take_filled(3, |out| out.fill(1));
        let taken = pool.take_filled(3, |out| out.fill(2)).into_vec();
        assert_eq!(taken, vec![2; 3]);
        assert_eq!(pool.stats().spare, 0);
        drop(pool);
        assert_eq!(&kept[..], &[1; 3]);
    }
}
