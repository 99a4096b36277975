//! Index tests.
