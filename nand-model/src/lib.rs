//! NAND model.
