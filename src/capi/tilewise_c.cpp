// The C ABI (include/tilewise/tilewise.h) over the C++ API: every call catches what the library throws and leaves the
// message for tw_last_error(), so no exception crosses into C or Python.
#include "tilewise/tilewise.h"

#include <fmt/format.h>

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "device/cuda.hpp"
#include "select/quantized.hpp"
#include "tilewise/tilewise.hpp"

struct tw_context {
  int device = 0;
  std::mutex lock;  // ctypes releases the GIL: Python threads may call at once
  std::unique_ptr<tilewise::Context> ctx;
};

namespace {

thread_local std::string last_error;
// Contexts destroyed so far: a choice stored before the latest destruction may be gone with its context's plan.
std::atomic<uint64_t> contexts_destroyed{0};
// What the thread's last call ran, described only when asked (the hot path stores, never formats).
thread_local struct {
  const tilewise::Choice* choice = nullptr;  // a plan's own, never replaced, alive while its context is
  uint64_t destroyed_before = 0;             // contexts_destroyed when `choice` was stored
  tilewise::WeightFormat format{};
  int64_t tokens = 0;  // on packed weights
  tilewise::LinearKernel kernel = tilewise::LinearKernel::gemv;  // on packed weights
  std::string text;
} last_run;

template <typename Fn>
int guarded(Fn&& fn) {
  try {
    fn();
    last_error.clear();
    return TW_OK;
  } catch (const tilewise::Unsupported& e) {
    last_error = e.what();
    return TW_UNSUPPORTED;
  } catch (const std::bad_alloc&) {
    last_error = "out of host memory";
  } catch (const std::exception& e) {
    last_error = e.what();
  } catch (...) {
    last_error = "unknown error";
  }
  return TW_ERROR;
}

tilewise::DType dtype_of(int32_t d) {
  if (d < TW_BF16 || d > TW_FP8_E4M3) throw tilewise::Error(fmt::format("unknown dtype code {}", d));
  return tilewise::DType(d);
}

tilewise::WeightFormat format_of(int32_t f) {
  if (f < TW_Q8_0 || f > TW_FP8) throw tilewise::Error(fmt::format("unknown weight format code {}", f));
  return tilewise::WeightFormat(f);
}

cudaStream_t stream_of(void* s) { return static_cast<cudaStream_t>(s); }

// `device` current for this thread while it lives, and the caller's device current again after (PyTorch reads the
// runtime's current device for its own allocations and streams).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    TW_CUDA(cudaGetDevice(&saved_));
    if (saved_ == device) return;
    TW_CUDA(cudaSetDevice(device));
    changed_ = true;
  }
  ~DeviceScope() {
    if (changed_) cudaSetDevice(saved_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int saved_ = 0;
  bool changed_ = false;
};

// The context's device current for this thread, and its lock held, for one call.
template <typename Fn>
int with_context(tw_context* c, Fn&& fn) {
  return guarded([&] {
    if (!c) throw tilewise::Error("no context (NULL)");
    const std::lock_guard<std::mutex> hold(c->lock);
    const DeviceScope on(c->device);
    fn(*c->ctx);
  });
}

void ran(const tilewise::Choice& choice) {
  last_run.choice = &choice;
  last_run.destroyed_before = contexts_destroyed.load(std::memory_order_acquire);
}


}  // namespace

