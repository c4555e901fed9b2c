//! Signature detection on synthetic images: one per filesystem / partition-table type, plus
//! the blank case. Pure function, no I/O.

use host_bench::real::safety::HEAD_BYTES;
use host_bench::real::{detect_signatures, Signature};

fn image(patches: &[(usize, &[u8])]) -> Vec<u8> {
    let mut v = vec![0u8; HEAD_BYTES];
    for (off, bytes) in patches {
        v[*off..*off + bytes.len()].copy_from_slice(bytes);
    }
    v
}

#[test]
fn each_signature_is_detected_alone() {
    let mbr_entry: &[u8] = &[0x80, 0, 0, 0, 0x83];
    let cases: Vec<(Signature, Vec<u8>)> = vec![
        (Signature::Mbr, image(&[(510, &[0x55, 0xAA]), (446 + 16, mbr_entry)])),
        (Signature::Gpt, image(&[(512, b"EFI PART")])),
        (Signature::Gpt, image(&[(4096, b"EFI PART")])),
        (Signature::Ext, image(&[(1080, &[0x53, 0xEF])])),
        (Signature::Xfs, image(&[(0, b"XFSB")])),
        (Signature::Btrfs, image(&[(65600, b"_BHRfS_M")])),
        (Signature::Swap, image(&[(4086, b"SWAPSPACE2")])),
        (Signature::Swap, image(&[(4086, b"SWAP-SPACE")])),
        (Signature::Swap, image(&[(65526, b"SWAPSPACE2")])),
        (Signature::Lvm2, image(&[(512, b"LABELONE")])),
        (Signature::Ntfs, image(&[(3, b"NTFS    "), (510, &[0x55, 0xAA]), (446, &[1, 2, 3, 4, 5])])),
        (Signature::Fat, image(&[(82, b"FAT32   "), (510, &[0x55, 0xAA]), (450, &[7])])),
        (Signature::Fat, image(&[(54, b"FAT16   "), (510, &[0x55, 0xAA])])),
        (Signature::Exfat, image(&[(3, b"EXFAT   ")])),
        (Signature::Iso9660, image(&[(32769, b"CD001")])),
        (Signature::Zfs, image(&[(128 * 1024 + 5 * 1024, &0x00ba_b10c_u64.to_le_bytes())])),
        (Signature::Luks, image(&[(0, b"LUKS\xba\xbe")])),
        (Signature::MdRaid, image(&[(4096, &0xa92b_4efc_u32.to_le_bytes())])),
    ];
    for (want, img) in cases {
        assert_eq!(detect_signatures(&img), vec![want], "expected only {want:?}");
    }
}

#[test]
fn blank_and_near_misses_are_clean() {
    assert!(detect_signatures(&image(&[])).is_empty());
    // Boot signature but an empty partition table: not a partition table.
    assert!(detect_signatures(&image(&[(510, &[0x55, 0xAA])])).is_empty());
    // A short head skips checks that fall beyond it instead of panicking.
    assert!(detect_signatures(&[0u8; 100]).is_empty());
    assert_eq!(detect_signatures(&image(&[(1080, &[0x53, 0xEF])])[..2048]), vec![Signature::Ext]);
}

#[test]
fn several_signatures_are_all_reported() {
    let img = image(&[(512, b"EFI PART"), (510, &[0x55, 0xAA]), (446 + 4, &[0xEE]), (1080, &[0x53, 0xEF])]);
    assert_eq!(detect_signatures(&img), vec![Signature::Mbr, Signature::Gpt, Signature::Ext]);
}
