//! The transposition table's memory: one zeroed allocation, aligned to 2 MB and offered to
//! the kernel for transparent huge pages where the system supports them.
//!
//! Every probe of the table lands on a random cache line of megabytes, so nearly every
//! probe also misses the TLB; with 4 KB pages each miss is a page walk, and under a
//! hypervisor a two-level one. Backed by 2 MB pages the same table needs 512 times fewer
//! translations. Linux gives such pages to a private mapping only when asked
//! (`madvise(MADV_HUGEPAGE)`, the usual `transparent_hugepage=madvise` setting), and only
//! to pages first touched after the advice, so the memory is zeroed here, after it.

use std::alloc::{Layout, alloc, dealloc};
use std::ops::Deref;
use std::ptr::NonNull;

/// The size of a huge page on x86-64 and most 64-bit Arm kernels.
const HUGE_PAGE: usize = 2 << 20;

/// A fixed array of `T` that starts zeroed. `T` must be a type for which all-zero bytes are
/// a valid value equal to its default (the table's buckets: atomics that read 0).
pub(super) struct ZeroedArray<T> {
    ptr: NonNull<T>,
    len: usize,
    layout: Layout,
}

// SAFETY: the array owns its elements as a `Box<[T]>` would; sharing or sending it is
// sound exactly when it is for `T`.
unsafe impl<T: Send> Send for ZeroedArray<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for ZeroedArray<T> {}

impl<T> ZeroedArray<T> {
    /// `len` (at least 1) zeroed elements; an error when the memory cannot be had.
    ///
    /// # Safety
    /// All-zero bytes must be a valid `T`.
    pub(super) unsafe fn new(len: usize) -> Result<Self, String> {
        let len = len.max(1);
        let size = len
            .checked_mul(size_of::<T>())
            .filter(|&s| s > 0)
            .ok_or_else(|| "size overflow".to_string())?;
        let align = if size >= HUGE_PAGE {
            HUGE_PAGE
        } else {
            align_of::<T>()
        };
        let layout = Layout::from_size_align(size, align).map_err(|e| e.to_string())?;
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { alloc(layout) };
        let ptr = NonNull::new(raw.cast::<T>()).ok_or_else(|| "out of memory".to_string())?;
        #[cfg(target_os = "linux")]
        if align == HUGE_PAGE {
            // SAFETY: the range is the allocation just made. The advice is a hint: a
            // kernel without transparent huge pages refuses it and nothing changes.
            unsafe { libc::madvise(raw.cast(), size, libc::MADV_HUGEPAGE) };
        }
        // SAFETY: the allocation holds `size` bytes; zero bytes are a valid `T` (the
        // caller's promise), so afterwards every element is initialised.
        unsafe { raw.write_bytes(0, size) };
        Ok(ZeroedArray { ptr, len, layout })
    }
}

impl<T> Deref for ZeroedArray<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised elements live at `ptr` until drop.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for ZeroedArray<T> {
    fn drop(&mut self) {
        // SAFETY: the elements are initialised and dropped once, then the memory goes
        // back with the layout it was allocated with.
        unsafe {
            std::ptr::drop_in_place(std::ptr::slice_from_raw_parts_mut(
                self.ptr.as_ptr(),
                self.len,
            ));
            dealloc(self.ptr.as_ptr().cast(), self.layout);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn starts_zeroed_and_is_writable_across_huge_pages() {
        // SAFETY: a zero `AtomicU64` is 0.
        let a = unsafe { ZeroedArray::<AtomicU64>::new(3 * HUGE_PAGE / 8 + 5) }.unwrap();
        assert_eq!(a.len(), 3 * HUGE_PAGE / 8 + 5);
        assert_eq!(a.as_ptr() as usize % HUGE_PAGE, 0);
        assert!(a.iter().all(|x| x.load(Ordering::Relaxed) == 0));
        a[a.len() - 1].store(7, Ordering::Relaxed);
        assert_eq!(a[a.len() - 1].load(Ordering::Relaxed), 7);
    }

    #[test]
    fn a_small_array_needs_no_huge_alignment() {
        // SAFETY: as above.
        let a = unsafe { ZeroedArray::<AtomicU64>::new(0) }.unwrap();
        assert_eq!(a.len(), 1);
    }
}
