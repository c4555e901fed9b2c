//! Calibration: fits drive-profile parameters to measured curves (filled by the calibration issue).
