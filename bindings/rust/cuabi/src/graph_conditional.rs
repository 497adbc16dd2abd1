//! Conditional graph nodes: if, while and switch nodes whose bodies are captured on the capturing
//! stream, and the conditions kernels set on the device.

use crate::buffer::DeviceCopy;
use crate::error::Result;
use crate::ffi::call;
use crate::stream::Stream;
use cuabi_sys as sys;

/// The value of a conditional node: made for the graph being captured
/// ([`Stream::create_condition`]), passed to kernels as a `cudaGraphConditionalHandle` parameter
/// (8 bytes), which set it with `cudaGraphSetConditional(condition, value)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Condition(u64);

// Safety: a plain 64-bit value, passed to kernels by value.
unsafe impl DeviceCopy for Condition {}

impl Condition {
    /// The 64-bit value cuabi and the driver know the condition by.
    pub fn value(self) -> u64 {
        self.0
    }

    /// A condition from its value (as another binding or the raw API hands it out); cuabi refuses
    /// one it did not make for the graph a node goes into.
    pub fn from_value(value: u64) -> Condition {
        Condition(value)
    }
}

/// What a conditional node does with its bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ConditionalType {
    /// Body 0 once when the condition is non-zero; body 1 (if any) when it is zero.
    If,
    /// The body again and again while the condition is non-zero.
    While,
    /// Body n once when the condition is n; none when it is at least the body count.
    Switch,
    /// A type this binding does not know (also 0: a node cuabi did not add).
    Unknown(i32),
}

impl ConditionalType {
    pub(crate) fn code(self) -> i32 {
        match self {
            ConditionalType::If => sys::CUABI_GRAPH_CONDITIONAL_IF,
            ConditionalType::While => sys::CUABI_GRAPH_CONDITIONAL_WHILE,
            ConditionalType::Switch => sys::CUABI_GRAPH_CONDITIONAL_SWITCH,
            ConditionalType::Unknown(code) => code,
        }
    }

    pub(crate) fn from_code(code: sys::cuabi_graph_conditional_type) -> ConditionalType {
        match code {
            sys::CUABI_GRAPH_CONDITIONAL_IF => ConditionalType::If,
            sys::CUABI_GRAPH_CONDITIONAL_WHILE => ConditionalType::While,
            sys::CUABI_GRAPH_CONDITIONAL_SWITCH => ConditionalType::Switch,
            other => ConditionalType::Unknown(other),
        }
    }
}

/// A body of a conditional node: enqueues its work on the stream it is given.
pub type ConditionalBody<'a> = &'a mut dyn FnMut(&Stream) -> Result<()>;

/// Whether every replay starts with the condition at its default value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConditionReset {
    /// Each replay starts at the default value (`CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT`).
    EveryReplay,
    /// The condition keeps the value the last replay left.
    Never,
}

impl Stream {
    /// Makes a condition for the graph this stream captures into now: the capture, or the body
    /// being captured. [`crate::Status::Capture`] when the stream is not in a capture cuabi began;
    /// [`crate::Status::Unsupported`] on drivers before CUDA 12.3.
    pub fn create_condition(&self, default_value: u32, reset: ConditionReset) -> Result<Condition> {
        let flags = match reset {
            ConditionReset::EveryReplay => sys::CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT,
            ConditionReset::Never => sys::CUABI_GRAPH_CONDITION_DEFAULT,
        };
        let mut value = 0u64;
        call!(cuabi_graph_condition_create(self.as_raw(), default_value, flags, &mut value))?;
        Ok(Condition(value))
    }

    /// Adds a conditional node testing `condition` after the work captured so far and captures
    /// its `body_count` bodies: `body(index, stream)` enqueues body `index` on this stream. On any
    /// failure cuabi ends and discards the whole capture. While takes 1 body, if 1 or 2, switch
    /// 1 or more ([`crate::Status::InvalidArgument`] otherwise).
    pub fn capture_conditional(
        &self,
        condition: Condition,
        kind: ConditionalType,
        body_count: u32,
        mut body: impl FnMut(u32, &Stream) -> Result<()>,
    ) -> Result<()> {
        call!(cuabi_graph_capture_conditional_begin(self.as_raw(), condition.0, kind.code(), body_count))?;
        for index in 0..body_count {
            if index > 0 {
                call!(cuabi_graph_capture_conditional_next(self.as_raw()))?;
            }
            body(index, self)?;
        }
        call!(cuabi_graph_capture_conditional_end(self.as_raw()))
    }

    /// A while node: `body` runs on the device again and again while `condition` is non-zero.
    pub fn capture_while(&self, condition: Condition, body: impl FnOnce(&Stream) -> Result<()>) -> Result<()> {
        let mut body = Some(body);
        self.capture_conditional(condition, ConditionalType::While, 1, |_, stream| match body.take() {
            Some(run) => run(stream),
            None => Ok(()),
        })
    }

    /// An if node: `then` runs when `condition` is non-zero, `otherwise` (when given) when it is
    /// zero. An else body needs a CUDA 12.8 driver.
    pub fn capture_if(
        &self,
        condition: Condition,
        then: impl FnOnce(&Stream) -> Result<()>,
        otherwise: Option<ConditionalBody<'_>>,
    ) -> Result<()> {
        let mut then = Some(then);
        let mut otherwise = otherwise;
        let bodies = if otherwise.is_some() { 2 } else { 1 };
        self.capture_conditional(condition, ConditionalType::If, bodies, |index, stream| {
            if index == 0 {
                return then.take().map_or(Ok(()), |run| run(stream));
            }
            otherwise.as_mut().map_or(Ok(()), |run| run(stream))
        })
    }

    /// A switch node: case n runs when `condition` is n, none when it is at least `cases.len()`.
    /// Needs a CUDA 12.8 driver.
    pub fn capture_switch(&self, condition: Condition, cases: &mut [ConditionalBody<'_>]) -> Result<()> {
        let count = u32::try_from(cases.len()).unwrap_or(u32::MAX);
        self.capture_conditional(condition, ConditionalType::Switch, count, |index, stream| {
            (cases[index as usize])(stream)
        })
    }
}
