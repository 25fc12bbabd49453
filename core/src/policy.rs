//! The permission table of spec 1 §6 and the one policy function.
