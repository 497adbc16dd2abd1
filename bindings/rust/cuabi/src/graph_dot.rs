//! Graphviz DOT dumps of a graph, for looking at what a capture recorded.

use crate::error::Result;
use crate::ffi::{c_path, call, raw, two_call_text};
use crate::graph::Graph;
use cuabi_sys as sys;
use std::path::Path;

/// What a DOT dump shows ([`Graph::dot`], [`Graph::write_dot`]): by default node kinds, kernel
/// names, geometry and dependencies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DotOptions {
    flags: u32,
}

impl DotOptions {
    /// Node kinds, kernel names, geometry and dependencies.
    pub fn new() -> DotOptions {
        DotOptions::default()
    }

    /// Every parameter the driver knows of every node.
    pub fn verbose(mut self) -> DotOptions {
        self.flags |= sys::CUABI_GRAPH_DOT_VERBOSE;
        self
    }

    /// The `CUABI_GRAPH_DOT_*` flags.
    pub fn flags(&self) -> u32 {
        self.flags
    }
}

impl Graph {
    /// The graph as Graphviz DOT text (`dot -Tsvg` draws it), without touching the file system.
    ///
    /// ```no_run
    /// # fn demo(graph: &cuabi::Graph) -> cuabi::Result<()> {
    /// let text = graph.dot(&cuabi::DotOptions::new())?;
    /// assert!(text.contains("digraph"));
    /// graph.write_dot("/tmp/graph.dot", &cuabi::DotOptions::new().verbose())?;
    /// # Ok(()) }
    /// ```
    pub fn dot(&self, options: &DotOptions) -> Result<String> {
        two_call_text(|text, capacity, size| {
            Ok(raw!(cuabi_graph_get_dot(self.as_raw(), options.flags, text, capacity, size)))
        })
    }

    /// Writes the graph as DOT text to the file at `path`, created or replaced (links in the path
    /// are followed). [`Status::Cuda`](crate::Status::Cuda) when the file cannot be written (the
    /// message names the path), [`Status::InvalidArgument`](crate::Status::InvalidArgument) for a
    /// path with a NUL byte.
    pub fn write_dot(&self, path: impl AsRef<Path>, options: &DotOptions) -> Result<()> {
        let path = c_path(path.as_ref(), "the DOT file's path")?;
        call!(cuabi_graph_write_dot(self.as_raw(), path.as_ptr(), options.flags))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_set_the_headers_flags() {
        assert_eq!(DotOptions::new().flags(), sys::CUABI_GRAPH_DOT_DEFAULT);
        assert_eq!(DotOptions::new().verbose().flags(), sys::CUABI_GRAPH_DOT_VERBOSE);
    }
}
