//! Validation rules of spec 1 §5 and spec 2 §5, and password strength.
