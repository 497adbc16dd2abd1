//! Compile batches without a GPU (offline for sm_90, real NVRTC): each request keeps its own
//! result, progress is readable, and a cancel from another thread ends a running heavy compile.

use cuabi::{compile_batch, CompileBatch, CompileOptions, CompileRequest, RequestState, Status};
use std::time::{Duration, Instant};

const GOOD: &str = "extern \"C\" __global__ void good(int* p) { p[0] = VALUE; }\n";
const BROKEN: &str = "extern \"C\" __global__ void broken(int* p) { p[0] = not_declared_rust; }\n";
const HEAVY: &str = "template <int D> struct Tree {\n\
    __device__ __forceinline__ static float run(float x, const float* p) {\n\
        return Tree<D - 1>::run(x * 1.0001f + p[D], p) * Tree<D - 1>::run(x - p[D + 1], p);\n\
    }\n\
};\n\
template <> struct Tree<0> {\n\
    __device__ __forceinline__ static float run(float x, const float* p) { return x + p[0]; }\n\
};\n\
extern \"C\" __global__ void heavy(float* p) { p[threadIdx.x] = Tree<12>::run(p[threadIdx.x], p); }\n";

fn fresh(define: &str) -> CompileOptions {
    let salt = format!("{}:{:?}", std::process::id(), Instant::now());
    CompileOptions::new().target("sm_90").define(define).salt(salt.as_bytes())
}

#[test]
fn a_batch_returns_each_requests_own_module_or_error() {
    let (one, two) = (fresh("VALUE=1"), fresh("VALUE=2"));
    let requests = [
        CompileRequest::offline(GOOD, &one),
        CompileRequest::offline(BROKEN, &two),
        CompileRequest::offline(GOOD, &two),
    ];
    let results = compile_batch(&requests).unwrap();
    assert_eq!(results.len(), 3);
    assert!(!results[0].as_ref().unwrap().image().unwrap().is_empty());
    let error = results[1].as_ref().unwrap_err();
    assert_eq!(error.status(), Status::Compile);
    assert!(error.compile_log().unwrap_or("").contains("not_declared_rust"), "{error}");
    assert!(results[2].is_ok());
}

#[test]
fn a_cancel_from_another_thread_ends_a_heavy_compile() {
    let options = fresh("VALUE=3");
    // NVRTC's own cache (12.9+) does not see cuabi's salt: a comment of its own makes NVRTC run.
    let source = format!("{HEAVY}// {}:{:?}\n", std::process::id(), Instant::now());
    let batch = CompileBatch::start(&[CompileRequest::offline(&source, &options)], 0).unwrap();
    let started = Instant::now();
    while batch.state(0).unwrap() == RequestState::Queued && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(1));
    }
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(batch.state(0).unwrap(), RequestState::Compiling);
    let returned = std::thread::scope(|scope| {
        let waiter = scope.spawn(|| (batch.module(0), Instant::now()));
        std::thread::sleep(Duration::from_millis(50));
        let cancelled = Instant::now();
        batch.cancel().unwrap();
        let (result, at) = waiter.join().unwrap();
        assert_eq!(result.unwrap_err().status(), Status::Cancelled);
        at - cancelled
    });
    assert!(returned < Duration::from_millis(250), "{returned:?}");
    assert_eq!(batch.state(0).unwrap(), RequestState::Done(Err(Status::Cancelled)));
    assert_eq!(batch.done().unwrap(), 1);
}

#[test]
fn an_empty_batch_and_a_bad_index_are_handled() {
    let batch = CompileBatch::start(&[], 0).unwrap();
    assert!(batch.is_empty());
    assert_eq!(batch.results().count(), 0);
    assert_eq!(batch.state(0).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(batch.module(3).unwrap_err().status(), Status::InvalidArgument);
    assert_eq!(cuabi::MAX_COMPILE_REQUESTS, 4096);
}
