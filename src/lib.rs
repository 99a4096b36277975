pub mod redact;
pub mod tools;
