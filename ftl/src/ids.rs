//! The three u32 numbers the FTL's API passes around: a logical mapping unit ([`Lpn`]), a
//! physical mapping unit ([`Ppn`]) and an erase block ([`BlockId`]). All three used to be bare
//! `u32`s, so a PPN given where a block id was expected compiled silently; as newtypes they
//! cannot be swapped at a call. Each is `#[repr(transparent)]` over its `u32` (no cost: the
//! tables hold them as they held `u32`s) and `#[serde(transparent)]`, so snapshots and JSON
//! encode them exactly as before.
//!
//! Arithmetic stays on the raw number: [`get`](Lpn::get) / [`idx`](Lpn::idx) out of an id,
//! `new` back into one, where a loop walks a range (the bit scans over live units, the read
//! path's run of LPNs).

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(serde::Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[serde(transparent)]
        #[repr(transparent)]
        pub struct $name(u32);

        impl $name {
            /// "Nothing" in a table (unmapped, never written, no block): `u32::MAX`, as
            /// [`crate::layout::NONE`].
            pub const NONE: $name = $name(u32::MAX);

            #[inline(always)]
            pub const fn new(n: u32) -> $name {
                $name(n)
            }

            /// The number itself.
            #[inline(always)]
            pub const fn get(self) -> u32 {
                self.0
            }

            /// The number as an index into the tables it keys.
            #[inline(always)]
            pub const fn idx(self) -> usize {
                self.0 as usize
            }
        }

        /// Just the number, so messages and logs read as they did with bare `u32`s.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        /// Just the number too: `Debug` output of events and records is unchanged.
        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

id_type!(
    /// Logical mapping unit number: the host's address divided by the mapping unit (an index
    /// into the L2P table).
    Lpn
);
id_type!(
    /// Physical mapping unit: `block * mus_per_block + offset` (see [`crate::layout`]), an
    /// index into the spare-area (P2L) table and the live-unit bitmap.
    Ppn
);
id_type!(
    /// Erase block (a die-block: the same block on every plane of a die), an index into the
    /// block table.
    BlockId
);

impl std::ops::Add<u32> for Ppn {
    type Output = Ppn;

    /// The unit `n` further on (units of a block are consecutive).
    #[inline(always)]
    fn add(self, n: u32) -> Ppn {
        Ppn(self.0 + n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same size as the `u32` they replace, and serialized as the bare number.
    #[test]
    fn ids_are_bare_u32s() {
        assert_eq!(std::mem::size_of::<[Ppn; 3]>(), 12);
        #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
        struct T {
            l: Lpn,
            p: Ppn,
            b: BlockId,
        }
        let t = T { l: Lpn::new(7), p: Ppn::new(8) + 1, b: BlockId::NONE };
        let text = toml::to_string(&t).unwrap();
        assert_eq!(text, "l = 7\np = 9\nb = 4294967295\n");
        assert_eq!(toml::from_str::<T>(&text).unwrap(), t);
        assert_eq!(format!("{} {:?}", t.l, t.b), "7 4294967295");
    }
}
