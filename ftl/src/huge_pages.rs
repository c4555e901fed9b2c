//! Large tables on transparent huge pages. The mapping tables are accessed at random, one unit
//! per host write or relocation: with 4 KiB pages nearly every access also misses the TLB, and
//! on a drive of a few GiB of simulated NAND the page walks cost as much as the cache misses.
//! Linux backs a region with 2 MiB pages when asked (`madvise(MADV_HUGEPAGE)`, needed where
//! transparent huge pages are in `madvise` mode, the common default). A pure performance hint:
//! the contents are the same either way, and any failure is ignored.

/// Tables smaller than this stay on normal pages (the TLB covers them anyway).
const MIN_BYTES: usize = 4 << 20;

/// `vec![value; n]`, with its memory advised for huge pages before it is first touched.
pub fn filled_vec<T: Clone>(n: usize, value: T) -> Vec<T> {
    let mut v = Vec::with_capacity(n);
    advise(v.as_mut_ptr() as *mut u8, n * std::mem::size_of::<T>());
    v.resize(n, value);
    v
}

#[cfg(target_os = "linux")]
fn advise(ptr: *mut u8, bytes: usize) {
    const HUGE: usize = 2 << 20;
    if bytes < MIN_BYTES {
        return;
    }
    // Only whole 2 MiB pages inside the allocation can be huge.
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + bytes) / HUGE * HUGE;
    if end > start {
        // SAFETY: madvise only changes how the kernel backs this range, which lies inside an
        // allocation this process owns; it reads or writes no memory.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_ptr: *mut u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn same_contents_as_vec_macro() {
        for n in [0, 1, 1000, (5 << 20) / 4 + 3] {
            assert_eq!(super::filled_vec(n, 7u32), vec![7u32; n]);
        }
    }
}