extern "C" {

int tw_abi_version(void) { return TW_ABI_VERSION; }
const char* tw_last_error(void) { return last_error.c_str(); }
const char* tw_last_choice(void) {
  if (last_run.choice && last_run.destroyed_before != contexts_destroyed.load(std::memory_order_acquire)) {
    last_run.text = "not known: a context was destroyed since the call";
  } else if (last_run.choice) {
    const tilewise::Choice& c = *last_run.choice;
    last_run.text = fmt::format("{} {} ({})", c.family, c.config, c.source);
  } else if (last_run.tokens) {
    last_run.text = fmt::format("{} on packed {} weights, {} tokens", tilewise::to_string(last_run.kernel),
                                tilewise::to_string(last_run.format), last_run.tokens);
  }
  return last_run.text.c_str();
}

int tw_context_create(int device, const char* database, tw_context** out) {
  return guarded([&] {
    if (!out) throw tilewise::Error("tw_context_create needs somewhere to put the context");
    *out = nullptr;
    const int count = tilewise::device::require_gpu();
    if (device < 0 || device >= count) throw tilewise::Error(fmt::format("no CUDA device {} ({} present)", device, count));
    const DeviceScope on(device);
    auto c = std::make_unique<tw_context>();
    c->device = device;
    tilewise::ContextOptions o;
    if (database) o.database = database;
    c->ctx = std::make_unique<tilewise::Context>(o);
    *out = c.release();
  });
}

void tw_context_destroy(tw_context* ctx) {
  if (!ctx) return;
  contexts_destroyed.fetch_add(1, std::memory_order_acq_rel);
  delete ctx;
}

int tw_gemm(tw_context* c, const tw_problem* p, const void* A, const void* B, void* C, void* stream) {
  return with_context(c, [&](tilewise::Context& ctx) {
    if (!p) throw tilewise::Error("no problem (NULL)");
    if (p->layout != TW_TN && p->layout != TW_NN) throw tilewise::Error(fmt::format("unknown layout code {}", p->layout));
    const tilewise::Problem problem{"gemm",           p->M,  p->N, p->K, dtype_of(p->dtype), tilewise::Layout(p->layout),
                                    p->lda,           p->ldb, p->ldc};
    ran(tilewise::gemm(ctx, problem, A, B, C, stream_of(stream)));
  });
}

int tw_linear(tw_context* c, int32_t dtype, int64_t tokens, int64_t out_features, int64_t in_features, const void* x,
              const void* w, void* y, void* stream) {
  return with_context(c, [&](tilewise::Context& ctx) {
    if (tokens < 1 || out_features < 1 || in_features < 1)
      throw tilewise::Error(fmt::format("linear: tokens {}, out_features {} and in_features {} must each be positive",
                                        tokens, out_features, in_features));
    const tilewise::Problem p = tilewise::linear_problem(tokens, out_features, in_features, dtype_of(dtype));
    ran(tilewise::gemm(ctx, p, w, x, y, stream_of(stream)));
  });
}

int tw_packed_shape(int32_t format, int64_t out_features, int64_t in_features, int64_t* row_bytes,
                    int64_t* scale_bytes) {
  return guarded([&] {
    if (!row_bytes || !scale_bytes) throw tilewise::Error("tw_packed_shape needs somewhere to put its answer");
    const tilewise::PackedShape s = tilewise::packed_shape(format_of(format), out_features, in_features);
    *row_bytes = s.row_bytes;
    *scale_bytes = s.scale_bytes;
  });
}

int tw_quantize(const void* w, int32_t dtype, int64_t ld, int32_t format, int64_t out_features, int64_t in_features,
                void* q, void* scales, void* stream) {
  return guarded([&] {
    const tilewise::PackedShape s = tilewise::packed_shape(format_of(format), out_features, in_features);
    tilewise::quantize(w, dtype_of(dtype), ld, s, q, scales, stream_of(stream));
  });
}

int tw_quantize_host(const void* w, int32_t dtype, int64_t ld, int32_t format, int64_t out_features,
                     int64_t in_features, void* q, void* scales) {
  return guarded([&] {
    const tilewise::PackedShape s = tilewise::packed_shape(format_of(format), out_features, in_features);
    tilewise::quantize_host(w, dtype_of(dtype), ld, s, q, scales);
  });
}

int tw_dequantize_host(int32_t format, int64_t out_features, int64_t in_features, const void* q, const void* scales,
                       float* out) {
  return guarded([&] {
    const tilewise::PackedShape s = tilewise::packed_shape(format_of(format), out_features, in_features);
    tilewise::dequantize_host({s, q, scales}, out);
  });
}

int tw_dequantize(int32_t format, int64_t out_features, int64_t in_features, const void* q, const void* scales,
                  void* out, int32_t out_dtype, void* stream) {
  return guarded([&] {
    const tilewise::PackedShape s = tilewise::packed_shape(format_of(format), out_features, in_features);
    tilewise::dequantize({s, q, scales}, out, dtype_of(out_dtype), stream_of(stream));
  });
}

int tw_linear_packed(tw_context* c, int32_t dtype, int64_t tokens, int32_t format, int64_t out_features,
                     int64_t in_features, const void* x, const void* q, const void* scales, void* y, void* stream) {
  return tw_linear_packed_mma(c, dtype, tokens, format, out_features, in_features, x, q, scales, nullptr, nullptr, y,
                              stream);
}

int tw_pack_for_tensor_cores(int32_t format, int64_t out_features, int64_t in_features, const void* q,
                             const void* scales, void* q_mma, void* scales_mma, void* stream) {
  return guarded([&] {
    const tilewise::PackedShape s = tilewise::packed_shape(format_of(format), out_features, in_features);
    tilewise::pack_for_tensor_cores({s, q, scales}, q_mma, scales_mma, stream_of(stream));
  });
}

int tw_linear_packed_mma(tw_context* c, int32_t dtype, int64_t tokens, int32_t format, int64_t out_features,
                         int64_t in_features, const void* x, const void* q, const void* scales, const void* q_mma,
                         const void* scales_mma, void* y, void* stream) {
  return with_context(c, [&](tilewise::Context& ctx) {
    const tilewise::PackedShape s = tilewise::packed_shape(format_of(format), out_features, in_features);
    const tilewise::LinearKernel kernel = tilewise::select::run_linear(
        ctx, x, tokens, dtype_of(dtype), {s, q, scales, q_mma, scales_mma}, y, stream_of(stream));
    last_run.choice = nullptr, last_run.format = s.format, last_run.tokens = tokens;
    last_run.kernel = kernel;
  });
}

}  // extern "C"
