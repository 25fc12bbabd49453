//! The catalogue of platform and company settings with their defaults.
