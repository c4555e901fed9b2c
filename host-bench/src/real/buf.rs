//! The aligned buffer pool: one slot of `max_block_bytes` per queue-depth entry. O_DIRECT needs
//! buffers aligned to the logical block size, and io_uring registers the slots once so the
//! kernel does not pin and unpin pages on every I/O.

use std::alloc::{self, Layout};
use std::ptr::NonNull;

/// `slots` buffers of `slot_bytes` each, in one aligned allocation.
pub(crate) struct BufPool {
    ptr: NonNull<u8>,
    layout: Layout,
    slot_bytes: usize,
    slots: usize,
}

// SAFETY: the pool exclusively owns its allocation; raw access from other threads (the psync
// workers, the kernel) is coordinated by the slot ownership protocol in `RealTarget`.
unsafe impl Send for BufPool {}

impl BufPool {
    /// Allocates zeroed slots; `None` when the size overflows or the allocator fails.
    pub(crate) fn new(slots: usize, slot_bytes: usize, align: usize) -> Option<Self> {
        let total = slots.checked_mul(slot_bytes)?;
        if total == 0 {
            return None;
        }
        let layout = Layout::from_size_align(total, align).ok()?;
        // SAFETY: the layout has a non-zero size (checked above).
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw)?;
        Some(BufPool { ptr, layout, slot_bytes, slots })
    }

    pub(crate) fn slot_bytes(&self) -> usize {
        self.slot_bytes
    }

    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    /// Start of slot `i`; callers keep `i < slots()`.
    pub(crate) fn slot_ptr(&self, i: usize) -> *mut u8 {
        debug_assert!(i < self.slots);
        // SAFETY: i < slots, so the offset stays inside the allocation.
        unsafe { self.ptr.as_ptr().add(i * self.slot_bytes) }
    }

    /// Slot `i`, first `len` bytes. Callers only touch slots that have no I/O in flight.
    pub(crate) fn slot(&self, i: usize, len: usize) -> &[u8] {
        let len = len.min(self.slot_bytes);
        // SAFETY: in bounds (slot_ptr + len <= end of allocation); no I/O is in flight on this
        // slot, so nothing else writes it while the borrow lives.
        unsafe { std::slice::from_raw_parts(self.slot_ptr(i), len) }
    }

    /// Mutable view of slot `i`, same rules as [`BufPool::slot`].
    pub(crate) fn slot_mut(&mut self, i: usize, len: usize) -> &mut [u8] {
        let len = len.min(self.slot_bytes);
        // SAFETY: in bounds, `&mut self` is exclusive and no I/O is in flight on this slot.
        unsafe { std::slice::from_raw_parts_mut(self.slot_ptr(i), len) }
    }

    /// Whole pool as one slice, for filling it with write data once at open.
    pub(crate) fn all_mut(&mut self) -> &mut [u8] {
        // SAFETY: the allocation is `layout.size()` bytes and no I/O is in flight at open.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.layout.size()) }
    }

    /// One iovec per slot, for `register_buffers`.
    pub(crate) fn iovecs(&self) -> Vec<libc::iovec> {
        (0..self.slots).map(|i| libc::iovec { iov_base: self.slot_ptr(i).cast(), iov_len: self.slot_bytes }).collect()
    }
}

impl Drop for BufPool {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with exactly this layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) }
    }
}
