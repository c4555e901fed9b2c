//! Simulated SSD firmware.
