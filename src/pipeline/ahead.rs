//! The queue between the simulation thread and the frame loop: the frames stepped and not yet
//! rendered, in order, with a limit on how many may wait.
//!
//! The limit starts high while the GPU renderer is being built, so the world steps through the
//! clip's first frames while the driver compiles the pipelines. Once the renderer is ready the
//! loop lowers the limit, and from then on it shrinks by one with each frame taken, down to the
//! steady limit. So frames already stepped are never thrown away, and the simulation is never
//! held up while the loop works through them: it steps on as long as the queue is below the
//! shrinking limit.
//!
//! A std `sync_channel` has one capacity for its whole life, so one deep enough for the start
//! would keep every render that far ahead. Eight frames ahead all the time once took the
//! walkway's default from 288 to 191 frames/s on an H200 (`benches/runs/2026-12-06-h200-b`),
//! so this queue goes back to two.
//!
//! Each side holds a guard ([`Producer`], [`Consumer`]); dropping one tells the other, so a
//! panic or an early return on either side never leaves the other waiting.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Frames stepped ahead of the frame loop, in order, behind a limit the loop lowers.
pub(super) struct AheadQueue<T> {
    state: Mutex<State<T>>,
    /// Signalled on every push, pop, change of limit and close.
    changed: Condvar,
}

struct State<T> {
    items: VecDeque<T>,
    /// The producer waits while this many items are queued.
    limit: usize,
    /// The limit the queue shrinks to, one item taken at a time, once `shrinking`.
    steady: usize,
    shrinking: bool,
    producer_done: bool,
    consumer_gone: bool,
}

impl<T> AheadQueue<T> {
    /// A queue that holds up to `start_limit` items until [`Consumer::settle`] says the loop
    /// is ready, then shrinks toward `steady_limit` (at least 1).
    pub(super) fn new(start_limit: usize, steady_limit: usize) -> Self {
        let steady = steady_limit.max(1);
        AheadQueue {
            state: Mutex::new(State {
                items: VecDeque::new(),
                limit: start_limit.max(steady),
                steady,
                shrinking: false,
                producer_done: false,
                consumer_gone: false,
            }),
            changed: Condvar::new(),
        }
    }

    /// The producer's end; dropping it closes the queue for pushing.
    pub(super) fn producer(&self) -> Producer<'_, T> {
        Producer { queue: self }
    }

    /// The consumer's end; dropping it makes every push fail.
    pub(super) fn consumer(&self) -> Consumer<'_, T> {
        Consumer { queue: self }
    }

    /// The state, even after a panic on the other side (each change keeps it consistent).
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn wait<'a>(&self, guard: MutexGuard<'a, State<T>>) -> MutexGuard<'a, State<T>> {
        self.changed
            .wait(guard)
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The simulation thread's end of an [`AheadQueue`].
pub(super) struct Producer<'q, T> {
    queue: &'q AheadQueue<T>,
}

impl<T> Producer<'_, T> {
    /// Queues `item`, waiting while the queue is at its limit. Gives the item back when the
    /// consumer is gone.
    pub(super) fn push(&self, item: T) -> Result<(), T> {
        let mut state = self.queue.lock();
        while !state.consumer_gone && state.items.len() >= state.limit {
            state = self.queue.wait(state);
        }
        if state.consumer_gone {
            return Err(item);
        }
        state.items.push_back(item);
        drop(state);
        self.queue.changed.notify_all();
        Ok(())
    }
}

impl<T> Producer<'_, T> {
    /// Whether the consumer is gone: whatever is pushed now is thrown away.
    pub(super) fn abandoned(&self) -> bool {
        self.queue.lock().consumer_gone
    }
}

impl<T> Drop for Producer<'_, T> {
    fn drop(&mut self) {
        self.queue.lock().producer_done = true;
        self.queue.changed.notify_all();
    }
}

/// The frame loop's end of an [`AheadQueue`].
pub(super) struct Consumer<'q, T> {
    queue: &'q AheadQueue<T>,
}

