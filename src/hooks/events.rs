//! Hook events: typed views over a hook's stdin JSON, and its rebuild from a
//! transcript.
