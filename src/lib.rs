pub mod shell;
pub mod tools;