impl<T> Consumer<'_, T> {
    /// From now on the limit shrinks by one with each item taken, down to the steady limit.
    /// Returns how many items are queued.
    pub(super) fn settle(&self) -> usize {
        let mut state = self.queue.lock();
        state.shrinking = true;
        state.items.len()
    }

    /// The oldest item, waiting for one while the producer runs; `None` once the producer is
    /// done and every item has been taken.
    pub(super) fn pop(&self) -> Option<T> {
        let mut state = self.queue.lock();
        loop {
            if let Some(item) = state.items.pop_front() {
                if state.shrinking {
                    state.limit = state.limit.saturating_sub(1).max(state.steady);
                }
                drop(state);
                self.queue.changed.notify_all();
                return Some(item);
            }
            if state.producer_done {
                return None;
            }
            state = self.queue.wait(state);
        }
    }

    /// Items queued now (for tests).
    #[cfg(test)]
    fn queued(&self) -> usize {
        self.queue.lock().items.len()
    }
}

impl<T> Drop for Consumer<'_, T> {
    fn drop(&mut self) {
        let mut state = self.queue.lock();
        state.consumer_gone = true;
        // What was stepped ahead and never taken is dropped here, with the consumer.
        state.items.clear();
        drop(state);
        self.queue.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn items_come_out_in_order_and_end_when_the_producer_is_done() {
        let queue = AheadQueue::new(4, 2);
        let taken = std::thread::scope(|scope| {
            let producer = queue.producer();
            scope.spawn(move || {
                for i in 0..100 {
                    producer.push(i).unwrap();
                }
            });
            let consumer = queue.consumer();
            consumer.settle();
            std::iter::from_fn(|| consumer.pop()).collect::<Vec<_>>()
        });
        assert_eq!(taken, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn the_start_limit_holds_until_settled_then_shrinks_by_one_a_take() {
        let queue = AheadQueue::new(6, 2);
        let pushed = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let producer = queue.producer();
            let pushed = &pushed;
            scope.spawn(move || {
                for i in 0..20 {
                    if producer.push(i).is_err() {
                        break;
                    }
                    pushed.fetch_add(1, Ordering::SeqCst);
                }
            });
            let consumer = queue.consumer();
            // Unsettled, the producer fills the queue to the start limit and waits.
            while consumer.queued() < 6 {
                std::thread::yield_now();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(pushed.load(Ordering::SeqCst), 6);
            consumer.settle();
            // Each take lowers the limit by one (6 → 5 …): the queue never refills above it.
            assert_eq!(consumer.pop(), Some(0));
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(consumer.queued(), 5);
            for expected in 1..5 {
                assert_eq!(consumer.pop(), Some(expected));
            }
            // Limit 2 now: the producer tops the queue up to two and waits.
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(consumer.queued(), 2);
            assert_eq!(pushed.load(Ordering::SeqCst), 7);
            drop(consumer);
        });
        // The consumer left: the producer's next push failed and it stopped.
        assert_eq!(pushed.load(Ordering::SeqCst), 7);
    }

    #[test]
    fn a_consumer_that_leaves_releases_a_waiting_producer() {
        let queue = AheadQueue::new(1, 1);
        let result = std::thread::scope(|scope| {
            let producer = queue.producer();
            let pushing = scope.spawn(move || {
                producer.push(1).unwrap();
                // The queue is full: this waits until the consumer goes.
                producer.push(2)
            });
            let consumer = queue.consumer();
            while consumer.queued() < 1 {
                std::thread::yield_now();
            }
            drop(consumer);
            pushing.join().unwrap()
        });
        assert_eq!(result, Err(2));
    }

    #[test]
    fn a_producer_that_panics_ends_the_consumer_s_wait() {
        let queue = AheadQueue::<u32>::new(2, 2);
        std::thread::scope(|scope| {
            let producer = queue.producer();
            let stepping = scope.spawn(move || {
                let _producer = producer;
                panic!("a stepping failure");
            });
            let consumer = queue.consumer();
            assert_eq!(consumer.pop(), None);
            assert!(stepping.join().is_err());
        });
    }
}
